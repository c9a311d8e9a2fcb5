// Const, Identity, Placeholder and PlaceholderWithDefault of strings, and the rule that keeps
// strings away from every other kernel.
#include "host/kernels/string_kernels.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"
#include "host/graph/graph.h"
#include "host/kernels/checkpoint_kernels.h"
#include "host/kernels/string_op_kernels.h"

namespace tessera {
namespace {

constexpr char kStringOps[] =
    "Const, Identity, Placeholder, PlaceholderWithDefault, Select, Pack, StringJoin, "
    "ShardedFilename, ShardedFilespec and StaticRegexFullMatch";

bool TypeAttrIsString(const Node& node, absl::string_view name) {
  const tensorflow::AttrValue* value = node.attr(name);
  return value != nullptr && value->value_case() == tensorflow::AttrValue::kType &&
         value->type() == tensorflow::DT_STRING;
}

// Types no plugin kernel takes, which Identity and IdentityN forward on the host.
bool IsHostOnlyType(int type) {
  return type == tensorflow::DT_STRING || type == tensorflow::DT_RESOURCE ||
         type == tensorflow::DT_VARIANT;
}

// Identity of a string, resource or variant, or IdentityN with one among its types.
bool IsHostForward(const Node& node) {
  const tensorflow::AttrValue* value = node.attr("T");
  if (value == nullptr) return false;
  if (node.op() == "Identity") {
    return value->value_case() == tensorflow::AttrValue::kType && IsHostOnlyType(value->type());
  }
  if (node.op() != "IdentityN" || value->value_case() != tensorflow::AttrValue::kList) return false;
  for (int type : value->list().type()) {
    if (IsHostOnlyType(type)) return true;
  }
  return false;
}

// Computed once per executor (constant outputs); the executor marks the buffer immutable, so a
// fetched value is copied before the client sees it.
class StringConstKernel final : public OpKernel {
 public:
  explicit StringConstKernel(Tensor value) : OpKernel({false, true, true}), value_(value) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ctx->outputs[0] = value_;
    return absl::OkStatus();
  }

 private:
  Tensor value_;
};

// Identity, IdentityN and PlaceholderWithDefault: each output is its input.
class StringForwardKernel final : public OpKernel {
 public:
  StringForwardKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs; ++i) ctx->outputs[i] = std::move(ctx->inputs[i]);
    return absl::OkStatus();
  }
};

// A fed placeholder never runs; one that runs was not fed (TensorFlow's message).
class StringPlaceholderKernel final : public OpKernel {
 public:
  explicit StringPlaceholderKernel(std::string message)
      : OpKernel({false, true, false}), message_(std::move(message)) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    return absl::InvalidArgumentError(message_);
  }

 private:
  std::string message_;
};

std::string PlaceholderMessage(const Node& node) {
  std::string message = absl::StrCat("You must feed a value for placeholder tensor '", node.name(),
                                     "' with dtype string");
  const tensorflow::AttrValue* shape = node.attr("shape");
  if (shape != nullptr && shape->has_shape() && !shape->shape().unknown_rank() &&
      shape->shape().dim_size() > 0) {
    std::vector<std::string> dims;
    for (const auto& dim : shape->shape().dim()) {
      dims.push_back(dim.size() < 0 ? "?" : std::to_string(dim.size()));
    }
    absl::StrAppend(&message, " and shape [", absl::StrJoin(dims, ","), "]");
  }
  return message;
}

absl::StatusOr<Tensor> ConstValue(const Node& node) {
  // Import checks that `value` is a tensor of the node's dtype (the Const shape function).
  const tensorflow::AttrValue* value = node.attr("value");
  absl::StatusOr<Tensor> tensor =
      TensorFromProto(value == nullptr ? tensorflow::TensorProto() : value->tensor());
  if (!tensor.ok()) {
    return WithContext(tensor.status(), absl::StrCat("value of Const node '", node.name(), "'"));
  }
  return tensor;
}

}  // namespace

bool HasStringEdge(const Node& node) {
  for (DataType t : node.input_types()) {
    if (BaseType(t) == TSR_DTYPE_STRING) return true;
  }
  for (DataType t : node.output_types()) {
    if (BaseType(t) == TSR_DTYPE_STRING) return true;
  }
  return false;
}

bool IsStringKernelNode(const Node& node) {
  const std::string& op = node.op();
  if (op == "Const" || op == "Placeholder" || op == "PlaceholderWithDefault") {
    return TypeAttrIsString(node, "dtype");
  }
  return IsHostForward(node) || IsStringOpNode(node);
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateStringKernel(const Node& node) {
  const std::string& op = node.op();
  if (IsStringOpNode(node)) return CreateStringOpKernel(node);
  if (op == "Const") {
    ASSIGN_OR_RETURN(Tensor value, ConstValue(node));
    return std::unique_ptr<OpKernel>(new StringConstKernel(std::move(value)));
  }
  if (op == "Placeholder") {
    return std::unique_ptr<OpKernel>(new StringPlaceholderKernel(PlaceholderMessage(node)));
  }
  return std::unique_ptr<OpKernel>(new StringForwardKernel());
}

void StringKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                             std::vector<bool>* outputs_on_host) {
  if (node.op() == "IdentityN") {
    // Only the strings and handles are host memory; the other tensors are forwarded where they
    // are, with no copy through the host.
    inputs_on_host->clear();
    outputs_on_host->clear();
    for (DataType type : node.input_types()) {
      inputs_on_host->push_back(IsHostOnlyType(BaseType(type)));
    }
    for (DataType type : node.output_types()) {
      outputs_on_host->push_back(IsHostOnlyType(BaseType(type)));
    }
    return;
  }
  inputs_on_host->assign(node.num_inputs(), true);
  outputs_on_host->assign(node.num_outputs(), true);
}

absl::Status CheckStringEdgesSupported(const Node& node) {
  static const char* const kMovers[] = {
      "_Arg",  "_Retval", "_Send", "_Recv",         "_HostSend",      "_HostRecv", "Switch",
      "Merge", "Enter",   "Exit",  "NextIteration", "ControlTrigger", "Assert"};
  const std::string& op = node.op();
  if (IsStringKernelNode(node) || IsCheckpointKernelOp(op)) return absl::OkStatus();
  for (const char* mover : kMovers) {
    if (op == mover) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "node '", node.name(), "' (", op, ") takes or makes string tensors, which no kernel of ", op,
      " handles: strings live in host memory only, where the host runs ", kStringOps,
      " of strings, moves them between devices and through control flow, prints them in Assert, "
      "and saves and restores them (SaveV2, RestoreV2)"));
}

}  // namespace tessera
