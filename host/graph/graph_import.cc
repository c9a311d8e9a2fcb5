// ImportGraphDef: validates a GraphDef, builds the Graph, checks for cycles and infers shapes.
#include <deque>
#include <optional>
#include <type_traits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"
#include "host/graph/function_inline.h"
#include "host/graph/functional_lowering.h"
#include "host/graph/graph.h"
#include "host/graph/graph_extend.h"
#include "host/ops/attr_util.h"
#include "host/ops/shape_inference.h"

namespace tessera {
namespace {

// Constants larger than this are not materialized for shape inference (shape-like inputs are
// small; this keeps import cheap for graphs with large embedded weights).
constexpr int64_t kMaxConstantElementsForShapes = 1 << 16;

struct ParsedInputs {
  std::vector<TensorId> data;
  std::vector<TensorId> control;
};

std::string NodeLabel(const tensorflow::NodeDef& def) { return FormatNodeForError(def); }

absl::StatusOr<ParsedInputs> ParseInputs(const tensorflow::NodeDef& def) {
  ParsedInputs parsed;
  for (int i = 0; i < def.input_size(); ++i) {
    absl::StatusOr<TensorId> id = ParseTensorName(def.input(i));
    if (!id.ok()) {
      return WithContext(id.status(), absl::StrCat(NodeLabel(def), ": input ", i));
    }
    if (id->IsControl()) {
      parsed.control.push_back(*std::move(id));
    } else {
      if (!parsed.control.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(def), ": data input '", def.input(i), "' comes after control input '",
            parsed.control.front().ToString(), "'; control inputs must come last"));
      }
      parsed.data.push_back(*std::move(id));
    }
  }
  return parsed;
}

bool IsBackEdge(const Edge* edge) { return edge->src->op() == "NextIteration"; }

// Kahn's algorithm over all edges except NextIteration back edges. Returns the order, or the
// nodes left over when there is a cycle.
std::vector<Node*> TopologicalOrder(const Graph& graph, std::vector<Node*>* left_over) {
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::deque<Node*> ready;
  for (int id = 0; id < graph.num_node_ids(); ++id) {
    Node* node = graph.node(id);
    if (node == nullptr) continue;
    for (const Edge* edge : node->in_edges()) pending[id] += !IsBackEdge(edge);
    if (pending[id] == 0) ready.push_back(node);
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* node = ready.front();
    ready.pop_front();
    order.push_back(node);
    for (const Edge* edge : node->out_edges()) {
      if (IsBackEdge(edge)) continue;
      if (--pending[edge->dst->id()] == 0) ready.push_back(edge->dst);
    }
  }
  left_over->clear();
  for (int id = 0; id < graph.num_node_ids(); ++id) {
    if (graph.node(id) != nullptr && pending[id] > 0) left_over->push_back(graph.node(id));
  }
  return order;
}

// Every left-over node has a left-over predecessor, so walking predecessors must revisit a node;
// the walk between the two visits is a cycle.
absl::Status CycleError(const Graph& graph, const std::vector<Node*>& left_over) {
  absl::flat_hash_set<const Node*> remaining(left_over.begin(), left_over.end());
  std::vector<Node*> walk;
  std::vector<int> position(graph.num_node_ids(), -1);
  Node* current = left_over.front();
  while (position[current->id()] < 0) {
    position[current->id()] = static_cast<int>(walk.size());
    walk.push_back(current);
    Node* next = nullptr;
    for (const Edge* edge : current->in_edges()) {
      if (!IsBackEdge(edge) && remaining.contains(edge->src)) {
        next = edge->src;
        break;
      }
    }
    TESSERA_CHECK(next != nullptr, "a node left by the topological sort has no pending input");
    current = next;
  }
  // walk[position(current)..] visits the cycle backwards; reverse it to follow the edges.
  std::vector<Node*> cycle(walk.begin() + position[current->id()], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  auto first = std::min_element(cycle.begin(), cycle.end(),
                                [](const Node* a, const Node* b) { return a->id() < b->id(); });
  std::rotate(cycle.begin(), first, cycle.end());
  std::vector<std::string> names;
  for (const Node* node : cycle) names.push_back(node->name());
  names.push_back(cycle.front()->name());
  return absl::InvalidArgumentError(
      absl::StrCat("graph has a cycle: ", absl::StrJoin(names, " -> ")));
}

// Values of node outputs known at import: small Const values and Shape of fully known shapes.
class ConstantCache {
 public:
  explicit ConstantCache(int num_nodes) : values_(num_nodes) {}

  const Tensor* Get(const Node* node, int output) {
    if (output != 0) return nullptr;
    std::optional<std::optional<Tensor>>& slot = values_[node->id()];
    if (!slot.has_value()) slot = Compute(node);
    return slot->has_value() ? &**slot : nullptr;
  }

 private:
  static std::optional<Tensor> Compute(const Node* node) {
    if (node->op() == "Const") {
      const tensorflow::AttrValue* value = node->attr("value");
      if (value == nullptr || !value->has_tensor()) return std::nullopt;
      absl::StatusOr<TensorShape> shape = TensorShapeFromProto(value->tensor().tensor_shape());
      if (!shape.ok() || shape->num_elements() > kMaxConstantElementsForShapes) {
        return std::nullopt;
      }
      absl::StatusOr<Tensor> tensor = TensorFromProto(value->tensor());
      if (!tensor.ok()) return std::nullopt;
      return *std::move(tensor);
    }
    if (node->op() == "Shape" && node->num_inputs() == 1 && node->input_edge(0) != nullptr) {
      const Edge* edge = node->input_edge(0);
      const PartialShape& shape = edge->src->output_shape(edge->src_output);
      if (!shape.IsFullyDefined()) return std::nullopt;
      std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
      if (node->output_type(0) == TSR_DTYPE_INT64) {
        return Tensor::Vector<int64_t>(dims);
      }
      std::vector<int32_t> dims32;
      for (int64_t d : dims) {
        if (d > INT32_MAX) return std::nullopt;
        dims32.push_back(static_cast<int32_t>(d));
      }
      return Tensor::Vector<int32_t>(dims32);
    }
    return std::nullopt;
  }

  std::vector<std::optional<std::optional<Tensor>>> values_;
};

absl::Status InferShapes(Graph* graph, const std::vector<Node*>& order) {
  ConstantCache constants(graph->num_node_ids());
  for (Node* node : order) {
    if (!node->IsOp()) continue;
    const OpRegistration* registration = node->op_registration();
    if (!registration->shape_fn) continue;
    std::vector<PartialShape> input_shapes(node->num_inputs());
    std::vector<const Tensor*> input_tensors(node->num_inputs(), nullptr);
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* edge = node->input_edge(i);
      input_shapes[i] = edge->src->output_shape(edge->src_output);
      input_tensors[i] = constants.Get(edge->src, edge->src_output);
    }
    ShapeInferenceContext ctx(node->def(), registration->op_def, node->input_types(),
                              node->output_types(), std::move(input_shapes),
                              std::move(input_tensors));
    absl::Status status = registration->shape_fn(ctx);
    if (!status.ok()) {
      return WithContext(status, absl::StrCat("while inferring shapes for ", node->DebugString()));
    }
    for (int i = 0; i < node->num_outputs(); ++i) node->set_output_shape(i, ctx.output(i));
  }
  return absl::OkStatus();
}

absl::Status AddEdges(Graph* graph, const std::vector<std::pair<Node*, ParsedInputs>>& nodes) {
  for (const auto& [node, inputs] : nodes) {
    const std::string label = node->DebugString();
    if (static_cast<int>(inputs.data.size()) != node->num_inputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, " has ", inputs.data.size(), " data inputs, expected ", node->num_inputs()));
    }
    for (int i = 0; i < node->num_inputs(); ++i) {
      const TensorId& id = inputs.data[i];
      Node* src = graph->FindNode(id.node);
      if (src == nullptr || !src->IsOp()) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": input ", i, " refers to node '",
                                                       id.node, "', which is not in the graph"));
      }
      if (id.index >= src->num_outputs()) {
        return absl::InvalidArgumentError(absl::StrCat(
            label, ": input ", i, " '", id.ToString(), "' refers to output ", id.index, " of '",
            id.node, "', but '", id.node, "' has ", src->num_outputs(), " outputs"));
      }
      const DataType actual = src->output_type(id.index);
      const DataType expected = node->input_type(i);
      // A ref output may feed a plain input of its base type (TensorFlow reads the variable).
      if (actual != expected && !(IsRefType(actual) && BaseType(actual) == expected)) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": input ", i, " '", id.ToString(),
                                                       "' has type ", DataTypeString(actual),
                                                       ", expected ", DataTypeString(expected)));
      }
      graph->AddEdge(src, id.index, node, i);
    }
    for (const TensorId& id : inputs.control) {
      Node* src = graph->FindNode(id.node);
      if (src == nullptr || !src->IsOp()) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": control input '", id.ToString(),
                                                       "' refers to node '", id.node,
                                                       "', which is not in the graph"));
      }
      graph->AddControlEdge(src, node);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const tensorflow::GraphDef& def,
                                                      const OpRegistry& ops) {
  return ImportGraphDef(def, ops, ImportGraphDefOptions());
}

namespace {

// Def is `const tensorflow::GraphDef` (nodes copied) or `tensorflow::GraphDef` (nodes moved).
template <typename Def>
absl::StatusOr<std::unique_ptr<Graph>> Import(Def& def, const OpRegistry& ops,
                                              const ImportGraphDefOptions& options) {
  if (HasFunctionCalls(def) || HasFunctionalControlFlow(def)) {
    // Function calls are inlined and If/While lowered first; the graph built is the result.
    tensorflow::GraphDef inlined;
    if constexpr (std::is_const_v<Def>) {
      inlined = def;
    } else {
      inlined = std::move(def);
    }
    RETURN_IF_ERROR(ExpandFunctions(&inlined, ops));
    return Import(inlined, ops, options);
  }
  auto graph = std::make_unique<Graph>(&ops);
  graph->versions = def.versions();
  graph->library = def.library();

  absl::flat_hash_set<absl::string_view> names;
  for (int i = 0; i < def.node_size(); ++i) {
    const tensorflow::NodeDef& node = def.node(i);
    bool internal = options.allow_internal_names && !node.name().empty() && node.name()[0] == '_' &&
                    IsValidNodeName(node.name().substr(1));
    if (!internal && !IsValidNodeName(node.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", i, " (", node.op(), ") has name '", node.name(),
                       "', which does not match [A-Za-z0-9.][A-Za-z0-9_>./-]*"));
    }
    if (!names.insert(node.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate node name '", node.name(), "' (node ", i, ")"));
    }
  }

  std::vector<std::pair<Node*, ParsedInputs>> nodes;
  nodes.reserve(def.node_size());
  for (int i = 0; i < def.node_size(); ++i) {
    ParsedInputs inputs;
    ASSIGN_OR_RETURN(inputs, ParseInputs(def.node(i)));
    Node* node;
    if constexpr (std::is_const_v<Def>) {
      ASSIGN_OR_RETURN(node, graph->AddNode(def.node(i)));
    } else {
      ASSIGN_OR_RETURN(node, graph->AddNode(std::move(*def.mutable_node(i))));
    }
    nodes.emplace_back(node, std::move(inputs));
  }
  RETURN_IF_ERROR(AddEdges(graph.get(), nodes));
  graph->FixupSourceAndSinkEdges();

  std::vector<Node*> left_over;
  std::vector<Node*> order = TopologicalOrder(*graph, &left_over);
  if (!left_over.empty()) return CycleError(*graph, left_over);
  RETURN_IF_ERROR(InferShapes(graph.get(), order));
  return graph;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const tensorflow::GraphDef& def,
                                                      const OpRegistry& ops,
                                                      const ImportGraphDefOptions& options) {
  return Import(def, ops, options);
}

absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(tensorflow::GraphDef&& def,
                                                      const OpRegistry& ops,
                                                      const ImportGraphDefOptions& options) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(def, ops, options);
  def.clear_node();
  return graph;
}

absl::Status ExtendGraph(Graph* graph, const std::vector<tensorflow::NodeDef>& nodes,
                         std::vector<Node*>* added) {
  absl::flat_hash_set<absl::string_view> names;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const tensorflow::NodeDef& node = nodes[i];
    if (!IsValidNodeName(node.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "' (", node.op(),
                       "): the name does not match [A-Za-z0-9.][A-Za-z0-9_>./-]*"));
    }
    if (graph->FindNode(node.name()) != nullptr || !names.insert(node.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "' (", node.op(), "): the name is already used"));
    }
  }
  std::vector<std::pair<Node*, ParsedInputs>> new_nodes;
  new_nodes.reserve(nodes.size());
  // Undoes everything on the first error.
  auto roll_back = [&](absl::Status status) {
    for (auto& entry : new_nodes) graph->RemoveNode(entry.first);
    return status;
  };
  for (const tensorflow::NodeDef& def : nodes) {
    absl::StatusOr<ParsedInputs> inputs = ParseInputs(def);
    if (!inputs.ok()) return roll_back(inputs.status());
    absl::StatusOr<Node*> node = graph->AddNode(def);
    if (!node.ok()) return roll_back(node.status());
    new_nodes.emplace_back(*node, *std::move(inputs));
  }
  absl::Status status = AddEdges(graph, new_nodes);
  if (!status.ok()) return roll_back(status);

  // Kahn's algorithm over the new nodes: only they can form a cycle, since no existing node reads
  // a new one.
  absl::flat_hash_map<const Node*, int> pending;
  for (auto& [node, inputs] : new_nodes) pending[node] = 0;
  for (auto& [node, inputs] : new_nodes) {
    for (const Edge* edge : node->in_edges()) {
      if (pending.contains(edge->src) && !IsBackEdge(edge)) ++pending[node];
    }
  }
  std::vector<Node*> order;
  for (auto& [node, inputs] : new_nodes) {
    if (pending[node] == 0) order.push_back(node);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Edge* edge : order[i]->out_edges()) {
      if (IsBackEdge(edge)) continue;
      auto it = pending.find(edge->dst);
      if (it != pending.end() && --it->second == 0) order.push_back(edge->dst);
    }
  }
  if (order.size() != new_nodes.size()) {
    std::vector<Node*> left_over;
    for (auto& [node, inputs] : new_nodes) {
      if (pending[node] > 0) left_over.push_back(node);
    }
    return roll_back(CycleError(*graph, left_over));
  }
  status = InferShapes(graph, order);
  if (!status.ok()) return roll_back(status);
  if (added != nullptr) {
    added->clear();
    for (auto& entry : new_nodes) added->push_back(entry.first);
  }
  return absl::OkStatus();
}

}  // namespace tessera
