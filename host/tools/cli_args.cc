// Parsing of `tessera` arguments on CLI11: "--opt VALUE" and "--opt=VALUE", repeatable options,
// with Tessera's own messages for every usage error.
#include "host/tools/cli_args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "host/tools/tensor_summary.h"
#include "host/tools/tf_config.h"
#include "registry/manifest.h"
#include "tessera/plugin_api/common.h"


namespace tessera {
namespace cli {
namespace {

absl::Status UsageError(absl::string_view command, absl::string_view message) {
  std::string prefix = command.empty() ? "tessera" : absl::StrCat("tessera ", command);
  return absl::InvalidArgumentError(absl::StrCat(prefix, ": ", message));
}

// TensorFlow's node-name rule: [A-Za-z0-9.][A-Za-z0-9_>./-]*.
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

// "node" or "node:k".
bool IsTensorName(absl::string_view name) {
  size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) return IsNodeName(name);
  absl::string_view index = name.substr(colon + 1);
  int value;
  return IsNodeName(name.substr(0, colon)) && !index.empty() &&
         absl::c_all_of(index, [](char c) { return absl::ascii_isdigit(c); }) &&
         absl::SimpleAtoi(index, &value);
}

// One option of a subcommand: its name, what its value is (empty for a flag, which takes none)
// and what to do with each occurrence, in command-line order.
struct OptionSpec {
  std::string name;
  std::string what;
  std::function<absl::Status(const std::string& value)> handle;
};

// Parses the arguments of `command` (args[0] is the command) on CLI11: options by name, one
// value each (the next argument or "=VALUE"), repeatable; flags without a value. Each occurrence
// is handed to its spec's handler in command-line order, then every other argument to
// `argument` in order (an unknown option included: it starts with '-'). The first error ends it.
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

bool IsHelp(absl::string_view arg) { return arg == "--help" || arg == "-h"; }

absl::StatusOr<int64_t> ParseTimeoutMs(absl::string_view option, absl::string_view value,
                                       absl::string_view command = "serve") {
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

// A device type as the placer spells it: a letter, then letters, digits or '_'.
bool IsDeviceType(absl::string_view type) {
  if (type.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(type[0]))) return false;
  return absl::c_all_of(
      type, [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The device counts of one command line (--cpu-devices, --device-count), with the option that
// set each type, for messages.
class DeviceCountReader {
 public:
  DeviceCountReader(std::string command, std::map<std::string, int>* device_count)
      : command_(std::move(command)), device_count_(device_count) {}

  // "--cpu-devices N" with N >= 1.
  absl::Status ParseCpuDevices(absl::string_view value) {
    int n;
    if (!absl::SimpleAtoi(value, &n) || n < 1) {
      return UsageError(command_,
                        absl::StrCat("--cpu-devices expects an integer >= 1, got '", value, "'"));
    }
    return Set("CPU", n, absl::StrCat("--cpu-devices ", value));
  }

  // "--device-count TYPE=N" with N >= 0 (>= 1 for CPU); TYPE is case-insensitive.
  absl::Status ParseDeviceCount(absl::string_view value) {
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

 private:
  // Records the count of one device type; `given` is the option as the user wrote it.
  absl::Status Set(const std::string& type, int count, const std::string& given) {
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

  std::string command_;
  std::map<std::string, int>* device_count_;
  std::map<std::string, std::string> given_by_;
};

// "host:port" with a port in 1..65535 (the host is checked by whoever connects).
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

// A distributed session target: "SCHEME://HOST:PORT" with a lower-case scheme ("grpc").
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

// --plugin-allow, --plugin-require-sha256, --plugin-prefer and --plugin-config: the plugin
// policy of every command that loads plugins. Each setting's source is named after its option.
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

// Options that are the same in `tessera run` and `tessera serve`.
void AddRuntimeOptions(const std::string& command, std::vector<std::string>* plugin_paths,
                       int* inter_op_threads, int* intra_op_threads,
                       DeviceCountReader* device_counts, std::vector<OptionSpec>* specs) {
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
}

absl::Status ParseRun(const std::vector<std::string>& args, CliArgs* out) {
  RunArgs& run = out->run;
  std::set<std::string> fed;
  DeviceCountReader device_counts("run", &run.device_count);
  std::vector<OptionSpec> specs;
  specs.push_back({"--feed", "NAME=FILE.npy", [&](const std::string& value) {
                     size_t eq = value.find('=');
                     if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
                       return UsageError(
                           "run", absl::StrCat("--feed expects NAME=FILE.npy, got '", value, "'"));
                     }
                     std::string name = value.substr(0, eq);
                     if (!IsTensorName(name)) {
                       return UsageError("run", absl::StrCat("--feed expects a tensor name NODE "
                                                             "or NODE:INDEX before '=', got '",
                                                             name, "'"));
                     }
                     if (!fed.insert(name).second) {
                       return UsageError("run", absl::StrCat("tensor '", name, "' is fed twice"));
                     }
                     run.feeds.emplace_back(name, value.substr(eq + 1));
                     return absl::OkStatus();
                   }});
  specs.push_back({"--fetch", "a tensor name NODE or NODE:INDEX", [&](const std::string& value) {
                     if (!IsTensorName(value)) {
                       return UsageError("run", absl::StrCat("--fetch expects a tensor name NODE "
                                                             "or NODE:INDEX, got '",
                                                             value, "'"));
                     }
                     run.fetches.push_back(value);
                     return absl::OkStatus();
                   }});
  specs.push_back({"--target", "a node name", [&](const std::string& value) {
                     if (!IsNodeName(value)) {
                       return UsageError(
                           "run", absl::StrCat("--target expects a node name, got '", value, "'"));
                     }
                     run.targets.push_back(value);
                     return absl::OkStatus();
                   }});
  specs.push_back({"--output-dir", "a folder", [&](const std::string& value) {
                     if (value.empty())
                       return UsageError("run", "--output-dir expects a folder, got ''");
                     run.output_dir = value;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--trace", "a .json file", [&](const std::string& value) {
                     if (value.empty())
                       return UsageError("run", "--trace expects a .json file, got ''");
                     run.trace_path = value;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--log-device-placement", "", [&](const std::string&) {
                     run.log_device_placement = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--soft-placement", "", [&](const std::string&) {
                     run.allow_soft_placement = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--no-op-fusion", "", [&](const std::string&) {
                     run.op_fusion = false;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--timeout-ms", "a number of milliseconds", [&](const std::string& value) {
                     ASSIGN_OR_RETURN(run.timeout_ms, ParseTimeoutMs("--timeout-ms", value, "run"));
                     return absl::OkStatus();
                   }});
  specs.push_back(
      {"--server", "a session target SCHEME://HOST:PORT", [&](const std::string& value) {
         if (!IsServerTarget(value)) {
           return UsageError("run", absl::StrCat("--server expects SCHEME://HOST:PORT "
                                                 "(e.g. grpc://localhost:2222), got '",
                                                 value, "'"));
         }
         run.server = value;
         return absl::OkStatus();
       }});
  AddPluginPolicyOptions("run", &run.plugin_policy, &specs);
  AddRuntimeOptions("run", &run.plugin_paths, &run.inter_op_threads, &run.intra_op_threads,
                    &device_counts, &specs);
  RETURN_IF_ERROR(ParseOptions("run", args, specs, [&](const std::string& arg) {
    if (absl::StartsWith(arg, "-") && arg != "-") {
      return UsageError("run",
                        absl::StrCat("unknown option '", arg, "' (see 'tessera run --help')"));
    }
    if (!run.graph_path.empty()) {
      return UsageError("run", absl::StrCat("unexpected argument '", arg,
                                            "'; the graph is already '", run.graph_path, "'"));
    }
    run.graph_path = arg;
    return absl::OkStatus();
  }));
  if (run.graph_path.empty()) {
    return UsageError("run", "missing GRAPH (a .pb or .pbtxt file; see 'tessera run --help')");
  }
  if (run.fetches.empty() && run.targets.empty()) {
    return UsageError("run", "nothing to run; give at least one --fetch or --target");
  }
  if (!run.output_dir.empty()) {
    // Two fetches whose names map to one file would overwrite each other: refuse before running.
    std::map<std::string, std::string> fetch_of_file;
    for (const std::string& fetch : run.fetches) {
      auto [it, inserted] = fetch_of_file.emplace(OutputFileName(fetch), fetch);
      if (!inserted && it->second != fetch) {
        return UsageError("run", absl::StrCat("--fetch '", it->second, "' and --fetch '", fetch,
                                              "' would both be written to '", it->first,
                                              "' in --output-dir; fetch one of them under ",
                                              "another name or without --output-dir"));
      }
    }
  }
  return absl::OkStatus();
}

// Which of the cluster, the job and the task the command line gave.
struct ServeGiven {
  bool cluster = false;
  bool job = false;
  bool task = false;
};

// Fills the cluster, job and task that the command line did not give from TF_CONFIG, when it is
// set. TF_CONFIG is then checked whole, even the parts that options replace: a broken TF_CONFIG
// is reported rather than half used.
absl::Status ApplyTfConfig(const CliEnvironment& environment, const ServeGiven& given,
                           ServeArgs* serve) {
  if (environment.tf_config.empty() || (given.cluster && given.job && given.task)) {
    return absl::OkStatus();
  }
  absl::StatusOr<TfConfig> config = ParseTfConfig(environment.tf_config);
  if (!config.ok()) return UsageError("serve", config.status().message());
  if (!given.cluster) serve->cluster = std::move(config->cluster);
  if (!given.job) serve->job = std::move(config->job);
  if (!given.task) serve->task = config->task;
  return absl::OkStatus();
}

// Checks what only the whole command line can tell: required options, the job and task against
// the cluster, and the TLS options given together. Each error about the job or the task names
// where it came from: its option, or TF_CONFIG when it filled it in.
absl::Status CheckServe(const ServeArgs& serve, const ServeGiven& given, bool has_tf_config) {
  if (!given.cluster && !has_tf_config) {
    return UsageError("serve",
                      "missing --cluster (e.g. --cluster "
                      "'worker=localhost:2222,localhost:2223') and TF_CONFIG is not set; see "
                      "'tessera serve --help'");
  }
  if (serve.job.empty()) {
    return UsageError("serve",
                      "missing --job (the job of this task in the cluster, e.g. --job "
                      "worker)");
  }
  absl::StatusOr<std::string> address = serve.cluster.TaskAddress(serve.job, serve.task);
  if (!address.ok()) {
    const bool job_is_wrong = serve.cluster.jobs().count(serve.job) == 0;
    absl::string_view part = job_is_wrong ? (given.job ? "--job" : "TF_CONFIG: task.type")
                                          : (given.task ? "--task" : "TF_CONFIG: task.index");
    return UsageError("serve", absl::StrCat(part, ": ", address.status().message()));
  }
  bool has_cert = serve.transport_options.count("tls_cert_file") > 0;
  bool has_key = serve.transport_options.count("tls_key_file") > 0;
  bool has_ca = serve.transport_options.count("tls_ca_file") > 0;
  if (has_cert != has_key) {
    return UsageError("serve", has_cert
                                   ? "--tls-cert needs --tls-key (the certificate's private key)"
                                   : "--tls-key needs --tls-cert (the certificate it belongs to)");
  }
  if (has_ca && !has_cert) {
    return UsageError("serve",
                      "--tls-ca needs --tls-cert and --tls-key (a task that checks its "
                      "peers' certificates also presents its own)");
  }
  return absl::OkStatus();
}

absl::Status ParseServe(const std::vector<std::string>& args, const CliEnvironment& environment,
                        CliArgs* out) {
  ServeArgs& serve = out->serve;
  DeviceCountReader device_counts("serve", &serve.device_count);
  ServeGiven given;
  std::vector<OptionSpec> specs;
  specs.push_back({"--cluster", "JOB=HOST:PORT,...;JOB=HOST:PORT", [&](const std::string& value) {
                     absl::StatusOr<ClusterSpec> cluster = ClusterSpec::Parse(value);
                     if (!cluster.ok()) {
                       return UsageError("serve",
                                         absl::StrCat("--cluster: ", cluster.status().message()));
                     }
                     serve.cluster = *std::move(cluster);
                     given.cluster = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--job", "a job name", [&](const std::string& value) {
                     if (value.empty())
                       return UsageError("serve", "--job expects a job name, got ''");
                     serve.job = value;
                     given.job = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--task", "a task index", [&](const std::string& value) {
                     if (!absl::SimpleAtoi(value, &serve.task) || serve.task < 0) {
                       return UsageError("serve", absl::StrCat("--task expects a task index >= 0, "
                                                               "got '",
                                                               value, "'"));
                     }
                     given.task = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--transport", "a transport name", [&](const std::string& value) {
                     if (value.empty()) {
                       return UsageError("serve", "--transport expects a transport name, got ''");
                     }
                     serve.transport = value;
                     return absl::OkStatus();
                   }});
  for (const auto& [option, key] :
       std::map<std::string, std::string>{{"--tls-cert", "tls_cert_file"},
                                          {"--tls-key", "tls_key_file"},
                                          {"--tls-ca", "tls_ca_file"}}) {
    specs.push_back(
        {option, "a PEM file", [&serve, option = option, key = key](const std::string& value) {
           if (value.empty()) {
             return UsageError("serve", absl::StrCat(option, " expects a PEM file, got ''"));
           }
           serve.transport_options[key] = value;
           return absl::OkStatus();
         }});
  }
  for (const char* option :
       {"--call-timeout-ms", "--session-idle-timeout-ms", "--step-idle-timeout-ms"}) {
    const std::string name = option;
    int64_t* field = name == "--call-timeout-ms"           ? &serve.call_timeout_ms
                     : name == "--session-idle-timeout-ms" ? &serve.session_idle_timeout_ms
                                                           : &serve.step_idle_timeout_ms;
    specs.push_back({name, "a number of milliseconds", [field, name](const std::string& value) {
                       ASSIGN_OR_RETURN(*field, ParseTimeoutMs(name, value));
                       return absl::OkStatus();
                     }});
  }
  AddPluginPolicyOptions("serve", &serve.plugin_policy, &specs);
  AddRuntimeOptions("serve", &serve.plugin_paths, &serve.inter_op_threads, &serve.intra_op_threads,
                    &device_counts, &specs);
  RETURN_IF_ERROR(ParseOptions("serve", args, specs, [](const std::string& arg) {
    if (absl::StartsWith(arg, "-")) {
      return UsageError("serve",
                        absl::StrCat("unknown option '", arg, "' (see 'tessera serve --help')"));
    }
    return UsageError(
        "serve", absl::StrCat("unexpected argument '", arg, "'; tessera serve takes options only"));
  }));
  RETURN_IF_ERROR(ApplyTfConfig(environment, given, &serve));
  return CheckServe(serve, given, !environment.tf_config.empty());
}

absl::Status ParsePlugins(const std::vector<std::string>& args, CliArgs* out) {
  std::vector<OptionSpec> specs;
  specs.push_back({"--json", "", [&](const std::string&) {
                     out->plugins.json = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--plugin", "a manifest file or folder", [&](const std::string& value) {
                     out->plugins.plugin_paths.push_back(value);
                     return absl::OkStatus();
                   }});
  AddPluginPolicyOptions("plugins", &out->plugins.plugin_policy, &specs);
  return ParseOptions("plugins", args, specs, [](const std::string& arg) {
    if (absl::StartsWith(arg, "-")) {
      return UsageError("plugins",
                        absl::StrCat("unknown option '", arg, "' (see 'tessera plugins --help')"));
    }
    return UsageError("plugins", absl::StrCat("unexpected argument '", arg,
                                              "'; plugin paths are given with --plugin"));
  });
}

absl::Status ParseOps(const std::vector<std::string>& args, CliArgs* out) {
  OpsArgs& ops = out->ops;
  bool json = false;
  bool markdown = false;
  std::vector<OptionSpec> specs;
  specs.push_back({"--json", "", [&](const std::string&) {
                     json = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--markdown", "", [&](const std::string&) {
                     markdown = true;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--graph", "a GraphDef file, .pb or .pbtxt", [&](const std::string& value) {
                     if (!ops.graph_path.empty()) {
                       return UsageError("ops", "--graph is given more than once");
                     }
                     if (value.empty()) return UsageError("ops", "--graph expects a file, got ''");
                     ops.graph_path = value;
                     return absl::OkStatus();
                   }});
  specs.push_back({"--plugin", "a manifest file or folder", [&](const std::string& value) {
                     ops.plugin_paths.push_back(value);
                     return absl::OkStatus();
                   }});
  AddPluginPolicyOptions("ops", &ops.plugin_policy, &specs);
  RETURN_IF_ERROR(ParseOptions("ops", args, specs, [](const std::string& arg) {
    if (absl::StartsWith(arg, "-")) {
      return UsageError("ops",
                        absl::StrCat("unknown option '", arg, "' (see 'tessera ops --help')"));
    }
    return UsageError(
        "ops", absl::StrCat("unexpected argument '", arg, "'; a graph is given with --graph FILE"));
  }));
  if (json && markdown) return UsageError("ops", "--json and --markdown exclude each other");
  if (markdown && !ops.graph_path.empty()) {
    return UsageError("ops", "--markdown lists every op; it does not check a --graph");
  }
  ops.format = json       ? OpsArgs::Format::kJson
               : markdown ? OpsArgs::Format::kMarkdown
                          : OpsArgs::Format::kText;
  return absl::OkStatus();
}

}  // namespace

CliEnvironment CliEnvironment::FromProcess() {
  CliEnvironment environment;
  if (const char* tf_config = std::getenv(kTfConfigEnv)) environment.tf_config = tf_config;
  return environment;
}

absl::StatusOr<CliArgs> ParseCliArgs(const std::vector<std::string>& args) {
  return ParseCliArgs(args, CliEnvironment::FromProcess());
}

absl::StatusOr<CliArgs> ParseCliArgs(const std::vector<std::string>& args,
                                     const CliEnvironment& environment) {
  CliArgs out;
  if (args.empty()) {
    return UsageError(
        "", "missing command; expected 'run', 'serve', 'plugins' or 'ops' (see 'tessera --help')");
  }
  const std::string& first = args[0];
  if (IsHelp(first) || first == "help") {
    out.command = Command::kHelp;
    if (first == "help" && args.size() > 1) {
      if (CommandUsage(args[1]).empty()) {
        return UsageError("help", absl::StrCat("unknown command '", args[1],
                                               "'; expected 'run', 'serve', 'plugins' or 'ops'"));
      }
      out.help_topic = args[1];
    }
    return out;
  }
  if (first == "--version" || first == "-V") {
    out.command = Command::kVersion;
    return out;
  }
  // "tessera <command> ... --help" shows the command's usage, whatever else is given.
  if (first == "run" || first == "plugins" || first == "serve" || first == "ops") {
    if (std::any_of(args.begin() + 1, args.end(), [](const std::string& a) { return IsHelp(a); })) {
      out.command = Command::kHelp;
      out.help_topic = first;
      return out;
    }
  }
  absl::Status status;
  if (first == "run") {
    out.command = Command::kRun;
    status = ParseRun(args, &out);
  } else if (first == "plugins") {
    out.command = Command::kPlugins;
    status = ParsePlugins(args, &out);
  } else if (first == "ops") {
    out.command = Command::kOps;
    status = ParseOps(args, &out);
  } else if (first == "serve") {
    out.command = Command::kServe;
    status = ParseServe(args, environment, &out);
  } else if (absl::StartsWith(first, "-")) {
    return UsageError("", absl::StrCat("unknown option '", first, "' (see 'tessera --help')"));
  } else {
    return UsageError(
        "", absl::StrCat("unknown command '", first,
                         "'; expected 'run', 'serve', 'plugins' or 'ops' (see 'tessera --help')"));
  }
  if (!status.ok()) return status;
  return out;
}

}  // namespace cli
}  // namespace tessera
