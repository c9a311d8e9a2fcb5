// The executor: node table construction and per-step state.
#include "host/executor/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "host/executor/kernel_factory.h"
#include "host/graph/graph.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/device.h"
#include "registry/status_macros.h"

namespace tessera {

// State of one step of one executor. Deletes itself after calling the done callback.
class ExecutorState {
 public:
  ExecutorState(const Executor* executor, const Executor::Args& args,
                Executor::DoneCallback done)
      : executor_(executor),
        runner_(args.runner),
        cancelled_(args.cancelled),
        done_(std::move(done)),
        pending_(new std::atomic<int32_t>[executor->items_.size()]),
        inputs_(new Tensor[executor->total_input_slots_]) {
    step_.step_id = args.step_id;
    step_.rendezvous = args.rendezvous;
    step_.call_frame = args.call_frame;
    for (size_t i = 0; i < executor->items_.size(); ++i) {
      pending_[i].store(executor->items_[i].initial_pending, std::memory_order_relaxed);
    }
    for (const Executor::Prefill& prefill : executor->prefills_) {
      inputs_[prefill.slot] = *prefill.value;
    }
  }

  void Start() {
    const std::vector<int32_t>& roots = executor_->roots_;
    if (roots.empty()) {
      Finish();
      return;
    }
    num_outstanding_.store(static_cast<int64_t>(roots.size()), std::memory_order_relaxed);
    // Roots run on the calling thread like any other ready batch: cheap ones inline, all but one
    // expensive one on the pool. A small graph then runs without a thread hop.
    ReadyQueue inline_ready;
    ReadyQueue ready(roots.begin(), roots.end());
    ScheduleReady(ready, &inline_ready);
    if (!inline_ready.empty()) ProcessQueue(&inline_ready);
  }

  static absl::Status CheckOutputsForBuild(const Executor::NodeItem& item,
                                           const TSR_KernelContext& ctx) {
    return CheckOutputs(item, ctx);
  }

 private:
  using ReadyQueue = absl::InlinedVector<int32_t, 16>;
  using NodeItem = Executor::NodeItem;

  struct AsyncState {
    TSR_KernelContext ctx;
    int32_t id;
  };

  // Runs `queue` (FIFO) to exhaustion on this thread; nodes made ready may join it.
  void ProcessQueue(ReadyQueue* queue) {
    TSR_KernelContext ctx;
    ctx.device = executor_->params_.device;
    ctx.intra_op_pool = executor_->params_.intra_op_pool;
    ctx.step = &step_;
    ReadyQueue ready;
    size_t head = 0;
    while (head < queue->size()) {
      int32_t id = (*queue)[head++];
      const NodeItem& item = executor_->items_[id];
      Tensor* inputs = &inputs_[item.input_start];
      absl::Status status;
      ready.clear();
      if (aborted_.load(std::memory_order_relaxed) ||
          (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed))) {
        ClearInputs(item, inputs);
      } else if (item.is_async) {
        auto* async = new AsyncState;
        async->ctx.device = ctx.device;
        async->ctx.intra_op_pool = ctx.intra_op_pool;
        async->ctx.step = &step_;
        async->ctx.Reset(&item.info, inputs, item.num_inputs);
        async->id = id;
        item.kernel->ComputeAsync(&async->ctx, [this, async](absl::Status s) {
          AsyncDone(async, std::move(s));
        });
        continue;
      } else {
        ctx.Reset(&item.info, inputs, item.num_inputs);
        if (item.has_constant_outputs) {
          for (size_t i = 0; i < item.constant_outputs.size(); ++i) {
            ctx.outputs[i] = item.constant_outputs[i];
          }
        } else {
          status = item.kernel->Compute(&ctx);
        }
        ClearInputs(item, inputs);
        if (status.ok()) status = CheckOutputs(item, ctx);
        if (status.ok()) PropagateOutputs(item, &ctx, &ready);
      }
      if (NodeDone(status, item, &ready, queue)) {
        Finish();
        return;
      }
    }
  }

  void AsyncDone(AsyncState* async, absl::Status status) {
    const NodeItem& item = executor_->items_[async->id];
    ClearInputs(item, async->ctx.inputs);
    if (status.ok()) status = CheckOutputs(item, async->ctx);
    ReadyQueue ready;
    if (status.ok()) PropagateOutputs(item, &async->ctx, &ready);
    delete async;
    ReadyQueue inline_ready;
    if (NodeDone(status, item, &ready, &inline_ready)) {
      Finish();
      return;
    }
    if (!inline_ready.empty()) ProcessQueue(&inline_ready);
  }

  static void ClearInputs(const NodeItem& item, Tensor* inputs) {
    for (int32_t i = 0; i < item.num_inputs; ++i) inputs[i] = Tensor();
  }

  static absl::Status CheckOutputs(const NodeItem& item, const TSR_KernelContext& ctx) {
    for (size_t i = 0; i < ctx.outputs.size(); ++i) {
      const Tensor& out = ctx.outputs[i];
      if (!out.IsInitialized()) {
        return absl::InternalError(absl::StrCat("missing output ", i, " of node '",
                                                item.info.name, "' (", item.info.op, ")"));
      }
      if (out.dtype() != item.info.output_types[i]) {
        return absl::InternalError(absl::StrCat(
            "output ", i, " of node '", item.info.name, "' (", item.info.op, ") has type ",
            DataTypeString(out.dtype()), ", expected ",
            DataTypeString(item.info.output_types[i])));
      }
    }
    return absl::OkStatus();
  }

  void PropagateOutputs(const NodeItem& item, TSR_KernelContext* ctx, ReadyQueue* ready) {
    const Executor::OutEdge* edges = executor_->out_edges_.data();
    for (int32_t e = item.out_begin; e < item.out_end; ++e) {
      const Executor::OutEdge& edge = edges[e];
      if (edge.dst_slot >= 0) {
        Tensor& value = ctx->outputs[edge.src_output];
        if (edge.is_last_use) {
          inputs_[edge.dst_slot] = std::move(value);
        } else {
          inputs_[edge.dst_slot] = value;
        }
      }
      // A node with a single in-edge is ready as soon as that edge fires: no counter needed.
      if (edge.dst_single_input ||
          pending_[edge.dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        ready->push_back(edge.dst);
      }
    }
  }

  // Accounts for a finished node and schedules what it made ready. True when the step is over.
  bool NodeDone(const absl::Status& status, const NodeItem& item, ReadyQueue* ready,
                ReadyQueue* inline_ready) {
    if (!status.ok()) {
      RecordError(status, item);
      ready->clear();
    }
    int64_t count = static_cast<int64_t>(ready->size());
    if (count == 0) {
      return num_outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1;
    }
    if (count > 1) num_outstanding_.fetch_add(count - 1, std::memory_order_relaxed);
    ScheduleReady(*ready, inline_ready);
    return false;
  }

  // Cheap nodes join `inline_ready`. Expensive nodes go to the pool, except the last one, which
  // stays inline when nothing else is queued (no hop for a chain).
  void ScheduleReady(const ReadyQueue& ready, ReadyQueue* inline_ready) {
    if (!runner_) {
      inline_ready->insert(inline_ready->end(), ready.begin(), ready.end());
      return;
    }
    int32_t pending_expensive = -1;
    for (int32_t id : ready) {
      const NodeItem& item = executor_->items_[id];
      if (item.is_cheap) {
        inline_ready->push_back(id);
        continue;
      }
      if (pending_expensive >= 0) Dispatch(pending_expensive);
      pending_expensive = id;
    }
    if (pending_expensive >= 0) {
      if (inline_ready->empty()) {
        inline_ready->push_back(pending_expensive);
      } else {
        Dispatch(pending_expensive);
      }
    }
  }

  void Dispatch(int32_t id) {
    runner_([this, id] {
      ReadyQueue queue;
      queue.push_back(id);
      ProcessQueue(&queue);
    });
  }

  void RecordError(const absl::Status& status, const NodeItem& item) {
    absl::Status annotated =
        WithContext(status, absl::StrCat("while running node '", item.info.name, "' (",
                                         item.info.op, ")"));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!status_.ok()) return;
      status_ = annotated;
    }
    aborted_.store(true, std::memory_order_relaxed);
    if (step_.rendezvous != nullptr) step_.rendezvous->StartAbort(annotated);
  }

  void Finish() {
    absl::Status status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      status = std::move(status_);
    }
    Executor::DoneCallback done = std::move(done_);
    delete this;
    done(std::move(status));
  }

  const Executor* executor_;
  Executor::Runner runner_;
  const std::atomic<bool>* cancelled_;
  Executor::DoneCallback done_;
  StepServices step_;
  std::unique_ptr<std::atomic<int32_t>[]> pending_;
  std::unique_ptr<Tensor[]> inputs_;
  std::atomic<int64_t> num_outstanding_{0};
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  absl::Status status_;
};

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const ExecutorParams& params,
                                                           const Graph& graph) {
  std::unique_ptr<Executor> executor(new Executor());
  RETURN_IF_ERROR(executor->Build(params, graph));
  return executor;
}

Executor::~Executor() = default;

absl::Status Executor::Build(const ExecutorParams& params, const Graph& graph) {
  params_ = params;
  std::vector<Node*> nodes = graph.op_nodes();
  std::vector<int32_t> index(graph.num_node_ids(), -1);
  items_.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i]->id()] = static_cast<int32_t>(i);

  // Kernels and input slots.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = *nodes[i];
    NodeItem& item = items_[i];
    item.info.name = node.name();
    item.info.op = node.op();
    for (int k = 0; k < node.num_inputs(); ++k) item.info.input_types.push_back(node.input_type(k));
    for (int k = 0; k < node.num_outputs(); ++k) {
      item.info.output_types.push_back(node.output_type(k));
    }
    item.info.output_in_host_memory.assign(node.num_outputs(), false);
    ASSIGN_OR_RETURN(item.kernel,
                     params.kernel_factory->CreateKernel(node, params.device, &item.info));
    item.is_cheap = item.kernel->traits().is_cheap;
    item.is_async = item.kernel->traits().is_async;
    item.input_start = total_input_slots_;
    item.num_inputs = node.num_inputs();
    total_input_slots_ += item.num_inputs;
  }

  // Constant outputs are computed once, here; their buffers become immutable.
  for (NodeItem& item : items_) {
    if (!item.kernel->traits().constant_outputs || item.num_inputs != 0 || item.is_async) continue;
    StepServices step;
    TSR_KernelContext ctx;
    ctx.device = params.device;
    ctx.intra_op_pool = params.intra_op_pool;
    ctx.step = &step;
    ctx.Reset(&item.info, nullptr, 0);
    absl::Status status = item.kernel->Compute(&ctx);
    if (status.ok()) status = ExecutorState::CheckOutputsForBuild(item, ctx);
    RETURN_IF_ERROR(WithContext(status, absl::StrCat("while computing constant node '",
                                                     item.info.name, "' (", item.info.op, ")")));
    item.constant_outputs.assign(ctx.outputs.begin(), ctx.outputs.end());
    for (Tensor& t : item.constant_outputs) {
      if (t.buffer() != nullptr) t.buffer()->MarkImmutable();
    }
    item.has_constant_outputs = true;
  }

  // A constant that waits for nothing never runs per step: its consumers' input slots are filled
  // when the step starts and its edges are already satisfied in the pending-count template.
  // (A constant with control inputs, as in a cond branch, runs normally so deadness reaches it.)
  std::vector<bool> prefilled(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!items_[i].has_constant_outputs) continue;
    bool waits = false;
    for (const Edge* e : nodes[i]->in_edges()) waits = waits || e->src->IsOp();
    prefilled[i] = !waits;
  }

  // Edges, pending counts and roots.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = *nodes[i];
    NodeItem& item = items_[i];
    std::vector<bool> has_input(item.num_inputs, false);
    for (const Edge* e : node.in_edges()) {
      if (!e->src->IsOp()) continue;
      if (!e->IsControlEdge()) has_input[e->dst_input] = true;
      int32_t src = index[e->src->id()];
      if (prefilled[src]) {
        if (!e->IsControlEdge()) {
          prefills_.push_back(
              {item.input_start + e->dst_input, &items_[src].constant_outputs[e->src_output]});
        }
        continue;
      }
      ++item.initial_pending;
    }
    for (int k = 0; k < item.num_inputs; ++k) {
      if (!has_input[k]) {
        return absl::InvalidArgumentError(absl::StrCat("input ", k, " of node '", node.name(),
                                                       "' (", node.op(), ") has no producer"));
      }
    }
    item.out_begin = static_cast<int32_t>(out_edges_.size());
    if (!prefilled[i]) {
      for (const Edge* e : node.out_edges()) {
        if (!e->dst->IsOp()) continue;
        int32_t dst = index[e->dst->id()];
        OutEdge out;
        out.dst = dst;
        out.src_output = e->IsControlEdge() ? -1 : e->src_output;
        out.dst_slot = e->IsControlEdge() ? -1 : items_[dst].input_start + e->dst_input;
        out.is_last_use = false;
        out.dst_single_input = false;
        out_edges_.push_back(out);
      }
    }
    item.out_end = static_cast<int32_t>(out_edges_.size());
    // Data edges first, grouped by output; the last edge of each output moves the value.
    std::stable_sort(out_edges_.begin() + item.out_begin, out_edges_.begin() + item.out_end,
                     [](const OutEdge& a, const OutEdge& b) {
                       if ((a.src_output < 0) != (b.src_output < 0)) return a.src_output >= 0;
                       return a.src_output < b.src_output;
                     });
    for (int32_t e = item.out_begin; e < item.out_end; ++e) {
      OutEdge& out = out_edges_[e];
      bool next_same = e + 1 < item.out_end && out_edges_[e + 1].src_output == out.src_output;
      out.is_last_use = out.src_output >= 0 && !next_same;
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!prefilled[i] && items_[i].initial_pending == 0) roots_.push_back(static_cast<int32_t>(i));
  }
  for (OutEdge& out : out_edges_) out.dst_single_input = items_[out.dst].initial_pending == 1;
  return absl::OkStatus();
}

void Executor::RunAsync(const Args& args, DoneCallback done) const {
  (new ExecutorState(this, args, std::move(done)))->Start();
}

absl::Status Executor::Run(const Args& args) const {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  absl::Status result;
  RunAsync(args, [&](absl::Status status) {
    std::lock_guard<std::mutex> lock(mu);
    result = std::move(status);
    finished = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

}  // namespace tessera
