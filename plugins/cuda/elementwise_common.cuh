// Device-side pieces the element-wise kernel files share: storage-to-math conversions (half and
// bfloat16 compute in float), wrapping integer arithmetic, launch shapes and the type dispatch.
#ifndef TESSERA_PLUGINS_CUDA_ELEMENTWISE_COMMON_CUH_
#define TESSERA_PLUGINS_CUDA_ELEMENTWISE_COMMON_CUH_

#include <cstdint>
#include <type_traits>
#include <utility>

#include "plugins/cuda/elementwise_kernels.h"
#include "plugins/cuda/gpu_runtime.h"

namespace tessera::gpu {

// Storage type T computes in Traits<T>::Math.
template <typename T>
struct Traits {
  using Math = T;
  __device__ static Math Load(T v) { return v; }
  __device__ static T Store(Math v) { return v; }
};
template <>
struct Traits<__half> {
  using Math = float;
  __device__ static float Load(__half v) { return __half2float(v); }
  __device__ static __half Store(float v) { return __float2half_rn(v); }
};
template <>
struct Traits<gpu_bfloat16> {
  using Math = float;
  __device__ static float Load(gpu_bfloat16 v) { return static_cast<float>(v); }
  __device__ static gpu_bfloat16 Store(float v) { return gpu_bfloat16(v); }
};

// Integer +, - and * wrap (two's complement) instead of overflowing.
template <typename M, typename F>
__device__ inline M Wrapping(M a, M b, F f) {
  if constexpr (std::is_integral_v<M>) {
    using U = std::make_unsigned_t<M>;
    return static_cast<M>(f(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return f(a, b);
  }
}

#if defined(TESSERA_GPU_EMULATE)
// Few host threads per launch, and a grid too small for the data so that the grid-stride loops
// run more than once.
constexpr int kThreadsPerBlock = 32;
constexpr int64_t kMaxBlocks = 4;
#else
constexpr int kThreadsPerBlock = 256;
constexpr int64_t kMaxBlocks = 65535;
#endif

inline unsigned BlocksFor(int64_t n) {
  const int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

#define TESSERA_GPU_GRID_LOOP(i, n)                                                      \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// The offset of element `index` (row-major over `dims`) in a tensor with the given strides.
__device__ inline int64_t StridedOffset(int64_t index, int rank, const int64_t* dims,
                                        const int64_t* strides) {
  int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    offset += (index % dims[d]) * strides[d];
    index /= dims[d];
  }
  return offset;
}

// Every thread's `value` combined across the block (blockDim.x a power of two); every thread gets
// the result. `scratch` is blockDim.x elements of shared memory, free again on return. All the
// block's threads must call it.
template <typename A, typename F>
__device__ A BlockReduce(A value, A* scratch, F combine) {
  const unsigned tid = threadIdx.x;
  scratch[tid] = value;
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (tid < step) scratch[tid] = combine(scratch[tid], scratch[tid + step]);
    __syncthreads();
  }
  const A result = scratch[0];
  __syncthreads();
  return result;
}

// Calls f(T{}) with the storage type of `type`; gpuErrorInvalidValue for bool unless kWithBool.
template <bool kWithBool, typename F>
gpuError_t DispatchType(ElementType type, F&& f) {
  switch (type) {
    case ElementType::kFloat:
      return f(float{});
    case ElementType::kHalf:
      return f(__half{});
    case ElementType::kBFloat16:
      return f(gpu_bfloat16{});
    case ElementType::kInt32:
      return f(int32_t{});
    case ElementType::kInt64:
      return f(int64_t{});
    case ElementType::kBool:
      if constexpr (kWithBool) return f(bool{});
      break;
  }
  return gpuErrorInvalidValue;
}

#if defined(TESSERA_GPU_EMULATE)
using emulation::Launch;
#else
#define TESSERA_GPU_UNROLL _Pragma("unroll")
// Launches kernel(args...) on `stream` and returns the launch's error.
template <typename... Params, typename... Args>
gpuError_t Launch(void (*kernel)(Params...), dim3 grid, dim3 block, gpuStream_t stream,
                  Args&&... args) {
  // A failed runtime call before (on this host thread) must not be reported as this launch's.
  static_cast<void>(gpuGetLastError());
  // clang-format off
  kernel<<<grid, block, 0, stream>>>(static_cast<Params>(std::forward<Args>(args))...);
  // clang-format on
  return gpuGetLastError();
}
#endif

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_ELEMENTWISE_COMMON_CUH_
