// Executor: runs one partition graph (all nodes on one device) per step. The node table is built
// once; each step keeps only pending counts and input slots. Cheap nodes run inline on the thread
// that made them ready, expensive ones go to the inter-op pool, and the first error aborts the
// step (its rendezvous included). A graph with control flow (Switch, Merge, Enter, Exit,
// NextIteration, LoopCond, ControlTrigger) or a _Recv that may deliver a dead value runs with
// TensorFlow's frames, iterations and dead-value propagation; any other graph takes a simpler path
// with one pending counter per node.
#ifndef TESSERA_HOST_EXECUTOR_EXECUTOR_H_
#define TESSERA_HOST_EXECUTOR_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/executor/kernel_context.h"
#include "host/executor/op_kernel.h"

namespace tessera {

class Device;
class Graph;
class KernelFactory;
class Rendezvous;
class ResourceManager;
class SharedKernels;
class StepStatsCollector;
class ThreadPool;

struct ExecutorParams {
  Device* device = nullptr;
  ThreadPool* intra_op_pool = nullptr;
  const KernelFactory* kernel_factory = nullptr;
  // The session's variables; null when the graph has none.
  ResourceManager* resource_manager = nullptr;
  // The session's stateful plugin kernels, shared with its other executors; null: none shared.
  SharedKernels* shared_kernels = nullptr;
  // Set when another partition of the same step has control flow, so a _Recv may deliver a dead
  // value: the executor then tracks deadness even without control-flow nodes of its own.
  bool dead_inputs_possible = false;
};

class Executor {
 public:
  using Runner = std::function<void(std::function<void()>)>;
  // Receives the step's status by value: the thread that finishes a step keeps no reference to
  // it once the callback has it (the caller may be gone by the time that thread unwinds).
  using DoneCallback = std::function<void(absl::Status)>;

  struct Args {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;
    CallFrame* call_frame = nullptr;
    // Runs a closure on the inter-op pool; when empty everything runs on the calling thread.
    Runner runner;
    // When set to true (a deadline passed, the client cancelled), no further node starts.
    const std::atomic<bool>* cancelled = nullptr;
    // When set, every executed node is recorded.
    StepStatsCollector* stats = nullptr;
  };

  // Builds the node table for `graph`, whose nodes must all be placed on `params.device`, and
  // instantiates every kernel (constant-output kernels run once here).
  static absl::StatusOr<std::unique_ptr<Executor>> Create(const ExecutorParams& params,
                                                          const Graph& graph);
  ~Executor();

  // Runs one step. `done` is called exactly once, possibly before RunAsync returns.
  void RunAsync(const Args& args, DoneCallback done) const;
  // Runs one step and waits for it.
  absl::Status Run(const Args& args) const;

  int num_nodes() const { return static_cast<int>(items_.size()); }
  // True when steps run with frames and dead-value propagation.
  bool uses_frames() const { return uses_frames_; }

  // The node table, read by the per-step states (executor.cc, executor_frames.cc).

  struct OutEdge {
    int32_t dst;           // node item index
    int32_t dst_slot;      // absolute input slot, or -1 for a control edge
    int32_t src_output;    // -1 for a control edge
    bool is_last_use;      // the last consumer of this output: gets the value moved
    bool dst_single_input;  // dst has exactly one in-edge: ready without touching its counter
  };
  struct NodeItem {
    KernelNodeInfo info;
    std::shared_ptr<OpKernel> kernel;  // shared with other executors for stateful nodes
    int32_t frame = 0;        // static frame the node runs in
    int32_t pending_id = 0;   // index in its frame's per-iteration counters
    int32_t input_start = 0;  // first input slot in its frame's per-iteration slots
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
    int32_t enter_frame = -1;  // Enter: the static frame it opens
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

  const ExecutorParams& params() const { return params_; }
  const std::vector<NodeItem>& items() const { return items_; }
  const std::vector<OutEdge>& out_edges() const { return out_edges_; }
  const std::vector<StaticFrame>& frames() const { return frames_; }
  const std::vector<int32_t>& roots() const { return roots_; }
  // Input slots filled from constants when a step starts (root frame).
  struct Prefill {
    int32_t slot;
    const Tensor* value;
  };
  const std::vector<Prefill>& prefills() const { return prefills_; }
  int32_t total_input_slots() const { return total_input_slots_; }

 private:
  Executor() = default;
  absl::Status Build(const ExecutorParams& params, const Graph& graph);

  ExecutorParams params_;
  std::vector<NodeItem> items_;
  std::vector<OutEdge> out_edges_;
  std::vector<Prefill> prefills_;
  std::vector<int32_t> roots_;
  int32_t total_input_slots_ = 0;
  bool uses_frames_ = false;
  std::vector<StaticFrame> frames_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_EXECUTOR_H_
