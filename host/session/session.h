// Session: runs a graph. Create imports and checks a GraphDef; Run prunes, places, builds (and
// caches) executors per (feeds, fetches, targets) signature and executes one step.
#ifndef TESSERA_HOST_SESSION_SESSION_H_
#define TESSERA_HOST_SESSION_SESSION_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/framework/proto/graph.pb.h"
#include "host/runtime/step_stats.h"
#include "host/runtime/tensor.h"
#include "registry/plugin_policy.h"

namespace tessera {

struct SessionOptions {
  // "" (or "local") is the embedded local session; "grpc://host:port" (any transport plugin's
  // name as the scheme) is a session on the master of that server (docs/distributed.md).
  std::string target;
  // Plugin manifests or folders to load before TESSERA_PLUGIN_PATH and the install's plugin folder.
  std::vector<std::string> plugin_paths;
  // The install's plugin folder, searched after TESSERA_PLUGIN_PATH: unset means next to the
  // program (bin/../lib/tessera/plugins), "" none. The C API library sets the folder beside itself.
  std::optional<std::string> default_plugin_dir;
  // Which plugins may load (allowlist, sha256 required) and which plugin serves a device type;
  // each setting overrides the plugin policy file's (TESSERA_PLUGIN_CONFIG, or
  // /etc/tessera/plugins.json; see docs/plugins.md). Messages name settings made here
  // "SessionOptions::plugin_policy" unless a source is given.
  PluginPolicyOptions plugin_policy;
  // Threads of the inter-op pool (runs expensive nodes) and threads a kernel may keep busy at once
  // (the intra-op pool's threads plus the thread running the node, which works in ParallelFor);
  // 0 means one per core.
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  // Place nodes whose requested device cannot be satisfied on another device instead of failing.
  bool allow_soft_placement = false;
  // Print every node's device to stderr when the graph is placed.
  bool log_device_placement = false;
  // Run the op fusion pass: Conv2D / MatMul + BiasAdd (+ Relu, Relu6, Elu or LeakyRelu) become
  // one _FusedConv2D / _FusedMatMul node where the device has its kernel (docs/op_fusion.md).
  // A cluster session passes the setting to its workers.
  bool op_fusion = true;
  // How many devices of a type to create, e.g. {"CPU": 2} for /device:CPU:0 and /device:CPU:1.
  // Types not listed get their plugin's default (one CPU device; every device of other types).
  std::map<std::string, int> device_count;
  // Options of the devices of a type, passed to the plugin when it creates each device, e.g.
  // {"GPU": {{"allow_tf32", "false"}}} (each plugin documents its own; docs/gpu.md). A type whose
  // plugin was refused is ignored; a type no plugin provides is INVALID_ARGUMENT.
  std::map<std::string, std::map<std::string, std::string>> device_options;
  // Distributed targets only: the deadline of each call to the master, and the timeout of a step
  // whose RunOptions::timeout_ms is 0.
  int64_t call_timeout_ms = 60000;
  // Distributed targets only: options of the transport's channel to the master ("tls_ca_file",
  // "tls_cert_file", "tls_key_file"; see docs/transports.md).
  std::map<std::string, std::string> transport_options;
};

struct RunOptions {
  // 0: no deadline.
  int64_t timeout_ms = 0;
  // Record one entry per executed node (device, thread, op, output shapes, start and end) into
  // RunMetadata::step_stats.
  bool collect_step_stats = false;
};

// What a step reports beside its outputs.
struct RunMetadata {
  StepStats step_stats;  // filled when RunOptions::collect_step_stats is set
  // The devices the signature runs on, one partition (and one executor) each.
  std::vector<std::string> partition_devices;
};

class Session {
 public:
  virtual ~Session() = default;

  // Creates a session for `target`; the graph is imported and validated now (unknown ops, bad
  // attributes, cycles and shape errors are reported here).
  static absl::StatusOr<std::unique_ptr<Session>> Create(const SessionOptions& options,
                                                         const tensorflow::GraphDef& graph);
  // The same, taking the nodes of `graph` instead of copying them, so that a local session never
  // holds a large graph twice (`graph` is left without nodes). A cluster's session copies
  // `graph` and leaves it intact.
  static absl::StatusOr<std::unique_ptr<Session>> Create(const SessionOptions& options,
                                                         tensorflow::GraphDef&& graph);

  // Feeds: tensor name ("x" or "x:1") -> value. Fetches: tensor names, returned in order.
  // Targets: nodes to run whose outputs are not fetched.
  virtual absl::Status Run(const RunOptions& options,
                           const std::vector<std::pair<std::string, Tensor>>& feeds,
                           const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                           RunMetadata* metadata) = 0;

  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs) {
    return Run(options, feeds, fetches, targets, outputs, nullptr);
  }
  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs) {
    return Run(RunOptions(), feeds, fetches, targets, outputs);
  }

  // A (feeds, fetches, targets) signature prepared once, as TensorFlow's Session::MakeCallable:
  // RunCallable then runs it with the feeds' values in MakeCallable's order and returns the
  // fetches in theirs, without looking the names up again. A callable stays valid after Extend
  // (it runs the nodes it was made with) until ReleaseCallable or the session's end. The names'
  // errors are Run's: a local session reports them here, the default implementation (sessions on
  // a cluster, which keep the names and run through Run) at RunCallable.
  using CallableHandle = int64_t;
  virtual absl::StatusOr<CallableHandle> MakeCallable(const std::vector<std::string>& feeds,
                                                      const std::vector<std::string>& fetches,
                                                      const std::vector<std::string>& targets);
  // INVALID_ARGUMENT for an unknown handle or a number of feeds that is not the callable's; then
  // Run's errors for the values.
  virtual absl::Status RunCallable(CallableHandle handle, const RunOptions& options,
                                   const std::vector<Tensor>& feeds, std::vector<Tensor>* outputs,
                                   RunMetadata* metadata);
  // INVALID_ARGUMENT for an unknown handle.
  virtual absl::Status ReleaseCallable(CallableHandle handle);

  // Adds the nodes (and library functions) of `addition` to the session's graph, as TensorFlow's
  // Session::Extend: their names must not be in the graph yet. Runs started later see them;
  // variables and other state are kept. A local session re-places the whole graph. UNIMPLEMENTED
  // for sessions on a cluster target.
  virtual absl::Status Extend(const tensorflow::GraphDef& addition) {
    return absl::UnimplementedError(
        "this session cannot grow its graph after creation (sessions on a cluster target "
        "see the graph they were created with); create the session after building the graph");
  }

  // Device names of this session ("/job:localhost/replica:0/task:0/device:CPU:0", ...).
  virtual std::vector<std::string> ListDevices() const = 0;

 protected:
  // INVALID_ARGUMENT "no callable N in this session (released, or never made)".
  static absl::Status UnknownCallable(CallableHandle handle);

 private:
  // The callables of sessions that do not prepare signatures (a cluster's): their names, run
  // through Run.
  struct NamedCallable {
    std::vector<std::string> feeds;
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
  };
  std::mutex named_callables_mu_;
  std::map<CallableHandle, NamedCallable> named_callables_;
  CallableHandle next_named_callable_ = 1;
};

}  // namespace tessera

#endif  // TESSERA_HOST_SESSION_SESSION_H_
