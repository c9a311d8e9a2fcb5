// Graph: nodes, edges, SOURCE/SINK, export to GraphDef and cloning.
#include "host/graph/graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/attr_util.h"
#include "host/ops/node_def_util.h"

namespace tessera {
namespace {

void EraseEdge(std::vector<const Edge*>* edges, const Edge* edge) {
  auto it = std::find(edges->begin(), edges->end(), edge);
  if (it != edges->end()) edges->erase(it);
}

}  // namespace

const tensorflow::AttrValue* Node::attr(absl::string_view name) const {
  return FindNodeAttr(def_, name);
}

std::string Node::DebugString() const { return FormatNodeForError(def_); }

Graph::Graph(const OpRegistry* ops) : ops_(ops) {
  for (Node::Kind kind : {Node::Kind::kSource, Node::Kind::kSink}) {
    std::unique_ptr<Node> node(new Node());
    node->kind_ = kind;
    node->def_.set_name(kind == Node::Kind::kSource ? "_SOURCE" : "_SINK");
    node->def_.set_op("NoOp");
    AddNodeInternal(std::move(node));
  }
}

Graph::~Graph() = default;

Node* Graph::AddNodeInternal(std::unique_ptr<Node> node) {
  node->id_ = static_cast<int>(nodes_.size());
  Node* raw = node.get();
  nodes_by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  ++num_live_nodes_;
  return raw;
}

absl::StatusOr<Node*> Graph::AddNode(tensorflow::NodeDef def) {
  if (def.name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("a node of op '", def.op(), "' has no name"));
  }
  if (nodes_by_name_.contains(def.name())) {
    return absl::InvalidArgumentError(
        absl::StrCat("node name '", def.name(), "' is used by more than one node"));
  }
  absl::StatusOr<const OpRegistration*> registration = ops_->LookUp(def.op());
  if (!registration.ok()) {
    return WithContext(registration.status(), absl::StrCat("node '", def.name(), "'"));
  }
  const tensorflow::OpDef& op_def = (*registration)->op_def;
  AddDefaultsToNodeDef(op_def, &def);
  RETURN_IF_ERROR(ValidateNodeDefAttrs(def, op_def));
  std::unique_ptr<Node> node(new Node());
  RETURN_IF_ERROR(InOutTypesForNode(def, op_def, &node->input_types_, &node->output_types_));
  node->kind_ = Node::Kind::kOp;
  node->op_registration_ = *registration;
  node->def_ = std::move(def);
  node->input_edges_.assign(node->input_types_.size(), nullptr);
  node->output_shapes_.assign(node->output_types_.size(), PartialShape::Unknown());
  return AddNodeInternal(std::move(node));
}

Edge* Graph::NewEdge(Node* src, int src_output, Node* dst, int dst_input, int id) {
  auto edge = std::make_unique<Edge>(Edge{src, src_output, dst, dst_input, id});
  Edge* raw = edge.get();
  if (id >= static_cast<int>(edges_.size())) edges_.resize(id + 1);
  edges_[id] = std::move(edge);
  return raw;
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  TESSERA_CHECK(src != nullptr && dst != nullptr, "edge endpoints must be nodes");
  const bool control = src_output == kControlSlot;
  TESSERA_CHECK(control == (dst_input == kControlSlot),
                "an edge is control on both ends or on neither");
  if (!control) {
    TESSERA_CHECK(
        src_output >= 0 && src_output < src->num_outputs(),
        absl::StrCat("output ", src_output, " of ", src->DebugString(), " does not exist"));
    TESSERA_CHECK(dst_input >= 0 && dst_input < dst->num_inputs(),
                  absl::StrCat("input ", dst_input, " of ", dst->DebugString(), " does not exist"));
    TESSERA_CHECK(
        dst->input_edges_[dst_input] == nullptr,
        absl::StrCat("input ", dst_input, " of ", dst->DebugString(), " is already connected"));
  }
  Edge* edge = NewEdge(src, src_output, dst, dst_input, static_cast<int>(edges_.size()));
  src->out_edges_.push_back(edge);
  dst->in_edges_.push_back(edge);
  if (!control) dst->input_edges_[dst_input] = edge;
  return edge;
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  // An existing control edge is found from the end with fewer edges: SINK and SOURCE touch every
  // node, and scanning their lists each time made building a graph quadratic.
  if (src->out_edges_.size() <= dst->in_edges_.size()) {
    for (const Edge* edge : src->out_edges_) {
      if (edge->IsControlEdge() && edge->dst == dst) return edge;
    }
  } else {
    for (const Edge* edge : dst->in_edges_) {
      if (edge->IsControlEdge() && edge->src == src) return edge;
    }
  }
  return AddEdge(src, kControlSlot, dst, kControlSlot);
}

void Graph::RemoveEdge(const Edge* edge) {
  TESSERA_CHECK(edge != nullptr && edge->id < num_edge_ids() && edges_[edge->id].get() == edge,
                "RemoveEdge of an edge that is not in the graph");
  EraseEdge(&edge->src->out_edges_, edge);
  EraseEdge(&edge->dst->in_edges_, edge);
  if (!edge->IsControlEdge()) edge->dst->input_edges_[edge->dst_input] = nullptr;
  edges_[edge->id].reset();
}

void Graph::RemoveNode(Node* node) {
  TESSERA_CHECK(node != nullptr && node->IsOp(), "RemoveNode of SOURCE, SINK or null");
  TESSERA_CHECK(nodes_[node->id()].get() == node, "RemoveNode of a node that is not in the graph");
  while (!node->in_edges_.empty()) RemoveEdge(node->in_edges_.back());
  while (!node->out_edges_.empty()) RemoveEdge(node->out_edges_.back());
  nodes_by_name_.erase(node->name());
  --num_live_nodes_;
  nodes_[node->id()].reset();
}

Node* Graph::FindNode(absl::string_view name) const {
  auto it = nodes_by_name_.find(name);
  return it == nodes_by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::op_nodes() const {
  std::vector<Node*> result;
  result.reserve(nodes_.size());
  for (const auto& node : nodes_) {
    if (node != nullptr && node->IsOp()) result.push_back(node.get());
  }
  return result;
}

void Graph::FixupSourceAndSinkEdges() {
  for (Node* node : op_nodes()) {
    if (node->in_edges_.empty()) AddControlEdge(source(), node);
    if (node->out_edges_.empty()) AddControlEdge(node, sink());
  }
}

std::string Graph::NewName(absl::string_view prefix) {
  std::string name;
  do {
    name = absl::StrCat(prefix, "/_", name_counter_++);
  } while (nodes_by_name_.contains(name));
  return name;
}

tensorflow::GraphDef Graph::ToGraphDef() const {
  tensorflow::GraphDef def;
  *def.mutable_versions() = versions;
  *def.mutable_library() = library;
  for (const auto& node : nodes_) {
    if (node == nullptr || !node->IsOp()) continue;
    tensorflow::NodeDef* out = def.add_node();
    *out = node->def_;
    out->clear_input();
    for (const Edge* edge : node->input_edges_) {
      if (edge == nullptr) continue;
      out->add_input(TensorId{edge->src->name(), edge->src_output}.ToString());
    }
    for (const Edge* edge : node->in_edges_) {
      if (edge->IsControlEdge() && edge->src->IsOp()) {
        out->add_input(TensorId{edge->src->name(), kControlSlot}.ToString());
      }
    }
    if (!node->assigned_device_.empty()) out->set_device(node->assigned_device_);
  }
  return def;
}

std::unique_ptr<Graph> Graph::CloneKeeping(const std::vector<bool>& keep) const {
  auto copy = std::make_unique<Graph>(ops_);
  copy->versions = versions;
  copy->library = library;
  copy->name_counter_ = name_counter_;
  copy->nodes_.clear();
  copy->nodes_by_name_.clear();
  copy->num_live_nodes_ = 0;
  for (const auto& node : nodes_) {
    if (node == nullptr || !keep[node->id()]) {
      copy->nodes_.emplace_back();
      continue;
    }
    std::unique_ptr<Node> clone(new Node());
    clone->kind_ = node->kind_;
    clone->op_registration_ = node->op_registration_;
    clone->def_ = node->def_;
    clone->input_types_ = node->input_types_;
    clone->output_types_ = node->output_types_;
    clone->assigned_device_ = node->assigned_device_;
    clone->output_shapes_ = node->output_shapes_;
    clone->input_edges_.assign(node->input_edges_.size(), nullptr);
    copy->AddNodeInternal(std::move(clone));
  }
  copy->edges_.resize(edges_.size());
  for (const auto& edge : edges_) {
    if (edge == nullptr || !keep[edge->src->id()] || !keep[edge->dst->id()]) continue;
    Node* src = copy->nodes_[edge->src->id()].get();
    Node* dst = copy->nodes_[edge->dst->id()].get();
    Edge* clone = copy->NewEdge(src, edge->src_output, dst, edge->dst_input, edge->id);
    if (!clone->IsControlEdge()) dst->input_edges_[clone->dst_input] = clone;
  }
  // Keep each node's edge order.
  for (const auto& node : nodes_) {
    if (node == nullptr || !keep[node->id()]) continue;
    Node* clone = copy->nodes_[node->id()].get();
    for (const Edge* edge : node->in_edges_) {
      if (const Edge* kept = copy->edge(edge->id)) clone->in_edges_.push_back(kept);
    }
    for (const Edge* edge : node->out_edges_) {
      if (const Edge* kept = copy->edge(edge->id)) clone->out_edges_.push_back(kept);
    }
  }
  return copy;
}

std::unique_ptr<Graph> Graph::Clone() const {
  return CloneKeeping(std::vector<bool>(nodes_.size(), true));
}

std::unique_ptr<Graph> Graph::CloneReaching(const std::vector<const Node*>& roots) const {
  std::vector<bool> keep(nodes_.size(), false);
  keep[source()->id()] = true;
  keep[sink()->id()] = true;
  std::vector<const Node*> stack;
  for (const Node* root : roots) {
    if (root != nullptr && !keep[root->id()]) {
      keep[root->id()] = true;
      stack.push_back(root);
    }
  }
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    for (const Edge* edge : node->in_edges()) {
      if (!keep[edge->src->id()]) {
        keep[edge->src->id()] = true;
        stack.push_back(edge->src);
      }
    }
  }
  return CloneKeeping(keep);
}

}  // namespace tessera
