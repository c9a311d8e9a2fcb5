// The executor's node table: kernels, frames, input slots, out-edges and pending counts.
#include "host/executor/node_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/executor/executor_internal.h"
#include "host/graph/control_flow.h"
#include "host/graph/graph.h"
#include "host/kernels/host_kernels.h"
#include "host/kernels/kernel_factory.h"
#include "host/kernels/shared_kernels.h"
#include "host/runtime/device.h"

namespace tessera {
namespace executor_internal {

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
                                                           const Node& node, KernelNodeInfo* info) {
  const bool stateful = node.op_registration() != nullptr &&
                        node.op_registration()->op_def.is_stateful() && !IsHostKernelOp(node.op());
  if (params.shared_kernels == nullptr || !stateful) {
    ASSIGN_OR_RETURN(
        std::unique_ptr<OpKernel> kernel,
        params.kernel_factory->CreateKernel(node, params.device, info, params.resource_manager));
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

absl::Status NodeTable::Build(const ExecutorParams& params_in, const Graph& graph) {
  params = params_in;
  std::vector<Node*> nodes = graph.op_nodes();
  std::vector<int32_t> index(graph.num_node_ids(), -1);
  items.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i]->id()] = static_cast<int32_t>(i);

  // Frames: only graphs that may see dead values pay for them.
  bool has_control_flow = false;
  bool has_recv = false;
  for (const Node* node : nodes) {
    has_control_flow = has_control_flow || IsControlFlow(*node);
    has_recv = has_recv || IsRecv(*node);
  }
  uses_frames = has_control_flow || (params.dead_inputs_possible && has_recv);
  ControlFlowInfo cf;
  if (has_control_flow) {
    ASSIGN_OR_RETURN(cf, BuildControlFlowInfo(graph));
  } else {
    cf.node_frame.assign(graph.num_node_ids(), 0);
    cf.frames.emplace_back();
  }
  frames.resize(cf.frames.size());
  for (size_t f = 0; f < cf.frames.size(); ++f) {
    frames[f].name = cf.frames[f].name;
    frames[f].parent = cf.frames[f].parent;
    frames[f].name_hash = StableHash(cf.frames[f].name);
  }

  // Kernels, frames and input slots.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = *nodes[i];
    NodeItem& item = items[i];
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
      ++frames[item.enter_frame].num_enters;
    }
    item.frame = cf.node_frame[node.id()];
    if (item.frame < 0) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                     ") is not reachable from the graph's roots"));
    }
    StaticFrame& frame = frames[item.frame];
    item.pending_id = frame.num_nodes++;
    item.input_start = frame.num_input_slots;
    item.num_inputs = node.num_inputs();
    frame.num_input_slots += item.num_inputs;
  }
  total_input_slots = frames[0].num_input_slots;

  // Constant outputs are computed once, here; their buffers become immutable.
  for (NodeItem& item : items) {
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
    if (!items[i].has_constant_outputs) continue;
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
    NodeItem& item = items[i];
    std::vector<bool> has_input(item.num_inputs, false);
    int32_t control_inputs = 0;
    for (const Edge* e : node.in_edges()) {
      if (!e->src->IsOp()) continue;
      if (!e->IsControlEdge()) has_input[e->dst_input] = true;
      int32_t src = index[e->src->id()];
      if (prefilled[src]) {
        if (!e->IsControlEdge()) {
          prefills.push_back(
              {item.input_start + e->dst_input, &items[src].constant_outputs[e->src_output]});
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
    item.out_begin = static_cast<int32_t>(out_edges.size());
    if (!prefilled[i]) {
      for (const Edge* e : node.out_edges()) {
        if (!e->dst->IsOp()) continue;
        int32_t dst = index[e->dst->id()];
        OutEdge out;
        out.dst = dst;
        out.src_output = e->IsControlEdge() ? -1 : e->src_output;
        out.dst_slot = e->IsControlEdge() ? -1 : items[dst].input_start + e->dst_input;
        out.is_last_use = false;
        out.dst_single_input = false;
        out_edges.push_back(out);
      }
    }
    item.out_end = static_cast<int32_t>(out_edges.size());
    // Data edges first, grouped by output; the last edge of each output moves the value.
    std::stable_sort(out_edges.begin() + item.out_begin, out_edges.begin() + item.out_end,
                     [](const OutEdge& a, const OutEdge& b) {
                       if ((a.src_output < 0) != (b.src_output < 0)) return a.src_output >= 0;
                       return a.src_output < b.src_output;
                     });
    for (int32_t e = item.out_begin; e < item.out_end; ++e) {
      OutEdge& out = out_edges[e];
      bool next_same = e + 1 < item.out_end && out_edges[e + 1].src_output == out.src_output;
      out.is_last_use = out.src_output >= 0 && !next_same;
    }
  }
  for (StaticFrame& frame : frames) frame.initial_pending.assign(frame.num_nodes, 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeItem& item = items[i];
    frames[item.frame].initial_pending[item.pending_id] = item.initial_pending;
    // Roots run in the root frame; a node inside a loop always waits for its frame's Enter.
    if (!prefilled[i] && item.initial_pending == 0 && item.frame == 0) {
      roots.push_back(static_cast<int32_t>(i));
    }
  }
  if (!uses_frames) {
    for (OutEdge& out : out_edges) out.dst_single_input = items[out.dst].initial_pending == 1;
  }
  return absl::OkStatus();
}

}  // namespace executor_internal
}  // namespace tessera
