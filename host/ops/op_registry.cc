// OpRegistry: registration with validation, lookups under a reader lock.
#include "host/ops/op_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/op_def_util.h"
#include "host/ops/standard_ops.h"

namespace tessera {

std::unique_ptr<OpRegistry> OpRegistry::CreateStandard() {
  auto registry = std::make_unique<OpRegistry>();
  absl::Status status = RegisterStandardOps(registry.get());
  TESSERA_CHECK(status.ok(), status.ToString());
  return registry;
}

absl::Status OpRegistry::Register(OpRegistration registration) {
  absl::Status valid = ValidateOpDef(registration.op_def);
  if (!valid.ok()) {
    return absl::Status(valid.code(),
                        absl::StrCat(valid.message(), " (from ", registration.origin, ")"));
  }
  const std::string name = registration.op_def.name();
  absl::MutexLock lock(&mu_);
  auto it = ops_.find(name);
  if (it != ops_.end()) {
    return absl::AlreadyExistsError(absl::StrCat("op '", name, "' (from ", registration.origin,
                                                 ") is already registered by ",
                                                 it->second->origin));
  }
  ops_.emplace(name, std::make_unique<const OpRegistration>(std::move(registration)));
  return absl::OkStatus();
}

const OpRegistration* OpRegistry::Find(absl::string_view name) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

absl::StatusOr<const OpRegistration*> OpRegistry::LookUp(absl::string_view op) const {
  const OpRegistration* registration = Find(op);
  if (registration == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "op '", op, "' is not registered (no standard definition and no plugin defines it)"));
  }
  return registration;
}

std::vector<std::string> OpRegistry::ListOpNames() const {
  std::vector<std::string> names;
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& entry : ops_) names.push_back(entry.first);
  }
  std::sort(names.begin(), names.end());
  return names;
}

int OpRegistry::size() const {
  absl::ReaderMutexLock lock(&mu_);
  return static_cast<int>(ops_.size());
}

}  // namespace tessera
