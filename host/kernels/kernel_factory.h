// KernelFactory: picks the kernel for a node on a device type (host kernels for the ops the host
// inserts, otherwise the highest-priority plugin kernel whose type constraints the node meets)
// and instantiates it.
#ifndef TESSERA_HOST_KERNELS_KERNEL_FACTORY_H_
#define TESSERA_HOST_KERNELS_KERNEL_FACTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/abi/host_kernel_context.h"
#include "host/kernels/op_kernel.h"
#include "registry/specs.h"

namespace tessera {

class Device;
class Node;
class ResourceManager;

class KernelFactory {
 public:
  // `kernels` must outlive the factory.
  explicit KernelFactory(const std::vector<KernelSpec>& kernels);

  // True when a kernel for `node` exists on `device_type`.
  bool HasKernel(const Node& node, absl::string_view device_type) const;
  // Device types that have a kernel for the node's op at all (ignoring type constraints), sorted.
  std::vector<std::string> DeviceTypesWithKernelsFor(absl::string_view op) const;

  // The kernel spec chosen for `node` on `device_type`; NOT_FOUND explaining what was registered.
  absl::StatusOr<const KernelSpec*> FindKernel(const Node& node,
                                               absl::string_view device_type) const;

  // Which of `node`'s inputs and outputs the kernel chosen on `device_type` keeps in host memory
  // (its host-memory arguments; the host kernels' fixed ones). Meaningful on devices without host
  // memory; NOT_FOUND when no kernel matches.
  absl::Status HostMemoryArgs(const Node& node, absl::string_view device_type,
                              std::vector<bool>* inputs_on_host,
                              std::vector<bool>* outputs_on_host) const;

  // Instantiates the kernel for `node` on `device`, filling `info->output_in_host_memory`. A node
  // with ref or resource edges gets its kernel wrapped in a VariableAccessKernel; `resources`
  // holds the session's variables (may be null for graphs without variables).
  absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(
      const Node& node, Device* device, KernelNodeInfo* info,
      ResourceManager* resources = nullptr) const;

 private:
  absl::flat_hash_map<std::string, std::vector<const KernelSpec*>> by_op_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_KERNEL_FACTORY_H_
