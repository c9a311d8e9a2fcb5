// Gemm through the shared tiled kernel (gemm_kernels.cu): the HIP plugin's matrix product.
#include "plugins/cuda/gemm.h"
#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"

namespace tessera::gpu {

sdk::Status Gemm(sdk::KernelContext& ctx, TSR_DataType dtype, const GemmProduct& product,
                 const void* x, const void* y, void* out) {
  TSR_Device* device = ctx.device();
  if (device == nullptr) return sdk::Internal("node '", ctx.node_name(), "' has no GPU device");
  TESSERA_SDK_RETURN_IF_ERROR(MakeCurrent(device));
  ElementType type;
  TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(dtype, "the matrices", &type));
  return GpuStatus(LaunchTiledGemm(type, product, x, y, out, NativeStream(ctx.stream())),
                   sdk::StrCat("node '", ctx.node_name(), "'"), "tiled matrix product launch");
}

}  // namespace tessera::gpu
