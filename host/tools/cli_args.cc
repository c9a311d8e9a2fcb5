// Parsing of `tessera` arguments: each command's options and checks, with Tessera's own messages
// for every usage error (the option machinery is cli_options.h).
#include "host/tools/cli_args.h"

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
#include "host/tools/cli_options.h"
#include "host/tools/tensor_summary.h"
#include "host/tools/tf_config.h"
#include "registry/manifest.h"
#include "tessera/plugin_api/common.h"

namespace tessera {
namespace cli {
namespace {

bool IsHelp(absl::string_view arg) { return arg == "--help" || arg == "-h"; }

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
  std::set<std::string> input_keys;
  specs.push_back({"--input", "KEY=FILE.npy", [&](const std::string& value) {
                     size_t eq = value.find('=');
                     if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
                       return UsageError(
                           "run", absl::StrCat("--input expects KEY=FILE.npy, got '", value, "'"));
                     }
                     std::string key = value.substr(0, eq);
                     if (!input_keys.insert(key).second) {
                       return UsageError("run",
                                         absl::StrCat("signature input '", key, "' is given twice"));
                     }
                     run.inputs.emplace_back(key, value.substr(eq + 1));
                     return absl::OkStatus();
                   }});
  specs.push_back({"--checkpoint", "a checkpoint prefix", [&](const std::string& value) {
                     if (value.empty()) {
                       return UsageError("run", "--checkpoint expects a checkpoint prefix, got ''");
                     }
                     run.checkpoint_prefix = value;
                     return absl::OkStatus();
                   }});
  AddSavedModelOptions("run", &run.saved_model_dir, &run.tags, &run.signature_key, &specs);
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
                    &device_counts, &run.device_options, &specs);
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
  const bool saved_model = !run.saved_model_dir.empty();
  if (saved_model && !run.graph_path.empty()) {
    return UsageError("run", absl::StrCat("give GRAPH or --saved-model DIR, not both (got '",
                                          run.graph_path, "' and --saved-model '",
                                          run.saved_model_dir, "')"));
  }
  if (!saved_model && run.graph_path.empty()) {
    return UsageError("run",
                      "missing GRAPH (a .pb, .pbtxt or .meta file) or --saved-model DIR (see "
                      "'tessera run --help')");
  }
  if (!saved_model) {
    for (const auto& [given, option] :
         {std::pair<bool, const char*>{!run.tags.empty(), "--tag-set"},
          {!run.signature_key.empty(), "--signature-def"},
          {!run.inputs.empty(), "--input"}}) {
      if (given) {
        return UsageError("run", absl::StrCat(option, " needs --saved-model DIR"));
      }
    }
  }
  if (!run.checkpoint_prefix.empty() && !IsMetaGraphPath(run.graph_path)) {
    return UsageError("run", "--checkpoint restores the variables of a MetaGraphDef: GRAPH must "
                             "be a .meta (or .meta.pbtxt) file");
  }
  if (saved_model && run.fetches.empty() && run.targets.empty() && !run.feeds.empty()) {
    return UsageError("run", "--feed feeds graph tensors of a run with --fetch or --target; a "
                             "signature's inputs are given with --input KEY=FILE.npy");
  }
  if (saved_model) {
    if (run.tags.empty()) run.tags = {"serve"};
    if (run.signature_key.empty()) run.signature_key = "serving_default";
  }
  if (run.fetches.empty() && run.targets.empty() && !saved_model) {
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
                    &device_counts, &serve.device_options, &specs);
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

absl::Status ParseShow(const std::vector<std::string>& args, CliArgs* out) {
  ShowArgs& show = out->show;
  std::vector<OptionSpec> specs;
  AddSavedModelOptions("show", &show.saved_model_dir, &show.tags, &show.signature_key, &specs);
  specs.push_back({"--meta-graph", "a MetaGraphDef file", [&](const std::string& value) {
                     if (value.empty()) {
                       return UsageError("show", "--meta-graph expects a file, got ''");
                     }
                     if (!show.meta_graph_path.empty()) {
                       return UsageError("show", "--meta-graph is given more than once");
                     }
                     show.meta_graph_path = value;
                     return absl::OkStatus();
                   }});
  RETURN_IF_ERROR(ParseOptions("show", args, specs, [](const std::string& arg) {
    if (absl::StartsWith(arg, "-")) {
      return UsageError("show",
                        absl::StrCat("unknown option '", arg, "' (see 'tessera show --help')"));
    }
    return UsageError("show", absl::StrCat("unexpected argument '", arg,
                                           "'; give --saved-model DIR or --meta-graph FILE"));
  }));
  if (show.saved_model_dir.empty() == show.meta_graph_path.empty()) {
    return UsageError("show", "give one of --saved-model DIR and --meta-graph FILE");
  }
  if (!show.meta_graph_path.empty() && !show.tags.empty()) {
    return UsageError("show", "--tag-set chooses a SavedModel's MetaGraph; a --meta-graph file "
                              "has one");
  }
  return absl::OkStatus();
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

bool IsMetaGraphPath(absl::string_view path) {
  return absl::EndsWith(path, ".meta") || absl::EndsWith(path, ".meta.pbtxt") ||
         absl::EndsWith(path, ".meta.txt");
}

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
        "", "missing command; expected 'run', 'serve', 'plugins', 'ops' or 'show' (see 'tessera "
            "--help')");
  }
  const std::string& first = args[0];
  if (IsHelp(first) || first == "help") {
    out.command = Command::kHelp;
    if (first == "help" && args.size() > 1) {
      if (CommandUsage(args[1]).empty()) {
        return UsageError("help", absl::StrCat("unknown command '", args[1],
                                               "'; expected 'run', 'serve', 'plugins', 'ops' or "
                                               "'show'"));
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
  if (first == "run" || first == "plugins" || first == "serve" || first == "ops" ||
      first == "show") {
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
  } else if (first == "show") {
    out.command = Command::kShow;
    status = ParseShow(args, &out);
  } else if (first == "serve") {
    out.command = Command::kServe;
    status = ParseServe(args, environment, &out);
  } else if (absl::StartsWith(first, "-")) {
    return UsageError("", absl::StrCat("unknown option '", first, "' (see 'tessera --help')"));
  } else {
    return UsageError(
        "", absl::StrCat("unknown command '", first,
                         "'; expected 'run', 'serve', 'plugins', 'ops' or 'show' (see 'tessera "
                         "--help')"));
  }
  if (!status.ok()) return status;
  return out;
}

}  // namespace cli
}  // namespace tessera
