// The propagator of graphs with control flow: TensorFlow's frames, iterations, loop invariants,
// bounded parallel iterations and dead-value propagation. One lock per step guards the frame
// bookkeeping; kernels run outside it. Private to host/executor/.
#ifndef TESSERA_HOST_EXECUTOR_FRAME_PROPAGATOR_H_
#define TESSERA_HOST_EXECUTOR_FRAME_PROPAGATOR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "host/executor/node_table.h"

namespace tessera {
namespace executor_internal {

struct PendingCount {
  int32_t pending = 0;
  int32_t dead = 0;
};

struct IterationState {
  IterationState(int64_t iter, const StaticFrame& frame)
      : iter_num(iter),
        inputs(new Tensor[frame.num_input_slots]),
        counts(new PendingCount[frame.num_nodes]) {
    for (int32_t i = 0; i < frame.num_nodes; ++i) counts[i].pending = frame.initial_pending[i];
  }
  int64_t iter_num;
  std::unique_ptr<Tensor[]> inputs;
  std::unique_ptr<PendingCount[]> counts;
  int64_t outstanding_ops = 0;          // nodes of this iteration ready or running
  int32_t outstanding_frame_count = 0;  // child frames started from this iteration, not done
};

struct FrameState {
  const StaticFrame* info = nullptr;
  uint64_t frame_id = 0;
  FrameState* parent = nullptr;
  IterationState* parent_iter = nullptr;
  int32_t max_parallel_iterations = 1;
  // Live iterations, in a ring of max_parallel_iterations + 1 slots.
  std::vector<std::unique_ptr<IterationState>> iterations;
  int64_t iteration_count = 0;  // the highest iteration started
  int32_t num_outstanding_iterations = 1;
  int32_t num_pending_inputs = 0;  // Enter nodes not yet run
  // NextIteration values waiting for a free iteration slot.
  std::vector<std::pair<int32_t, Tensor>> next_iter_roots;
  // Loop invariants (constant Enter values), activated in every iteration.
  std::vector<std::pair<int32_t, Tensor>> inv_values;
  // Dead Exits of the highest iteration, propagated to the parent when the frame is done.
  std::vector<int32_t> dead_exits;
  // Child frames by (iteration, static frame).
  absl::flat_hash_map<std::pair<int64_t, int32_t>, FrameState*> children;

  IterationState* GetIteration(int64_t iter) const {
    return iterations[static_cast<size_t>(iter % static_cast<int64_t>(iterations.size()))].get();
  }
  ~FrameState() {
    for (auto& [key, child] : children) delete child;
  }
};

struct TaggedNode {
  int32_t id;
  FrameState* frame;
  IterationState* iter;
  bool is_dead;
};

class FramePropagator {
 public:
  using TaggedNode = executor_internal::TaggedNode;
  using ReadyQueue = absl::InlinedVector<TaggedNode, 8>;

  explicit FramePropagator(const NodeTable* table);

  // The roots, in the root frame's first iteration.
  void AddRoots(const std::vector<int32_t>& roots, ReadyQueue* ready);

  static int32_t Id(const TaggedNode& tagged) { return tagged.id; }
  static bool IsDead(const TaggedNode& tagged) { return tagged.is_dead; }
  // Switch leaves its untaken output unset, and a _Recv may receive a dead value.
  static bool AllowsMissingOutputs(const NodeItem& item) { return item.is_switch || item.is_recv; }
  static uint64_t FrameId(const TaggedNode& tagged) { return tagged.frame->frame_id; }
  static int64_t IterId(const TaggedNode& tagged) { return tagged.iter->iter_num; }
  static void SetFrame(const TaggedNode& tagged, TSR_KernelContext* ctx) {
    ctx->frame_id = tagged.frame->frame_id;
    ctx->iter_id = tagged.iter->iter_num;
  }

  Tensor* Inputs(const TaggedNode& tagged, const NodeItem& item) {
    return &tagged.iter->inputs[item.input_start];
  }

  // Hands the outputs of a finished node (null: all dead) to its consumers, by the rules of its
  // kind, and retires what it completes.
  void Propagate(const TaggedNode& tagged, const NodeItem& item, Tensor* outputs,
                 ReadyQueue* ready);

 private:
  // Everything below runs under mu_.
  void Activate(const NodeItem& item, bool is_dead, FrameState* frame, IterationState* iter,
                Tensor* outputs, ReadyQueue* ready);
  FrameState* FindOrCreateChildFrame(FrameState* frame, IterationState* iter,
                                     const NodeItem& enter);
  IterationState* IncrementIteration(FrameState* frame, ReadyQueue* ready);
  bool IsIterationDone(const FrameState* frame, const IterationState* iter) const;
  bool CleanupIterations(FrameState* frame, IterationState* iter, ReadyQueue* ready);
  void DeleteFrame(FrameState* frame, ReadyQueue* ready);
  void CleanupFrameIterations(FrameState* frame, IterationState* iter, ReadyQueue* ready);

  const NodeTable* table_;
  const NodeItem* items_;
  const OutEdge* edges_;
  std::unique_ptr<FrameState> root_;
  std::mutex mu_;  // frame and iteration state
};

}  // namespace executor_internal
}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_FRAME_PROPAGATOR_H_
