// Kernels the host implements on every device: _Arg and _Retval (feeds and fetches through the
// step's call frame), _Send and _Recv (through the step's rendezvous, copying between memory
// spaces through the devices' plugins) and the control-flow primitives (Switch, Merge, Enter,
// Exit, NextIteration, LoopCond, ControlTrigger and the ref forms RefSwitch, RefEnter and
// RefIdentity), which only move tensors, Assert, the variable kernels
// of state_kernels.h, the checkpoint kernels of checkpoint_kernels.h and the TensorArray and Stack
// kernels of data_flow_kernels.h.
#ifndef TESSERA_HOST_KERNELS_HOST_KERNELS_H_
#define TESSERA_HOST_KERNELS_HOST_KERNELS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Node;
class Device;
class ResourceManager;

// True for ops whose kernels the host provides on every device.
bool IsHostKernelOp(absl::string_view op);

// `resources` holds the session's variables (VariableV2, VarHandleOp...); may be null for graphs
// without them.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateHostKernel(const Node& node, Device* device,
                                                           ResourceManager* resources);

// Which inputs and outputs of a host-kernel node live in host memory on a device without host
// memory (Switch's predicate, LoopCond, Merge's value_index, _HostSend/_HostRecv, _Arg/_Retval).
absl::Status HostKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                                   std::vector<bool>* outputs_on_host);

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_HOST_KERNELS_H_
