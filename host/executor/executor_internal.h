// What the step loop uses besides the node table: output checks, error annotation, step
// statistics, and the handshake that keeps an async kernel finishing on the calling thread from
// recursing into the scheduler (a loop of a million iterations must not grow the stack).
#ifndef TESSERA_HOST_EXECUTOR_EXECUTOR_INTERNAL_H_
#define TESSERA_HOST_EXECUTOR_EXECUTOR_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "absl/status/status.h"
#include "host/executor/executor.h"
#include "host/executor/node_table.h"

namespace tessera {
namespace executor_internal {

// Every output set and of the declared type. Outputs may be missing only where `allow_missing`
// (Switch and _Recv in graphs that track deadness: a missing output is a dead one).
absl::Status CheckOutputs(const NodeItem& item, const TSR_KernelContext& ctx, bool allow_missing);

// "while running node 'x' (Op)".
absl::Status AnnotateNodeError(const absl::Status& status, const NodeItem& item);

// The completion side of a step, the same with or without frames: the count of outstanding
// nodes, the first error (which aborts the step's rendezvous), cancellation, and the done
// callback.
class StepCompletion {
 public:
  StepCompletion(const Executor::Args& args, Executor::DoneCallback done)
      : rendezvous_(args.rendezvous), cancelled_(args.cancelled), done_(std::move(done)) {}

  void Start(int64_t roots) { outstanding_.store(roots, std::memory_order_relaxed); }
  // True once a node failed or the step was cancelled: no further node starts.
  bool Stopped() const {
    return aborted_.load(std::memory_order_relaxed) ||
           (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed));
  }
  // A node finished and made `ready_count` nodes ready (0 when it failed: what it made ready
  // does not run). Records the first error. True when it was the step's last outstanding node.
  bool NodeFinished(const absl::Status& status, const NodeItem& item, size_t ready_count);
  // Set once a node failed; kernels of the step see it through KernelContext_IsCancelled.
  const std::atomic<bool>* failed_flag() const { return &aborted_; }
  const std::atomic<bool>* cancelled_flag() const { return cancelled_; }
  // Hands over the step's status and the done callback; once, when NodeFinished said so.
  Executor::DoneCallback TakeDone(absl::Status* status);

 private:
  Rendezvous* rendezvous_;
  const std::atomic<bool>* cancelled_;
  Executor::DoneCallback done_;
  std::atomic<int64_t> outstanding_{0};
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  absl::Status status_;
};

// Records one node; `ctx` may be null for a dead node that did not run.
void RecordNodeStats(StepStatsCollector* stats, const Device* device, const NodeItem& item,
                     const TSR_KernelContext* ctx, int64_t start_ns, uint64_t frame_id,
                     int64_t iter_id, bool is_dead);

// An async kernel's completion may run inside ComputeAsync on the calling thread or later on
// another thread. Whichever of the two (the return from ComputeAsync, the completion) comes second
// continues the step; a completion that comes first hands its ready nodes back to the caller's
// queue instead of recursing.
class AsyncHandshake {
 public:
  // Called by the completion after it has propagated; true when the caller will continue.
  bool CompletionArrived() {
    int expected = kRunning;
    return phase_.compare_exchange_strong(expected, kDoneInline, std::memory_order_acq_rel);
  }
  // Called after ComputeAsync returns; true when the completion already ran and left its ready
  // nodes to the caller.
  bool CallReturned() {
    int expected = kRunning;
    return !phase_.compare_exchange_strong(expected, kReturned, std::memory_order_acq_rel);
  }

 private:
  enum : int { kRunning, kReturned, kDoneInline };
  std::atomic<int> phase_{kRunning};
};

// Hands `expensive` ready nodes to `dispatch` in at most kMaxBatches batches (one node per batch
// up to that count, as many nodes as needed past it: a pool hop per node would cost more than a
// small node of a wide fan-out). The last batch joins `inline_ready` when nothing is left to run
// there (its first `consumed` entries already ran): a chain never hops threads. Otherwise it is
// dispatched too.
inline constexpr size_t kMaxBatches = 32;

template <typename Queue, typename Dispatch>
void DispatchInBatches(const Queue& expensive, Queue* inline_ready, size_t consumed,
                       Dispatch dispatch) {
  if (expensive.empty()) return;
  size_t count = expensive.size();
  size_t batch = (count + kMaxBatches - 1) / kMaxBatches;
  size_t last_begin = (count - 1) / batch * batch;
  for (size_t begin = 0; begin < last_begin; begin += batch) {
    dispatch(Queue(expensive.begin() + begin, expensive.begin() + begin + batch));
  }
  if (inline_ready->size() == consumed) {
    inline_ready->insert(inline_ready->end(), expensive.begin() + last_begin, expensive.end());
  } else {
    dispatch(Queue(expensive.begin() + last_begin, expensive.end()));
  }
}

}  // namespace executor_internal
}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_EXECUTOR_INTERNAL_H_
