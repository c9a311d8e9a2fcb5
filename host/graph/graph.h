// Graph: the in-memory dataflow graph (nodes, data and control edges, SOURCE and SINK), plus
// GraphDef import (with validation and shape inference), export and file I/O.
#ifndef TESSERA_HOST_GRAPH_GRAPH_H_
#define TESSERA_HOST_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/framework/proto/graph.pb.h"
#include "host/graph/tensor_id.h"
#include "host/ops/op_registry.h"
#include "host/ops/partial_shape.h"
#include "host/runtime/types.h"

namespace tessera {

class Node;

// A data edge (src output -> dst input) or a control edge (both slots kControlSlot).
struct Edge {
  Node* src;
  int src_output;
  Node* dst;
  int dst_input;
  int id;
  bool IsControlEdge() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& op() const { return def_.op(); }
  // The definition with default attrs filled in. Its `input` list is as imported; the edges
  // are the truth (ToGraphDef rebuilds inputs from them).
  const tensorflow::NodeDef& def() const { return def_; }
  // nullptr for SOURCE and SINK.
  const OpRegistration* op_registration() const { return op_registration_; }

  bool IsSource() const { return kind_ == Kind::kSource; }
  bool IsSink() const { return kind_ == Kind::kSink; }
  bool IsOp() const { return kind_ == Kind::kOp; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }

  // NodeDef.device: what the user asked for (possibly partial or empty).
  const std::string& requested_device() const { return def_.device(); }
  // The full device name chosen by placement; empty before.
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string device) { assigned_device_ = std::move(device); }

  // Data and control edges, in the order they were added.
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The data edge feeding input `i`, or nullptr when none is connected.
  const Edge* input_edge(int i) const { return input_edges_[i]; }

  // The shape of output `i` found by shape inference at import (unknown when not inferred).
  const PartialShape& output_shape(int i) const { return output_shapes_[i]; }
  void set_output_shape(int i, PartialShape shape) { output_shapes_[i] = std::move(shape); }

  // The attribute, or nullptr.
  const tensorflow::AttrValue* attr(absl::string_view name) const;

  // "node 'name' (Op)" for messages.
  std::string DebugString() const;

 private:
  friend class Graph;
  enum class Kind { kSource, kSink, kOp };

  Node() = default;

  int id_ = -1;
  Kind kind_ = Kind::kOp;
  const OpRegistration* op_registration_ = nullptr;
  tensorflow::NodeDef def_;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  std::string assigned_device_;
  std::vector<const Edge*> in_edges_;
  std::vector<const Edge*> out_edges_;
  std::vector<const Edge*> input_edges_;
  std::vector<PartialShape> output_shapes_;
};

class Graph {
 public:
  // Creates SOURCE (id 0, "_SOURCE") and SINK (id 1, "_SINK"). `ops` must outlive the graph.
  explicit Graph(const OpRegistry* ops);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Node* source() const { return nodes_[0].get(); }
  Node* sink() const { return nodes_[1].get(); }

  // Looks up the op (NOT_FOUND naming the node), fills default attrs, checks attrs and resolves
  // input/output types; INVALID_ARGUMENT for an empty or duplicate name. Adds no edges.
  absl::StatusOr<Node*> AddNode(tensorflow::NodeDef def);
  // A data edge. The slots must exist and `dst_input` must be unconnected (checked: a broken
  // invariant aborts); RemoveEdge first to rewire.
  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  // A control edge; returns the existing one when `src` already controls `dst`.
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);
  // Removes the node and all its edges (not SOURCE or SINK).
  void RemoveNode(Node* node);

  // The node named `name`, or nullptr.
  Node* FindNode(absl::string_view name) const;
  // Ids are dense in [0, num_node_ids()); removed nodes leave nullptr.
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  Node* node(int id) const { return nodes_[id].get(); }
  // Live nodes including SOURCE and SINK.
  int num_nodes() const { return num_live_nodes_; }
  // Live non-source/sink nodes in id order.
  std::vector<Node*> op_nodes() const;
  // Edge ids are dense in [0, num_edge_ids()); removed edges leave nullptr.
  int num_edge_ids() const { return static_cast<int>(edges_.size()); }
  const Edge* edge(int id) const { return edges_[id].get(); }

  // Adds a control edge from SOURCE to every op node without in-edges and from every op node
  // without out-edges to SINK (TensorFlow's FixupSourceAndSinkEdges).
  void FixupSourceAndSinkEdges();
  // A node name not used in the graph: "<prefix>/_<n>".
  std::string NewName(absl::string_view prefix);

  // Op nodes in id order with inputs "src", "src:k" and "^ctrl"; device is the assigned device
  // when there is one, else the requested one. Carries `versions` and `library`.
  tensorflow::GraphDef ToGraphDef() const;
  // A copy with the same node and edge ids, devices and shapes.
  std::unique_ptr<Graph> Clone() const;
  // A copy of only `roots` and the nodes they reach backwards along data and control edges
  // (with SOURCE and SINK and the edges among these nodes); ids stay those of this graph. A
  // step that needs only part of a large graph copies only that part.
  std::unique_ptr<Graph> CloneReaching(const std::vector<const Node*>& roots) const;

  const OpRegistry& op_registry() const { return *ops_; }

  tensorflow::VersionDef versions;
  tensorflow::FunctionDefLibrary library;

 private:
  Node* AddNodeInternal(std::unique_ptr<Node> node);
  // A copy of the nodes whose `keep` entry is true (indexed by id) and the edges between them.
  std::unique_ptr<Graph> CloneKeeping(const std::vector<bool>& keep) const;
  Edge* NewEdge(Node* src, int src_output, Node* dst, int dst_input, int id);

  const OpRegistry* ops_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Edge>> edges_;
  absl::flat_hash_map<std::string, Node*> nodes_by_name_;
  int num_live_nodes_ = 0;
  int name_counter_ = 0;
};

// Validates and imports a GraphDef (graph_import.cc). Every fault gets its own error
// (INVALID_ARGUMENT unless noted), in the order: node names (TensorFlow's regex, duplicates),
// input names (malformed, control input before a data input), ops (NOT_FOUND from the registry,
// with the node name), attrs (wrong type, missing, not allowed), number of data inputs, missing
// source nodes, output indices out of range, input dtypes, then cycles ("graph has a cycle:
// a -> b -> c -> a"; NextIteration -> Merge back edges are allowed). SOURCE/SINK control edges
// are added, then shape inference runs in topological order (errors prefixed with "while
// inferring shapes for node 'x' (Op)"). Calls of the graph's library functions (by name or through
// PartitionedCall / StatefulPartitionedCall) are inlined and If / While lowered to v1 control flow
// first (function_inline.h, functional_lowering.h), so the graph built contains neither.
absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const tensorflow::GraphDef& def,
                                                      const OpRegistry& ops);

struct ImportGraphDefOptions {
  // Accept names that start with '_', which only the runtime gives its own nodes (_Arg, _Recv,
  // control loops): set when importing a partition the runtime produced, never for user graphs.
  bool allow_internal_names = false;
};
absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const tensorflow::GraphDef& def,
                                                      const OpRegistry& ops,
                                                      const ImportGraphDefOptions& options);
// The same, moving each NodeDef out of `def` into its node instead of copying it, so that a large
// graph is never held twice (`def` is left without nodes).
absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(tensorflow::GraphDef&& def,
                                                      const OpRegistry& ops,
                                                      const ImportGraphDefOptions& options = {});

// Reads a GraphDef (graph_io.cc): ".pb" binary, ".pbtxt"/".txt" text format, anything else
// binary then text. NOT_FOUND for a missing file; INVALID_ARGUMENT naming the file (and for text,
// the parser's line:column) otherwise. Binary files may be up to 2 GiB.
// Messages nested deeper than this (attr values within functions within attr values ...) are
// refused in both formats (protobuf's own limit for binary input).
inline constexpr int kMaxGraphDefNesting = 100;

absl::StatusOr<tensorflow::GraphDef> ReadGraphDefFile(const std::string& path);
// Reads any message the way ReadGraphDefFile reads a GraphDef (the same formats by extension, the
// same limits), into `message`. Messages name the file "<noun> '<path>'" ("meta graph file
// 'model.meta'") and the message by its type name ("MetaGraphDef"). With
// `allow_unknown_text_fields`, text format skips fields the message does not declare, as binary
// parsing always does.
absl::Status ReadProtoFile(const std::string& path, absl::string_view noun,
                           bool allow_unknown_text_fields, google::protobuf::Message* message);
// Writes text format for ".pbtxt"/".txt", binary otherwise.
absl::Status WriteGraphDefFile(const tensorflow::GraphDef& def, const std::string& path);

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_GRAPH_H_
