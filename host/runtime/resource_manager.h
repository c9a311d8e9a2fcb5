// Variables that live across the steps of one session: TensorFlow's ref variables (VariableV2)
// and resource variables (VarHandleOp), kept per device by the session's ResourceManager and
// carried on graph edges as resource handles.
#ifndef TESSERA_HOST_RUNTIME_RESOURCE_MANAGER_H_
#define TESSERA_HOST_RUNTIME_RESOURCE_MANAGER_H_

#include <memory>
#include <shared_mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/runtime/tensor.h"

namespace tessera {

// TensorFlow's two kinds of variable: a ref variable's in-place updates are seen by every tensor
// that aliases its buffer; a resource variable copies its buffer before updating it while a reader
// still holds it (copy on write), so a value once read never changes.
enum class VariableKind { kRef, kResource };

// One variable. `mu()` guards `value()` and `initialized()`: readers take it shared, writers
// exclusive. The object never moves and lives as long as its ResourceManager.
class Variable {
 public:
  Variable(VariableKind kind, std::string device, std::string container, std::string name,
           DataType dtype)
      : kind_(kind),
        device_(std::move(device)),
        container_(std::move(container)),
        name_(std::move(name)),
        dtype_(dtype) {}
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

  VariableKind kind() const { return kind_; }
  const std::string& device() const { return device_; }
  const std::string& container() const { return container_; }
  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }

  std::shared_mutex& mu() const { return mu_; }
  // Guarded by mu().
  bool initialized() const { return value_.IsInitialized(); }
  const Tensor& value() const { return value_; }
  Tensor* mutable_value() { return &value_; }

 private:
  const VariableKind kind_;
  const std::string device_;
  const std::string container_;
  const std::string name_;
  const DataType dtype_;
  mutable std::shared_mutex mu_;
  Tensor value_;
};

// The variables of one session, by (kind, device, container, name). Thread-safe.
class ResourceManager {
 public:
  ResourceManager() = default;
  ResourceManager(const ResourceManager&) = delete;
  ResourceManager& operator=(const ResourceManager&) = delete;

  // The variable, created uninitialized on first use. INVALID_ARGUMENT when it exists with another
  // dtype.
  absl::StatusOr<Variable*> LookupOrCreate(VariableKind kind, absl::string_view device,
                                           absl::string_view container, absl::string_view name,
                                           DataType dtype);
  // Drops every variable (TensorFlow's Session::Reset of all containers). Nothing may run.
  void Clear();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<Variable>> variables_;
};

// A resource handle in a graph: a host-memory scalar of dtype resource holding the variable's
// address. Ref edges (VariableV2's output) and resource edges (VarHandleOp's) both carry one.
Tensor MakeVariableHandle(Variable* variable);
// The variable a handle tensor names; INVALID_ARGUMENT when `handle` is not a resource scalar.
absl::StatusOr<Variable*> VariableFromHandle(const Tensor& handle);

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_RESOURCE_MANAGER_H_
