// The objects behind the C API's opaque handles, and helpers shared by its files.
#ifndef TESSERA_HOST_C_API_C_API_INTERNAL_H_
#define TESSERA_HOST_C_API_C_API_INTERNAL_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "host/framework/proto/graph.pb.h"
#include "host/graph/graph.h"
#include "host/runtime/tensor.h"
#include "host/session/environment.h"
#include "host/session/session.h"
#include "tensorflow/c/c_api.h"

struct TF_Status {
  TF_Code code = TF_OK;
  std::string message;
};

// A dense tensor in host memory. Fixed-size types share their buffer with Tessera's tensors (no
// copy when fed or fetched); a TF_STRING tensor's buffer holds TF_TString elements, converted to
// and from Tessera's string tensors at the session boundary.
struct TF_Tensor {
  TF_DataType dtype = TF_FLOAT;
  absl::InlinedVector<int64_t, 4> dims;
  std::shared_ptr<tessera::TensorBuffer> buffer;  // never null
};

struct TF_OperationDescription {
  TF_Graph* graph;
  tensorflow::NodeDef node;
  // One entry per TF_AddInput (one tensor) or TF_AddInputList call, matched to the op's input
  // arguments in order; type and number attrs not set are inferred from them.
  std::vector<std::vector<TF_Output>> input_args;
  std::vector<std::string> control_inputs;
  absl::Status status;  // the first error of a TF_SetAttr* or TF_Add* call
};

struct TF_Operation {
  TF_Graph* graph;
  tessera::Node* node;
  // "name:k" for each output, made once: the feed and fetch names of every run.
  std::vector<std::string> output_names;
};

struct TF_Graph {
  TF_Graph(std::shared_ptr<tessera::Environment> environment, const tessera::OpRegistry* ops)
      : env(std::move(environment)), graph(ops) {}

  // The environment whose op registry checks the nodes; null when the default plugins could not
  // be loaded, and then the standard ops check them (a session reports the plugins' error).
  std::shared_ptr<tessera::Environment> env;
  mutable absl::Mutex mu;
  tessera::Graph graph ABSL_GUARDED_BY(mu);
  // In the order they were added; indexed by node id in `by_id`.
  std::vector<std::unique_ptr<TF_Operation>> ops ABSL_GUARDED_BY(mu);
  std::vector<TF_Operation*> by_id ABSL_GUARDED_BY(mu);
  // Read by sessions without the lock, to see whether the graph grew.
  std::atomic<size_t> num_ops{0};
  // Name scopes taken by gradients ("gradients", "gradients_1", ...).
  absl::flat_hash_map<std::string, int> gradient_scopes ABSL_GUARDED_BY(mu);
  // Sessions on the graph; TF_DeleteGraph frees it only after the last one.
  int num_sessions ABSL_GUARDED_BY(mu) = 0;
  bool delete_requested ABSL_GUARDED_BY(mu) = false;
};

namespace tessera {
namespace c_api {
struct PartialRun;

// A signature TF_SessionRun prepared as a callable of the session, by the outputs and operations
// it was given; released with the TF_Session. A signature whose every output is fed and that has
// no target runs nothing: it has no callable (session null).
struct CachedCallable {
  CachedCallable(Session* session, Session::CallableHandle handle)
      : session(session), handle(handle) {}
  ~CachedCallable() {
    if (session != nullptr) session->ReleaseCallable(handle).IgnoreError();
  }
  CachedCallable(const CachedCallable&) = delete;
  CachedCallable& operator=(const CachedCallable&) = delete;

  Session* session;
  Session::CallableHandle handle;
  std::vector<TF_Output> inputs;
  std::vector<TF_Output> outputs;
  std::vector<const TF_Operation*> targets;
  // Per output: the input it is (a tensor both fed and fetched is the value fed), or -1.
  std::vector<int> fed_index;
};
}  // namespace c_api
}  // namespace tessera

struct TF_SessionOptions {
  tessera::SessionOptions options;
};

struct TF_Session {
  TF_Graph* graph;
  std::unique_ptr<tessera::Session> session;
  // How many of the graph's operations and library functions the session has (written under
  // extend_mu; synced_ops is read without it to see whether the graph grew).
  std::atomic<size_t> synced_ops{0};
  int synced_functions = 0;
  std::mutex extend_mu;
  std::atomic<bool> closed{false};
  // Signatures TF_SessionRun prepared: the first kMaxCachedCallables stay for the session's life
  // (later ones run by name). Steps look entries up without a lock (an entry is complete before
  // num_cached counts it and never changes or goes away while the session lives); the lock is
  // taken only to publish one. Declared after `session`: destroyed (and released) while it
  // lives.
  static constexpr int kMaxCachedCallables = 64;
  std::mutex callables_mu;  // for adding entries
  std::unique_ptr<tessera::c_api::CachedCallable> cached[kMaxCachedCallables];
  std::atomic<int> num_cached{0};
  // Partial runs by handle.
  std::mutex prun_mu;
  absl::flat_hash_map<std::string, std::shared_ptr<tessera::c_api::PartialRun>> partial_runs;
  int64_t next_prun_id = 0;
};

namespace tessera {
namespace c_api {

// Sets `status` (if not null) from an absl::Status; the codes are the same numbers.
void SetStatus(TF_Status* status, const absl::Status& value);
inline void SetOk(TF_Status* status) { SetStatus(status, absl::OkStatus()); }
// INVALID_ARGUMENT "<function>: <what> is NULL".
absl::Status NullArgument(const char* function, const char* what);

// The environment of new graphs and sessions: the default plugins plus those loaded with
// TF_LoadPluggableDeviceLibrary, and the plugin folder beside libtessera_c.
EnvironmentOptions DefaultEnvironmentOptions();
// The same, for SessionOptions.
void ApplyPluginOptions(SessionOptions* options);

// Registers the operations of nodes just added to `graph` (under its lock).
void RegisterOperations(TF_Graph* graph, const std::vector<Node*>& nodes)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph->mu);
// The node of `output` checked against its graph: INVALID_ARGUMENT for a NULL operation or an
// output index out of range.
absl::Status CheckOutput(const TF_Output& output, const char* function);
// CheckOutput, and INVALID_ARGUMENT when `output` is not of `graph`:
// "<function>: 'node:k' belongs to another graph than the one it is used with".
absl::Status CheckOutputOf(const TF_Graph* graph, const TF_Output& output, const char* function);
// INVALID_ARGUMENT for a NULL operation or one that is not of `graph`.
absl::Status CheckOperationOf(const TF_Graph* graph, const TF_Operation* operation,
                              const char* function);
// True when a node of `graph` is named `scope` or lives under "scope/".
bool NameScopeInUse(const Graph& graph, const std::string& scope);

// Conversions at the session boundary. ToTensor shares a fixed-size tensor's buffer; FromTensor
// shares a host tensor's buffer (strings are copied both ways).
absl::StatusOr<Tensor> ToTensor(const TF_Tensor& tensor);
absl::StatusOr<TF_Tensor*> FromTensor(const Tensor& tensor);
// A tensor's value as a TensorProto attr value and back.
absl::StatusOr<TF_Tensor*> TensorFromProto(const tensorflow::TensorProto& proto);

// Runs one step of `session` by tensor and node names, after giving the session the nodes added
// to its graph since its last step. FAILED_PRECONDITION once the session is closed.
absl::Status RunByName(TF_Session* session, const RunOptions& options,
                       const std::vector<std::pair<std::string, Tensor>>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                       RunMetadata* metadata, const char* function);

// Imports `def` into `graph` as TF_GraphImportGraphDef does without options.
absl::Status ImportGraphDefLocked(TF_Graph* graph, const tensorflow::GraphDef& def)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph->mu);

// Copies `bytes` into `buffer`, calling the deallocator of what it held.
void SetBuffer(TF_Buffer* buffer, const std::string& bytes);

}  // namespace c_api
}  // namespace tessera

#endif  // TESSERA_HOST_C_API_C_API_INTERNAL_H_
