// OpRegistry: the op definitions (standard TensorFlow ops and plugin-defined ops) and their
// shape functions, looked up by op name.
#ifndef TESSERA_HOST_OPS_OP_REGISTRY_H_
#define TESSERA_HOST_OPS_OP_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "host/framework/proto/op_def.pb.h"
#include "host/ops/shape_inference.h"

namespace tessera {

struct OpRegistration {
  tensorflow::OpDef op_def;
  // May be empty: every output shape is then unknown.
  ShapeFn shape_fn;
  // TSR_KernelFlag bits suggested for kernels of this op (e.g. cheap/expensive); 0 for none.
  uint32_t kernel_flags_hint = 0;
  // "standard" or "plugin 'name'".
  std::string origin = "standard";
};

// Registration happens at start-up (standard ops, then plugins); lookups may run concurrently
// with each other and with registration. Registrations are never removed, so returned pointers
// stay valid for the registry's lifetime.
class OpRegistry {
 public:
  OpRegistry() = default;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // A registry holding TensorFlow's standard ops (see standard_ops.h).
  static std::unique_ptr<OpRegistry> CreateStandard();

  // Validates the definition (ValidateOpDef) and adds it. ALREADY_EXISTS when the name is taken:
  // "op 'Foo' (from plugin 'x') is already registered by standard".
  absl::Status Register(OpRegistration registration);

  // The registration, or nullptr.
  const OpRegistration* Find(absl::string_view name) const;
  // NOT_FOUND "op 'Foo' is not registered (no standard definition and no plugin defines it)".
  absl::StatusOr<const OpRegistration*> LookUp(absl::string_view op) const;

  // Sorted op names.
  std::vector<std::string> ListOpNames() const;
  int size() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<const OpRegistration>> ops_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_OP_REGISTRY_H_
