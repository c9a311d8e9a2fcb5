// The plugin policy: the JSON policy file, where it is looked up, and its merge with options.
#include "registry/plugin_policy.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"
#include "registry/manifest.h"

#ifndef TESSERA_SYSTEM_PLUGIN_CONFIG
#define TESSERA_SYSTEM_PLUGIN_CONFIG "/etc/tessera/plugins.json"
#endif

namespace tessera {
namespace {

using Json = nlohmann::json;

// A policy file is a few lines; anything far larger is not one.
constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;

std::string SourceOrDefault(const std::string& source) {
  return source.empty() ? "the options" : source;
}

std::string ConfigSource(const std::string& path) { return absl::StrCat("config file ", path); }

// The JSON value as the user wrote it, shortened for messages.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

absl::Status ConfigError(const std::string& path, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("plugin config file ", path, ": ", message));
}

absl::Status CheckPluginName(absl::string_view name, absl::string_view what,
                             absl::string_view source) {
  if (IsValidPluginName(name)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " '", name, "' is not a plugin name ([a-z0-9_-]+) (from ", source, ")"));
}

absl::Status CheckPreference(const std::string& device_type, const std::string& plugin,
                             absl::string_view source) {
  if (!IsDeviceTypeName(device_type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("preferred provider given for '", device_type,
                     "', which is not a device type name ([A-Z][A-Z0-9_]*) (from ", source, ")"));
  }
  if (IsValidPluginName(plugin)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("preferred provider '", plugin,
                                                 "' for device type '", device_type,
                                                 "' is not a plugin name ([a-z0-9_-]+) (from ",
                                                 source, ")"));
}

}  // namespace

absl::string_view SystemPluginConfigPath() { return TESSERA_SYSTEM_PLUGIN_CONFIG; }

bool IsDeviceTypeName(absl::string_view name) {
  if (name.empty() || !(name[0] >= 'A' && name[0] <= 'Z')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void PluginPolicyOptions::NameSources(absl::string_view source) {
  for (std::string* field :
       {&allowlist_source, &require_sha256_source, &preferred_providers_source}) {
    if (field->empty()) *field = std::string(source);
  }
}

std::string PluginPolicyOptions::Key() const {
  auto optional = [](const std::optional<std::string>& value) {
    return value.has_value() ? absl::StrCat("=", *value) : std::string("-");
  };
  return absl::StrCat(
      allowlist.has_value() ? absl::StrCat("=", absl::StrJoin(*allowlist, ",")) : "-", "\x1f",
      require_sha256 ? 1 : 0, "\x1f",
      absl::StrJoin(preferred_providers, ",", absl::PairFormatter("=")), "\x1f",
      allowlist_source, "\x1f", require_sha256_source, "\x1f", preferred_providers_source, "\x1f",
      optional(config_file), "\x1f", optional(config_env), "\x1f", optional(system_config_file));
}

std::string PluginPolicy::DescribePreference(const std::string& device_type) const {
  auto it = preferred_providers.find(device_type);
  if (it == preferred_providers.end()) return "";
  const std::string setting = absl::StrCat(device_type, "=", it->second.plugin);
  if (absl::StartsWith(it->second.source, "--")) {
    return absl::StrCat(it->second.source, " ", setting);
  }
  return absl::StrCat(it->second.source, " (", setting, ")");
}

absl::StatusOr<PluginPolicy> ParsePluginConfig(const std::string& path,
                                               absl::string_view contents) {
  Json root;
  try {
    root = Json::parse(contents.begin(), contents.end());
  } catch (const Json::exception& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    absl::string_view what = e.what();
    const size_t bracket = what.find("] ");
    if (bracket != absl::string_view::npos) what.remove_prefix(bracket + 2);
    return ConfigError(path, absl::StrCat("malformed JSON: ", what));
  }
  if (!root.is_object()) {
    return ConfigError(path, absl::StrCat("expected a JSON object such as {\"allow\": [\"cpu\"]}, "
                                          "got ",
                                          Shown(root)));
  }
  PluginPolicy policy;
  policy.config_file = path;
  const std::string source = ConfigSource(path);
  for (const auto& [key, value] : root.items()) {
    if (key == "allow") {
      if (!value.is_array()) {
        return ConfigError(path, absl::StrCat("key 'allow': expected an array of plugin names, "
                                              "got ",
                                              Shown(value)));
      }
      std::set<std::string> names;
      for (const Json& entry : value) {
        if (!entry.is_string() || !IsValidPluginName(entry.get<std::string>())) {
          return ConfigError(path, absl::StrCat("key 'allow': entry ", Shown(entry),
                                                " is not a plugin name ([a-z0-9_-]+)"));
        }
        names.insert(entry.get<std::string>());
      }
      policy.allowlist = std::move(names);
      policy.allowlist_source = source;
    } else if (key == "require_sha256") {
      if (!value.is_boolean()) {
        return ConfigError(path, absl::StrCat("key 'require_sha256': expected true or false, got ",
                                              Shown(value)));
      }
      policy.require_sha256 = value.get<bool>();
      if (policy.require_sha256) policy.require_sha256_source = source;
    } else if (key == "prefer") {
      if (!value.is_object()) {
        return ConfigError(path, absl::StrCat("key 'prefer': expected an object of device type to "
                                              "plugin name ({\"GPU\": \"acme-gpu\"}), got ",
                                              Shown(value)));
      }
      for (const auto& [device_type, plugin] : value.items()) {
        if (!IsDeviceTypeName(device_type)) {
          return ConfigError(path, absl::StrCat("key 'prefer': '", device_type,
                                                "' is not a device type name ([A-Z][A-Z0-9_]*)"));
        }
        if (!plugin.is_string() || !IsValidPluginName(plugin.get<std::string>())) {
          return ConfigError(path, absl::StrCat("key 'prefer.", device_type, "': ", Shown(plugin),
                                                " is not a plugin name ([a-z0-9_-]+)"));
        }
        policy.preferred_providers[device_type] = {plugin.get<std::string>(), source};
      }
    } else {
      // A misspelt key must not leave the plugins it meant to lock unlocked.
      return ConfigError(path, absl::StrCat("unknown key '", key,
                                            "' (known: allow, prefer, require_sha256)"));
    }
  }
  return policy;
}

absl::StatusOr<PluginPolicy> ReadPluginConfig(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    return absl::NotFoundError(absl::StrCat("plugin config file ", path, " does not exist"));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return ConfigError(path, "is not a regular file");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > kMaxConfigBytes) {
    return ConfigError(path, absl::StrCat(size, " bytes, more than the limit of ",
                                          kMaxConfigBytes));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("plugin config file ", path, " cannot be read"));
  }
  const std::string contents((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  return ParsePluginConfig(path, contents);
}

absl::StatusOr<std::string> FindPluginConfig(const PluginPolicyOptions& options) {
  auto must_exist = [](const std::string& path,
                       absl::string_view given_by) -> absl::StatusOr<std::string> {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      return absl::NotFoundError(
          absl::StrCat("plugin config file ", path, " (", given_by, ") does not exist"));
    }
    return path;
  };
  if (options.config_file.has_value()) {
    return must_exist(*options.config_file, "given explicitly");
  }
  std::string env;
  if (options.config_env.has_value()) {
    env = *options.config_env;
  } else if (const char* value = std::getenv(kPluginConfigEnv)) {
    env = value;
  }
  if (!env.empty()) return must_exist(env, absl::StrCat("from ", kPluginConfigEnv));
  const std::string system = options.system_config_file.has_value()
                                 ? *options.system_config_file
                                 : std::string(SystemPluginConfigPath());
  std::error_code error;
  if (system.empty() || !std::filesystem::exists(system, error)) return std::string();
  return system;
}

absl::StatusOr<PluginPolicy> ResolvePluginPolicy(const PluginPolicyOptions& options,
                                                 bool read_files) {
  // The options first: a bad option is reported even when a file is bad too.
  if (options.allowlist.has_value()) {
    for (const std::string& name : *options.allowlist) {
      RETURN_IF_ERROR(
          CheckPluginName(name, "allowlist entry", SourceOrDefault(options.allowlist_source)));
    }
  }
  for (const auto& [device_type, plugin] : options.preferred_providers) {
    RETURN_IF_ERROR(CheckPreference(device_type, plugin,
                                    SourceOrDefault(options.preferred_providers_source)));
  }

  PluginPolicy policy;
  if (read_files || options.config_file.has_value()) {
    ASSIGN_OR_RETURN(const std::string path, FindPluginConfig(options));
    if (!path.empty()) {
      ASSIGN_OR_RETURN(policy, ReadPluginConfig(path));
    }
  }
  if (options.allowlist.has_value()) {
    policy.allowlist = options.allowlist;
    policy.allowlist_source = SourceOrDefault(options.allowlist_source);
  }
  if (options.require_sha256) {
    policy.require_sha256 = true;
    policy.require_sha256_source = SourceOrDefault(options.require_sha256_source);
  }
  for (const auto& [device_type, plugin] : options.preferred_providers) {
    policy.preferred_providers[device_type] = {plugin,
                                               SourceOrDefault(options.preferred_providers_source)};
  }
  return policy;
}

}  // namespace tessera
