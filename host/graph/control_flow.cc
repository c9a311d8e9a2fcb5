// Frame assignment by a breadth-first walk from the source node.
#include "host/graph/control_flow.h"

#include <algorithm>
#include <deque>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace tessera {

bool IsSwitch(const Node& node) { return node.op() == "Switch" || node.op() == "RefSwitch"; }
bool IsMerge(const Node& node) { return node.op() == "Merge" || node.op() == "RefMerge"; }
bool IsEnter(const Node& node) { return node.op() == "Enter" || node.op() == "RefEnter"; }
bool IsExit(const Node& node) { return node.op() == "Exit" || node.op() == "RefExit"; }
bool IsNextIteration(const Node& node) {
  return node.op() == "NextIteration" || node.op() == "RefNextIteration";
}
bool IsLoopCond(const Node& node) { return node.op() == "LoopCond"; }
bool IsControlTrigger(const Node& node) { return node.op() == "ControlTrigger"; }
bool IsControlFlow(const Node& node) {
  return IsSwitch(node) || IsMerge(node) || IsEnter(node) || IsExit(node) ||
         IsNextIteration(node) || IsLoopCond(node) || IsControlTrigger(node);
}
bool IsSend(const Node& node) { return node.op() == "_Send" || node.op() == "_HostSend"; }
bool IsRecv(const Node& node) { return node.op() == "_Recv" || node.op() == "_HostRecv"; }

int ControlFlowInfo::OutputFrame(const Node& node) const {
  int frame = node_frame[node.id()];
  if (frame < 0) return frame;
  if (IsExit(node)) return frames[frame].parent;
  if (IsEnter(node)) {
    const tensorflow::AttrValue* name = node.attr("frame_name");
    return name == nullptr ? -1 : FindFrame(name->s());
  }
  return frame;
}

int ControlFlowInfo::FindFrame(const std::string& name) const {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

std::string Describe(const Node& node) {
  return absl::StrCat("'", node.name(), "' (", node.op(), ")");
}

// The child frame an Enter opens, created on first sight.
absl::StatusOr<int> ChildFrame(const Node& enter, int parent, ControlFlowInfo* info) {
  const tensorflow::AttrValue* name = enter.attr("frame_name");
  if (name == nullptr || name->s().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Enter node ", Describe(enter), " has no frame_name"));
  }
  int frame = info->FindFrame(name->s());
  if (frame < 0) {
    FrameInfo child;
    child.name = name->s();
    child.parent = parent;
    child.depth = info->frames[parent].depth + 1;
    const tensorflow::AttrValue* parallel = enter.attr("parallel_iterations");
    child.parallel_iterations =
        parallel != nullptr && parallel->i() > 0
            ? static_cast<int>(std::min<int64_t>(parallel->i(), kMaxParallelIterations))
            : 10;
    info->frames.push_back(std::move(child));
    frame = static_cast<int>(info->frames.size()) - 1;
  } else if (info->frames[frame].parent != parent) {
    return absl::InvalidArgumentError(
        absl::StrCat("frame '", name->s(), "' is entered from two different frames: '",
                     info->frames[info->frames[frame].parent].name, "' and '",
                     info->frames[parent].name, "' (at Enter node ", Describe(enter), ")"));
  }
  info->frames[frame].enters.push_back(&enter);
  return frame;
}

}  // namespace

absl::StatusOr<ControlFlowInfo> BuildControlFlowInfo(const Graph& graph) {
  ControlFlowInfo info;
  info.node_frame.assign(graph.num_node_ids(), -1);
  info.frames.push_back(FrameInfo());
  // The node whose output first put each node in its frame, for error messages.
  std::vector<const Node*> first_input(graph.num_node_ids(), nullptr);
  std::vector<bool> visited(graph.num_node_ids(), false);
  std::deque<const Node*> ready;
  ready.push_back(graph.source());
  visited[graph.source()->id()] = true;
  while (!ready.empty()) {
    const Node* node = ready.front();
    ready.pop_front();
    int out_frame = 0;
    if (node->IsOp()) {
      int frame = info.node_frame[node->id()];
      if ((IsExit(*node) || IsNextIteration(*node)) && frame == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(node->op(), " node ", Describe(*node), " is not inside a loop frame"));
      }
      if (IsLoopCond(*node)) {
        const Node* other = info.frames[frame].loop_cond;
        if (other != nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              "frame '", info.frames[frame].name, "' has two LoopCond nodes: ", Describe(*other),
              " and ", Describe(*node)));
        }
        info.frames[frame].loop_cond = node;
      }
      if (IsEnter(*node)) {
        ASSIGN_OR_RETURN(out_frame, ChildFrame(*node, frame, &info));
      } else if (IsExit(*node)) {
        out_frame = info.frames[frame].parent;
      } else {
        out_frame = frame;
      }
    }
    for (const Edge* edge : node->out_edges()) {
      const Node* dst = edge->dst;
      if (!dst->IsOp()) continue;
      // Edges from the source only order roots; they carry no frame.
      if (!node->IsOp()) {
        if (!visited[dst->id()]) {
          visited[dst->id()] = true;
          info.node_frame[dst->id()] = 0;
          ready.push_back(dst);
        }
        continue;
      }
      if (!visited[dst->id()] || first_input[dst->id()] == nullptr) {
        if (!visited[dst->id()]) ready.push_back(dst);
        visited[dst->id()] = true;
        info.node_frame[dst->id()] = out_frame;
        first_input[dst->id()] = node;
        continue;
      }
      if (info.node_frame[dst->id()] != out_frame) {
        const Node* other = first_input[dst->id()];
        return absl::InvalidArgumentError(absl::StrCat(
            "node ", Describe(*dst), " has inputs from different frames: ", Describe(*other),
            " is in frame '", info.frames[info.node_frame[dst->id()]].name, "' and ",
            Describe(*node), " in frame '", info.frames[out_frame].name, "'"));
      }
    }
  }
  return info;
}

}  // namespace tessera
