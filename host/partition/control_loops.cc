// Control loops for loop frames that span devices (TensorFlow's AddControlFlow, with a frame
// leader, the device of the LoopCond, broadcasting the predicate to every other participant), and
// the control-flow colocation tweak.
#include "host/partition/control_loops.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/attr_util.h"

namespace tessera {
namespace {

struct ControlLoop {
  Node* enter = nullptr;
  Node* merge = nullptr;
};

// "<base>/_cloop/_N", a name no node of the graph uses.
std::string ControlLoopName(Graph* graph, const std::string& base) {
  return graph->NewName(absl::StrCat(base, "/_cloop"));
}

tensorflow::NodeDef FloatNodeDef(std::string name, const char* op) {
  tensorflow::NodeDef def;
  def.set_name(std::move(name));
  def.set_op(op);
  (*def.mutable_attr())["T"] = TypeAttrValue(TSR_DTYPE_FLOAT);
  return def;
}

absl::StatusOr<Node*> AddPlacedNode(tensorflow::NodeDef def, const std::string& device,
                                    Graph* graph) {
  def.set_device(device);
  const std::string name = def.name();
  absl::StatusOr<Node*> node = graph->AddNode(std::move(def));
  if (!node.ok()) {
    return WithContext(node.status(), absl::StrCat("while adding control-loop node '", name,
                                                   "' on '", device, "'"));
  }
  (*node)->set_assigned_device(device);
  return *node;
}

// One control loop for `frame` on `device`; the Enter's input is left for the caller to connect.
absl::StatusOr<ControlLoop> AddControlLoop(const FrameInfo& frame, Node* loop_cond,
                                           const std::string& device, const std::string& base,
                                           Graph* graph) {
  tensorflow::NodeDef enter_def = FloatNodeDef(ControlLoopName(graph, base), "Enter");
  (*enter_def.mutable_attr())["frame_name"] = StringAttrValue(frame.name);
  (*enter_def.mutable_attr())["is_constant"] = BoolAttrValue(false);
  (*enter_def.mutable_attr())["parallel_iterations"] = IntAttrValue(frame.parallel_iterations);
  tensorflow::NodeDef merge_def = FloatNodeDef(ControlLoopName(graph, base), "Merge");
  (*merge_def.mutable_attr())["N"] = IntAttrValue(2);
  tensorflow::NodeDef switch_def = FloatNodeDef(ControlLoopName(graph, base), "Switch");
  tensorflow::NodeDef next_def = FloatNodeDef(ControlLoopName(graph, base), "NextIteration");

  ControlLoop loop;
  ASSIGN_OR_RETURN(loop.enter, AddPlacedNode(std::move(enter_def), device, graph));
  ASSIGN_OR_RETURN(loop.merge, AddPlacedNode(std::move(merge_def), device, graph));
  ASSIGN_OR_RETURN(Node * switch_node, AddPlacedNode(std::move(switch_def), device, graph));
  ASSIGN_OR_RETURN(Node * next, AddPlacedNode(std::move(next_def), device, graph));
  graph->AddEdge(loop.enter, 0, loop.merge, 0);
  graph->AddEdge(next, 0, loop.merge, 1);
  graph->AddEdge(loop.merge, 0, switch_node, 0);
  graph->AddEdge(loop_cond, 0, switch_node, 1);
  graph->AddEdge(switch_node, 1, next, 0);
  return loop;
}

}  // namespace

tensorflow::NodeDef EmptyConstNodeDef(const std::string& name, const std::string& device) {
  tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  def.set_device(device);
  (*def.mutable_attr())["dtype"] = TypeAttrValue(TSR_DTYPE_FLOAT);
  tensorflow::TensorProto* value = (*def.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(tensorflow::DT_FLOAT);
  value->mutable_tensor_shape()->add_dim()->set_size(0);
  return def;
}

void OptimizeControlFlowColocation(Graph* graph) {
  auto visit = [](Node* node) {
    if (IsSwitch(*node) || IsExit(*node)) {
      const Edge* data = node->num_inputs() > 0 ? node->input_edge(0) : nullptr;
      if (data != nullptr) node->set_assigned_device(data->src->assigned_device());
    } else if (IsEnter(*node) || IsNextIteration(*node)) {
      for (const Edge* edge : node->out_edges()) {
        if (!edge->IsControlEdge()) {
          node->set_assigned_device(edge->dst->assigned_device());
          break;
        }
      }
    }
  };
  // Preorder depth-first walk with an explicit stack; the last out-edge pushed is visited first.
  std::vector<bool> visited(graph->num_node_ids(), false);
  std::vector<Node*> stack = {graph->source()};
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    if (visited[node->id()]) continue;
    visited[node->id()] = true;
    visit(node);
    for (const Edge* edge : node->out_edges()) {
      if (!visited[edge->dst->id()]) stack.push_back(edge->dst);
    }
  }
}

absl::StatusOr<bool> AddControlLoops(const ControlFlowInfo& info, Graph* graph) {
  std::map<std::pair<int, std::string>, ControlLoop> loops;
  bool added = false;
  // Only the edges present on entry: the new ones (LoopCond -> control-loop Switch) are in a
  // frame whose control loop on their dst device exists by construction.
  const int num_edges = graph->num_edge_ids();
  for (int i = 0; i < num_edges; ++i) {
    const Edge* edge = graph->edge(i);
    if (edge == nullptr || !edge->src->IsOp() || !edge->dst->IsOp()) continue;
    const std::string device = edge->dst->assigned_device();
    if (edge->src->assigned_device() == device) continue;
    // Walk out from the edge's frame, adding the missing loops and chaining each new inner
    // Enter to the Merge of the loop around it.
    Node* inner_enter = nullptr;
    int frame = info.node_frame[edge->dst->id()];
    while (frame > 0) {
      auto it = loops.find({frame, device});
      if (it != loops.end()) {
        if (inner_enter != nullptr) graph->AddEdge(it->second.merge, 0, inner_enter, 0);
        inner_enter = nullptr;
        break;
      }
      const FrameInfo& frame_info = info.frames[frame];
      if (frame_info.loop_cond == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("a cross-device loop must have a pivot predicate (frame '",
                         frame_info.name, "'): the frame has no LoopCond, and edge '",
                         edge->src->name(), "' -> '", edge->dst->name(), "' inside it goes from '",
                         edge->src->assigned_device(), "' to '", device, "'"));
      }
      Node* loop_cond = graph->node(frame_info.loop_cond->id());
      ASSIGN_OR_RETURN(ControlLoop loop,
                       AddControlLoop(frame_info, loop_cond, device, edge->dst->name(), graph));
      added = true;
      loops[{frame, device}] = loop;
      if (inner_enter != nullptr) graph->AddEdge(loop.merge, 0, inner_enter, 0);
      inner_enter = loop.enter;
      frame = frame_info.parent;
    }
    if (inner_enter != nullptr) {
      // The outermost new loop starts from a dummy value in the root frame.
      ASSIGN_OR_RETURN(
          Node * start,
          AddPlacedNode(EmptyConstNodeDef(ControlLoopName(graph, edge->dst->name()), device),
                        device, graph));
      graph->AddControlEdge(graph->source(), start);
      graph->AddEdge(start, 0, inner_enter, 0);
    }
  }
  return added;
}

ControlLoopMerges FindControlLoopMerges(const Graph& graph, const ControlFlowInfo& info) {
  ControlLoopMerges merges;
  for (const Node* node : graph.op_nodes()) {
    if (!IsMerge(*node) || !absl::StrContains(node->name(), kControlLoopMarker)) continue;
    const int frame = info.node_frame[node->id()];
    if (frame > 0) merges.emplace(std::make_pair(frame, node->assigned_device()), node);
  }
  return merges;
}

}  // namespace tessera
