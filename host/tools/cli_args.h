// Command-line parsing of the `tessera` program: subcommands, options and their usage texts.
#ifndef TESSERA_HOST_TOOLS_CLI_ARGS_H_
#define TESSERA_HOST_TOOLS_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "host/distributed/cluster_spec.h"
#include "registry/plugin_policy.h"

namespace tessera {
namespace cli {

// `tessera run GRAPH [options]` or `tessera run --saved-model DIR [options]`.
struct RunArgs {
  // A GraphDef (.pb, .pbtxt) or a MetaGraphDef (.meta); empty with --saved-model.
  std::string graph_path;
  // --checkpoint PREFIX: with a .meta GRAPH, restore its variables through its saver first.
  std::string checkpoint_prefix;
  // --saved-model DIR: load the SavedModel (variables restored, init op run) and run it.
  std::string saved_model_dir;
  // --tag-set TAG[,TAG...]: the SavedModel's MetaGraph (default "serve").
  std::vector<std::string> tags;
  // --signature-def KEY: the signature --input names and, without --fetch or --target, the one
  // that runs (default "serving_default").
  std::string signature_key;
  // --input KEY=FILE.npy: a signature input by key, in the order given.
  std::vector<std::pair<std::string, std::string>> inputs;
  // (tensor name, .npy path), in the order given.
  std::vector<std::pair<std::string, std::string>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  // Empty: write no files.
  std::string output_dir;
  std::vector<std::string> plugin_paths;
  // From --plugin-allow, --plugin-require-sha256, --plugin-prefer and --plugin-config, each
  // setting's source named after its option.
  PluginPolicyOptions plugin_policy;
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  // Empty: no trace. Otherwise the step's statistics are collected and written to this file as
  // a Chrome / Perfetto trace.
  std::string trace_path;
  // Print every node's device to stderr when the graph is placed.
  bool log_device_placement = false;
  // Place nodes whose request cannot be met on another device instead of failing.
  bool allow_soft_placement = false;
  bool op_fusion = true;
  // Devices to create per type ("CPU" -> 2), from --cpu-devices and --device-count; types are
  // upper case.
  std::map<std::string, int> device_count;
  // From --device-option TYPE:KEY=VALUE: options of each type's devices (upper-case types).
  std::map<std::string, std::map<std::string, std::string>> device_options;
  // 0: no step timeout (a cluster's step still gets the session's call deadline).
  int64_t timeout_ms = 0;
  // Empty: run in this process. Otherwise the session target of a cluster's master
  // ("grpc://localhost:2222"), checked to be SCHEME://HOST:PORT.
  std::string server;
};

// `tessera serve --cluster SPEC --job NAME [--task N] [options]`. Parsing checks that the job
// and task are in the cluster and that --tls-cert and --tls-key come together. The cluster, job
// and task not given as options come from TF_CONFIG when it is set (see ParseCliArgs).
struct ServeArgs {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  std::string transport = "grpc";
  // From --tls-cert, --tls-key and --tls-ca: "tls_cert_file", "tls_key_file", "tls_ca_file".
  std::map<std::string, std::string> transport_options;
  std::vector<std::string> plugin_paths;
  // As RunArgs::plugin_policy.
  PluginPolicyOptions plugin_policy;
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  // As RunArgs::device_count and RunArgs::device_options.
  std::map<std::string, int> device_count;
  std::map<std::string, std::map<std::string, std::string>> device_options;
  // 0: not given, the server's default (see ServerOptions).
  int64_t call_timeout_ms = 0;
  int64_t session_idle_timeout_ms = 0;
  int64_t step_idle_timeout_ms = 0;
};

// `tessera show --saved-model DIR [--tag-set TAGS] [--signature-def KEY]` or
// `tessera show --meta-graph FILE [--signature-def KEY]`.
struct ShowArgs {
  std::string saved_model_dir;
  std::string meta_graph_path;
  // Empty: every MetaGraph.
  std::vector<std::string> tags;
  // Empty: every signature.
  std::string signature_key;
};

// `tessera plugins [--json] [--plugin PATH]... [plugin policy options]`.
struct PluginsArgs {
  bool json = false;
  std::vector<std::string> plugin_paths;
  // As RunArgs::plugin_policy.
  PluginPolicyOptions plugin_policy;
};

// `tessera ops [--json | --markdown] [--graph FILE] [--plugin PATH]... [plugin policy options]`.
struct OpsArgs {
  enum class Format { kText, kJson, kMarkdown };
  Format format = Format::kText;
  // Empty: list every op. Otherwise check this graph's ops (--markdown is refused with it).
  std::string graph_path;
  std::vector<std::string> plugin_paths;
  // As RunArgs::plugin_policy.
  PluginPolicyOptions plugin_policy;
};

enum class Command {
  kHelp,     // print `help_topic`'s usage ("" for the program's) to stdout
  kVersion,  // print the version
  kRun,
  kServe,
  kPlugins,
  kOps,
  kShow,
};

struct CliArgs {
  Command command = Command::kHelp;
  // For kHelp: "", "run", "serve", "plugins", "ops" or "show".
  std::string help_topic;
  RunArgs run;
  ServeArgs serve;
  PluginsArgs plugins;
  OpsArgs ops;
  ShowArgs show;
};

// The environment variables the parser reads, so that tests can give their own.
struct CliEnvironment {
  // TF_CONFIG; "" when it is unset (an empty TF_CONFIG counts as unset, as in TensorFlow).
  std::string tf_config;

  // This process's environment.
  static CliEnvironment FromProcess();
};

// Parses the arguments after the program name. A usage error is INVALID_ARGUMENT whose message
// is ready for the user: it starts with "tessera" or "tessera <command>" and says what was
// expected and what was given ("tessera run: --feed expects NAME=FILE.npy, got 'x'").
//
// `tessera serve` takes its cluster, job and task from --cluster, --job and --task. When one of
// the three is not given and TF_CONFIG is set, TF_CONFIG is read and must be valid as a whole
// (ParseTfConfig; its errors are usage errors "tessera serve: TF_CONFIG: ..."); then each part
// that was not given comes from it: the cluster from "cluster", the job from task.type, the task
// from task.index. Options given always win, and with all three given TF_CONFIG is not read.
absl::StatusOr<CliArgs> ParseCliArgs(const std::vector<std::string>& args,
                                     const CliEnvironment& environment);
// The same with CliEnvironment::FromProcess().
absl::StatusOr<CliArgs> ParseCliArgs(const std::vector<std::string>& args);

// True for the GRAPH paths `tessera run` reads as a MetaGraphDef: ".meta", ".meta.pbtxt",
// ".meta.txt".
bool IsMetaGraphPath(absl::string_view path);

// Usage texts: the program's and one per subcommand ("" for unknown topics).
std::string ProgramUsage();
std::string CommandUsage(const std::string& command);

// "tessera 0.1.0 (plugin ABI 1.0)".
std::string VersionString();

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_CLI_ARGS_H_
