// Kernels the host implements for TensorFlow's checkpoint ops on every device: SaveV2, RestoreV2
// and MergeV2Checkpoints. They read and write tensor bundles (host/checkpoint/) and take their
// prefixes, names and slice specs as string tensors in host memory; the tensors saved or restored
// stay in the device's memory and are copied through the device's plugin where the host cannot
// reach it.
#ifndef TESSERA_HOST_KERNELS_CHECKPOINT_KERNELS_H_
#define TESSERA_HOST_KERNELS_CHECKPOINT_KERNELS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Device;
class Node;

bool IsCheckpointKernelOp(absl::string_view op);

absl::StatusOr<std::unique_ptr<OpKernel>> CreateCheckpointKernel(const Node& node, Device* device);

// The string inputs (prefix, tensor_names, shape_and_slices, checkpoint_prefixes,
// destination_prefix) are in host memory; SaveV2's tensors and RestoreV2's outputs are in the
// device's.
void CheckpointKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                                 std::vector<bool>* outputs_on_host);

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_CHECKPOINT_KERNELS_H_
