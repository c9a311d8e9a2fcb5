// The session's shared stateful kernels.
#include "host/kernels/shared_kernels.h"

#include "absl/strings/str_cat.h"

namespace tessera {

absl::StatusOr<std::shared_ptr<OpKernel>> SharedKernels::GetOrCreate(const std::string& device_name,
                                                                     const std::string& node_name,
                                                                     const Factory& create) {
  const std::string key = absl::StrCat(device_name, "\n", node_name);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kernels_.find(key);
  if (it != kernels_.end()) return it->second;
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel = create();
  if (!kernel.ok()) return kernel.status();
  std::shared_ptr<OpKernel> shared = std::move(*kernel);
  kernels_.emplace(key, shared);
  return shared;
}

size_t SharedKernels::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kernels_.size();
}

}  // namespace tessera
