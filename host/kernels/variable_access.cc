// Dereferencing and locking of variables around a node's kernel.
#include "host/kernels/variable_access.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/graph.h"
#include "host/runtime/device.h"
#include "host/runtime/resource_manager.h"

namespace tessera {
namespace {

enum class InputAccess : uint8_t {
  kNone,     // a plain value
  kRead,     // a ref edge into a plain input: the variable's current value
  kStorage,  // a ref or resource input of a plugin kernel: the variable's storage, locked
};

absl::Status UninitializedError(const Variable& variable) {
  return absl::FailedPreconditionError(
      absl::StrCat("attempting to use uninitialized value ", variable.name()));
}

class VariableAccessKernel final : public OpKernel {
 public:
  VariableAccessKernel(std::unique_ptr<OpKernel> inner, Device* device,
                       std::vector<InputAccess> inputs, std::vector<int> ref_outputs,
                       bool use_locking)
      : OpKernel(inner->traits()),
        inner_(std::move(inner)),
        device_(device),
        inputs_(std::move(inputs)),
        ref_outputs_(std::move(ref_outputs)),
        use_locking_(use_locking) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    // Variables in address order, so that two nodes locking the same ones never deadlock.
    struct Access {
      Variable* variable;
      bool exclusive;
    };
    std::vector<Access> accesses;
    // The variable behind each accessed input, resolved once.
    absl::InlinedVector<Variable*, 4> variables(inputs_.size(), nullptr);
    Tensor first_ref_handle;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (inputs_[i] == InputAccess::kNone) continue;
      ASSIGN_OR_RETURN(Variable * variable, VariableFromHandle(ctx->inputs[i]));
      variables[i] = variable;
      if (inputs_[i] == InputAccess::kStorage && !first_ref_handle.IsInitialized()) {
        first_ref_handle = ctx->inputs[i];
      }
      // A ref variable updated without use_locking is TensorFlow's lock-free ("hogwild") update;
      // a resource variable is always updated under its exclusive lock.
      const bool exclusive = inputs_[i] == InputAccess::kStorage &&
                             (use_locking_ || variable->kind() == VariableKind::kResource);
      accesses.push_back({variable, exclusive});
    }
    std::sort(accesses.begin(), accesses.end(), [](const Access& a, const Access& b) {
      return a.variable < b.variable || (a.variable == b.variable && a.exclusive > b.exclusive);
    });
    std::vector<std::unique_lock<std::shared_mutex>> exclusive_locks;
    std::vector<std::shared_lock<std::shared_mutex>> shared_locks;
    for (size_t k = 0; k < accesses.size(); ++k) {
      if (k > 0 && accesses[k].variable == accesses[k - 1].variable) continue;
      if (accesses[k].exclusive) {
        exclusive_locks.emplace_back(accesses[k].variable->mu());
      } else {
        shared_locks.emplace_back(accesses[k].variable->mu());
      }
    }
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (inputs_[i] == InputAccess::kNone) continue;
      Variable* variable = variables[i];
      if (!variable->initialized()) return UninitializedError(*variable);
      if (inputs_[i] == InputAccess::kStorage && variable->kind() == VariableKind::kResource &&
          !variable->value().RefCountIsOne()) {
        // Someone still holds a value read earlier: update a copy, so that value stays as read.
        ASSIGN_OR_RETURN(*variable->mutable_value(), CopyOnDevice(device_, variable->value()));
      }
      ctx->inputs[i] = variable->value();
    }
    RETURN_IF_ERROR(inner_->Compute(ctx));
    for (int index : ref_outputs_) ctx->outputs[index] = first_ref_handle;
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<OpKernel> inner_;
  Device* device_;
  std::vector<InputAccess> inputs_;
  std::vector<int> ref_outputs_;
  bool use_locking_;
};

}  // namespace

absl::StatusOr<Tensor> CopyOnDevice(Device* device, const Tensor& src) {
  if (device->host_memory() || src.host_accessible()) {
    Allocator* allocator = src.host_accessible() && src.buffer() != nullptr
                               ? src.buffer()->allocator()
                               : device->allocator();
    ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(allocator, src.dtype(), src.shape()));
    if (src.TotalBytes() > 0) std::memcpy(copy.data(), src.data(), src.TotalBytes());
    return copy;
  }
  // Device memory the host cannot touch: through host memory, with the plugin's copies.
  Tensor staged;
  RETURN_IF_ERROR(device->CopyToHost(src, &staged));
  Tensor copy;
  RETURN_IF_ERROR(device->CopyFromHost(staged, &copy));
  return copy;
}

absl::StatusOr<std::unique_ptr<OpKernel>> WrapForVariableAccess(const Node& node, Device* device,
                                                                bool plugin_kernel,
                                                                std::unique_ptr<OpKernel> kernel) {
  std::vector<InputAccess> inputs(node.num_inputs(), InputAccess::kNone);
  bool any = false;
  for (int i = 0; i < node.num_inputs(); ++i) {
    const DataType type = node.input_type(i);
    const Edge* edge = node.input_edge(i);
    const bool from_ref = edge != nullptr && IsRefType(edge->src->output_type(edge->src_output));
    if (plugin_kernel && (IsRefType(type) || type == TSR_DTYPE_RESOURCE)) {
      inputs[i] = InputAccess::kStorage;
    } else if (from_ref && !IsRefType(type)) {
      inputs[i] = InputAccess::kRead;
    }
    any = any || inputs[i] != InputAccess::kNone;
  }
  std::vector<int> ref_outputs;
  if (plugin_kernel) {
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (IsRefType(node.output_type(i))) ref_outputs.push_back(i);
    }
  }
  if (!any && ref_outputs.empty()) return kernel;
  if (!ref_outputs.empty() &&
      std::find(inputs.begin(), inputs.end(), InputAccess::kStorage) == inputs.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.DebugString(), " has a ref output but no ref input to forward to it"));
  }
  if (kernel->traits().is_async) {
    return absl::UnimplementedError(absl::StrCat(
        node.DebugString(), " reads a variable, which asynchronous kernels cannot do yet"));
  }
  bool use_locking = false;
  if (const tensorflow::AttrValue* attr = node.attr("use_locking"); attr != nullptr) {
    use_locking = attr->b();
  }
  return std::unique_ptr<OpKernel>(new VariableAccessKernel(
      std::move(kernel), device, std::move(inputs), std::move(ref_outputs), use_locking));
}

}  // namespace tessera
