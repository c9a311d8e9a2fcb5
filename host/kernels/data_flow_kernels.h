// Kernels the host implements for TensorFlow's TensorArray and Stack ops on every device
// (TensorArrayV3, TensorArrayWriteV3, ...ReadV3, ...GatherV3, ...ScatterV3, ...ConcatV3,
// ...SplitV3, ...SizeV3, ...CloseV3, ...GradV3, TensorArrayGradWithShape, StackV2, StackPushV2,
// StackPopV2, StackCloseV2). Like the variable kernels they move whole tensors by reference; the
// resources are those of tensor_array.h.
#ifndef TESSERA_HOST_KERNELS_DATA_FLOW_KERNELS_H_
#define TESSERA_HOST_KERNELS_DATA_FLOW_KERNELS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Device;
class Node;

bool IsDataFlowKernelOp(absl::string_view op);

absl::StatusOr<std::unique_ptr<OpKernel>> CreateDataFlowKernel(const Node& node, Device* device);

// Handles, sizes, indices, lengths and flows live in host memory; element values in the device's.
void DataFlowKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                               std::vector<bool>* outputs_on_host);

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_DATA_FLOW_KERNELS_H_
