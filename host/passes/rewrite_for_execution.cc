// Feeds, fetches and pruning.
#include "host/passes/rewrite_for_execution.h"

#include <deque>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/graph/graph.h"

namespace tessera {
namespace {

std::string Canonical(const TensorId& id) { return absl::StrCat(id.node, ":", id.index); }

absl::StatusOr<TensorId> ParseEndpoint(absl::string_view name, absl::string_view what) {
  absl::StatusOr<TensorId> id = ParseTensorName(name);
  if (!id.ok()) return WithContext(id.status(), absl::StrCat("bad ", what, " '", name, "'"));
  if (id->index < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", name, "' is a control input; name a tensor ('node' or 'node:k')"));
  }
  return id;
}

absl::StatusOr<Node*> FindOutput(Graph* graph, const TensorId& id, absl::string_view what) {
  Node* node = graph->FindNode(id.node);
  if (node == nullptr || !node->IsOp()) {
    return absl::NotFoundError(
        absl::StrCat(what, " '", Canonical(id), "': node '", id.node, "' is not in the graph"));
  }
  if (id.index >= node->num_outputs()) {
    std::string hint = node->num_outputs() == 0
                           ? absl::StrCat("; it has no outputs: use it as a target instead")
                           : "";
    return absl::InvalidArgumentError(absl::StrCat(what, " '", Canonical(id), "': node '", id.node,
                                                   "' (", node->op(), ") has ", node->num_outputs(),
                                                   " output(s)", hint));
  }
  return node;
}

tensorflow::AttrValue TypeAttr(DataType dtype) {
  tensorflow::AttrValue v;
  v.set_type(static_cast<tensorflow::DataType>(dtype));
  return v;
}

tensorflow::AttrValue IntAttr(int64_t i) {
  tensorflow::AttrValue v;
  v.set_i(i);
  return v;
}

}  // namespace

absl::Status RewriteGraphForExecution(Graph* graph, const ExecutionSignature& signature,
                                      const std::string& client_device, RewriteResult* result) {
  if (signature.fetches.empty() && signature.targets.empty()) {
    return absl::InvalidArgumentError("must specify at least one tensor to fetch or node to run");
  }
  std::vector<TensorId> feeds;
  absl::flat_hash_set<std::string> fed;
  for (const std::string& name : signature.feeds) {
    ASSIGN_OR_RETURN(TensorId id, ParseEndpoint(name, "feed"));
    if (!fed.insert(Canonical(id)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", Canonical(id), "' is fed more than once"));
    }
    feeds.push_back(std::move(id));
  }
  std::vector<TensorId> fetches;
  for (const std::string& name : signature.fetches) {
    ASSIGN_OR_RETURN(TensorId id, ParseEndpoint(name, "fetch"));
    if (fed.contains(Canonical(id))) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", Canonical(id), "' is both fed and fetched"));
    }
    fetches.push_back(std::move(id));
  }
  std::vector<Node*> targets;
  std::vector<std::string> missing_targets;
  for (const std::string& name : signature.targets) {
    absl::StatusOr<TensorId> id = ParseTensorName(name);
    Node* node = id.ok() ? graph->FindNode(id->node) : nullptr;
    if (node == nullptr || !node->IsOp()) {
      missing_targets.push_back(name);
      continue;
    }
    targets.push_back(node);
  }
  if (!missing_targets.empty()) {
    return absl::NotFoundError(
        absl::StrCat("target node(s) not in the graph: ", absl::StrJoin(missing_targets, ", ")));
  }

  // Feeds: an _Arg takes over every consumer of the fed output.
  result->feed_types.clear();
  for (size_t i = 0; i < feeds.size(); ++i) {
    const TensorId& id = feeds[i];
    ASSIGN_OR_RETURN(Node * src, FindOutput(graph, id, "feed"));
    const DataType dtype = BaseType(src->output_type(id.index));
    if (dtype == TSR_DTYPE_RESOURCE) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot feed '", id.ToString(),
                       "': it is a resource handle, which only the runtime "
                       "makes"));
    }
    tensorflow::NodeDef def;
    def.set_name(absl::StrCat("_arg_", id.node, "_", id.index, "_", i));
    def.set_op("_Arg");
    def.set_device(client_device);
    (*def.mutable_attr())["T"] = TypeAttr(dtype);
    (*def.mutable_attr())["index"] = IntAttr(static_cast<int64_t>(i));
    ASSIGN_OR_RETURN(Node * arg, graph->AddNode(std::move(def)));
    arg->set_assigned_device(client_device);
    graph->AddControlEdge(graph->source(), arg);
    std::vector<const Edge*> moved;
    for (const Edge* e : src->out_edges()) {
      bool data_from_port = !e->IsControlEdge() && e->src_output == id.index;
      bool placeholder_control =
          e->IsControlEdge() && src->op() == "Placeholder" && !e->dst->IsSink();
      if (data_from_port || placeholder_control) moved.push_back(e);
    }
    for (const Edge* e : moved) {
      Node* dst = e->dst;
      int dst_input = e->dst_input;
      bool control = e->IsControlEdge();
      graph->RemoveEdge(e);
      if (control) {
        graph->AddControlEdge(arg, dst);
      } else {
        graph->AddEdge(arg, 0, dst, dst_input);
      }
    }
    result->feed_types.push_back(dtype);
  }

  // Fetches: a _Retval per fetched tensor.
  std::vector<Node*> roots = targets;
  result->fetch_types.clear();
  for (size_t i = 0; i < fetches.size(); ++i) {
    const TensorId& id = fetches[i];
    ASSIGN_OR_RETURN(Node * src, FindOutput(graph, id, "fetch"));
    // Fetching a ref variable's output reads the variable.
    const DataType dtype = BaseType(src->output_type(id.index));
    if (dtype == TSR_DTYPE_RESOURCE) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot fetch '", id.ToString(),
                       "': it is a resource handle; fetch a "
                       "ReadVariableOp of it to get the variable's value"));
    }
    tensorflow::NodeDef def;
    def.set_name(absl::StrCat("_retval_", id.node, "_", id.index, "_", i));
    def.set_op("_Retval");
    def.set_device(client_device);
    def.add_input(Canonical(id));
    (*def.mutable_attr())["T"] = TypeAttr(dtype);
    (*def.mutable_attr())["index"] = IntAttr(static_cast<int64_t>(i));
    ASSIGN_OR_RETURN(Node * retval, graph->AddNode(std::move(def)));
    retval->set_assigned_device(client_device);
    graph->AddEdge(src, id.index, retval, 0);
    graph->AddControlEdge(retval, graph->sink());
    roots.push_back(retval);
    result->fetch_types.push_back(dtype);
  }

  // Prune: keep what the roots reach backwards.
  std::vector<bool> keep(graph->num_node_ids(), false);
  std::deque<Node*> queue(roots.begin(), roots.end());
  for (Node* n : roots) keep[n->id()] = true;
  while (!queue.empty()) {
    Node* n = queue.front();
    queue.pop_front();
    for (const Edge* e : n->in_edges()) {
      if (!keep[e->src->id()]) {
        keep[e->src->id()] = true;
        queue.push_back(e->src);
      }
    }
  }
  for (Node* n : graph->op_nodes()) {
    if (!keep[n->id()]) graph->RemoveNode(n);
  }
  // Every remaining node starts after SOURCE and ends before SINK.
  for (Node* n : graph->op_nodes()) {
    if (n->in_edges().empty()) graph->AddControlEdge(graph->source(), n);
    if (n->out_edges().empty()) graph->AddControlEdge(n, graph->sink());
  }
  return absl::OkStatus();
}

std::vector<const Node*> SignatureNodes(const Graph& graph, const ExecutionSignature& signature) {
  std::vector<const Node*> nodes;
  for (const std::vector<std::string>* names :
       {&signature.feeds, &signature.fetches, &signature.targets}) {
    for (const std::string& name : *names) {
      absl::StatusOr<TensorId> id = ParseTensorName(name);
      const Node* node = graph.FindNode(id.ok() ? id->node : name);
      if (node != nullptr) nodes.push_back(node);
    }
  }
  return nodes;
}

}  // namespace tessera
