// Gemm through the shared tiled kernel (gemm_kernels.cu): the HIP plugin's matrix product.
#include "plugins/cuda/gemm.h"
#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"

namespace tessera::gpu {

sdk::Status Gemm(sdk::KernelContext& ctx, TSR_DataType dtype, const GemmProduct& product,
                 const void* x, const void* y, void* out) {
  TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
  ElementType type;
  TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(dtype, "the matrices", &type));
  return Enqueued(LaunchTiledGemm(type, product, x, y, out, NativeStream(ctx.stream())), ctx);
}

}  // namespace tessera::gpu
