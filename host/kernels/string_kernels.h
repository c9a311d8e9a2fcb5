// String tensors in the executor. They live in host memory only and the C ABI has no layout for
// them, so no plugin kernel ever sees one: the host runs Const, Identity, Placeholder and
// PlaceholderWithDefault of strings itself on every device (their inputs and outputs are host
// memory, also on a device without it), moves strings through the transfer and control-flow
// kernels like any tensor, and refuses every other node with a string input or output. A string
// sent into the device memory of a device without host memory is INVALID_ARGUMENT.
#ifndef TESSERA_HOST_KERNELS_STRING_KERNELS_H_
#define TESSERA_HOST_KERNELS_STRING_KERNELS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Device;
class Node;

// True when a node's inputs or outputs include a string (or string_ref) tensor.
bool HasStringEdge(const Node& node);

// True for Const, Identity, Placeholder and PlaceholderWithDefault whose type attr (dtype or T)
// is string, for the string ops of host/kernels/string_op_kernels.h, and for Identity of a resource or variant handle and IdentityN with a string,
// resource or variant among its types (which inlined function calls and lowered loops make):
// the host's kernels run them on every device type, forwarding each input to its output.
bool IsStringKernelNode(const Node& node);

// The kernel of an IsStringKernelNode node. INVALID_ARGUMENT for a Const whose value does not
// parse.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateStringKernel(const Node& node);

// Every input and output of a string kernel is in host memory.
void StringKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                             std::vector<bool>* outputs_on_host);

// For a node with string edges that no string kernel runs: OK for the host kernels that only move
// tensors (transfers, control flow, _Arg and _Retval) and for the checkpoint ops; INVALID_ARGUMENT
// naming the node for everything else (plugin kernels never take strings; the variable kernels
// copy flat bytes).
absl::Status CheckStringEdgesSupported(const Node& node);

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_STRING_KERNELS_H_
