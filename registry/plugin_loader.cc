// Loading one plugin and negotiating versions with it.
#include "registry/plugin_loader.h"

#include <exception>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "registry/abi_status.h"
#include "registry/plugin_library.h"

namespace tessera {
namespace {

// Who the plugin is, as far as the host knows before Init.
struct Identity {
  std::string name;
  std::string version;
  std::string library_path;
  std::string plugin_dir;
  int32_t priority = 0;
};

LoadedPlugin Rejected(LoadedPlugin loaded, absl::Status status) {
  loaded.record.state = PluginState::kRejected;
  loaded.record.reason = std::string(status.message());
  loaded.record.status = std::move(status);
  loaded.registrations = PluginRegistrations();
  return loaded;
}

// The host never calls a slot added in a minor newer than the one the plugin implements, even
// when the plugin's struct_size would cover it. Every slot of ABI 1.0 exists from minor 0, so
// there is nothing to drop yet; a slot added in minor N is cleared here for plugins below N.
void DropSlotsNewerThan(uint32_t /*plugin_minor*/, PluginRegistrations& /*registrations*/) {}

// Calls Init, then checks what the plugin reported. Keeps the registrations only on success.
absl::Status RunInit(TSR_Plugin_InitFn init, const Identity& identity,
                     std::shared_ptr<const PluginLibrary> library, const LoaderOptions& options,
                     LoadedPlugin& loaded) {
  const std::string plugin = DescribePlugin(identity.name, identity.version, identity.library_path);
  if (options.host_api == nullptr) {
    return absl::InternalError(absl::StrCat(plugin, ": no host table to give the plugin"));
  }
  TSR_PluginInfo info{};
  info.struct_size = sizeof(TSR_PluginInfo);
  TSR_Registrar registrar(PluginOrigin{identity.name, identity.priority, std::move(library)});
  TSR_Plugin_Init_Args args{};
  args.struct_size = sizeof(TSR_Plugin_Init_Args);
  args.host_abi_version_major = options.policy.host_abi_major;
  args.host_abi_version_minor = options.policy.host_abi_minor;
  args.host = options.host_api;
  args.info = &info;
  args.registrar = &registrar;
  args.plugin_dir = identity.plugin_dir.c_str();

  TSR_Status* init_status = nullptr;
  const std::string call = absl::StrCat(plugin, " ", TSR_PLUGIN_INIT_SYMBOL);
  try {
    init_status = init(&args);
  } catch (const std::exception& e) {
    registrar.open = false;
    return absl::InternalError(absl::StrCat(call, " threw an exception: ", e.what()));
  } catch (...) {
    registrar.open = false;
    return absl::InternalError(absl::StrCat(call, " threw an exception of unknown type"));
  }
  registrar.open = false;
  absl::Status status = FromAbiStatus(init_status, call);

  // Version refusals come first: a plugin that cannot serve this host often says so in its
  // status too, but the negotiated message says what to do.
  if (info.name != nullptr) {
    loaded.record.info_abi_major = info.abi_version_major;
    loaded.record.info_abi_minor = info.abi_version_minor;
    loaded.record.info_min_host_abi_minor = info.min_host_abi_version_minor;
    RETURN_IF_ERROR(CheckAbiVersion(plugin, identity.name, info.abi_version_major,
                                    info.min_host_abi_version_minor, options.policy,
                                    "as reported by TSR_Plugin_Init"));
  }
  RETURN_IF_ERROR(status);
  if (info.name == nullptr || info.version == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(call, " returned OK without filling its info (name and version)"));
  }
  if (identity.name != info.name) {
    return absl::InvalidArgumentError(absl::StrCat(
        call, " reports name '", info.name, "', but its manifest says '", identity.name, "'"));
  }
  if (identity.version != info.version) {
    loaded.record.warnings.push_back(absl::StrCat("TSR_Plugin_Init reports version ", info.version,
                                                  ", the manifest says ", identity.version));
  }
  for (const absl::Status& refused : registrar.errors) {
    loaded.record.warnings.push_back(absl::StrCat("registration refused: ", refused.message()));
  }
  loaded.registrations = std::move(registrar.registrations);
  DropSlotsNewerThan(info.abi_version_minor, loaded.registrations);
  return absl::OkStatus();
}

PluginRecord RecordFromManifest(const PluginManifest& manifest) {
  PluginRecord record;
  record.manifest_path = manifest.path;
  record.library_path = manifest.library_path;
  record.name = manifest.name;
  record.version = manifest.version;
  record.vendor = manifest.vendor;
  record.priority = manifest.priority;
  record.provides = manifest.provides;
  return record;
}

}  // namespace

const char* PluginStateName(PluginState state) {
  switch (state) {
    case PluginState::kLoaded:
      return "LOADED";
    case PluginState::kRejected:
      return "REJECTED";
    case PluginState::kShadowed:
      return "SHADOWED";
  }
  return "UNKNOWN";
}

LoadedPlugin LoadPlugin(const std::string& manifest_path, const LoaderOptions& options) {
  absl::StatusOr<PluginManifest> manifest = ReadManifest(manifest_path);
  if (!manifest.ok()) {
    LoadedPlugin loaded;
    loaded.record.manifest_path = manifest_path;
    std::string name = std::filesystem::path(manifest_path).filename().string();
    if (name.size() > kManifestSuffix.size()) name.resize(name.size() - kManifestSuffix.size());
    loaded.record.name = name;
    return Rejected(std::move(loaded), manifest.status());
  }
  return LoadPluginFromManifest(*manifest, options);
}

LoadedPlugin LoadPluginFromManifest(const PluginManifest& manifest, const LoaderOptions& options) {
  LoadedPlugin loaded;
  loaded.record = RecordFromManifest(manifest);
  absl::Status checks = CheckBeforeLoad(manifest, options.policy);
  if (!checks.ok()) return Rejected(std::move(loaded), std::move(checks));

  const std::string plugin = DescribePlugin(manifest.name, manifest.version, manifest.library_path);
  absl::StatusOr<std::shared_ptr<const PluginLibrary>> library =
      PluginLibrary::Load(manifest.library_path);
  if (!library.ok()) return Rejected(std::move(loaded), WithContext(library.status(), plugin));
  loaded.library = *library;
  absl::StatusOr<TSR_Plugin_InitFn> init = (*library)->FindInit();
  if (!init.ok()) return Rejected(std::move(loaded), WithContext(init.status(), plugin));

  Identity identity{manifest.name, manifest.version, manifest.library_path,
                    std::filesystem::path(manifest.path).parent_path().string(), manifest.priority};
  absl::Status status = RunInit(*init, identity, *library, options, loaded);
  if (!status.ok()) return Rejected(std::move(loaded), std::move(status));
  loaded.record.state = PluginState::kLoaded;
  return loaded;
}

LoadedPlugin LoadInProcessPlugin(const InProcessPlugin& plugin, const LoaderOptions& options) {
  LoadedPlugin loaded;
  loaded.record.name = plugin.name;
  loaded.record.version = plugin.version;
  loaded.record.vendor = plugin.vendor;
  loaded.record.priority = plugin.priority;
  loaded.record.provides = plugin.provides;
  loaded.library = PluginLibrary::InProcess(plugin.name);
  loaded.record.library_path = loaded.library->path();
  if (plugin.init == nullptr) {
    return Rejected(std::move(loaded),
                    absl::InvalidArgumentError(absl::StrCat("in-process plugin '", plugin.name,
                                                            "' has no init function")));
  }
  Identity identity{plugin.name, plugin.version, loaded.library->path(), "", plugin.priority};
  absl::Status status = RunInit(plugin.init, identity, loaded.library, options, loaded);
  if (!status.ok()) return Rejected(std::move(loaded), std::move(status));
  loaded.record.state = PluginState::kLoaded;
  return loaded;
}

}  // namespace tessera
