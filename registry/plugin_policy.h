// The user's choice and lock of plugins (which may load, whether a manifest must carry a sha256,
// which plugin serves a device type), from options and from a JSON policy file, with where each
// setting came from so that refusals and rankings can name it.
#ifndef TESSERA_REGISTRY_PLUGIN_POLICY_H_
#define TESSERA_REGISTRY_PLUGIN_POLICY_H_

#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

// The environment variable naming the policy file.
inline constexpr char kPluginConfigEnv[] = "TESSERA_PLUGIN_CONFIG";

// The system policy file read when neither an explicit file nor TESSERA_PLUGIN_CONFIG is given
// ("/etc/tessera/plugins.json" unless the build sets TESSERA_SYSTEM_PLUGIN_CONFIG).
absl::string_view SystemPluginConfigPath();

// What a caller (registry, session, server, command line) asks for. The settings here override
// the policy file's, setting by setting (see ResolvePluginPolicy).
struct PluginPolicyOptions {
  // Only these plugin names load (nullopt: the file's allowlist, or any plugin).
  std::optional<std::set<std::string>> allowlist;
  // Refuse plugins whose manifest has no sha256 (false: as the file says).
  bool require_sha256 = false;
  // The user's choice of provider per device type ("GPU" -> "acme-gpu"): ranks first. Replaces
  // the file's choice for the same type; the file's other choices stay.
  std::map<std::string, std::string> preferred_providers;
  // How messages name where each setting above came from ("--plugin-allow",
  // "SessionOptions::plugin_policy"); "" reads "the options".
  std::string allowlist_source;
  std::string require_sha256_source;
  std::string preferred_providers_source;

  // The policy file: an explicit path (NOT_FOUND when missing); nullopt: the value of
  // TESSERA_PLUGIN_CONFIG (NOT_FOUND when it names a missing file), else the system file (none
  // when missing).
  std::optional<std::string> config_file;
  // The value to use for TESSERA_PLUGIN_CONFIG (nullopt: the environment; "": unset).
  std::optional<std::string> config_env;
  // The system file (nullopt: SystemPluginConfigPath(); "": none).
  std::optional<std::string> system_config_file;

  // Fills the empty sources with `source`.
  void NameSources(absl::string_view source);
  // A string that differs whenever two options would give a different policy for the same
  // files and environment (a cache key).
  std::string Key() const;
};

// A setting and where it came from: "--plugin-allow", "config file /etc/tessera/plugins.json".
struct PluginPreference {
  std::string plugin;
  std::string source;
};

// The policy in force: the file's settings overridden by the options'.
struct PluginPolicy {
  std::optional<std::set<std::string>> allowlist;
  std::string allowlist_source;
  bool require_sha256 = false;
  std::string require_sha256_source;
  std::map<std::string, PluginPreference> preferred_providers;  // by device type
  // The policy file read ("" when none).
  std::string config_file;

  // "--plugin-prefer GPU=acme-gpu" or "config file F (GPU=acme-gpu)": how a ranking names the
  // preference of `device_type`; "" when there is none.
  std::string DescribePreference(const std::string& device_type) const;
};

// Whether `name` is a device type name as registrations spell it: [A-Z][A-Z0-9_]*.
bool IsDeviceTypeName(absl::string_view name);

// Parses a policy file's contents, e.g.
//   {"allow": ["cpu", "grpc"], "require_sha256": true, "prefer": {"GPU": "acme-gpu"}}
// Every key is optional; an unknown key, a value of the wrong type, a name that is not a plugin
// name or a device type that is not one is INVALID_ARGUMENT naming `path` and the key.
absl::StatusOr<PluginPolicy> ParsePluginConfig(const std::string& path,
                                               absl::string_view contents);

// Reads and parses the policy file at `path`: NOT_FOUND when it does not exist or cannot be read.
absl::StatusOr<PluginPolicy> ReadPluginConfig(const std::string& path);

// The policy file `options` select, or "" when none applies (a missing system file): NOT_FOUND
// for a missing explicit or TESSERA_PLUGIN_CONFIG file.
absl::StatusOr<std::string> FindPluginConfig(const PluginPolicyOptions& options);

// The policy in force. Precedence, setting by setting: an allowlist in the options replaces the
// file's; require_sha256 holds when either asks for it; a preferred provider in the options
// replaces the file's for its device type. With `read_files` false no file is looked up unless
// `options.config_file` names one. INVALID_ARGUMENT for a malformed option or file (naming its
// source), NOT_FOUND as FindPluginConfig.
absl::StatusOr<PluginPolicy> ResolvePluginPolicy(const PluginPolicyOptions& options,
                                                 bool read_files = true);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_PLUGIN_POLICY_H_
