// The executor: node table construction and per-step state.
#include "host/executor/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "host/executor/executor_internal.h"
#include "host/executor/host_kernels.h"
#include "host/executor/shared_kernels.h"
#include "host/executor/kernel_factory.h"
#include "host/graph/control_flow.h"
#include "host/graph/graph.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/device.h"
#include "host/runtime/step_stats.h"
#include "registry/status_macros.h"

namespace tessera {

using executor_internal::AsyncHandshake;
using executor_internal::CheckOutputs;
using executor_internal::RecordNodeStats;

// State of one step of an executor without frames: one pending counter per node. Deletes itself
// after calling the done callback.
class ExecutorState {
 public:
  ExecutorState(const Executor* executor, const Executor::Args& args, Executor::DoneCallback done)
      : executor_(executor),
        items_(executor->items().data()),
        runner_(args.runner),
        stats_(args.stats),
        completion_(args, std::move(done)),
        pending_(new std::atomic<int32_t>[executor->items().size()]),
        inputs_(new Tensor[executor->total_input_slots()]) {
    step_.step_id = args.step_id;
    step_.rendezvous = args.rendezvous;
    step_.call_frame = args.call_frame;
    for (size_t i = 0; i < executor->items().size(); ++i) {
      pending_[i].store(items_[i].initial_pending, std::memory_order_relaxed);
    }
    for (const Executor::Prefill& prefill : executor->prefills()) {
      inputs_[prefill.slot] = *prefill.value;
    }
  }

  void Start() {
    const std::vector<int32_t>& roots = executor_->roots();
    if (roots.empty()) {
      Finish();
      return;
    }
    completion_.Start(static_cast<int64_t>(roots.size()));
    // Roots run on the calling thread like any other ready batch: cheap ones inline, all but one
    // expensive one on the pool. A small graph then runs without a thread hop.
    ReadyQueue inline_ready;
    ReadyQueue ready(roots.begin(), roots.end());
    ScheduleReady(ready, &inline_ready);
    if (!inline_ready.empty()) ProcessQueue(&inline_ready);
  }

 private:
  using ReadyQueue = absl::InlinedVector<int32_t, 16>;
  using NodeItem = Executor::NodeItem;

  struct AsyncState {
    TSR_KernelContext ctx;
    int32_t id;
    int64_t start_ns = 0;
    absl::Status status;
    ReadyQueue ready;
    AsyncHandshake handshake;
  };

  void InitContext(TSR_KernelContext* ctx) {
    ctx->device = executor_->params().device;
    ctx->intra_op_pool = executor_->params().intra_op_pool;
    ctx->step = &step_;
  }

  // Runs `queue` (FIFO) to exhaustion on this thread; nodes made ready may join it.
  void ProcessQueue(ReadyQueue* queue) {
    TSR_KernelContext ctx;
    InitContext(&ctx);
    ReadyQueue ready;
    size_t head = 0;
    while (head < queue->size()) {
      int32_t id = (*queue)[head++];
      const NodeItem& item = items_[id];
      Tensor* inputs = &inputs_[item.input_start];
      absl::Status status;
      ready.clear();
      int64_t start_ns = stats_ != nullptr ? NowNanos() : 0;
      if (completion_.Stopped()) {
        ClearInputs(item, inputs);
      } else if (item.is_async) {
        auto* async = new AsyncState;
        InitContext(&async->ctx);
        async->ctx.Reset(&item.info, inputs, item.num_inputs);
        async->id = id;
        async->start_ns = start_ns;
        item.kernel->ComputeAsync(
            &async->ctx, [this, async](absl::Status s) { AsyncDone(async, std::move(s)); });
        if (!async->handshake.CallReturned()) continue;
        // The kernel finished inside ComputeAsync: continue here, without recursion.
        status = std::move(async->status);
        ready = std::move(async->ready);
        delete async;
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
        if (status.ok()) status = CheckOutputs(item, ctx, false);
        if (stats_ != nullptr) {
          RecordNodeStats(stats_, ctx.device, item, &ctx, start_ns, 0, 0, false);
        }
        if (status.ok()) PropagateOutputs(item, &ctx, &ready);
      }
      if (NodeDone(status, item, &ready, queue, head)) {
        Finish();
        return;
      }
    }
  }

  void AsyncDone(AsyncState* async, absl::Status status) {
    const NodeItem& item = items_[async->id];
    ClearInputs(item, async->ctx.inputs);
    if (status.ok()) status = CheckOutputs(item, async->ctx, false);
    if (stats_ != nullptr) {
      RecordNodeStats(stats_, async->ctx.device, item, &async->ctx, async->start_ns, 0, 0, false);
    }
    if (status.ok()) PropagateOutputs(item, &async->ctx, &async->ready);
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

  void PropagateOutputs(const NodeItem& item, TSR_KernelContext* ctx, ReadyQueue* ready) {
    const Executor::OutEdge* edges = executor_->out_edges().data();
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

  // Cheap nodes join `inline_ready`. Expensive nodes go to the pool in batches (one closure per
  // node would cost more than a small node), except the last batch, which stays inline when
  // nothing else is queued (no hop for a chain).
  void ScheduleReady(const ReadyQueue& ready, ReadyQueue* inline_ready, size_t consumed = 0) {
    if (!runner_) {
      inline_ready->insert(inline_ready->end(), ready.begin(), ready.end());
      return;
    }
    ReadyQueue expensive;
    for (int32_t id : ready) {
      if (items_[id].is_cheap) {
        inline_ready->push_back(id);
      } else {
        expensive.push_back(id);
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
  Executor::Runner runner_;
  StepStatsCollector* stats_;
  executor_internal::StepCompletion completion_;
  StepServices step_;
  std::unique_ptr<std::atomic<int32_t>[]> pending_;
  std::unique_ptr<Tensor[]> inputs_;
};

// Defined in executor_frames.cc.
void RunWithFrames(const Executor* executor, const Executor::Args& args,
                   Executor::DoneCallback done);

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const ExecutorParams& params,
                                                           const Graph& graph) {
  std::unique_ptr<Executor> executor(new Executor());
  RETURN_IF_ERROR(executor->Build(params, graph));
  return executor;
}

Executor::~Executor() = default;

namespace {

// FNV-1a: a hash every process computes alike, so frame ids in rendezvous keys agree across
// partitions and processes.
uint64_t StableHash(absl::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// The node's kernel: a stateful plugin kernel comes from the session's SharedKernels (made once
// per session), everything else is made for this executor. Host kernels are never shared: their
// attributes (transfer keys, call-frame indices) belong to one signature's rewritten graph.
absl::StatusOr<std::shared_ptr<OpKernel>> CreateNodeKernel(const ExecutorParams& params,
                                                           const Node& node,
                                                           KernelNodeInfo* info) {
  const bool stateful = node.op_registration() != nullptr &&
                        node.op_registration()->op_def.is_stateful() && !IsHostKernelOp(node.op());
  if (params.shared_kernels == nullptr || !stateful) {
    ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                     params.kernel_factory->CreateKernel(node, params.device, info,
                                                         params.resource_manager));
    return std::shared_ptr<OpKernel>(std::move(kernel));
  }
  bool created = false;
  ASSIGN_OR_RETURN(std::shared_ptr<OpKernel> kernel,
                   params.shared_kernels->GetOrCreate(params.device->name(), node.name(), [&]() {
                     created = true;
                     return params.kernel_factory->CreateKernel(node, params.device, info,
                                                                params.resource_manager);
                   }));
  if (!created) {
    // Filled by CreateKernel when the kernel is made; found again for a shared one.
    std::vector<bool> inputs_on_host;
    std::vector<bool> outputs_on_host;
    RETURN_IF_ERROR(params.kernel_factory->HostMemoryArgs(node, params.device->device_type(),
                                                          &inputs_on_host, &outputs_on_host));
    info->output_in_host_memory.assign(outputs_on_host.begin(), outputs_on_host.end());
  }
  return kernel;
}

}  // namespace

absl::Status Executor::Build(const ExecutorParams& params, const Graph& graph) {
  params_ = params;
  std::vector<Node*> nodes = graph.op_nodes();
  std::vector<int32_t> index(graph.num_node_ids(), -1);
  items_.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i]->id()] = static_cast<int32_t>(i);

  // Frames: only graphs that may see dead values pay for them.
  bool has_control_flow = false;
  bool has_recv = false;
  for (const Node* node : nodes) {
    has_control_flow = has_control_flow || IsControlFlow(*node);
    has_recv = has_recv || IsRecv(*node);
  }
  uses_frames_ = has_control_flow || (params.dead_inputs_possible && has_recv);
  ControlFlowInfo cf;
  if (has_control_flow) {
    ASSIGN_OR_RETURN(cf, BuildControlFlowInfo(graph));
  } else {
    cf.node_frame.assign(graph.num_node_ids(), 0);
    cf.frames.emplace_back();
  }
  frames_.resize(cf.frames.size());
  for (size_t f = 0; f < cf.frames.size(); ++f) {
    frames_[f].name = cf.frames[f].name;
    frames_[f].parent = cf.frames[f].parent;
    frames_[f].name_hash = StableHash(cf.frames[f].name);
  }

  // Kernels, frames and input slots.
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
    ASSIGN_OR_RETURN(item.kernel, CreateNodeKernel(params, node, &item.info));
    item.is_cheap = item.kernel->traits().is_cheap;
    item.is_async = item.kernel->traits().is_async;
    item.is_merge = IsMerge(node);
    item.is_switch = IsSwitch(node);
    item.is_enter = IsEnter(node);
    item.is_exit = IsExit(node);
    item.is_next_iteration = IsNextIteration(node);
    item.is_control_trigger = IsControlTrigger(node);
    item.is_send = IsSend(node);
    item.is_recv = IsRecv(node);
    if (item.is_enter) {
      const tensorflow::AttrValue* is_constant = node.attr("is_constant");
      item.is_constant_enter = is_constant != nullptr && is_constant->b();
      item.enter_frame = cf.OutputFrame(node);
      item.parallel_iterations = cf.frames[item.enter_frame].parallel_iterations;
      ++frames_[item.enter_frame].num_enters;
    }
    item.frame = cf.node_frame[node.id()];
    if (item.frame < 0) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                     ") is not reachable from the graph's roots"));
    }
    StaticFrame& frame = frames_[item.frame];
    item.pending_id = frame.num_nodes++;
    item.input_start = frame.num_input_slots;
    item.num_inputs = node.num_inputs();
    frame.num_input_slots += item.num_inputs;
  }
  total_input_slots_ = frames_[0].num_input_slots;

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
    if (status.ok()) status = CheckOutputs(item, ctx, false);
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
  // (A constant with control inputs, as in a cond branch, runs normally so deadness reaches it;
  // so does one feeding a Merge or ControlTrigger, whose counters follow other rules.)
  std::vector<bool> prefilled(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!items_[i].has_constant_outputs) continue;
    bool waits = false;
    for (const Edge* e : nodes[i]->in_edges()) waits = waits || e->src->IsOp();
    for (const Edge* e : nodes[i]->out_edges()) {
      if (e->dst->IsOp() && (IsMerge(*e->dst) || IsControlTrigger(*e->dst))) waits = true;
    }
    prefilled[i] = !waits;
  }

  // Edges, pending counts and roots.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = *nodes[i];
    NodeItem& item = items_[i];
    std::vector<bool> has_input(item.num_inputs, false);
    int32_t control_inputs = 0;
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
      if (e->IsControlEdge()) ++control_inputs;
      ++item.initial_pending;
    }
    // Merge waits for its first live data input (bit 0) and for every control input (2 each).
    if (item.is_merge) item.initial_pending = 1 + 2 * control_inputs;
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
  for (StaticFrame& frame : frames_) frame.initial_pending.assign(frame.num_nodes, 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeItem& item = items_[i];
    frames_[item.frame].initial_pending[item.pending_id] = item.initial_pending;
    // Roots run in the root frame; a node inside a loop always waits for its frame's Enter.
    if (!prefilled[i] && item.initial_pending == 0 && item.frame == 0) {
      roots_.push_back(static_cast<int32_t>(i));
    }
  }
  if (!uses_frames_) {
    for (OutEdge& out : out_edges_) out.dst_single_input = items_[out.dst].initial_pending == 1;
  }
  return absl::OkStatus();
}

void Executor::RunAsync(const Args& args, DoneCallback done) const {
  if (uses_frames_) {
    RunWithFrames(this, args, std::move(done));
    return;
  }
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
