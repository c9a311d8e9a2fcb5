// _Arg, _Retval, _Send and _Recv.
#include "host/executor/host_kernels.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "host/graph/graph.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/device.h"
#include "registry/status_macros.h"

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
      return absl::InternalError(absl::StrCat("argument ", index_, " of node '", ctx->info->name,
                                              "' was not passed"));
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
      return absl::InternalError(absl::StrCat("return value ", index_, " of node '",
                                              ctx->info->name, "' has no slot"));
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

std::string KeyOf(const TransferAttrs& a) {
  return CreateRendezvousKey(a.send_device, a.send_device_incarnation, a.recv_device,
                             a.tensor_name, FrameAndIter{});
}

class SendKernel final : public OpKernel {
 public:
  explicit SendKernel(TransferAttrs attrs)
      : OpKernel({false, true, false}), key_(KeyOf(attrs)) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    if (ctx->step->rendezvous == nullptr) {
      return absl::InternalError(absl::StrCat("node '", ctx->info->name, "' has no rendezvous"));
    }
    return ctx->step->rendezvous->Send(key_, ctx->inputs[0], ctx->is_input_dead);
  }

 private:
  std::string key_;
};

class RecvKernel final : public OpKernel {
 public:
  explicit RecvKernel(TransferAttrs attrs)
      : OpKernel({true, true, false}), key_(KeyOf(attrs)) {}
  void ComputeAsync(TSR_KernelContext* ctx, std::function<void(absl::Status)> done) override {
    if (ctx->step->rendezvous == nullptr) {
      done(absl::InternalError(absl::StrCat("node '", ctx->info->name, "' has no rendezvous")));
      return;
    }
    ctx->step->rendezvous->RecvAsync(
        key_, [ctx, done = std::move(done)](const absl::Status& s, const Tensor& value,
                                            bool is_dead) {
          if (s.ok() && !is_dead) ctx->outputs[0] = value;
          done(s);
        });
  }

 private:
  std::string key_;
};

}  // namespace

bool IsHostKernelOp(absl::string_view op) {
  return op == "_Arg" || op == "_Retval" || op == "_Send" || op == "_Recv" || op == "_HostSend" ||
         op == "_HostRecv";
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateHostKernel(const Node& node, Device* device) {
  const std::string& op = node.op();
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
    return std::unique_ptr<OpKernel>(new RecvKernel(std::move(attrs)));
  }
  return absl::NotFoundError(absl::StrCat("op '", op, "' has no host kernel"));
}

}  // namespace tessera
