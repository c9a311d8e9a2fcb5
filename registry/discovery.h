// Discovery: which manifest files the host considers, and in which order.
#ifndef TESSERA_REGISTRY_DISCOVERY_H_
#define TESSERA_REGISTRY_DISCOVERY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera {

// The environment variable holding extra plugin folders, ':'-separated.
inline constexpr char kPluginPathEnv[] = "TESSERA_PLUGIN_PATH";

struct DiscoveryOptions {
  // Searched first, in order: each a manifest file or a folder. Relative paths are taken
  // relative to the current directory (the user named them); a path that does not exist makes
  // discovery fail with NOT_FOUND.
  std::vector<std::string> explicit_paths;
  // The value of TESSERA_PLUGIN_PATH; nullopt reads the environment. Relative and empty entries
  // are ignored with a warning (the current directory is never searched implicitly).
  std::optional<std::string> plugin_path_env;
  // The install's plugin folder; nullopt means DefaultPluginDir(), "" searches no default folder.
  std::optional<std::string> default_plugin_dir;
};

struct DiscoveryResult {
  // Absolute manifest paths, in search order, each listed once (the first time it is reached).
  std::vector<std::string> manifest_paths;
  // Entries that were skipped and why (relative TESSERA_PLUGIN_PATH entries, missing folders).
  std::vector<std::string> warnings;
};

// dirname(/proc/self/exe)/../lib/tessera/plugins, normalised; "" when /proc/self/exe is
// unreadable. The build tree and the installed tree share this layout.
std::string DefaultPluginDir();

// Every `*.tessera-plugin.json` directly inside `folder` (not recursive), sorted by file name.
std::vector<std::string> ListManifests(const std::string& folder);

// Applies the search order: explicit paths, then TESSERA_PLUGIN_PATH, then the default folder.
absl::StatusOr<DiscoveryResult> DiscoverManifests(const DiscoveryOptions& options);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_DISCOVERY_H_
