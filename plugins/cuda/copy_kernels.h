// The strided copy (copy_kernels.cu, shared by CUDA and HIP): every data-movement op (Transpose,
// Slice, ConcatV2, Pack, Tile, Pad) is one or a few copies between two strided layouts.
#ifndef TESSERA_PLUGINS_CUDA_COPY_KERNELS_H_
#define TESSERA_PLUGINS_CUDA_COPY_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "plugins/cuda/gpu_runtime.h"

namespace tessera::gpu {

// For every coordinate c of the iteration space `dims` (row-major):
//   dst[dst_offset + sum(c[d] * dst_strides[d])] = src[src_offset + sum(c[d] * src_strides[d])]
// in elements. A stride of 0 repeats (Tile, broadcasting).
struct CopyPlan {
  static constexpr int kMaxRank = 16;  // Tile pairs each input dimension with its multiple
  int32_t rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t src_strides[kMaxRank] = {};
  int64_t dst_strides[kMaxRank] = {};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
};

// Copies elements of `element_size` bytes (1, 2, 4, 8 or 16; otherwise gpuErrorInvalidValue).
gpuError_t LaunchStridedCopy(size_t element_size, const void* src, void* dst,
                             const CopyPlan& plan, gpuStream_t stream);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_COPY_KERNELS_H_
