// The option machinery of the `tessera` command line (cli_options.h).
#include "host/tools/cli_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "registry/manifest.h"

namespace tessera {
namespace cli {

absl::Status UsageError(absl::string_view command, absl::string_view message) {
  std::string prefix = command.empty() ? "tessera" : absl::StrCat("tessera ", command);
  return absl::InvalidArgumentError(absl::StrCat(prefix, ": ", message));
}

bool IsNodeName(absl::string_view name) {
  if (name.empty()) return false;
  unsigned char first = static_cast<unsigned char>(name[0]);
  if (!absl::ascii_isalnum(first) && first != '.') return false;
  for (char c : name.substr(1)) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '>' && c != '.' &&
        c != '/' && c != '-') {
      return false;
    }
  }
  return true;
}

bool IsTensorName(absl::string_view name) {
  size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) return IsNodeName(name);
  absl::string_view index = name.substr(colon + 1);
  int value;
  return IsNodeName(name.substr(0, colon)) && !index.empty() &&
         absl::c_all_of(index, [](char c) { return absl::ascii_isdigit(c); }) &&
         absl::SimpleAtoi(index, &value);
}


absl::Status ParseOptions(const std::string& command, const std::vector<std::string>& args,
                          const std::vector<OptionSpec>& specs,
                          const std::function<absl::Status(const std::string&)>& argument) {
  auto find = [&](absl::string_view name) -> const OptionSpec* {
    for (const OptionSpec& spec : specs) {
      if (spec.name == name) return &spec;
    }
    return nullptr;
  };
  // "--opt=VALUE" becomes "--opt" "VALUE", so an explicit empty value stays a value; a flag
  // given a value is refused here (CLI11 would read it as a boolean).
  std::vector<std::string> tokens;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const size_t eq = arg.find('=');
    const OptionSpec* spec =
        absl::StartsWith(arg, "--") && eq != std::string::npos ? find(arg.substr(0, eq)) : nullptr;
    if (spec == nullptr) {
      tokens.push_back(arg);
    } else if (spec->what.empty()) {
      return UsageError(
          command, absl::StrCat(spec->name, " takes no value, got '", arg.substr(eq + 1), "'"));
    } else {
      tokens.push_back(spec->name);
      tokens.push_back(arg.substr(eq + 1));
    }
  }

  CLI::App app;
  app.set_help_flag();  // -h and --help are handled before parsing
  app.allow_extras(true);
  std::vector<std::vector<std::string>> values(specs.size());
  std::map<const CLI::Option*, const OptionSpec*> spec_of;
  for (size_t i = 0; i < specs.size(); ++i) {
    CLI::Option* option = specs[i].what.empty() ? app.add_flag(specs[i].name)
                                                : app.add_option(specs[i].name, values[i])
                                                      ->type_size(1)
                                                      ->allow_extra_args(false)
                                                      ->take_all();
    spec_of[option] = &specs[i];
  }
  std::reverse(tokens.begin(), tokens.end());  // CLI11 takes a vector last argument first
  try {
    app.parse(tokens);
  } catch (const CLI::ArgumentMismatch& e) {
    // "--opt: 1 required TEXT missing": the last option had no value left.
    const std::string message = e.what();
    for (const OptionSpec& spec : specs) {
      if (absl::StartsWith(message, spec.name + ":")) {
        return UsageError(command, absl::StrCat(spec.name, " needs a value (", spec.what, ")"));
      }
    }
    return UsageError(command, message);
  } catch (const CLI::ParseError& e) {
    return UsageError(command, e.what());
  }
  std::map<const OptionSpec*, size_t> next;
  for (const CLI::Option* option : app.parse_order()) {
    const OptionSpec* spec = spec_of.at(option);
    const auto index = static_cast<size_t>(spec - specs.data());
    const std::string value = spec->what.empty() ? "" : values[index][next[spec]++];
    RETURN_IF_ERROR(spec->handle(value));
  }
  for (const std::string& arg : app.remaining()) RETURN_IF_ERROR(argument(arg));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseTimeoutMs(absl::string_view option, absl::string_view value,
                                       absl::string_view command) {
  int64_t ms;
  if (!absl::SimpleAtoi(value, &ms) || ms < 1) {
    return UsageError(
        command, absl::StrCat(option, " expects a number of milliseconds >= 1, got '", value, "'"));
  }
  return ms;
}

absl::StatusOr<int> ParseThreads(absl::string_view command, absl::string_view option,
                                 absl::string_view value) {
  int n;
  if (!absl::SimpleAtoi(value, &n) || n < 0) {
    return UsageError(command,
                      absl::StrCat(option, " expects a non-negative integer, got '", value, "'"));
  }
  return n;
}

bool IsDeviceType(absl::string_view type) {
  if (type.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(type[0]))) return false;
  return absl::c_all_of(
      type, [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}


bool IsHostPort(absl::string_view address) {
  size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) return false;
  for (char c : address.substr(0, colon)) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) || c == '/') return false;
  }
  absl::string_view port = address.substr(colon + 1);
  int value;
  return !port.empty() && port.size() <= 5 &&
         absl::c_all_of(port, [](char c) { return absl::ascii_isdigit(c); }) &&
         absl::SimpleAtoi(port, &value) && value >= 1 && value <= 65535;
}

bool IsServerTarget(absl::string_view target) {
  size_t separator = target.find("://");
  if (separator == absl::string_view::npos || separator == 0) return false;
  absl::string_view scheme = target.substr(0, separator);
  if (!absl::ascii_islower(static_cast<unsigned char>(scheme[0]))) return false;
  for (char c : scheme) {
    if (!absl::ascii_islower(static_cast<unsigned char>(c)) &&
        !absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '+' && c != '.' && c != '-') {
      return false;
    }
  }
  return IsHostPort(target.substr(separator + 3));
}

void AddPluginPolicyOptions(const std::string& command, PluginPolicyOptions* policy,
                            std::vector<OptionSpec>* specs) {
  specs->push_back({"--plugin-allow", "plugin names NAME[,NAME...]", [=](const std::string& value) {
                      const std::vector<std::string> names = absl::StrSplit(value, ',');
                      for (const std::string& name : names) {
                        if (!IsValidPluginName(name)) {
                          return UsageError(
                              command, absl::StrCat("--plugin-allow expects plugin names "
                                                    "([a-z0-9_-]+, comma-separated), got '",
                                                    name, "' in '", value, "'"));
                        }
                      }
                      if (!policy->allowlist.has_value()) policy->allowlist.emplace();
                      policy->allowlist->insert(names.begin(), names.end());
                      policy->allowlist_source = "--plugin-allow";
                      return absl::OkStatus();
                    }});
  specs->push_back({"--plugin-require-sha256", "", [=](const std::string&) {
                      policy->require_sha256 = true;
                      policy->require_sha256_source = "--plugin-require-sha256";
                      return absl::OkStatus();
                    }});
  specs->push_back({"--plugin-prefer", "TYPE=NAME", [=](const std::string& value) {
                      const size_t eq = value.find('=');
                      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
                        return UsageError(command, absl::StrCat("--plugin-prefer expects "
                                                                "TYPE=NAME, got '",
                                                                value, "'"));
                      }
                      const std::string type = value.substr(0, eq);
                      const std::string name = value.substr(eq + 1);
                      if (!IsDeviceType(type)) {
                        return UsageError(command, absl::StrCat("--plugin-prefer expects a device "
                                                                "type (a letter, then letters, "
                                                                "digits or '_') before '=', got '",
                                                                type, "'"));
                      }
                      if (!IsValidPluginName(name)) {
                        return UsageError(command, absl::StrCat("--plugin-prefer expects a plugin "
                                                                "name ([a-z0-9_-]+) after '=', "
                                                                "got '",
                                                                name, "'"));
                      }
                      auto [it, inserted] = policy->preferred_providers.emplace(
                          absl::AsciiStrToUpper(type), name);
                      if (!inserted && it->second != name) {
                        return UsageError(
                            command, absl::StrCat("--plugin-prefer gives device type ", it->first,
                                                  " two plugins: '", it->second, "' and '", name,
                                                  "'"));
                      }
                      policy->preferred_providers_source = "--plugin-prefer";
                      return absl::OkStatus();
                    }});
  specs->push_back({"--plugin-config", "a JSON file", [=](const std::string& value) {
                      if (value.empty()) {
                        return UsageError(command, "--plugin-config expects a JSON file, got ''");
                      }
                      if (policy->config_file.has_value() && *policy->config_file != value) {
                        return UsageError(command, absl::StrCat("--plugin-config is given twice: '",
                                                                *policy->config_file, "' and '",
                                                                value, "'"));
                      }
                      policy->config_file = value;
                      return absl::OkStatus();
                    }});
}

void AddRuntimeOptions(const std::string& command, std::vector<std::string>* plugin_paths,
                       int* inter_op_threads, int* intra_op_threads,
                       DeviceCountReader* device_counts,
                       std::map<std::string, std::map<std::string, std::string>>* device_options,
                       std::vector<OptionSpec>* specs) {
  specs->push_back({"--plugin", "a manifest file or folder", [=](const std::string& value) {
                      plugin_paths->push_back(value);
                      return absl::OkStatus();
                    }});
  for (const char* option : {"--inter-op-threads", "--intra-op-threads"}) {
    int* threads =
        std::string(option) == "--inter-op-threads" ? inter_op_threads : intra_op_threads;
    specs->push_back({option, "a number of threads", [=](const std::string& value) {
                        ASSIGN_OR_RETURN(*threads, ParseThreads(command, option, value));
                        return absl::OkStatus();
                      }});
  }
  specs->push_back({"--cpu-devices", "a number of CPU devices", [=](const std::string& value) {
                      return device_counts->ParseCpuDevices(value);
                    }});
  specs->push_back({"--device-count", "TYPE=N", [=](const std::string& value) {
                      return device_counts->ParseDeviceCount(value);
                    }});
  specs->push_back({"--device-option", "TYPE:KEY=VALUE", [=](const std::string& value) {
                      return ParseDeviceOption(command, value, device_options);
                    }});
}

absl::Status ParseDeviceOption(absl::string_view command, absl::string_view value,
                               std::map<std::string, std::map<std::string, std::string>>* device_options) {
  const size_t colon = value.find(':');
  const size_t eq = value.find('=');
  if (colon == absl::string_view::npos || eq == absl::string_view::npos || colon == 0 ||
      eq < colon + 2) {
    return UsageError(command, absl::StrCat("--device-option expects TYPE:KEY=VALUE (e.g. "
                                            "GPU:allow_tf32=false), got '",
                                            value, "'"));
  }
  const absl::string_view type = value.substr(0, colon);
  if (!IsDeviceType(type)) {
    return UsageError(command, absl::StrCat("--device-option expects a device type (a letter, "
                                            "then letters, digits or '_') before ':', got '",
                                            type, "'"));
  }
  const std::string key(value.substr(colon + 1, eq - colon - 1));
  auto& options = (*device_options)[absl::AsciiStrToUpper(type)];
  if (!options.emplace(key, std::string(value.substr(eq + 1))).second) {
    return UsageError(command, absl::StrCat("--device-option gives ", absl::AsciiStrToUpper(type),
                                            ":", key, " twice"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ParseTagSet(absl::string_view command,
                                                     absl::string_view value) {
  std::vector<std::string> tags = absl::StrSplit(value, ',');
  for (const std::string& tag : tags) {
    if (tag.empty()) {
      return UsageError(command, absl::StrCat("--tag-set expects tags TAG[,TAG...], got '", value,
                                              "'"));
    }
  }
  return tags;
}

void AddSavedModelOptions(const std::string& command, std::string* saved_model_dir,
                          std::vector<std::string>* tags, std::string* signature_key,
                          std::vector<OptionSpec>* specs) {
  specs->push_back({"--saved-model", "a SavedModel folder", [=](const std::string& value) {
                      if (value.empty()) {
                        return UsageError(command, "--saved-model expects a folder, got ''");
                      }
                      if (!saved_model_dir->empty()) {
                        return UsageError(command, "--saved-model is given more than once");
                      }
                      *saved_model_dir = value;
                      return absl::OkStatus();
                    }});
  specs->push_back({"--tag-set", "tags TAG[,TAG...]", [=](const std::string& value) {
                      if (!tags->empty()) {
                        return UsageError(command, "--tag-set is given more than once");
                      }
                      ASSIGN_OR_RETURN(*tags, ParseTagSet(command, value));
                      return absl::OkStatus();
                    }});
  specs->push_back({"--signature-def", "a signature key", [=](const std::string& value) {
                      if (value.empty()) {
                        return UsageError(command, "--signature-def expects a key, got ''");
                      }
                      if (!signature_key->empty()) {
                        return UsageError(command, "--signature-def is given more than once");
                      }
                      *signature_key = value;
                      return absl::OkStatus();
                    }});
}

absl::Status DeviceCountReader::ParseCpuDevices(absl::string_view value) {
  int n;
  if (!absl::SimpleAtoi(value, &n) || n < 1) {
    return UsageError(command_,
                      absl::StrCat("--cpu-devices expects an integer >= 1, got '", value, "'"));
  }
  return Set("CPU", n, absl::StrCat("--cpu-devices ", value));
}

absl::Status DeviceCountReader::ParseDeviceCount(absl::string_view value) {
  size_t eq = value.find('=');
  if (eq == absl::string_view::npos || eq == 0 || eq + 1 == value.size()) {
    return UsageError(command_, absl::StrCat("--device-count expects TYPE=N, got '", value, "'"));
  }
  absl::string_view type = value.substr(0, eq);
  absl::string_view count = value.substr(eq + 1);
  if (!IsDeviceType(type)) {
    return UsageError(command_, absl::StrCat("--device-count expects a device type (a letter, "
                                             "then letters, digits or '_') before '=', got '",
                                             type, "'"));
  }
  int n;
  if (!absl::SimpleAtoi(count, &n) || n < 0) {
    return UsageError(command_, absl::StrCat("--device-count expects a count >= 0 after '=', "
                                             "got '",
                                             count, "' in '", value, "'"));
  }
  return Set(absl::AsciiStrToUpper(type), n, absl::StrCat("--device-count ", value));
}

absl::Status DeviceCountReader::Set(const std::string& type, int count,
                                  const std::string& given) {
  if (type == "CPU" && count < 1) {
    return UsageError(command_,
                      absl::StrCat(given, ": at least one CPU device is needed, got ", count));
  }
  auto [it, inserted] = given_by_.emplace(type, given);
  if (!inserted) {
    return UsageError(command_, absl::StrCat("the device count of ", type, " is given twice: '",
                                             it->second, "' and '", given, "'"));
  }
  (*device_count_)[type] = count;
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace tessera
