// The executor's node table: built once per executor from a partition graph, read by every step.
// Private to host/executor/.
#ifndef TESSERA_HOST_EXECUTOR_NODE_TABLE_H_
#define TESSERA_HOST_EXECUTOR_NODE_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "host/abi/host_kernel_context.h"
#include "host/executor/executor.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Graph;

namespace executor_internal {

struct OutEdge {
  int32_t dst;            // node item index
  int32_t dst_slot;       // absolute input slot, or -1 for a control edge
  int32_t src_output;     // -1 for a control edge
  bool is_last_use;       // the last consumer of this output: gets the value moved
  bool dst_single_input;  // dst has exactly one in-edge: ready without touching its counter
};

struct NodeItem {
  KernelNodeInfo info;
  std::shared_ptr<OpKernel> kernel;  // shared with other executors for stateful nodes
  int32_t frame = 0;                 // static frame the node runs in
  int32_t pending_id = 0;            // index in its frame's per-iteration counters
  int32_t input_start = 0;           // first input slot in its frame's per-iteration slots
  int32_t num_inputs = 0;
  int32_t out_begin = 0;
  int32_t out_end = 0;
  int32_t initial_pending = 0;
  bool is_cheap = false;
  bool is_async = false;
  bool has_constant_outputs = false;
  bool is_merge = false;
  bool is_switch = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool is_control_trigger = false;
  bool is_send = false;
  bool is_recv = false;
  int32_t enter_frame = -1;         // Enter: the static frame it opens
  int32_t parallel_iterations = 1;  // Enter: of the frame it opens
  std::vector<Tensor> constant_outputs;
};

// A loop frame as the graph declares it; every execution of it is a separate instance.
struct StaticFrame {
  std::string name;
  int32_t parent = -1;
  int32_t num_nodes = 0;        // per-iteration counters
  int32_t num_input_slots = 0;  // per-iteration input slots
  int32_t num_enters = 0;       // Enter nodes feeding it in this graph
  uint64_t name_hash = 0;
  std::vector<int32_t> initial_pending;  // by pending_id
};

// An input slot filled from a constant when a step starts (root frame).
struct Prefill {
  int32_t slot;
  const Tensor* value;
};

struct NodeTable {
  ExecutorParams params;
  std::vector<NodeItem> items;
  std::vector<OutEdge> out_edges;
  std::vector<Prefill> prefills;
  std::vector<int32_t> roots;
  int32_t total_input_slots = 0;
  // Steps run with frames and dead-value propagation.
  bool uses_frames = false;
  std::vector<StaticFrame> frames;

  // Builds the table for `graph`, whose nodes must all be placed on `params.device`: kernels
  // (constant-output kernels run once here), frames, input slots, out-edges, pending counts.
  absl::Status Build(const ExecutorParams& params, const Graph& graph);
};

}  // namespace executor_internal
}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_NODE_TABLE_H_
