// Scope: where the graph-building API adds nodes, with TensorFlow's naming, device and
// control-dependency rules and first-error accumulation.
#ifndef TESSERA_HOST_CLIENT_SCOPE_H_
#define TESSERA_HOST_CLIENT_SCOPE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "host/client/output.h"
#include "host/framework/proto/graph.pb.h"

namespace tessera {

// The producer version written into every GraphDef: a modern one, above every deprecation
// threshold of the ops the client API builds, so TensorFlow applies current semantics.
inline constexpr int kGraphDefProducerVersion = 1645;

// A Scope is a cheap, copyable view of one graph under construction plus the settings for the
// next nodes: a name prefix ("dense/"), an explicit name for the next op, a device and control
// dependencies. All scopes derived from one root share the graph and its status: the first error
// is kept, later ops are skipped, and ToGraphDef returns that error.
//
// Naming follows TensorFlow: an op without an explicit name is named after its type; a name
// already used in the same name scope gets "_1", "_2", ... appended; NewSubScope("dense") names
// the following ops "dense/<name>" (and a second "dense" sub-scope becomes "dense_1").
//
// Not thread-safe: build a graph from one thread at a time.
class Scope {
 public:
  static Scope NewRootScope();

  // A scope whose ops are named "<this scope's prefix>/<child_scope_name>/<op>". An empty name
  // gives a scope with the same prefix and name space.
  Scope NewSubScope(const std::string& child_scope_name) const;
  // A scope whose next op is named `op_name` (made unique within this name scope). Pieces are
  // concatenated: WithOpName("layer", 2) names "layer2".
  template <typename... Pieces>
  Scope WithOpName(const Pieces&... pieces) const {
    return WithOpNameImpl(absl::StrCat(pieces...));
  }
  // Ops of the returned scope request `device` ("/device:CPU:0", "/job:worker/task:1", ...).
  Scope WithDevice(const std::string& device) const;
  // Ops of the returned scope run after `control_deps` (added to those this scope has).
  Scope WithControlDependencies(const std::vector<Operation>& control_deps) const;
  Scope WithControlDependencies(const Output& control_dep) const;
  Scope WithNoControlDependencies() const;
  // The graph's root scope: no name prefix, no control dependencies, no device (for nodes whose
  // names TensorFlow fixes regardless of the current name scope, such as optimizer slots).
  Scope Root() const;

  // The name the next op of type `default_name` gets, reserving it.
  std::string GetUniqueNameForOp(const std::string& default_name) const;

  // Records `status` as the graph's error unless one is already recorded.
  void UpdateStatus(const absl::Status& status) const;
  bool ok() const;
  absl::Status status() const;

  const std::string& name_prefix() const { return name_; }
  const std::string& device() const { return device_; }
  const std::vector<Operation>& control_deps() const { return control_deps_; }
  GraphId graph_id() const;

  // The graph built so far (nodes in creation order), or the first error.
  absl::StatusOr<tensorflow::GraphDef> ToGraphDef() const;

  // Adds `node` (its name from GetUniqueNameForOp) with this scope's device (unless the node has
  // one) and control dependencies, and returns its Operation. Used by the op wrappers; checks the
  // node name and that it is not taken. Returns an invalid Operation when the scope has an error.
  Operation AddNode(tensorflow::NodeDef node, std::vector<DataType> output_types) const;

  // The node named `name` in this scope's graph (and its output types), or nullptr. The pointer
  // stays valid while the graph lives; later nodes do not move it. For graph walks such as
  // AddSymbolicGradients.
  const tensorflow::NodeDef* FindNode(const std::string& name,
                                      std::vector<DataType>* output_types = nullptr) const;

 private:
  struct Graph;
  using NameMap = absl::flat_hash_map<std::string, int>;

  Scope() = default;
  Scope WithOpNameImpl(const std::string& op_name) const;
  std::string UniqueName(const std::string& prefix) const;

  std::shared_ptr<Graph> graph_;
  std::shared_ptr<NameMap> name_map_;
  std::shared_ptr<NameMap> root_name_map_;  // the root name scope's, for Root()
  std::string name_;
  std::string op_name_;
  std::string device_;
  std::vector<Operation> control_deps_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_SCOPE_H_
