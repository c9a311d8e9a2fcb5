// VariableAccessKernel: wraps the kernel of a node that touches variables. Before the kernel runs
// it reads every ref edge that feeds a plain input (TensorFlow's implicit dereference of a ref
// variable), and, for a plugin kernel, turns each ref or resource input into the variable's own
// storage, locked, so the kernel updates it in place (AssignAdd, ApplyAdam, ResourceApplyAdam...).
// After the kernel, each ref output carries the variable of the first ref input, as TensorFlow's
// Apply* and AssignAdd forward their `ref` input.
#ifndef TESSERA_HOST_KERNELS_VARIABLE_ACCESS_H_
#define TESSERA_HOST_KERNELS_VARIABLE_ACCESS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Device;
class Node;
class Tensor;

// Returns `kernel` unchanged when `node` has no ref or resource edge, otherwise wrapped.
// `plugin_kernel` says whether `kernel` is a plugin's (which sees variables as storage) or the
// host's (which gets resource handles and handles them itself).
absl::StatusOr<std::unique_ptr<OpKernel>> WrapForVariableAccess(const Node& node, Device* device,
                                                                bool plugin_kernel,
                                                                std::unique_ptr<OpKernel> kernel);

// A copy of `src` with its own buffer on `device` (same memory space as `src`).
absl::StatusOr<Tensor> CopyOnDevice(Device* device, const Tensor& src);

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_VARIABLE_ACCESS_H_
