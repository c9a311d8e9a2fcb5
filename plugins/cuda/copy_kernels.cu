// The strided copy: one grid-stride kernel per element size, moving elements as opaque words.
#include "plugins/cuda/copy_kernels.h"
#include "plugins/cuda/elementwise_common.cuh"

namespace tessera::gpu {
namespace {

struct alignas(16) Word16 {
  uint64_t low;
  uint64_t high;
};

template <typename W>
__global__ void StridedCopyKernel(const W* src, W* dst, CopyPlan p, int64_t n) {
  TESSERA_GPU_GRID_LOOP(i, n) {
    int64_t rest = i;
    int64_t from = p.src_offset;
    int64_t to = p.dst_offset;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t c = rest % p.dims[d];
      rest /= p.dims[d];
      from += c * p.src_strides[d];
      to += c * p.dst_strides[d];
    }
    dst[to] = src[from];
  }
}

template <typename W>
gpuError_t LaunchWords(const void* src, void* dst, const CopyPlan& plan, int64_t n,
                       gpuStream_t stream) {
  return Launch(StridedCopyKernel<W>, BlocksFor(n), kThreadsPerBlock, stream,
                static_cast<const W*>(src), static_cast<W*>(dst), plan, n);
}

}  // namespace

gpuError_t LaunchStridedCopy(size_t element_size, const void* src, void* dst,
                             const CopyPlan& plan, gpuStream_t stream) {
  int64_t n = 1;
  for (int d = 0; d < plan.rank; ++d) n *= plan.dims[d];
  if (n == 0) return gpuSuccess;
  switch (element_size) {
    case 1:
      return LaunchWords<uint8_t>(src, dst, plan, n, stream);
    case 2:
      return LaunchWords<uint16_t>(src, dst, plan, n, stream);
    case 4:
      return LaunchWords<uint32_t>(src, dst, plan, n, stream);
    case 8:
      return LaunchWords<uint64_t>(src, dst, plan, n, stream);
    case 16:
      return LaunchWords<Word16>(src, dst, plan, n, stream);
    default:
      return gpuErrorInvalidValue;
  }
}

}  // namespace tessera::gpu
