// The session's variables and the handle tensors that name them.
#include "host/runtime/resource_manager.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace tessera {

absl::StatusOr<Variable*> ResourceManager::LookupOrCreate(VariableKind kind,
                                                          absl::string_view device,
                                                          absl::string_view container,
                                                          absl::string_view name, DataType dtype) {
  const std::string key = absl::StrCat(kind == VariableKind::kRef ? "ref:" : "resource:", device,
                                       "\n", container, "\n", name);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = variables_.find(key);
  if (it != variables_.end()) {
    Variable* variable = it->second.get();
    if (variable->dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", name, "' on ", device, " has dtype ", DataTypeString(variable->dtype()),
          ", but a node asks for it as ", DataTypeString(dtype)));
    }
    return variable;
  }
  auto variable = std::make_unique<Variable>(kind, std::string(device), std::string(container),
                                             std::string(name), dtype);
  Variable* result = variable.get();
  variables_.emplace(key, std::move(variable));
  return result;
}

void ResourceManager::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  variables_.clear();
}

size_t ResourceManager::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return variables_.size();
}

Tensor MakeVariableHandle(Variable* variable) {
  // Resource has no flat element size, so the buffer is made by hand: one pointer.
  Allocator* allocator = HostAllocator();
  absl::StatusOr<void*> data = allocator->Allocate(sizeof(variable), kTensorAlignment);
  TESSERA_CHECK(data.ok(), "out of host memory for a resource handle");
  std::memcpy(*data, &variable, sizeof(variable));
  return Tensor(TSR_DTYPE_RESOURCE, TensorShape{},
                std::make_shared<TensorBuffer>(allocator, *data, sizeof(variable)));
}

absl::StatusOr<Variable*> VariableFromHandle(const Tensor& handle) {
  if (handle.dtype() != TSR_DTYPE_RESOURCE || handle.shape().rank() != 0 ||
      !handle.host_accessible() || handle.buffer() == nullptr ||
      handle.buffer()->size() != sizeof(Variable*)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a resource handle (a resource scalar in host memory), got ",
                     DataTypeString(handle.dtype()), " ", handle.shape().DebugString()));
  }
  Variable* variable = nullptr;
  std::memcpy(&variable, handle.data(), sizeof(variable));
  return variable;
}

}  // namespace tessera
