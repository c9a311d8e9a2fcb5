// Gradients of the TensorArray ops, as TensorFlow's python/ops/tensor_array_grad.py defines them:
// each forward op's gradient works on the gradient array TensorArrayGradV3 gives for the
// gradient computation's name scope ("gradients", "gradients_1", ...): a read becomes a write
// (writes to one index add up there), a gather a scatter, a concat a split, and the other way
// round. The flow carries the order between them; handles, indices and lengths get no gradient.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "host/client/data_flow_ops.h"
#include "host/client/gradients.h"

namespace tessera {
namespace {

using Grads = std::vector<Output>;

// The name scope of the gradient computation `s` belongs to (TensorFlow's _GetGradSource reads it
// from the gradient's name): the path up to the first component that starts with "gradients".
// Every gradient function of one AddSymbolicGradients call gets the same one.
std::string GradSource(const Scope& s) {
  std::string source;
  for (absl::string_view part : absl::StrSplit(s.name_prefix(), '/')) {
    if (!source.empty()) source += "/";
    source += std::string(part);
    if (absl::StartsWith(part, "gradients")) return source;
  }
  return "gradients";
}

// The gradient array of the forward op's handle (input 0), ordered after `flow`.
ops::TensorArrayGrad GradArray(const Scope& s, const GradOp& op, const Output& flow) {
  return ops::TensorArrayGrad(s, op.inputs[0], flow, GradSource(s));
}

// Read(handle, index, flow) -> value: the value's gradient written at index.
absl::Status ReadGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::TensorArrayGrad grad(GradArray(s, op, op.inputs[2]));
  ops::TensorArrayWrite write(s, grad.grad_handle, op.inputs[1], g[0], grad.flow_out);
  *out = {Output(), Output(), write.flow_out};
  return absl::OkStatus();
}

// Write(handle, index, value, flow) -> flow: the value's gradient read back from index.
absl::Status WriteGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::TensorArrayGrad grad(GradArray(s, op, g[0]));
  ops::TensorArrayRead read(s, grad.grad_handle, op.inputs[1], grad.flow_out, op.TypeAttr("T"));
  *out = {Output(), Output(), read.value, g[0]};
  return absl::OkStatus();
}

// Gather(handle, indices, flow) -> value: scattered back to indices.
absl::Status GatherGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::TensorArrayGrad grad(GradArray(s, op, op.inputs[2]));
  ops::TensorArrayScatter scatter(s, grad.grad_handle, op.inputs[1], g[0], grad.flow_out);
  *out = {Output(), Output(), scatter.flow_out};
  return absl::OkStatus();
}

// Scatter(handle, indices, value, flow) -> flow: gathered from indices.
absl::Status ScatterGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::TensorArrayGrad grad(GradArray(s, op, g[0]));
  ops::TensorArrayGather gather(s, grad.grad_handle, op.inputs[1], grad.flow_out, op.TypeAttr("T"));
  *out = {Output(), Output(), gather.value, g[0]};
  return absl::OkStatus();
}

// Concat(handle, flow) -> (value, lengths): split back by the forward lengths.
absl::Status ConcatGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::TensorArrayGrad grad(GradArray(s, op, op.inputs[1]));
  ops::TensorArraySplit split(s, grad.grad_handle, g[0], op.outputs[1], grad.flow_out);
  *out = {Output(), split.flow_out};
  return absl::OkStatus();
}

// Split(handle, value, lengths, flow) -> flow: the gradient array concatenated.
absl::Status SplitGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::TensorArrayGrad grad(GradArray(s, op, g[0]));
  ops::TensorArrayConcat concat(s, grad.grad_handle, grad.flow_out, op.TypeAttr("T"));
  *out = {Output(), concat.value, Output(), g[0]};
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterDataFlowGradients(GradientRegistry* r) {
  RETURN_IF_ERROR(r->Register("TensorArrayReadV3", ReadGrad));
  RETURN_IF_ERROR(r->Register("TensorArrayWriteV3", WriteGrad));
  RETURN_IF_ERROR(r->Register("TensorArrayGatherV3", GatherGrad));
  RETURN_IF_ERROR(r->Register("TensorArrayScatterV3", ScatterGrad));
  RETURN_IF_ERROR(r->Register("TensorArrayConcatV3", ConcatGrad));
  RETURN_IF_ERROR(r->Register("TensorArraySplitV3", SplitGrad));
  for (const char* op :
       {"TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape", "TensorArraySizeV3",
        "TensorArrayCloseV3", "StackV2", "StackPushV2", "StackPopV2", "StackCloseV2"}) {
    RETURN_IF_ERROR(r->RegisterNoGradient(op));
  }
  return absl::OkStatus();
}

}  // namespace tessera
