// The executor's step loop, written once over a propagator (TensorFlow's executor is templated the
// same way over its propagator state). The loop runs ready nodes (cheap ones inline on the thread
// that made them ready, expensive ones in batches on the inter-op pool), continues after async
// kernels without recursion, counts the step's outstanding nodes and ends the step on its first
// error. The propagator owns the step's input slots and pending counts and decides, when a node
// finishes, which nodes are ready:
//   - CounterPropagator (counter_propagator.h): one atomic pending counter per node, for graphs
//     without frames;
//   - FramePropagator (frame_propagator.h): TensorFlow's frames, iterations and dead values.
// A propagator provides: TaggedNode and ReadyQueue; a constructor from the node table; AddRoots;
// Id, IsDead, AllowsMissingOutputs (Switch, _Recv), FrameId, IterId and SetFrame for a tagged
// node; Inputs (the node's input slots); and Propagate (its outputs, or none when it is dead).
// Private to host/executor/.
#ifndef TESSERA_HOST_EXECUTOR_STEP_STATE_H_
#define TESSERA_HOST_EXECUTOR_STEP_STATE_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "host/executor/executor.h"
#include "host/executor/executor_internal.h"
#include "host/executor/node_table.h"
#include "host/runtime/step_stats.h"

namespace tessera {
namespace executor_internal {

// One step of an executor. Deletes itself after calling the done callback.
template <class Propagator>
class StepState {
 public:
  using TaggedNode = typename Propagator::TaggedNode;
  using ReadyQueue = typename Propagator::ReadyQueue;

  StepState(const NodeTable* table, const Executor::Args& args, Executor::DoneCallback done)
      : table_(table),
        items_(table->items.data()),
        runner_(args.runner),
        stats_(args.stats),
        completion_(args, std::move(done)),
        propagator_(table) {
    step_.step_id = args.step_id;
    step_.rendezvous = args.rendezvous;
    step_.call_frame = args.call_frame;
    step_.cancelled = completion_.cancelled_flag();
    step_.failed = completion_.failed_flag();
  }

  void Start() {
    if (table_->roots.empty()) {
      Finish();
      return;
    }
    completion_.Start(static_cast<int64_t>(table_->roots.size()));
    // Roots run on the calling thread like any other ready batch: cheap ones inline, all but one
    // expensive one on the pool. A small graph then runs without a thread hop.
    ReadyQueue ready;
    propagator_.AddRoots(table_->roots, &ready);
    ReadyQueue inline_ready;
    ScheduleReady(ready, &inline_ready);
    if (!inline_ready.empty()) ProcessQueue(&inline_ready);
  }

 private:
  struct AsyncState {
    TSR_KernelContext ctx;
    TaggedNode tagged;
    int64_t start_ns = 0;
    absl::Status status;
    ReadyQueue ready;
    AsyncHandshake handshake;
  };

  void InitContext(TSR_KernelContext* ctx) {
    ctx->device = table_->params.device;
    ctx->intra_op_pool = table_->params.intra_op_pool;
    ctx->step = &step_;
  }

  // Runs `queue` (FIFO) to exhaustion on this thread; nodes made ready may join it.
  void ProcessQueue(ReadyQueue* queue) {
    TSR_KernelContext ctx;
    InitContext(&ctx);
    ReadyQueue ready;
    size_t head = 0;
    while (head < queue->size()) {
      const TaggedNode tagged = (*queue)[head++];
      // A long inline run (a loop of cheap nodes) must not keep every finished entry.
      if (head >= 256 && head * 2 >= queue->size()) {
        queue->erase(queue->begin(), queue->begin() + static_cast<std::ptrdiff_t>(head));
        head = 0;
      }
      const NodeItem& item = items_[Propagator::Id(tagged)];
      Tensor* inputs = propagator_.Inputs(tagged, item);
      absl::Status status;
      ready.clear();
      const int64_t start_ns = stats_ != nullptr ? NowNanos() : 0;
      if (completion_.Stopped()) {
        ClearInputs(item, inputs);
      } else if (Propagator::IsDead(tagged) && !item.is_send && !item.is_recv) {
        // A dead node is not computed; its outputs are dead. Transfer nodes run so that deadness
        // crosses devices.
        ClearInputs(item, inputs);
        if (stats_ != nullptr) {
          RecordNodeStats(stats_, table_->params.device, item, nullptr, start_ns,
                          Propagator::FrameId(tagged), Propagator::IterId(tagged), true);
        }
        propagator_.Propagate(tagged, item, nullptr, &ready);
      } else if (item.is_async) {
        auto* async = new AsyncState;
        InitContext(&async->ctx);
        Propagator::SetFrame(tagged, &async->ctx);
        async->ctx.Reset(&item.info, inputs, item.num_inputs);
        async->ctx.is_input_dead = Propagator::IsDead(tagged);
        async->tagged = tagged;
        async->start_ns = start_ns;
        item.kernel->ComputeAsync(
            &async->ctx, [this, async](absl::Status s) { AsyncDone(async, std::move(s)); });
        if (!async->handshake.CallReturned()) continue;
        // The kernel finished inside ComputeAsync: continue here, without recursion.
        status = std::move(async->status);
        ready = std::move(async->ready);
        delete async;
      } else {
        Propagator::SetFrame(tagged, &ctx);
        ctx.Reset(&item.info, inputs, item.num_inputs);
        ctx.is_input_dead = Propagator::IsDead(tagged);
        if (item.has_constant_outputs) {
          for (size_t i = 0; i < item.constant_outputs.size(); ++i) {
            ctx.outputs[i] = item.constant_outputs[i];
          }
        } else {
          status = item.kernel->Compute(&ctx);
        }
        ClearInputs(item, inputs);
        if (status.ok()) status = CheckOutputs(item, ctx, Propagator::AllowsMissingOutputs(item));
        if (stats_ != nullptr) {
          RecordNodeStats(stats_, ctx.device, item, &ctx, start_ns, Propagator::FrameId(tagged),
                          Propagator::IterId(tagged), Propagator::IsDead(tagged));
        }
        if (status.ok()) propagator_.Propagate(tagged, item, ctx.outputs.data(), &ready);
      }
      if (NodeDone(status, item, &ready, queue, head)) {
        Finish();
        return;
      }
    }
  }

  void AsyncDone(AsyncState* async, absl::Status status) {
    const NodeItem& item = items_[Propagator::Id(async->tagged)];
    ClearInputs(item, async->ctx.inputs);
    if (status.ok()) {
      status = CheckOutputs(item, async->ctx, Propagator::AllowsMissingOutputs(item));
    }
    if (stats_ != nullptr) {
      RecordNodeStats(stats_, async->ctx.device, item, &async->ctx, async->start_ns,
                      Propagator::FrameId(async->tagged), Propagator::IterId(async->tagged),
                      Propagator::IsDead(async->tagged));
    }
    if (status.ok() && !completion_.Stopped()) {
      propagator_.Propagate(async->tagged, item, async->ctx.outputs.data(), &async->ready);
    }
    async->status = std::move(status);
    if (async->handshake.CompletionArrived()) return;  // the caller continues
    status = std::move(async->status);
    ReadyQueue ready = std::move(async->ready);
    delete async;
    ReadyQueue inline_ready;
    if (NodeDone(status, item, &ready, &inline_ready)) {
      Finish();
      return;
    }
    if (inline_ready.empty()) return;
    // This thread belongs to whoever completed the kernel (often another partition's _Send).
    // Continuing here would nest one executor's work inside another's, deeper with every
    // round trip of a loop across devices: hand the batch to the pool instead.
    if (runner_) {
      runner_([this, queue = std::move(inline_ready)]() mutable { ProcessQueue(&queue); });
      return;
    }
    ProcessQueue(&inline_ready);
  }

  static void ClearInputs(const NodeItem& item, Tensor* inputs) {
    for (int32_t i = 0; i < item.num_inputs; ++i) inputs[i] = Tensor();
  }

  // Accounts for a finished node and schedules what it made ready. True when the step is over.
  // `inline_ready` is the queue this thread runs; its first `consumed` entries already ran.
  bool NodeDone(const absl::Status& status, const NodeItem& item, ReadyQueue* ready,
                ReadyQueue* inline_ready, size_t consumed = 0) {
    if (!status.ok()) ready->clear();
    // Once a node that made nothing ready is counted off, another thread may end the step and
    // delete this state: nothing here may be touched after that.
    if (ready->empty()) return completion_.NodeFinished(status, item, 0);
    completion_.NodeFinished(status, item, ready->size());
    ScheduleReady(*ready, inline_ready, consumed);
    return false;
  }

  // Dead and cheap nodes join `inline_ready`. Expensive nodes go to the pool in batches (one
  // closure per node would cost more than a small node), except the last batch, which stays
  // inline when nothing else is queued (no hop for a chain).
  void ScheduleReady(const ReadyQueue& ready, ReadyQueue* inline_ready, size_t consumed = 0) {
    if (!runner_) {
      inline_ready->insert(inline_ready->end(), ready.begin(), ready.end());
      return;
    }
    ReadyQueue expensive;
    for (const TaggedNode& tagged : ready) {
      if (Propagator::IsDead(tagged) || items_[Propagator::Id(tagged)].is_cheap) {
        inline_ready->push_back(tagged);
      } else {
        expensive.push_back(tagged);
      }
    }
    DispatchInBatches(expensive, inline_ready, consumed, [this](ReadyQueue batch) {
      runner_([this, batch = std::move(batch)]() mutable { ProcessQueue(&batch); });
    });
  }

  void Finish() {
    absl::Status status;
    Executor::DoneCallback done = completion_.TakeDone(&status);
    delete this;
    done(std::move(status));
  }

  const NodeTable* table_;
  const NodeItem* items_;
  Executor::Runner runner_;
  StepStatsCollector* stats_;
  StepCompletion completion_;
  StepServices step_;
  Propagator propagator_;
};

}  // namespace executor_internal
}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_STEP_STATE_H_
