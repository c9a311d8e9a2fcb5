// RunChecks: loads the plugin under test through a PluginRegistry, as a host does, reports the
// outcome as the "load" case and runs the suites that apply.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kit/case_list.h"
#include "kit/suite.h"
#include "registry/discovery.h"
#include "registry/manifest.h"
#include "registry/plugin_registry.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

namespace fs = std::filesystem;

std::string Canonical(const std::string& path) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  return error ? fs::absolute(path).lexically_normal().string() : canonical.string();
}

// The manifest file `plugin_path` names: the file itself, or the one manifest in a folder.
// On failure, the "load" message.
bool ResolveManifest(const std::string& plugin_path, std::string* manifest, std::string* error) {
  std::error_code ec;
  if (plugin_path.empty()) {
    *error = "no plugin given: pass the plugin's manifest (NAME.tessera-plugin.json) or its folder";
    return false;
  }
  if (!fs::exists(plugin_path, ec)) {
    *error = absl::StrCat("plugin path '", plugin_path, "' does not exist");
    return false;
  }
  if (!fs::is_directory(plugin_path, ec)) {
    *manifest = Canonical(plugin_path);
    return true;
  }
  const std::vector<std::string> manifests = ListManifests(plugin_path);
  if (manifests.size() != 1) {
    *error = absl::StrCat(
        "folder '", plugin_path, "' holds ", manifests.size(), " plugin manifests (*",
        kManifestSuffix, ")", manifests.empty() ? "" : ": ", absl::StrJoin(manifests, ", "),
        "; name the manifest of the plugin to check");
    return false;
  }
  *manifest = Canonical(manifests[0]);
  return true;
}

RegistryOptions MakeRegistryOptions(const CheckOptions& options, const std::string& manifest) {
  RegistryOptions registry;
  registry.plugin_paths = {manifest};
  if (options.support_plugin_paths.empty()) {
    // As the host does: the install's plugin folder and TESSERA_PLUGIN_PATH.
    registry.plugin_path_env = std::nullopt;
    registry.default_plugin_dir = std::nullopt;
  } else {
    registry.plugin_paths.insert(registry.plugin_paths.end(), options.support_plugin_paths.begin(),
                                 options.support_plugin_paths.end());
    registry.plugin_path_env = "";
    registry.default_plugin_dir = "";
  }
  return registry;
}

const PluginRecord* FindByManifest(const PluginRegistry& registry, const std::string& manifest) {
  for (const PluginRecord& record : registry.records()) {
    if (!record.manifest_path.empty() && Canonical(record.manifest_path) == manifest) {
      return &record;
    }
  }
  return nullptr;
}

std::string Provides(const PluginRecord& record) {
  std::vector<std::string> provides;
  for (const ManifestProvide& provide : record.provides) provides.push_back(provide.ToString());
  return provides.empty() ? "nothing declared" : absl::StrJoin(provides, ", ");
}

bool Wanted(const CheckOptions& options, const std::string& suite) {
  return std::find(options.suites.begin(), options.suites.end(), suite) != options.suites.end();
}

// Runs one suite, turning an escaped exception into a failing case.
void RunGuarded(const char* suite, void (*run)(const SuiteContext&, std::vector<CaseResult>*),
                const SuiteContext& context, std::vector<CaseResult>* results) {
  try {
    run(context, results);
  } catch (const std::exception& e) {
    results->push_back(CaseResult{suite, "exception", Outcome::kFail,
                                  absl::StrCat("the ", suite, " suite stopped: ", e.what())});
  } catch (...) {
    results->push_back(
        CaseResult{suite, "exception", Outcome::kFail,
                   absl::StrCat("the ", suite, " suite stopped: unknown exception")});
  }
}

void RunSuites(const CheckOptions& options, const PluginRegistry& registry,
               const PluginRecord& record, std::vector<CaseResult>* results) {
  SuiteContext context;
  context.options = &options;
  context.registry = &registry;
  context.plugin = &record;
  auto from_plugin = [&](const auto& specs) {
    return std::any_of(specs.begin(), specs.end(),
                       [&](const auto& spec) { return spec.origin.plugin_name == record.name; });
  };
  // Explicitly requested suites always run (and skip, with the reason, what does not apply);
  // without a request, every suite that applies to what the plugin registered.
  const bool all = options.suites.empty();
  if (Wanted(options, "device") || (all && from_plugin(registry.device_types()))) {
    RunGuarded("device", &RunDeviceSuite, context, results);
  }
  if (Wanted(options, "kernels") || (all && from_plugin(registry.kernels()))) {
    RunGuarded("kernels", &RunKernelSuite, context, results);
  }
  if (Wanted(options, "transport") || (all && from_plugin(registry.transports()))) {
    RunGuarded("transport", &RunTransportSuite, context, results);
  }
  if (Wanted(options, "abi") || all) RunGuarded("abi", &RunAbiSuite, context, results);
}

}  // namespace

Report RunChecks(const CheckOptions& options) {
  Report report;
  report.plugin_path = options.plugin_path;
  CaseList load("load", "", &report.cases);
  for (const std::string& suite : options.suites) {
    const std::vector<std::string>& known = KnownSuites();
    if (std::find(known.begin(), known.end(), suite) == known.end()) {
      load.Fail("load", absl::StrCat("unknown suite '", suite, "' (expected one of ",
                                     absl::StrJoin(known, ", "), ")"));
      return report;
    }
  }
  std::string manifest;
  std::string error;
  if (!ResolveManifest(options.plugin_path, &manifest, &error)) {
    load.Fail("load", error);
    return report;
  }
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry =
      PluginRegistry::Create(MakeRegistryOptions(options, manifest));
  if (!registry.ok()) {
    load.Fail("load", absl::StrCat("cannot create a plugin registry: ",
                                   CaseList::Describe(registry.status())));
    return report;
  }
  const PluginRecord* record = FindByManifest(**registry, manifest);
  if (record == nullptr) {
    load.Fail("load", absl::StrCat("the registry did not consider ", manifest,
                                   " (is it a *", kManifestSuffix, " file?)"));
    return report;
  }
  if (record->state == PluginState::kRejected) {
    load.Fail("load", record->reason);
    return report;
  }
  report.plugin_name = record->name;
  report.plugin_version = record->version;
  std::string detail = absl::StrCat("loaded ", record->library_path, "; provides ",
                                    Provides(*record));
  if (record->state == PluginState::kShadowed) {
    absl::StrAppend(&detail, "; shadowed: ", record->reason);
  }
  std::vector<std::string> refused;
  for (const std::string& warning : record->warnings) {
    if (warning.rfind("registration refused", 0) == 0) {
      refused.push_back(warning);
    } else {
      absl::StrAppend(&detail, "; ", warning);
    }
  }
  load.Pass("load", detail);
  if (refused.empty()) {
    load.Pass("registrations", "every registration was accepted");
  } else {
    load.Fail("registrations",
              absl::StrCat("the host refused ", refused.size(), " registration(s) the plugin made "
                           "in TSR_Plugin_Init; fix them (the host drops them):\n",
                           absl::StrJoin(refused, "\n")));
  }
  RunSuites(options, **registry, *record, &report.cases);
  return report;
}

}  // namespace tessera::plugin_check
