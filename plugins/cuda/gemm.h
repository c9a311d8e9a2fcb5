// One matrix product as the MatMul kernels describe it (gpu_matmul.cc), and the function that
// enqueues it: cuBLAS in the CUDA plugin (gemm_cublas.cc), the shared tiled kernel in the HIP
// plugin (gemm_tiled.cc; hipBLAS and rocBLAS are not in Debian 12).
#ifndef TESSERA_PLUGINS_CUDA_GEMM_H_
#define TESSERA_PLUGINS_CUDA_GEMM_H_

#include "plugins/cuda/gemm_kernels.h"
#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/kernel_context.h"
#include "tessera/sdk/status.h"

namespace tessera::gpu {

// Enqueues the product on the kernel's stream (float, half or bfloat16; half and bfloat16
// accumulate in float).
sdk::Status Gemm(sdk::KernelContext& ctx, TSR_DataType dtype, const GemmProduct& product,
                 const void* x, const void* y, void* out);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_GEMM_H_
