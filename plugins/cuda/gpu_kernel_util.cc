// What the GPU's SDK kernels share: their type sets, the device and status helpers, and the
// readers of host-memory index inputs and of data_format.
#include <string>
#include <vector>

#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"

namespace tessera::gpu {

const std::vector<TSR_DataType>& FloatingTypes() {
  static const auto* types =
      new std::vector<TSR_DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_HALF, TSR_DTYPE_BFLOAT16};
  return *types;
}

const std::vector<TSR_DataType>& NumberTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT, TSR_DTYPE_HALF, TSR_DTYPE_BFLOAT16, TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}

const std::vector<TSR_DataType>& ElementTypes() {
  static const auto* types =
      new std::vector<TSR_DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_HALF,  TSR_DTYPE_BFLOAT16,
                                    TSR_DTYPE_INT32, TSR_DTYPE_INT64, TSR_DTYPE_BOOL};
  return *types;
}

const std::vector<TSR_DataType>& IndexTypes() {
  static const auto* types = new std::vector<TSR_DataType>{TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}

const std::vector<TSR_DataType>& FixedSizeTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT,  TSR_DTYPE_DOUBLE,    TSR_DTYPE_HALF,      TSR_DTYPE_BFLOAT16,
      TSR_DTYPE_INT32,  TSR_DTYPE_INT64,     TSR_DTYPE_BOOL,      TSR_DTYPE_UINT8,
      TSR_DTYPE_INT8,   TSR_DTYPE_INT16,     TSR_DTYPE_UINT16,    TSR_DTYPE_UINT32,
      TSR_DTYPE_UINT64, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128};
  return *types;
}

sdk::Status UseDevice(sdk::KernelContext& ctx) {
  TSR_Device* device = ctx.device();
  if (device == nullptr) return sdk::Internal("node '", ctx.node_name(), "' has no GPU device");
  return MakeCurrent(device);
}

sdk::Status Enqueued(gpuError_t error, sdk::KernelContext& ctx) {
  return GpuStatus(error, sdk::StrCat("node '", ctx.node_name(), "'"), "kernel launch");
}

std::vector<int64_t> ReadIndexValues(const sdk::TensorView& view) {
  std::vector<int64_t> values;
  values.reserve(static_cast<size_t>(view.num_elements()));
  for (int64_t i = 0; i < view.num_elements(); ++i) {
    values.push_back(view.dtype() == TSR_DTYPE_INT64 ? view.data<int64_t>()[i]
                                                     : view.data<int32_t>()[i]);
  }
  return values;
}

bool ReadChannelsFirst(sdk::KernelConstruction& ctx) {
  std::string format = "NHWC";
  if (ctx.HasAttr("data_format")) ctx.SetStatus(ctx.GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW") {
    ctx.SetStatus(sdk::InvalidArgument("Unknown data format: ", format));
  }
  return format == "NCHW";
}

}  // namespace tessera::gpu
