// The executor's per-step state for graphs with control flow: TensorFlow's frames, iterations,
// loop invariants, bounded parallel iterations and dead-value propagation. One lock per step
// guards the frame bookkeeping; kernels run outside it.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "host/executor/executor.h"
#include "host/executor/executor_internal.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/step_stats.h"

namespace tessera {
namespace {

using executor_internal::AsyncHandshake;
using executor_internal::CheckOutputs;
using executor_internal::RecordNodeStats;
using NodeItem = Executor::NodeItem;
using StaticFrame = Executor::StaticFrame;

// Frame ids go into rendezvous keys, so every partition (and process) must compute the same one
// for the same (parent frame, iteration, frame name).
uint64_t CombineFrameId(uint64_t parent_id, int64_t iter, uint64_t name_hash) {
  uint64_t h = parent_id;
  for (uint64_t v : {static_cast<uint64_t>(iter), name_hash}) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  }
  return h == 0 ? 1 : h;  // 0 is the root frame
}

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

class FrameExecutorState {
 public:
  FrameExecutorState(const Executor* executor, const Executor::Args& args,
                     Executor::DoneCallback done)
      : executor_(executor),
        items_(executor->items().data()),
        edges_(executor->out_edges().data()),
        runner_(args.runner),
        stats_(args.stats),
        completion_(args, std::move(done)) {
    step_.step_id = args.step_id;
    step_.rendezvous = args.rendezvous;
    step_.call_frame = args.call_frame;
    root_ = std::make_unique<FrameState>();
    root_->info = &executor->frames()[0];
    root_->iterations.resize(2);
    root_->iterations[0] = std::make_unique<IterationState>(0, *root_->info);
    IterationState* iter0 = root_->iterations[0].get();
    for (const Executor::Prefill& prefill : executor->prefills()) {
      iter0->inputs[prefill.slot] = *prefill.value;
    }
  }

  void Start() {
    const std::vector<int32_t>& roots = executor_->roots();
    if (roots.empty()) {
      Finish();
      return;
    }
    IterationState* iter0 = root_->iterations[0].get();
    iter0->outstanding_ops = static_cast<int64_t>(roots.size());
    completion_.Start(static_cast<int64_t>(roots.size()));
    ReadyQueue ready;
    for (int32_t id : roots) ready.push_back(TaggedNode{id, root_.get(), iter0, false});
    ReadyQueue inline_ready;
    ScheduleReady(ready, &inline_ready);
    if (!inline_ready.empty()) ProcessQueue(&inline_ready);
  }

 private:
  using ReadyQueue = absl::InlinedVector<TaggedNode, 8>;

  struct AsyncState {
    TSR_KernelContext ctx;
    TaggedNode tagged;
    int64_t start_ns = 0;
    absl::Status status;
    ReadyQueue ready;
    AsyncHandshake handshake;
  };

  void InitContext(TSR_KernelContext* ctx, const TaggedNode& tagged) {
    ctx->device = executor_->params().device;
    ctx->intra_op_pool = executor_->params().intra_op_pool;
    ctx->step = &step_;
    ctx->frame_id = tagged.frame->frame_id;
    ctx->iter_id = tagged.iter->iter_num;
  }

  bool Stopped() const { return completion_.Stopped(); }

  void ProcessQueue(ReadyQueue* queue) {
    TSR_KernelContext ctx;
    ReadyQueue ready;
    size_t head = 0;
    while (head < queue->size()) {
      TaggedNode tagged = (*queue)[head++];
      // A long inline run (a loop of cheap nodes) must not keep every finished entry.
      if (head >= 256 && head * 2 >= queue->size()) {
        queue->erase(queue->begin(), queue->begin() + static_cast<std::ptrdiff_t>(head));
        head = 0;
      }
      const NodeItem& item = items_[tagged.id];
      Tensor* inputs = &tagged.iter->inputs[item.input_start];
      absl::Status status;
      ready.clear();
      int64_t start_ns = stats_ != nullptr ? NowNanos() : 0;
      if (Stopped()) {
        ClearInputs(item, inputs);
      } else if (tagged.is_dead && !item.is_send && !item.is_recv) {
        // A dead node is not computed; its outputs are dead. Transfer nodes run so that deadness
        // crosses devices.
        ClearInputs(item, inputs);
        if (stats_ != nullptr) {
          RecordNodeStats(stats_, executor_->params().device, item, nullptr, start_ns,
                          tagged.frame->frame_id, tagged.iter->iter_num, true);
        }
        Propagate(tagged, nullptr, &ready);
      } else if (item.is_async) {
        auto* async = new AsyncState;
        InitContext(&async->ctx, tagged);
        async->ctx.Reset(&item.info, inputs, item.num_inputs);
        async->ctx.is_input_dead = tagged.is_dead;
        async->tagged = tagged;
        async->start_ns = start_ns;
        item.kernel->ComputeAsync(
            &async->ctx, [this, async](absl::Status s) { AsyncDone(async, std::move(s)); });
        if (!async->handshake.CallReturned()) continue;
        status = std::move(async->status);
        ready = std::move(async->ready);
        delete async;
      } else {
        InitContext(&ctx, tagged);
        ctx.Reset(&item.info, inputs, item.num_inputs);
        ctx.is_input_dead = tagged.is_dead;
        if (item.has_constant_outputs) {
          for (size_t i = 0; i < item.constant_outputs.size(); ++i) {
            ctx.outputs[i] = item.constant_outputs[i];
          }
        } else {
          status = item.kernel->Compute(&ctx);
        }
        ClearInputs(item, inputs);
        if (status.ok()) status = CheckOutputs(item, ctx, item.is_switch || item.is_recv);
        if (stats_ != nullptr) {
          RecordNodeStats(stats_, ctx.device, item, &ctx, start_ns, tagged.frame->frame_id,
                          tagged.iter->iter_num, tagged.is_dead);
        }
        if (status.ok()) Propagate(tagged, &ctx, &ready);
      }
      if (NodeDone(status, item, &ready, queue, head)) {
        Finish();
        return;
      }
    }
  }

  void AsyncDone(AsyncState* async, absl::Status status) {
    const NodeItem& item = items_[async->tagged.id];
    ClearInputs(item, async->ctx.inputs);
    if (status.ok()) status = CheckOutputs(item, async->ctx, item.is_switch || item.is_recv);
    if (stats_ != nullptr) {
      RecordNodeStats(stats_, async->ctx.device, item, &async->ctx, async->start_ns,
                      async->tagged.frame->frame_id, async->tagged.iter->iter_num,
                      async->tagged.is_dead);
    }
    if (status.ok() && !Stopped()) Propagate(async->tagged, &async->ctx, &async->ready);
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

  // ---- Frame bookkeeping; everything below runs under mu_. ----

  // Hands the outputs of a finished node (null: all dead) to its consumers, by the rules of its
  // kind, and retires what it completes.
  void Propagate(const TaggedNode& tagged, TSR_KernelContext* ctx, ReadyQueue* ready) {
    const NodeItem& item = items_[tagged.id];
    Tensor* outputs = ctx != nullptr ? ctx->outputs.data() : nullptr;
    bool is_dead = tagged.is_dead;
    FrameState* frame = tagged.frame;
    IterationState* iter = tagged.iter;
    std::lock_guard<std::mutex> lock(mu_);
    if (item.is_enter) {
      FrameState* child = FindOrCreateChildFrame(frame, iter, item);
      if (item.is_constant_enter) {
        Tensor value = outputs != nullptr ? outputs[0] : Tensor();
        child->inv_values.emplace_back(tagged.id, value);
        for (int64_t i = 0; i <= child->iteration_count; ++i) {
          Tensor copy = value;
          Activate(item, is_dead, child, child->GetIteration(i), &copy, ready);
        }
      } else {
        Activate(item, is_dead, child, child->GetIteration(0), outputs, ready);
      }
      --child->num_pending_inputs;
      IterationState* child_iter0 = child->GetIteration(0);
      if (child_iter0 != nullptr && child_iter0->outstanding_ops == 0 &&
          CleanupIterations(child, child_iter0, ready)) {
        DeleteFrame(child, ready);
        CleanupFrameIterations(frame, iter, ready);
      }
    } else if (item.is_exit) {
      if (is_dead || outputs == nullptr || !outputs[0].IsInitialized()) {
        if (iter->iter_num == frame->iteration_count) frame->dead_exits.push_back(tagged.id);
      } else {
        Activate(item, false, frame->parent, frame->parent_iter, outputs, ready);
      }
    } else if (item.is_next_iteration) {
      bool live = !is_dead && outputs != nullptr && outputs[0].IsInitialized();
      if (live) {
        if (iter->iter_num == frame->iteration_count &&
            frame->num_outstanding_iterations == frame->max_parallel_iterations) {
          frame->next_iter_roots.emplace_back(tagged.id, std::move(outputs[0]));
        } else {
          IterationState* next = iter->iter_num == frame->iteration_count
                                     ? IncrementIteration(frame, ready)
                                     : frame->GetIteration(iter->iter_num + 1);
          Activate(item, false, frame, next, outputs, ready);
        }
      }
      // A dead NextIteration ends deadness propagation: the loop is over for this value.
    } else {
      Activate(item, is_dead, frame, iter, outputs, ready);
    }
    if (--iter->outstanding_ops == 0 && CleanupIterations(frame, iter, ready)) {
      FrameState* parent = frame->parent;
      IterationState* parent_iter = frame->parent_iter;
      DeleteFrame(frame, ready);
      CleanupFrameIterations(parent, parent_iter, ready);
    }
  }

  // TensorFlow's activation rules: pending and dead counts per consumer, Merge firing on its
  // first live input (or when all its inputs are dead), ControlTrigger never dead.
  void Activate(const NodeItem& item, bool is_dead, FrameState* frame, IterationState* iter,
                Tensor* outputs, ReadyQueue* ready) {
    int64_t activated = 0;
    for (int32_t e = item.out_begin; e < item.out_end; ++e) {
      const Executor::OutEdge& edge = edges_[e];
      const NodeItem& dst = items_[edge.dst];
      PendingCount& count = iter->counts[dst.pending_id];
      bool dst_ready = false;
      bool dst_dead = false;
      if (edge.dst_slot >= 0) {
        bool dead_input =
            is_dead || outputs == nullptr || !outputs[edge.src_output].IsInitialized();
        bool take_input = false;
        if (dst.is_merge) {
          if (dead_input) {
            // A dead Enter makes its Merge dead at once: a loop on the untaken side of a cond
            // (or in a finished outer iteration) must not wait for a NextIteration.
            ++count.dead;
            dst_dead = count.dead == dst.num_inputs || item.is_enter;
            dst_ready = count.pending == 1 && dst_dead;
          } else {
            // Bit 0 is set until the first live input: only that one is kept and may fire it.
            int32_t before = count.pending;
            count.pending &= ~1;
            dst_ready = before == 1;
            take_input = (before & 1) == 1;
          }
        } else {
          if (dead_input) {
            ++count.dead;
          } else {
            take_input = true;
          }
          dst_ready = --count.pending == 0;
          dst_dead = count.dead > 0;
        }
        if (take_input) {
          Tensor& value = outputs[edge.src_output];
          if (edge.is_last_use) {
            iter->inputs[edge.dst_slot] = std::move(value);
          } else {
            iter->inputs[edge.dst_slot] = value;
          }
        }
      } else if (dst.is_merge) {
        count.pending -= 2;
        dst_dead = count.dead == dst.num_inputs;
        dst_ready = count.pending == 0 || (count.pending == 1 && dst_dead);
      } else {
        if (is_dead) ++count.dead;
        dst_ready = --count.pending == 0;
        dst_dead = count.dead > 0;
      }
      if (dst_ready) {
        if (dst.is_control_trigger) dst_dead = false;
        ready->push_back(TaggedNode{edge.dst, frame, iter, dst_dead});
        ++activated;
      }
    }
    iter->outstanding_ops += activated;
  }

  FrameState* FindOrCreateChildFrame(FrameState* frame, IterationState* iter,
                                     const NodeItem& enter) {
    std::pair<int64_t, int32_t> key(iter->iter_num, enter.enter_frame);
    auto it = frame->children.find(key);
    if (it != frame->children.end()) return it->second;
    auto* child = new FrameState;
    child->info = &executor_->frames()[enter.enter_frame];
    child->frame_id = CombineFrameId(frame->frame_id, iter->iter_num, child->info->name_hash);
    child->parent = frame;
    child->parent_iter = iter;
    child->max_parallel_iterations = std::max(1, enter.parallel_iterations);
    child->iterations.resize(static_cast<size_t>(child->max_parallel_iterations) + 1);
    child->iterations[0] = std::make_unique<IterationState>(0, *child->info);
    child->num_pending_inputs = child->info->num_enters;
    ++iter->outstanding_frame_count;
    frame->children.emplace(key, child);
    return child;
  }

  IterationState* IncrementIteration(FrameState* frame, ReadyQueue* ready) {
    int64_t next_num = ++frame->iteration_count;
    auto& slot = frame->iterations[static_cast<size_t>(
        next_num % static_cast<int64_t>(frame->iterations.size()))];
    slot = std::make_unique<IterationState>(next_num, *frame->info);
    IterationState* next = slot.get();
    ++frame->num_outstanding_iterations;
    frame->dead_exits.clear();
    std::vector<std::pair<int32_t, Tensor>> parked;
    parked.swap(frame->next_iter_roots);
    for (auto& [id, value] : parked) Activate(items_[id], false, frame, next, &value, ready);
    for (const auto& [id, value] : frame->inv_values) {
      Tensor copy = value;
      Activate(items_[id], !copy.IsInitialized(), frame, next, &copy, ready);
    }
    return next;
  }

  bool IsIterationDone(const FrameState* frame, const IterationState* iter) const {
    if (iter->outstanding_ops != 0 || iter->outstanding_frame_count != 0) return false;
    if (iter->iter_num == 0) return frame->num_pending_inputs == 0;
    return frame->GetIteration(iter->iter_num - 1) == nullptr;
  }

  // Retires finished iterations in order (starting parked ones); true when the frame is done.
  // The root frame is never retired: the step's outstanding count decides when it ends.
  bool CleanupIterations(FrameState* frame, IterationState* iter, ReadyQueue* ready) {
    if (frame->parent == nullptr) return false;
    int64_t current = iter->iter_num;
    while (current <= frame->iteration_count && IsIterationDone(frame, iter)) {
      frame
          ->iterations[static_cast<size_t>(current %
                                           static_cast<int64_t>(frame->iterations.size()))]
          .reset();
      --frame->num_outstanding_iterations;
      ++current;
      if (!frame->next_iter_roots.empty()) IncrementIteration(frame, ready);
      if (current > frame->iteration_count) break;
      iter = frame->GetIteration(current);
    }
    return frame->num_pending_inputs == 0 && frame->num_outstanding_iterations == 0;
  }

  // Propagates the frame's dead exits into its parent iteration and deletes it.
  void DeleteFrame(FrameState* frame, ReadyQueue* ready) {
    FrameState* parent = frame->parent;
    IterationState* parent_iter = frame->parent_iter;
    for (int32_t id : frame->dead_exits) {
      Activate(items_[id], true, parent, parent_iter, nullptr, ready);
    }
    for (auto it = parent->children.begin(); it != parent->children.end(); ++it) {
      if (it->second == frame) {
        parent->children.erase(it);
        break;
      }
    }
    delete frame;
  }

  // A child frame of (frame, iter) finished: retire what that completes, up the nesting.
  void CleanupFrameIterations(FrameState* frame, IterationState* iter, ReadyQueue* ready) {
    while (frame != nullptr) {
      --iter->outstanding_frame_count;
      if (!CleanupIterations(frame, iter, ready)) return;
      FrameState* parent = frame->parent;
      IterationState* parent_iter = frame->parent_iter;
      DeleteFrame(frame, ready);
      frame = parent;
      iter = parent_iter;
    }
  }

  // ---- Scheduling and completion, as in the frameless state. ----

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

  // Dead and cheap nodes run inline; expensive ones go to the pool in batches, except the last
  // batch when nothing else is queued.
  void ScheduleReady(const ReadyQueue& ready, ReadyQueue* inline_ready, size_t consumed = 0) {
    if (!runner_) {
      inline_ready->insert(inline_ready->end(), ready.begin(), ready.end());
      return;
    }
    ReadyQueue expensive;
    for (const TaggedNode& tagged : ready) {
      if (tagged.is_dead || items_[tagged.id].is_cheap) {
        inline_ready->push_back(tagged);
      } else {
        expensive.push_back(tagged);
      }
    }
    executor_internal::DispatchInBatches(
        expensive, inline_ready, consumed, [this](ReadyQueue batch) {
          runner_([this, batch = std::move(batch)]() mutable { ProcessQueue(&batch); });
        });
  }

  void Finish() {
    absl::Status status;
    Executor::DoneCallback done = completion_.TakeDone(&status);
    delete this;
    done(std::move(status));
  }

  const Executor* executor_;
  const NodeItem* items_;
  const Executor::OutEdge* edges_;
  Executor::Runner runner_;
  StepStatsCollector* stats_;
  executor_internal::StepCompletion completion_;
  StepServices step_;
  std::unique_ptr<FrameState> root_;
  std::mutex mu_;  // frame and iteration state
};

}  // namespace

void RunWithFrames(const Executor* executor, const Executor::Args& args,
                   Executor::DoneCallback done) {
  (new FrameExecutorState(executor, args, std::move(done)))->Start();
}

}  // namespace tessera
