// _Arg, _Retval, _Send and _Recv; the dispatch to the state, checkpoint and data-flow kernels.
#include "host/kernels/host_kernels.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/graph.h"
#include "host/kernels/checkpoint_kernels.h"
#include "host/kernels/data_flow_kernels.h"
#include "host/kernels/state_kernels.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/device.h"

namespace tessera {
namespace {

absl::StatusOr<int64_t> IntAttr(const Node& node, absl::string_view name) {
  const tensorflow::AttrValue* value = node.attr(name);
  if (value == nullptr || value->value_case() != tensorflow::AttrValue::kI) {
    return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                   ") needs an int attribute '", name, "'"));
  }
  return value->i();
}

absl::StatusOr<std::string> StringAttr(const Node& node, absl::string_view name) {
  const tensorflow::AttrValue* value = node.attr(name);
  if (value == nullptr || value->value_case() != tensorflow::AttrValue::kS) {
    return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                   ") needs a string attribute '", name, "'"));
  }
  return value->s();
}

class ArgKernel final : public OpKernel {
 public:
  explicit ArgKernel(int64_t index) : OpKernel({false, true, false}), index_(index) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    CallFrame* frame = ctx->step->call_frame;
    if (frame == nullptr || index_ >= static_cast<int64_t>(frame->args.size())) {
      return absl::InternalError(
          absl::StrCat("argument ", index_, " of node '", ctx->info->name, "' was not passed"));
    }
    ctx->outputs[0] = frame->args[index_];
    return absl::OkStatus();
  }

 private:
  int64_t index_;
};

class RetvalKernel final : public OpKernel {
 public:
  explicit RetvalKernel(int64_t index) : OpKernel({false, true, false}), index_(index) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    CallFrame* frame = ctx->step->call_frame;
    if (frame == nullptr || index_ >= static_cast<int64_t>(frame->retvals.size())) {
      return absl::InternalError(
          absl::StrCat("return value ", index_, " of node '", ctx->info->name, "' has no slot"));
    }
    Tensor& value = ctx->inputs[0];
    // The client may write into what it fetched: never hand out a runtime-owned buffer.
    if (value.buffer() != nullptr && value.buffer()->immutable() && value.host_accessible()) {
      ASSIGN_OR_RETURN(frame->retvals[index_], value.DeepCopy());
      return absl::OkStatus();
    }
    frame->retvals[index_] = std::move(value);
    return absl::OkStatus();
  }

 private:
  int64_t index_;
};

// Builds the key prefix once; the frame and iteration are appended per execution.
struct TransferAttrs {
  std::string send_device;
  uint64_t send_device_incarnation = 0;
  std::string recv_device;
  std::string tensor_name;
};

absl::StatusOr<TransferAttrs> ReadTransferAttrs(const Node& node) {
  TransferAttrs attrs;
  ASSIGN_OR_RETURN(attrs.send_device, StringAttr(node, "send_device"));
  ASSIGN_OR_RETURN(attrs.recv_device, StringAttr(node, "recv_device"));
  ASSIGN_OR_RETURN(attrs.tensor_name, StringAttr(node, "tensor_name"));
  ASSIGN_OR_RETURN(int64_t incarnation, IntAttr(node, "send_device_incarnation"));
  attrs.send_device_incarnation = static_cast<uint64_t>(incarnation);
  return attrs;
}

// "<src>;<incarnation>;<dst>;<tensor>;" : the frame and iteration are appended per execution.
std::string KeyPrefixOf(const TransferAttrs& a) {
  std::string key = CreateRendezvousKey(a.send_device, a.send_device_incarnation, a.recv_device,
                                        a.tensor_name, FrameAndIter{});
  key.resize(key.size() - 3);  // drop "0:0"
  return key;
}

std::string KeyFor(const std::string& prefix, const TSR_KernelContext* ctx) {
  return absl::StrCat(prefix, ctx->frame_id, ":", ctx->iter_id);
}

class SendKernel final : public OpKernel {
 public:
  explicit SendKernel(TransferAttrs attrs)
      : OpKernel({false, true, false}), prefix_(KeyPrefixOf(attrs)) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    if (ctx->step->rendezvous == nullptr) {
      return absl::InternalError(absl::StrCat("node '", ctx->info->name, "' has no rendezvous"));
    }
    return ctx->step->rendezvous->Send(KeyFor(prefix_, ctx), ctx->inputs[0], ctx->is_input_dead);
  }

 private:
  std::string prefix_;
};

// Moves a received value into the memory the receiving node needs: the receiving device's, or
// host memory for a _HostRecv. Device memory is only ever touched through the plugins' copy
// functions; between two devices without host memory the value goes through host memory.
absl::Status PlaceReceivedValue(const Tensor& value, Device* dst, bool want_host, Tensor* out) {
  Device* src = value.buffer() != nullptr ? value.buffer()->allocator()->device() : nullptr;
  bool on_host = value.buffer() == nullptr || value.host_accessible();
  bool dst_host = want_host || dst->host_memory();
  if (value.dtype() == TSR_DTYPE_STRING && !dst_host) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a string tensor cannot be received on ", dst->name(),
        ", whose memory the host cannot reach: string tensors live in host memory only"));
  }
  if (on_host && dst_host) {
    *out = value;
    return absl::OkStatus();
  }
  if (!on_host && !want_host && src == dst) {
    *out = value;
    return absl::OkStatus();
  }
  Tensor host = value;
  if (!on_host) {
    if (src == nullptr) {
      return absl::InternalError("a received value lives in device memory of an unknown device");
    }
    RETURN_IF_ERROR(src->CopyToHost(value, &host));
  }
  if (dst_host) {
    *out = std::move(host);
    return absl::OkStatus();
  }
  return dst->CopyFromHost(host, out);
}

class RecvKernel final : public OpKernel {
 public:
  RecvKernel(TransferAttrs attrs, bool to_host)
      : OpKernel({true, true, false}), prefix_(KeyPrefixOf(attrs)), to_host_(to_host) {}
  void ComputeAsync(TSR_KernelContext* ctx, std::function<void(absl::Status)> done) override {
    if (ctx->step->rendezvous == nullptr) {
      done(absl::InternalError(absl::StrCat("node '", ctx->info->name, "' has no rendezvous")));
      return;
    }
    ctx->step->rendezvous->RecvAsync(
        KeyFor(prefix_, ctx), [this, ctx, done = std::move(done)](
                                  const absl::Status& s, const Tensor& value, bool is_dead) {
          // A dead value leaves the output unset: the executor propagates it as dead.
          if (!s.ok() || is_dead) {
            done(s);
            return;
          }
          done(PlaceReceivedValue(value, ctx->device, to_host_, &ctx->outputs[0]));
        });
  }

 private:
  std::string prefix_;
  bool to_host_;
};

// ---- Control flow. These only move tensors; they never read device memory except the
// predicate, which lives in host memory. ----

absl::StatusOr<bool> ReadPredicate(const TSR_KernelContext* ctx, int index) {
  const Tensor& pred = ctx->inputs[index];
  if (pred.dtype() != TSR_DTYPE_BOOL || pred.NumElements() != 1 ||
      pred.shape().dims().size() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx->info->op, " node '", ctx->info->name, "': the predicate must be a bool scalar, got ",
        DataTypeString(pred.dtype()), " of shape ", pred.shape().DebugString()));
  }
  if (!pred.host_accessible()) {
    return absl::InternalError(absl::StrCat(ctx->info->op, " node '", ctx->info->name,
                                            "': the predicate is not in host memory"));
  }
  return *static_cast<const bool*>(pred.data());
}

// Switch: output 1 (true) or output 0 (false) gets the data; the other is dead.
class SwitchKernel final : public OpKernel {
 public:
  SwitchKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(bool pred, ReadPredicate(ctx, 1));
    ctx->outputs[pred ? 1 : 0] = std::move(ctx->inputs[0]);
    return absl::OkStatus();
  }
};

// Merge: forwards its (first) live input and that input's index.
class MergeKernel final : public OpKernel {
 public:
  MergeKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs; ++i) {
      if (!ctx->inputs[i].IsInitialized()) continue;
      ctx->outputs[0] = std::move(ctx->inputs[i]);
      ASSIGN_OR_RETURN(ctx->outputs[1],
                       Tensor::Allocate(HostAllocator(), TSR_DTYPE_INT32, TensorShape()));
      *static_cast<int32_t*>(ctx->outputs[1].data()) = i;
      return absl::OkStatus();
    }
    return absl::InternalError(
        absl::StrCat("Merge node '", ctx->info->name, "' ran without a live input"));
  }
};

// Enter, Exit, NextIteration, LoopCond: forward input 0; the executor moves it between frames.
class ForwardKernel final : public OpKernel {
 public:
  ForwardKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ctx->outputs[0] = std::move(ctx->inputs[0]);
    return absl::OkStatus();
  }
};

class LoopCondKernel final : public OpKernel {
 public:
  LoopCondKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    RETURN_IF_ERROR(ReadPredicate(ctx, 0).status());
    ctx->outputs[0] = std::move(ctx->inputs[0]);
    return absl::OkStatus();
  }
};

// Assert: INVALID_ARGUMENT "assertion failed: [d0] [d1] ..." when the condition is false, each
// data tensor summarized by its first `summarize` values as TensorFlow prints them (strings
// C-escaped, "..." after the last one shown). All inputs are in host memory.
class AssertKernel final : public OpKernel {
 public:
  explicit AssertKernel(int64_t summarize)
      : OpKernel({false, true, false}),
        summarize_(
            static_cast<int>(std::clamp<int64_t>(summarize, 0, std::numeric_limits<int>::max()))) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    const Tensor& condition = ctx->inputs[0];
    if (condition.dtype() != TSR_DTYPE_BOOL || condition.shape().dims().size() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] should be a scalar: ", condition.shape().DebugString()));
    }
    if (*static_cast<const bool*>(condition.data())) return absl::OkStatus();
    std::string message = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs; ++i) {
      if (i > 1) message.push_back(' ');
      absl::StrAppend(&message, "[", Summarize(ctx->inputs[i]), "]");
    }
    return absl::InvalidArgumentError(message);
  }

 private:
  std::string Summarize(const Tensor& t) const {
    const int64_t shown = std::min<int64_t>(t.NumElements(), summarize_);
    std::string out;
    if (t.dtype() == TSR_DTYPE_STRING && t.HoldsStrings()) {
      for (int64_t i = 0; i < shown; ++i) {
        if (i > 0) out.push_back(' ');
        out.append(absl::CEscape(t.data<std::string>()[i]));
      }
      if (t.NumElements() > shown) out.append("...");
      return out;
    }
    out = t.SummarizeValues(static_cast<int>(shown));
    if (t.NumElements() > shown) {
      // SummarizeValues ends with " ..."; TensorFlow writes the dots right after the last value.
      if (absl::EndsWith(out, " ...")) out.erase(out.size() - 4, 1);
      if (shown == 0) out = "...";
    }
    return out;
  }

  int summarize_;
};

class NoOutputKernel final : public OpKernel {
 public:
  NoOutputKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override { return absl::OkStatus(); }
};

}  // namespace

bool IsHostKernelOp(absl::string_view op) {
  return op == "_Arg" || op == "_Retval" || op == "_Send" || op == "_Recv" || op == "_HostSend" ||
         op == "_HostRecv" || op == "Switch" || op == "Merge" || op == "Enter" || op == "Exit" ||
         op == "NextIteration" || op == "LoopCond" || op == "ControlTrigger" || op == "RefSwitch" ||
         op == "RefEnter" || op == "RefIdentity" || op == "Assert" || IsStateKernelOp(op) ||
         IsCheckpointKernelOp(op) || IsDataFlowKernelOp(op);
}

absl::Status HostKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                                   std::vector<bool>* outputs_on_host) {
  const std::string& op = node.op();
  if (IsStateKernelOp(op)) {
    StateKernelMemoryTypes(node, inputs_on_host, outputs_on_host);
    return absl::OkStatus();
  }
  if (IsCheckpointKernelOp(op)) {
    CheckpointKernelMemoryTypes(node, inputs_on_host, outputs_on_host);
    return absl::OkStatus();
  }
  if (IsDataFlowKernelOp(op)) {
    DataFlowKernelMemoryTypes(node, inputs_on_host, outputs_on_host);
    return absl::OkStatus();
  }
  inputs_on_host->assign(node.num_inputs(), false);
  outputs_on_host->assign(node.num_outputs(), false);
  if (op == "_Arg" || op == "_Retval" || op == "LoopCond" || op == "_HostSend" ||
      op == "_HostRecv" || op == "Assert") {
    inputs_on_host->assign(node.num_inputs(), true);
    outputs_on_host->assign(node.num_outputs(), true);
  } else if (op == "Switch" || op == "RefSwitch") {
    (*inputs_on_host)[1] = true;
  } else if (op == "Merge") {
    (*outputs_on_host)[1] = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateHostKernel(const Node& node, Device* device,
                                                           ResourceManager* resources) {
  const std::string& op = node.op();
  if (IsStateKernelOp(op)) return CreateStateKernel(node, device, resources);
  if (IsCheckpointKernelOp(op)) return CreateCheckpointKernel(node, device);
  if (IsDataFlowKernelOp(op)) return CreateDataFlowKernel(node, device);
  if (op == "_Arg") {
    ASSIGN_OR_RETURN(int64_t index, IntAttr(node, "index"));
    return std::unique_ptr<OpKernel>(new ArgKernel(index));
  }
  if (op == "_Retval") {
    ASSIGN_OR_RETURN(int64_t index, IntAttr(node, "index"));
    return std::unique_ptr<OpKernel>(new RetvalKernel(index));
  }
  if (op == "_Send" || op == "_HostSend") {
    ASSIGN_OR_RETURN(TransferAttrs attrs, ReadTransferAttrs(node));
    return std::unique_ptr<OpKernel>(new SendKernel(std::move(attrs)));
  }
  if (op == "_Recv" || op == "_HostRecv") {
    ASSIGN_OR_RETURN(TransferAttrs attrs, ReadTransferAttrs(node));
    return std::unique_ptr<OpKernel>(new RecvKernel(std::move(attrs), op == "_HostRecv"));
  }
  if (op == "Switch" || op == "RefSwitch") return std::unique_ptr<OpKernel>(new SwitchKernel());
  if (op == "Merge") return std::unique_ptr<OpKernel>(new MergeKernel());
  if (op == "Enter" || op == "Exit" || op == "NextIteration" || op == "RefEnter" ||
      op == "RefIdentity") {
    return std::unique_ptr<OpKernel>(new ForwardKernel());
  }
  if (op == "Assert") {
    ASSIGN_OR_RETURN(int64_t summarize, IntAttr(node, "summarize"));
    return std::unique_ptr<OpKernel>(new AssertKernel(summarize));
  }
  if (op == "LoopCond") return std::unique_ptr<OpKernel>(new LoopCondKernel());
  if (op == "ControlTrigger") return std::unique_ptr<OpKernel>(new NoOutputKernel());
  return absl::NotFoundError(absl::StrCat("op '", op, "' has no host kernel"));
}

}  // namespace tessera
