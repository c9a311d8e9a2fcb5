// The op fusion pass: Conv2D / MatMul + BiasAdd (+ activation) into _FusedConv2D / _FusedMatMul.
#include "host/passes/op_fusion.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/graph.h"
#include "host/graph/tensor_id.h"

namespace tessera {
namespace {

bool IsActivation(const std::string& op) {
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "LeakyRelu";
}

// The node reading output 0 of `node` at its input 0 when that is the output's only use: no other
// consumer of any output, and no control edge out (but to the sink).
Node* SoleConsumer(const Node* node) {
  Node* consumer = nullptr;
  for (const Edge* edge : node->out_edges()) {
    if (edge->IsControlEdge()) {
      if (edge->dst->IsSink()) continue;
      return nullptr;
    }
    if (edge->src_output != 0 || edge->dst_input != 0 || consumer != nullptr) return nullptr;
    consumer = edge->dst;
  }
  return consumer;
}

std::string StringAttr(const Node& node, const char* name, const char* absent) {
  const tensorflow::AttrValue* value = node.attr(name);
  return value != nullptr ? value->s() : absent;
}

bool SameType(const Node& a, const Node& b) {
  const tensorflow::AttrValue* ta = a.attr("T");
  const tensorflow::AttrValue* tb = b.attr("T");
  return ta != nullptr && tb != nullptr && ta->type() == tb->type();
}

// A chain to fuse: the convolution or product, the BiasAdd, maybe an activation, and the inputs
// the fused node takes from outside the chain.
struct Chain {
  struct Input {
    Node* src;
    int src_output;
  };
  Node* head = nullptr;
  Node* bias = nullptr;
  Node* activation = nullptr;
  std::vector<Input> data;     // input and filter (a and b), then the bias
  std::vector<Node*> control;  // every control input of the chain's nodes from outside it
  Node* last() const { return activation != nullptr ? activation : bias; }
  bool Contains(const Node* node) const {
    return node == head || node == bias || node == activation;
  }
};

// The types the fused ops take (a Conv2D or MatMul of another type stays as it is).
bool FusableType(const Node& node) {
  const tensorflow::AttrValue* t = node.attr("T");
  if (t == nullptr) return false;
  switch (t->type()) {
    case tensorflow::DT_HALF:
    case tensorflow::DT_BFLOAT16:
    case tensorflow::DT_FLOAT:
    case tensorflow::DT_DOUBLE:
      return true;
    default:
      return false;
  }
}

bool FindChain(Node* head, Chain* chain) {
  const bool conv = head->op() == "Conv2D";
  if ((!conv && head->op() != "MatMul") || !FusableType(*head)) return false;
  Node* bias = SoleConsumer(head);
  if (bias == nullptr || bias->op() != "BiasAdd" ||
      bias->assigned_device() != head->assigned_device() || !SameType(*head, *bias)) {
    return false;
  }
  // A convolution's channels are where its data_format puts them; a product's are its last
  // dimension, which is also BiasAdd's channel dimension for a matrix in either format.
  if (conv && StringAttr(*head, "data_format", "NHWC") != StringAttr(*bias, "data_format", "NHWC")) {
    return false;
  }
  chain->head = head;
  chain->bias = bias;
  chain->activation = nullptr;
  Node* activation = SoleConsumer(bias);
  if (activation != nullptr && IsActivation(activation->op()) &&
      activation->assigned_device() == head->assigned_device() && SameType(*head, *activation)) {
    chain->activation = activation;
  }
  chain->data.clear();
  for (const Edge* edge : {head->input_edge(0), head->input_edge(1), bias->input_edge(1)}) {
    chain->data.push_back({edge->src, edge->src_output});
  }
  chain->control.clear();
  for (Node* node : {chain->head, chain->bias, chain->activation}) {
    if (node == nullptr) continue;
    for (const Edge* edge : node->in_edges()) {
      if (edge->IsControlEdge() && edge->src->IsOp() && !chain->Contains(edge->src)) {
        chain->control.push_back(edge->src);
      }
    }
  }
  return true;
}

// The fused node's definition: the head's attrs, the fused ops and the chain's inputs (data, then
// control).
tensorflow::NodeDef FusedDef(const Chain& chain) {
  const Node& head = *chain.head;
  const bool conv = head.op() == "Conv2D";
  tensorflow::NodeDef def;
  def.set_name(chain.last()->name());
  def.set_op(conv ? "_FusedConv2D" : "_FusedMatMul");
  def.set_device(chain.last()->requested_device());
  auto& attrs = *def.mutable_attr();
  if (conv) {
    // The convolution's own attributes; internal ones (`_class` naming a node that goes away,
    // `_output_shapes`) are not carried over.
    for (const auto& [name, value] : head.def().attr()) {
      if (name.empty() || name[0] != '_') attrs[name] = value;
    }
  } else {
    for (const char* name : {"T", "transpose_a", "transpose_b"}) {
      if (head.attr(name) != nullptr) attrs[name] = *head.attr(name);
    }
  }
  attrs["num_args"].set_i(1);
  tensorflow::AttrValue::ListValue* ops = attrs["fused_ops"].mutable_list();
  ops->add_s("BiasAdd");
  if (chain.activation != nullptr) {
    ops->add_s(chain.activation->op());
    if (chain.activation->op() == "LeakyRelu" && chain.activation->attr("alpha") != nullptr) {
      attrs["leakyrelu_alpha"].set_f(chain.activation->attr("alpha")->f());
    }
  }
  for (const Chain::Input& input : chain.data) {
    def.add_input(TensorId{input.src->name(), input.src_output}.ToString());
  }
  for (const Node* src : chain.control) {
    def.add_input(TensorId{src->name(), kControlSlot}.ToString());
  }
  return def;
}

// Replaces the chain's nodes by one node of `def`.
absl::Status Replace(Graph* graph, const Chain& chain, tensorflow::NodeDef def) {
  struct Output {
    Node* dst;
    int dst_input;
    bool control;
  };
  Node* last = chain.last();
  std::vector<Output> outputs;
  for (const Edge* edge : last->out_edges()) {
    outputs.push_back({edge->dst, edge->dst_input, edge->IsControlEdge()});
  }
  const std::string device = last->assigned_device();
  const PartialShape shape = last->output_shape(0);
  for (Node* node : {chain.activation, chain.bias, chain.head}) {
    if (node != nullptr) graph->RemoveNode(node);
  }
  Node* fused;
  ASSIGN_OR_RETURN(fused, graph->AddNode(std::move(def)));
  fused->set_assigned_device(device);
  fused->set_output_shape(0, shape);
  for (size_t i = 0; i < chain.data.size(); ++i) {
    graph->AddEdge(chain.data[i].src, chain.data[i].src_output, fused, static_cast<int>(i));
  }
  for (Node* src : chain.control) graph->AddControlEdge(src, fused);
  for (const Output& out : outputs) {
    if (out.control) {
      graph->AddControlEdge(fused, out.dst);
    } else {
      graph->AddEdge(fused, 0, out.dst, out.dst_input);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FuseOps(Graph* graph, const HasKernelFn& has_kernel, int* fused) {
  int count = 0;
  const int ids = graph->num_node_ids();
  for (int id = 0; id < ids; ++id) {
    Node* head = graph->node(id);
    Chain chain;
    if (head == nullptr || !head->IsOp() || !FindChain(head, &chain)) continue;
    tensorflow::NodeDef def = FusedDef(chain);
    // The candidate in a scratch graph first: the chain stays as it is when no kernel takes it.
    Graph scratch(&graph->op_registry());
    absl::StatusOr<Node*> candidate = scratch.AddNode(def);
    if (!candidate.ok()) {
      // The chain's types and attributes are ones the fused op takes: a refusal is a fault here.
      return absl::InternalError(absl::StrCat("op fusion made an invalid node from '",
                                              head->name(), "': ", candidate.status().message()));
    }
    (*candidate)->set_assigned_device(head->assigned_device());
    if (!has_kernel(**candidate)) continue;
    RETURN_IF_ERROR(Replace(graph, chain, std::move(def)));
    ++count;
  }
  if (fused != nullptr) *fused = count;
  return absl::OkStatus();
}

}  // namespace tessera
