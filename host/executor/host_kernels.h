// Kernels the host implements for the ops it inserts into graphs: _Arg and _Retval (feeds and
// fetches through the step's call frame) and _Send and _Recv (through the step's rendezvous).
#ifndef TESSERA_HOST_EXECUTOR_HOST_KERNELS_H_
#define TESSERA_HOST_EXECUTOR_HOST_KERNELS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/executor/op_kernel.h"

namespace tessera {

class Node;
class Device;

// True for ops whose kernels the host provides on every device.
bool IsHostKernelOp(absl::string_view op);

absl::StatusOr<std::unique_ptr<OpKernel>> CreateHostKernel(const Node& node, Device* device);

}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_HOST_KERNELS_H_
