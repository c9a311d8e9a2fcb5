// The shared tiled matrix-product kernel (gemm_kernels.cu, one source for CUDA and HIP): what the
// HIP plugin multiplies with, since Debian 12 has neither hipBLAS nor rocBLAS. The CUDA plugin
// uses cuBLAS (gemm_cublas.cc).
#ifndef TESSERA_PLUGINS_CUDA_GEMM_KERNELS_H_
#define TESSERA_PLUGINS_CUDA_GEMM_KERNELS_H_

#include <cstdint>

#include "plugins/cuda/elementwise_kernels.h"
#include "plugins/cuda/gpu_runtime.h"

namespace tessera::gpu {

// out[b] = op(x[b]) op(y[b]) for b in [0, batch), row-major: x[b] at x + b * x_stride elements (0:
// the same matrix for every b), op() transposes when asked; out[b] is m x n, dense.
struct GemmProduct {
  bool transpose_x = false;
  bool transpose_y = false;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;       // > 0
  int64_t x_cols = 0;  // row lengths of x and y as stored
  int64_t y_cols = 0;
  int64_t x_stride = 0;
  int64_t y_stride = 0;
  int64_t batch = 1;
};

// Enqueues the product with 16 x 16 tiles in shared memory, accumulating in float (kFloat, kHalf,
// kBFloat16; gpuErrorInvalidValue for other types).
gpuError_t LaunchTiledGemm(ElementType type, const GemmProduct& product, const void* x,
                           const void* y, void* out, gpuStream_t stream);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_GEMM_KERNELS_H_
