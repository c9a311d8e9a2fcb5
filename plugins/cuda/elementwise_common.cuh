// Device-side pieces the element-wise kernel files share: storage-to-math conversions (half and
// bfloat16 compute in float), wrapping integer arithmetic, launch shapes and the type dispatch.
#ifndef TESSERA_PLUGINS_CUDA_ELEMENTWISE_COMMON_CUH_
#define TESSERA_PLUGINS_CUDA_ELEMENTWISE_COMMON_CUH_

#include <cstdint>
#include <type_traits>

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

constexpr int kThreadsPerBlock = 256;

inline unsigned BlocksFor(int64_t n) {
  const int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned>(blocks < 65535 ? blocks : 65535);
}

#define TESSERA_GPU_GRID_LOOP(i, n)                                                   \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

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

inline gpuError_t LaunchResult() { return gpuGetLastError(); }

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_ELEMENTWISE_COMMON_CUH_
