// Control-flow frames of a graph: which loop frame every node runs in, as TensorFlow's executor
// sees it. A node runs in the frame its inputs come from; an Enter's outputs are in its child
// frame (named by its `frame_name`), an Exit's outputs in its frame's parent. The root frame is
// frame 0, named "".
#ifndef TESSERA_HOST_GRAPH_CONTROL_FLOW_H_
#define TESSERA_HOST_GRAPH_CONTROL_FLOW_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/graph/graph.h"

namespace tessera {

bool IsSwitch(const Node& node);
bool IsMerge(const Node& node);
bool IsEnter(const Node& node);
bool IsExit(const Node& node);
bool IsNextIteration(const Node& node);
bool IsLoopCond(const Node& node);
bool IsControlTrigger(const Node& node);
// Switch, Merge, Enter, Exit, NextIteration, LoopCond or ControlTrigger.
bool IsControlFlow(const Node& node);
// _Send, _Recv, _HostSend, _HostRecv.
bool IsSend(const Node& node);
bool IsRecv(const Node& node);

// Most iterations of one loop in flight at once. Each frame keeps state per iteration in flight,
// so a hostile parallel_iterations (2^31) must not size it; only scheduling depends on the value,
// so a larger one runs with this many.
inline constexpr int kMaxParallelIterations = 1 << 14;

struct FrameInfo {
  std::string name;       // "" for the root frame
  int parent = -1;        // index of the parent frame; -1 for the root
  int depth = 0;          // 0 for the root
  // From the first Enter seen (10 when it is not positive, at most kMaxParallelIterations); 1
  // for the root.
  int parallel_iterations = 1;
  std::vector<const Node*> enters;  // Enter nodes whose outputs open this frame
  const Node* loop_cond = nullptr;  // the LoopCond running in this frame, if any
};

struct ControlFlowInfo {
  // By node id: the frame the node runs in (index into `frames`); -1 for source, sink and
  // removed ids.
  std::vector<int> node_frame;
  std::vector<FrameInfo> frames;  // frames[0] is the root

  // The frame `node`'s outputs are in: the child frame for an Enter, the parent for an Exit.
  int OutputFrame(const Node& node) const;
  // Index of the frame named `name`, or -1.
  int FindFrame(const std::string& name) const;
  bool has_loops() const { return frames.size() > 1; }
};

// INVALID_ARGUMENT naming the nodes when an Enter has no frame name, a node takes inputs from
// two frames, an Exit or NextIteration runs in the root frame, one frame name is entered from two
// different parent frames, or a frame has two LoopCond nodes.
absl::StatusOr<ControlFlowInfo> BuildControlFlowInfo(const Graph& graph);

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_CONTROL_FLOW_H_
