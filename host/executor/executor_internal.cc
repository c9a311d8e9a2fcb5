// Shared pieces of the executor's per-step states.
#include "host/executor/executor_internal.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/device.h"
#include "host/runtime/step_stats.h"

namespace tessera {
namespace executor_internal {

absl::Status CheckOutputs(const NodeItem& item, const TSR_KernelContext& ctx, bool allow_missing) {
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    const Tensor& out = ctx.outputs[i];
    if (!out.IsInitialized()) {
      if (allow_missing) continue;
      return absl::InternalError(absl::StrCat("missing output ", i, " of node '", item.info.name,
                                              "' (", item.info.op, ")"));
    }
    const DataType expected = item.info.output_types[i];
    // A ref output carries the variable's handle.
    if (out.dtype() != expected && !(IsRefType(expected) && out.dtype() == TSR_DTYPE_RESOURCE)) {
      return absl::InternalError(absl::StrCat(
          "output ", i, " of node '", item.info.name, "' (", item.info.op, ") has type ",
          DataTypeString(out.dtype()), ", expected ", DataTypeString(expected)));
    }
  }
  return absl::OkStatus();
}

absl::Status AnnotateNodeError(const absl::Status& status, const NodeItem& item) {
  return WithContext(
      status, absl::StrCat("while running node '", item.info.name, "' (", item.info.op, ")"));
}

bool StepCompletion::NodeFinished(const absl::Status& status, const NodeItem& item,
                                  size_t ready_count) {
  if (!status.ok()) {
    absl::Status annotated = AnnotateNodeError(status, item);
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok()) {
        status_ = annotated;
        first = true;
      }
    }
    if (first) {
      aborted_.store(true, std::memory_order_relaxed);
      if (rendezvous_ != nullptr) rendezvous_->StartAbort(annotated);
    }
    ready_count = 0;
  }
  // A node that makes k nodes ready hands its own count to them: k - 1 more outstanding.
  if (ready_count == 0) return outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  if (ready_count > 1) {
    outstanding_.fetch_add(static_cast<int64_t>(ready_count) - 1, std::memory_order_relaxed);
  }
  return false;
}

Executor::DoneCallback StepCompletion::TakeDone(absl::Status* status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    *status = std::move(status_);
  }
  return std::move(done_);
}

void RecordNodeStats(StepStatsCollector* stats, const Device* device, const NodeItem& item,
                     const TSR_KernelContext* ctx, int64_t start_ns, uint64_t frame_id,
                     int64_t iter_id, bool is_dead) {
  NodeExecStats node;
  node.node_name = item.info.name;
  node.op = item.info.op;
  node.start_ns = start_ns;
  node.end_ns = NowNanos();
  node.thread_id = ThreadIndex();
  node.frame_id = frame_id;
  node.iter_id = iter_id;
  node.is_dead = is_dead;
  node.output_shapes.resize(item.info.output_types.size());
  if (ctx != nullptr) {
    for (size_t i = 0; i < ctx->outputs.size() && i < node.output_shapes.size(); ++i) {
      const Tensor& out = ctx->outputs[i];
      if (!out.IsInitialized()) continue;
      node.output_shapes[i] = absl::StrCat(DataTypeString(out.dtype()), "[",
                                           absl::StrJoin(out.shape().dims(), ","), "]");
    }
  }
  stats->Record(device->name(), std::move(node));
}

}  // namespace executor_internal
}  // namespace tessera
