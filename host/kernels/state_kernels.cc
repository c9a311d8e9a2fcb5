// VariableV2, Assign, IsVariableInitialized, VarHandleOp, ReadVariableOp, AssignVariableOp and
// VarIsInitializedOp.
#include "host/kernels/state_kernels.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/graph.h"
#include "host/kernels/variable_access.h"
#include "host/runtime/device.h"
#include "host/runtime/resource_manager.h"

namespace tessera {
namespace {

std::string StringAttrOr(const Node& node, absl::string_view name, std::string fallback) {
  const tensorflow::AttrValue* value = node.attr(name);
  if (value == nullptr || value->s().empty()) return fallback;
  return value->s();
}

bool BoolAttrOr(const Node& node, absl::string_view name, bool fallback) {
  const tensorflow::AttrValue* value = node.attr(name);
  return value == nullptr ? fallback : value->b();
}

absl::StatusOr<DataType> TypeAttr(const Node& node, absl::string_view name) {
  const tensorflow::AttrValue* value = node.attr(name);
  if (value == nullptr || value->value_case() != tensorflow::AttrValue::kType) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.DebugString(), " needs a type attr '", name, "'"));
  }
  return static_cast<DataType>(value->type());
}

// Puts `value` into `variable` (exclusive lock held): into the variable's buffer when the shapes
// match and either `keep_aliases` (a ref variable: tensors that alias the buffer see the new
// value) or nothing else holds that buffer; else by taking `value`'s buffer when nothing else
// holds it; else into a fresh copy.
absl::Status StoreValue(Device* device, Variable* variable, Tensor* value, bool keep_aliases) {
  Tensor* current = variable->mutable_value();
  const bool same_shape = current->IsInitialized() && current->shape() == value->shape();
  if (same_shape && current->host_accessible() && value->host_accessible() &&
      (keep_aliases || current->RefCountIsOne())) {
    // In place: every tensor that aliases a ref variable's buffer sees the new value, as in
    // TensorFlow.
    if (value->TotalBytes() > 0 && !current->SharesBufferWith(*value)) {
      std::memcpy(current->data(), value->data(), value->TotalBytes());
    }
    return absl::OkStatus();
  }
  if (value->RefCountIsOne()) {
    *current = std::move(*value);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(*current, CopyOnDevice(device, *value));
  return absl::OkStatus();
}

// VariableV2: finds or creates the ref variable and outputs its handle.
class VariableV2Kernel final : public OpKernel {
 public:
  VariableV2Kernel(ResourceManager* resources, Device* device, std::string container,
                   std::string name, DataType dtype)
      : OpKernel({false, true, false}),
        resources_(resources),
        device_(device),
        container_(std::move(container)),
        name_(std::move(name)),
        dtype_(dtype) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(
        Variable * variable,
        resources_->LookupOrCreate(VariableKind::kRef, device_->name(), container_, name_, dtype_));
    ctx->outputs[0] = MakeVariableHandle(variable);
    return absl::OkStatus();
  }

 private:
  ResourceManager* resources_;
  Device* device_;
  std::string container_;
  std::string name_;
  DataType dtype_;
};

// VarHandleOp: the resource variable's handle (the variable exists, uninitialized, until assigned).
class VarHandleKernel final : public OpKernel {
 public:
  VarHandleKernel(ResourceManager* resources, Device* device, std::string container,
                  std::string name, DataType dtype)
      : OpKernel({false, true, false}),
        resources_(resources),
        device_(device),
        container_(std::move(container)),
        name_(std::move(name)),
        dtype_(dtype) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(Variable * variable,
                     resources_->LookupOrCreate(VariableKind::kResource, device_->name(),
                                                container_, name_, dtype_));
    ctx->outputs[0] = MakeVariableHandle(variable);
    return absl::OkStatus();
  }

 private:
  ResourceManager* resources_;
  Device* device_;
  std::string container_;
  std::string name_;
  DataType dtype_;
};

// Assign(ref, value): TensorFlow's validate_shape rule, then the value into the variable; outputs
// the ref.
class AssignKernel final : public OpKernel {
 public:
  AssignKernel(Device* device, bool validate_shape)
      : OpKernel({false, false, false}), device_(device), validate_shape_(validate_shape) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(Variable * variable, VariableFromHandle(ctx->inputs[0]));
    Tensor& value = ctx->inputs[1];
    {
      std::unique_lock<std::shared_mutex> lock(variable->mu());
      if (validate_shape_ && variable->initialized() &&
          variable->value().shape() != value.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Assign requires shapes of both tensors to match. lhs shape= ",
            variable->value().shape().DebugString(), " rhs shape= ", value.shape().DebugString()));
      }
      RETURN_IF_ERROR(StoreValue(device_, variable, &value, /*keep_aliases=*/true));
    }
    ctx->outputs[0] = ctx->inputs[0];
    return absl::OkStatus();
  }

 private:
  Device* device_;
  bool validate_shape_;
};

// AssignVariableOp(resource, value).
class AssignVariableKernel final : public OpKernel {
 public:
  AssignVariableKernel(Device* device, DataType dtype, bool validate_shape)
      : OpKernel({false, false, false}),
        device_(device),
        dtype_(dtype),
        validate_shape_(validate_shape) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(Variable * variable, VariableFromHandle(ctx->inputs[0]));
    Tensor& value = ctx->inputs[1];
    if (variable->dtype() != dtype_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Trying to assign variable with wrong dtype. Expected ",
                       DataTypeString(variable->dtype()), " got ", DataTypeString(dtype_)));
    }
    std::unique_lock<std::shared_mutex> lock(variable->mu());
    if (validate_shape_ && variable->initialized() && variable->value().shape() != value.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Trying to assign to variable with tensor with wrong shape. Expected ",
          variable->value().shape().DebugString(), " got ", value.shape().DebugString()));
    }
    return StoreValue(device_, variable, &value, /*keep_aliases=*/false);
  }

 private:
  Device* device_;
  DataType dtype_;
  bool validate_shape_;
};

// ReadVariableOp(resource): the current value, sharing its buffer (a later update copies first).
class ReadVariableKernel final : public OpKernel {
 public:
  explicit ReadVariableKernel(DataType dtype) : OpKernel({false, true, false}), dtype_(dtype) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(Variable * variable, VariableFromHandle(ctx->inputs[0]));
    if (variable->dtype() != dtype_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Trying to read variable with wrong dtype. Expected ",
                       DataTypeString(variable->dtype()), " got ", DataTypeString(dtype_)));
    }
    std::shared_lock<std::shared_mutex> lock(variable->mu());
    if (!variable->initialized()) {
      return absl::FailedPreconditionError(
          absl::StrCat("could not find variable ", variable->name(),
                       ": it has not been initialized (run its initializer or restore it first)"));
    }
    ctx->outputs[0] = variable->value();
    return absl::OkStatus();
  }

 private:
  DataType dtype_;
};

// IsVariableInitialized(ref) and VarIsInitializedOp(resource): a host-memory bool.
class IsInitializedKernel final : public OpKernel {
 public:
  IsInitializedKernel() : OpKernel({false, true, false}) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(Variable * variable, VariableFromHandle(ctx->inputs[0]));
    std::shared_lock<std::shared_mutex> lock(variable->mu());
    ctx->outputs[0] = Tensor::Scalar<bool>(variable->initialized());
    return absl::OkStatus();
  }
};

// DisableCopyOnRead.
class NoOpKernel final : public OpKernel {
 public:
  NoOpKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override { return absl::OkStatus(); }
};

}  // namespace

bool IsStateKernelOp(absl::string_view op) {
  return op == "VariableV2" || op == "Variable" || op == "Assign" ||
         op == "IsVariableInitialized" || op == "VarHandleOp" || op == "ReadVariableOp" ||
         op == "AssignVariableOp" || op == "VarIsInitializedOp" || op == "DisableCopyOnRead";
}

void StateKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                            std::vector<bool>* outputs_on_host) {
  inputs_on_host->assign(node.num_inputs(), false);
  outputs_on_host->assign(node.num_outputs(), false);
  if (node.op() == "IsVariableInitialized" || node.op() == "VarIsInitializedOp") {
    (*outputs_on_host)[0] = true;
  }
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateStateKernel(const Node& node, Device* device,
                                                            ResourceManager* resources) {
  const std::string& op = node.op();
  const bool ref_variable = op == "VariableV2" || op == "Variable";
  if (resources == nullptr && (ref_variable || op == "VarHandleOp")) {
    return absl::FailedPreconditionError(
        absl::StrCat(node.DebugString(), " needs a session's variables; this executor has none"));
  }
  if (ref_variable || op == "VarHandleOp") {
    ASSIGN_OR_RETURN(DataType dtype, TypeAttr(node, "dtype"));
    std::string container = StringAttrOr(node, "container", "");
    std::string name = StringAttrOr(node, "shared_name", node.name());
    if (ref_variable) {
      return std::unique_ptr<OpKernel>(
          new VariableV2Kernel(resources, device, std::move(container), std::move(name), dtype));
    }
    return std::unique_ptr<OpKernel>(
        new VarHandleKernel(resources, device, std::move(container), std::move(name), dtype));
  }
  if (op == "Assign") {
    return std::unique_ptr<OpKernel>(
        new AssignKernel(device, BoolAttrOr(node, "validate_shape", true)));
  }
  if (op == "AssignVariableOp") {
    ASSIGN_OR_RETURN(DataType dtype, TypeAttr(node, "dtype"));
    return std::unique_ptr<OpKernel>(
        new AssignVariableKernel(device, dtype, BoolAttrOr(node, "validate_shape", false)));
  }
  if (op == "ReadVariableOp") {
    ASSIGN_OR_RETURN(DataType dtype, TypeAttr(node, "dtype"));
    return std::unique_ptr<OpKernel>(new ReadVariableKernel(dtype));
  }
  if (op == "IsVariableInitialized" || op == "VarIsInitializedOp") {
    return std::unique_ptr<OpKernel>(new IsInitializedKernel());
  }
  if (op == "DisableCopyOnRead") {
    // Reading a variable never copies it here: there is nothing to disable.
    return std::unique_ptr<OpKernel>(new NoOpKernel());
  }
  return absl::NotFoundError(absl::StrCat("op '", op, "' has no state kernel"));
}

}  // namespace tessera
