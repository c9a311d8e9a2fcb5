// SharedKernels: the kernels of a session's stateful nodes, shared by every executor the session
// builds (TensorFlow's OpSegment). A random op keeps one generator however many feed/fetch
// signatures run it, as in TensorFlow, instead of restarting its stream in each.
#ifndef TESSERA_HOST_KERNELS_SHARED_KERNELS_H_
#define TESSERA_HOST_KERNELS_SHARED_KERNELS_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class SharedKernels {
 public:
  using Factory = std::function<absl::StatusOr<std::unique_ptr<OpKernel>>()>;

  // The kernel of node `node_name` on `device_name`, made by `create` the first time. A failed
  // creation is not remembered. Thread-safe.
  absl::StatusOr<std::shared_ptr<OpKernel>> GetOrCreate(const std::string& device_name,
                                                        const std::string& node_name,
                                                        const Factory& create);
  size_t size() const;

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<OpKernel>> kernels_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_SHARED_KERNELS_H_
