// Loading one plugin: manifest checks before dlopen, TSR_Plugin_Init, version negotiation after
// it, and the plugin's registrations (kept only when everything succeeded).
#ifndef TESSERA_REGISTRY_PLUGIN_LOADER_H_
#define TESSERA_REGISTRY_PLUGIN_LOADER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "registry/load_checks.h"
#include "registry/manifest.h"
#include "registry/registrar.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

class PluginLibrary;

enum class PluginState {
  kLoaded,    // its registrations are in use
  kRejected,  // refused; `status` says why, none of its registrations is kept
  kShadowed,  // loaded, but every device type it provides is served by a higher-ranked plugin
};

// "LOADED", "REJECTED" or "SHADOWED".
const char* PluginStateName(PluginState state);

// What `tessera plugins` shows for one plugin found.
struct PluginRecord {
  std::string manifest_path;  // "" for in-process plugins
  std::string library_path;
  std::string name;  // the manifest's name (the file name when the manifest is unreadable)
  std::string version;
  std::string vendor;
  int32_t priority = 0;
  std::vector<ManifestProvide> provides;
  PluginState state = PluginState::kRejected;
  absl::Status status;  // the rejection (OK otherwise)
  std::string reason;   // rejection or shadowing reason; "" when loaded and fully in use
  std::vector<std::string> warnings;  // e.g. registrations the plugin made that were refused
  // The versions TSR_Plugin_Init reported in TSR_PluginInfo; -1 when Init did not run or left
  // its info unfilled.
  int64_t info_abi_major = -1;
  int64_t info_abi_minor = -1;
  int64_t info_min_host_abi_minor = -1;
};

// A plugin compiled into the host process (tests, embedding): no manifest, no dlopen.
struct InProcessPlugin {
  std::string name;  // [a-z0-9_-]+; must equal the name Init reports
  std::string version = "0.0.0";
  std::string vendor = "in-process";
  int32_t priority = 0;
  std::vector<ManifestProvide> provides;
  TSR_Plugin_InitFn init = nullptr;
};

struct LoaderOptions {
  LoadPolicy policy;
  const TSR_HostApi* host_api = nullptr;  // from GetHostApi(); required
};

// The outcome of loading one plugin. `registrations` is empty unless the plugin was accepted.
struct LoadedPlugin {
  PluginRecord record;
  PluginRegistrations registrations;
  std::shared_ptr<const PluginLibrary> library;  // kept even when rejected after dlopen
};

// Loads the plugin described by the manifest at `manifest_path`. Never fails as a call: every
// problem becomes a REJECTED record.
LoadedPlugin LoadPlugin(const std::string& manifest_path, const LoaderOptions& options);

// Same, for an already parsed manifest.
LoadedPlugin LoadPluginFromManifest(const PluginManifest& manifest, const LoaderOptions& options);

// Runs an in-process plugin's Init with the same negotiation as a loaded one.
LoadedPlugin LoadInProcessPlugin(const InProcessPlugin& plugin, const LoaderOptions& options);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_PLUGIN_LOADER_H_
