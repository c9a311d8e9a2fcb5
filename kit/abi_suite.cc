// RunAbiSuite: the plugin against hosts of other ABI minors, its declared versions, and its shared
// object's exports and search paths.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kit/case_list.h"
#include "kit/elf_file.h"
#include "kit/registration_summary.h"
#include "kit/suite.h"
#include "registry/manifest.h"
#include "registry/plugin_registry.h"

namespace tessera::plugin_check {
namespace {

// A registry holding only the plugin under test, loaded by a host of ABI minor `host_minor`.
absl::StatusOr<std::unique_ptr<PluginRegistry>> LoadAlone(const PluginRecord& plugin,
                                                          uint32_t host_minor) {
  RegistryOptions options;
  options.plugin_paths = {plugin.manifest_path};
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  options.host_abi_minor = host_minor;
  options.emulate_newer_host = host_minor > TSR_ABI_VERSION_MINOR;
  return PluginRegistry::Create(options);
}

const PluginRecord* Find(const PluginRegistry& registry, const std::string& name) {
  for (const PluginRecord& record : registry.records()) {
    if (record.name == name) return &record;
  }
  return nullptr;
}

// "" when a refusal says what ABI.md asks: the plugin, both versions and what to do.
std::string RefusalProblems(const PluginRecord& record, const std::string& host_version) {
  std::vector<std::string> missing;
  if (record.status.code() != absl::StatusCode::kFailedPrecondition) {
    missing.push_back(absl::StrCat("the code FAILED_PRECONDITION (got ",
                                   absl::StatusCodeToString(record.status.code()), ")"));
  }
  if (!absl::StrContains(record.reason, absl::StrCat("'", record.name, "'"))) {
    missing.push_back("the plugin's name");
  }
  if (!absl::StrContains(record.reason, host_version)) {
    missing.push_back(absl::StrCat("the host's version ", host_version));
  }
  if (!absl::StrContains(record.reason, "upgrade") &&
      !absl::StrContains(record.reason, "install")) {
    missing.push_back("what to do (upgrade or install)");
  }
  return missing.empty() ? "" : absl::StrCat("the refusal lacks ", absl::StrJoin(missing, ", "),
                                             ": ", record.reason);
}

// Loads the plugin into a host of minor `host_minor` and checks the outcome: accepted with the
// same registrations as on this host, or refused as ABI.md says (only allowed when `may_refuse`).
void CheckHost(const SuiteContext& context, const PluginRegistry& baseline, uint32_t host_minor,
               bool may_refuse, const std::string& name, CaseList& cases) {
  const PluginRecord& plugin = *context.plugin;
  const std::string host_version = absl::StrCat(TSR_ABI_VERSION_MAJOR, ".", host_minor);
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = LoadAlone(plugin, host_minor);
  if (!registry.ok()) return cases.Fail(name, CaseList::Describe(registry.status()));
  const PluginRecord* record = Find(**registry, plugin.name);
  if (record == nullptr) return cases.Fail(name, "the plugin was not found by a fresh registry");
  if (record->state == PluginState::kRejected) {
    if (!may_refuse) {
      return cases.Fail(name, absl::StrCat("a host of ABI ", host_version, " (this host is ",
                                           TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR,
                                           ") must be served, but the plugin was refused: ",
                                           record->reason));
    }
    std::string problems = RefusalProblems(*record, host_version);
    if (!problems.empty()) return cases.Fail(name, problems);
    return cases.Pass(name, absl::StrCat("declined as documented: ", record->reason));
  }
  const std::vector<std::string> expected = SummarizeRegistrations(baseline, plugin.name);
  const std::vector<std::string> actual = SummarizeRegistrations(**registry, plugin.name);
  if (std::string differs = CompareSummaries(expected, actual); !differs.empty()) {
    return cases.Fail(name, absl::StrCat("on a host of ABI ", host_version,
                                         " the registrations differ from this host's: ", differs));
  }
  if (std::string problem = SmokeTestDevices(**registry, plugin.name); !problem.empty()) {
    return cases.Fail(name, absl::StrCat("on a host of ABI ", host_version, ": ", problem));
  }
  cases.Pass(name, absl::StrCat("loaded by a host of ABI ", host_version, "; ", actual.size(),
                                " registrations identical; devices allocate and copy"));
}

void CheckVersions(const PluginRecord& plugin, CaseList& cases) {
  absl::StatusOr<PluginManifest> manifest = ReadManifest(plugin.manifest_path);
  if (!manifest.ok()) return cases.Fail("versions", CaseList::Describe(manifest.status()));
  std::vector<std::string> problems;
  if (plugin.info_abi_major != manifest->abi_major) {
    problems.push_back(absl::StrCat("TSR_PluginInfo.abi_version_major is ", plugin.info_abi_major,
                                    ", the manifest's abi.major is ", manifest->abi_major));
  }
  if (plugin.info_min_host_abi_minor != manifest->abi_min_minor) {
    problems.push_back(absl::StrCat(
        "TSR_PluginInfo.min_host_abi_version_minor is ", plugin.info_min_host_abi_minor,
        ", the manifest's abi.min_minor is ", manifest->abi_min_minor,
        " (hosts refuse from the manifest before loading: keep them equal, e.g. "
        "tessera_add_plugin(... ABI_MIN_MINOR n))"));
  }
  if (plugin.info_abi_minor >= 0 && plugin.info_min_host_abi_minor > plugin.info_abi_minor) {
    problems.push_back(absl::StrCat("the minimum host minor ", plugin.info_min_host_abi_minor,
                                    " exceeds the minor the plugin implements, ",
                                    plugin.info_abi_minor));
  }
  if (!problems.empty()) return cases.Fail("versions", absl::StrJoin(problems, "; "));
  cases.Pass("versions", absl::StrCat("ABI ", plugin.info_abi_major, ".", plugin.info_abi_minor,
                                      ", needs host minor >= ", plugin.info_min_host_abi_minor,
                                      " (manifest and TSR_PluginInfo agree)"));
}

void CheckSharedObject(const PluginRecord& plugin, CaseList& cases) {
  absl::StatusOr<ElfDynamicInfo> elf = ReadElfDynamicInfo(plugin.library_path);
  if (!elf.ok()) {
    const char* names[] = {"exports", "undefined_symbols", "runpath"};
    for (const char* name : names) {
      if (elf.status().code() == absl::StatusCode::kUnimplemented) {
        cases.Skip(name, std::string(elf.status().message()));
      } else {
        cases.Fail(name, CaseList::Describe(elf.status()));
      }
    }
    return;
  }
  std::vector<std::string> extra;
  for (const std::string& symbol : elf->exported) {
    if (symbol != TSR_PLUGIN_INIT_SYMBOL) extra.push_back(symbol);
  }
  const bool has_init = extra.size() != elf->exported.size();
  if (!has_init || !extra.empty()) {
    cases.Fail(
        "exports",
        absl::StrCat(
            plugin.library_path, " must export exactly ", TSR_PLUGIN_INIT_SYMBOL,
            has_init ? "" : " (it does not)", extra.empty() ? "" : "; it also exports: ",
            absl::StrJoin(extra.begin(), extra.begin() + std::min<size_t>(extra.size(), 20), ", "),
            extra.size() > 20 ? absl::StrCat(" and ", extra.size() - 20, " more") : "",
            " (link with the SDK's version script: tessera_add_plugin does)"));
  } else {
    cases.Pass("exports", absl::StrCat("only ", TSR_PLUGIN_INIT_SYMBOL));
  }
  std::vector<std::string> host_symbols;
  for (const std::string& symbol : elf->undefined) {
    if (absl::StrContains(symbol, "TSR_") || absl::StrContains(symbol, "tessera")) {
      host_symbols.push_back(symbol);
    }
  }
  if (host_symbols.empty()) {
    cases.Pass("undefined_symbols", "no TSR_ or tessera symbol left for the host to resolve");
  } else {
    cases.Fail("undefined_symbols",
               absl::StrCat(plugin.library_path, " needs symbols from the host (everything must "
                            "come through TSR_HostApi): ", absl::StrJoin(host_symbols, ", ")));
  }
  std::vector<std::string> problems;
  for (const std::string& value : elf->search_paths) {
    for (const std::string& problem : SearchPathProblems(value)) {
      problems.push_back(absl::StrCat("RUNPATH '", value, "' has ", problem));
    }
  }
  if (problems.empty()) {
    cases.Pass("runpath", elf->search_paths.empty()
                              ? "no RUNPATH"
                              : absl::StrCat("RUNPATH '", absl::StrJoin(elf->search_paths, "', '"),
                                             "' is safe"));
  } else {
    cases.Fail("runpath", absl::StrCat(plugin.library_path, ": ", absl::StrJoin(problems, "; "),
                                       " (a library planted there would be loaded)"));
  }
}

}  // namespace

void RunAbiSuite(const SuiteContext& context, std::vector<CaseResult>* results) {
  CaseList cases("abi", "", results);
  const PluginRecord& plugin = *context.plugin;
  if (plugin.manifest_path.empty()) {
    cases.Skip("abi", "an in-process plugin has no manifest or shared object");
    return;
  }
  CheckVersions(plugin, cases);
  absl::StatusOr<std::unique_ptr<PluginRegistry>> baseline =
      LoadAlone(plugin, TSR_ABI_VERSION_MINOR);
  if (!baseline.ok()) {
    cases.Fail("this_host", CaseList::Describe(baseline.status()));
  } else {
    // Older hosts: the one just below this host, and the one just below the plugin's minimum,
    // which must refuse.
    if (TSR_ABI_VERSION_MINOR == 0) {
      cases.Skip("older_host", absl::StrCat("ABI ", TSR_ABI_VERSION_MAJOR,
                                            ".0 is the first minor of its major: no older host"));
    } else {
      const uint32_t older = TSR_ABI_VERSION_MINOR - 1;
      const bool may_refuse = plugin.info_min_host_abi_minor > static_cast<int64_t>(older);
      CheckHost(context, **baseline, older, may_refuse, "older_host", cases);
    }
    CheckHost(context, **baseline, TSR_ABI_VERSION_MINOR + 1, /*may_refuse=*/true, "newer_host",
              cases);
  }
  CheckSharedObject(plugin, cases);
}

}  // namespace tessera::plugin_check
