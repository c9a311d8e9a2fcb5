// Distributed loops for the partitioner: the per-device control loops that let every
// device taking part in a loop frame follow the iterations decided by the frame's LoopCond, and
// TensorFlow's control-flow colocation tweak.
#ifndef TESSERA_HOST_PARTITION_CONTROL_LOOPS_H_
#define TESSERA_HOST_PARTITION_CONTROL_LOOPS_H_

#include <map>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "host/graph/control_flow.h"
#include "host/graph/graph.h"

namespace tessera {

// Control-loop nodes are named "<dst>/_cloop/_N" (TensorFlow's "_cloop<dst>/_N" is not a valid
// node name for ImportGraphDef); a control-loop Merge is recognised by this part of its name.
inline constexpr char kControlLoopMarker[] = "/_cloop/_";

// A NodeDef for a Const of an empty float tensor (shape [0]) on `device`: the zero-byte value
// that control edges and control loops send or start from.
tensorflow::NodeDef EmptyConstNodeDef(const std::string& name, const std::string& device);

// Moves each Switch to the device of its data input, each Exit to the device of its input, and
// each Enter and NextIteration to the device of their first data consumer, visiting nodes in
// depth-first preorder from the source as TensorFlow does.
void OptimizeControlFlowColocation(Graph* graph);

// For every edge between two devices whose value flows in a loop frame F (the frame its dst runs
// in), gives the dst's device D a control loop for F, once per (F, D), and for each enclosing
// frame of F in turn:
//   Enter(frame_name F, is_constant false) -> Merge(Enter, NextIteration) -> Switch(Merge, pred =
//   F's LoopCond) -> NextIteration(Switch:1)
// The Enter's input is a dummy float Const on D for an outermost frame, and the control-loop
// Merge of the parent frame on D for a nested one. `info` describes `graph` on entry; it is stale
// once nodes were added. Returns whether any node was added. INVALID_ARGUMENT when a frame that
// needs a control loop has no LoopCond.
absl::StatusOr<bool> AddControlLoops(const ControlFlowInfo& info, Graph* graph);

// The control-loop Merge nodes of `graph`, keyed by (frame index in `info`, assigned device).
using ControlLoopMerges = std::map<std::pair<int, std::string>, const Node*>;
ControlLoopMerges FindControlLoopMerges(const Graph& graph, const ControlFlowInfo& info);

}  // namespace tessera

#endif  // TESSERA_HOST_PARTITION_CONTROL_LOOPS_H_
