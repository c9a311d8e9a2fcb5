// Unary element-wise kernels (math and activations), casts and fills.
#include <cmath>
#include <cstdint>

#include "plugins/cuda/elementwise_common.cuh"

namespace tessera::gpu {
namespace {

constexpr float kSeluScale = 1.0507009873554804934193349852946f;
constexpr float kSeluScaleAlpha = 1.7580993408473768599402175208123f;

// Integer types have only the ops that make sense for them.
template <UnaryOp OP>
constexpr bool kIntegerToo =
    OP == UnaryOp::kNeg || OP == UnaryOp::kAbs || OP == UnaryOp::kSquare || OP == UnaryOp::kRelu;

template <UnaryOp OP, typename M>
__device__ inline M Apply(M x, float alpha) {
  if constexpr (OP == UnaryOp::kNeg) {
    // -x for floats (Neg(+0) is -0); wrapping 0 - x for integers (Neg(INT_MIN) is INT_MIN).
    if constexpr (std::is_integral_v<M>) return Wrapping(M(0), x, [](auto p, auto q) { return p - q; });
    else return -x;
  } else if constexpr (OP == UnaryOp::kAbs) {
    if constexpr (std::is_integral_v<M>) {
      return x < M(0) ? Wrapping(M(0), x, [](auto p, auto q) { return p - q; }) : x;
    } else {
      return fabsf(x);
    }
  } else if constexpr (OP == UnaryOp::kSquare) {
    return Wrapping(x, x, [](auto p, auto q) { return p * q; });
  } else if constexpr (OP == UnaryOp::kRelu) {
    return x > M(0) ? x : M(0);
  } else if constexpr (std::is_integral_v<M>) {
    return x;  // not instantiated for integers (kIntegerToo)
  } else if constexpr (OP == UnaryOp::kSqrt) {
    return sqrtf(x);
  } else if constexpr (OP == UnaryOp::kRsqrt) {
    return rsqrtf(x);
  } else if constexpr (OP == UnaryOp::kReciprocal) {
    return 1.0f / x;
  } else if constexpr (OP == UnaryOp::kExp) {
    return expf(x);
  } else if constexpr (OP == UnaryOp::kLog) {
    return logf(x);
  } else if constexpr (OP == UnaryOp::kTanh) {
    return tanhf(x);
  } else if constexpr (OP == UnaryOp::kSigmoid) {
    return 1.0f / (1.0f + expf(-x));
  } else if constexpr (OP == UnaryOp::kRelu6) {
    return fminf(fmaxf(x, 0.0f), 6.0f);
  } else if constexpr (OP == UnaryOp::kElu) {
    return x < 0.0f ? expm1f(x) : x;
  } else if constexpr (OP == UnaryOp::kSelu) {
    return x < 0.0f ? kSeluScaleAlpha * expm1f(x) : kSeluScale * x;
  } else if constexpr (OP == UnaryOp::kLeakyRelu) {
    // alpha may be above 1 or negative: a select, not max(x, alpha * x).
    return x > 0.0f ? x : x * alpha;
  } else {
    static_assert(OP == UnaryOp::kSoftplus);
    // log(1 + exp(x)) without overflow, as the CPU plugin: x itself above -threshold, exp(x) below
    // threshold, where threshold = log(float epsilon) + 2.
    const float threshold = -13.942385f;
    if (x > -threshold) return x;
    if (x < threshold) return expf(x);
    return log1pf(expf(x));
  }
}

template <UnaryOp OP, typename T>
__global__ void UnaryKernel(const T* x, T* out, int64_t n, float alpha) {
  using Tr = Traits<T>;
  TESSERA_GPU_GRID_LOOP(i, n) { out[i] = Tr::Store(Apply<OP>(Tr::Load(x[i]), alpha)); }
}

template <UnaryOp OP>
gpuError_t LaunchOp(ElementType type, const void* x, void* out, int64_t n, float alpha,
                    gpuStream_t stream) {
  return DispatchType</*kWithBool=*/false>(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T> && !kIntegerToo<OP>) {
      return gpuErrorInvalidValue;
    } else {
      return Launch(UnaryKernel<OP, T>, BlocksFor(n), kThreadsPerBlock, stream,
                    static_cast<const T*>(x), static_cast<T*>(out), n, alpha);
    }
  });
}

// ---- Cast ----------------------------------------------------------------------------------

template <typename To, typename M>
__device__ inline To Convert(M value) {
  if constexpr (std::is_same_v<To, bool>) {
    return value != M(0);
  } else if constexpr (std::is_integral_v<To> && !std::is_integral_v<M>) {
    // Truncation toward zero that saturates and maps NaN to 0 (the device's own conversion).
    // Both limits convert to float exactly or round outward (INT32_MAX to 2^31), so every value
    // strictly between them truncates to a representable integer.
    constexpr To kMax = std::is_same_v<To, int32_t> ? To(INT32_MAX) : To(INT64_MAX);
    constexpr To kLowest = std::is_same_v<To, int32_t> ? To(INT32_MIN) : To(INT64_MIN);
    if (value != value) return To(0);
    if (value >= static_cast<M>(kMax)) return kMax;
    if (value <= static_cast<M>(kLowest)) return kLowest;
    return static_cast<To>(value);
  } else {
    return Traits<To>::Store(static_cast<typename Traits<To>::Math>(value));
  }
}

template <typename From, typename To>
__global__ void CastKernel(const From* x, To* out, int64_t n) {
  TESSERA_GPU_GRID_LOOP(i, n) {
    if constexpr (std::is_same_v<From, bool>) {
      out[i] = Convert<To>(static_cast<int32_t>(x[i]));
    } else {
      out[i] = Convert<To>(Traits<From>::Load(x[i]));
    }
  }
}

template <typename T>
__global__ void FillKernel(const T* value, T* out, int64_t n) {
  const T v = *value;
  TESSERA_GPU_GRID_LOOP(i, n) { out[i] = v; }
}

}  // namespace

gpuError_t ProbeKernelImage() {
#if defined(TESSERA_GPU_EMULATE)
  return gpuSuccess;
#else
  gpuFuncAttributes attributes;
  return gpuFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&FillKernel<float>));
#endif
}

gpuError_t LaunchUnary(UnaryOp op, ElementType type, const void* x, void* out, int64_t n,
                       float alpha, gpuStream_t stream) {
  if (n == 0) return gpuSuccess;
  switch (op) {
#define TESSERA_GPU_UNARY_CASE(name) \
  case UnaryOp::name:                \
    return LaunchOp<UnaryOp::name>(type, x, out, n, alpha, stream);
    TESSERA_GPU_UNARY_CASE(kNeg)
    TESSERA_GPU_UNARY_CASE(kAbs)
    TESSERA_GPU_UNARY_CASE(kSquare)
    TESSERA_GPU_UNARY_CASE(kSqrt)
    TESSERA_GPU_UNARY_CASE(kRsqrt)
    TESSERA_GPU_UNARY_CASE(kReciprocal)
    TESSERA_GPU_UNARY_CASE(kExp)
    TESSERA_GPU_UNARY_CASE(kLog)
    TESSERA_GPU_UNARY_CASE(kTanh)
    TESSERA_GPU_UNARY_CASE(kSigmoid)
    TESSERA_GPU_UNARY_CASE(kRelu)
    TESSERA_GPU_UNARY_CASE(kRelu6)
    TESSERA_GPU_UNARY_CASE(kElu)
    TESSERA_GPU_UNARY_CASE(kSelu)
    TESSERA_GPU_UNARY_CASE(kLeakyRelu)
    TESSERA_GPU_UNARY_CASE(kSoftplus)
#undef TESSERA_GPU_UNARY_CASE
  }
  return gpuErrorInvalidValue;
}

gpuError_t LaunchCast(ElementType from, ElementType to, const void* x, void* out, int64_t n,
                      gpuStream_t stream) {
  if (n == 0) return gpuSuccess;
  return DispatchType</*kWithBool=*/true>(from, [&](auto from_zero) -> gpuError_t {
    using From = decltype(from_zero);
    return DispatchType</*kWithBool=*/true>(to, [&](auto to_zero) -> gpuError_t {
      using To = decltype(to_zero);
      return Launch(CastKernel<From, To>, BlocksFor(n), kThreadsPerBlock, stream,
                    static_cast<const From*>(x), static_cast<To*>(out), n);
    });
  });
}

gpuError_t LaunchFill(ElementType type, const void* value, void* out, int64_t n,
                      gpuStream_t stream) {
  if (n == 0) return gpuSuccess;
  return DispatchType</*kWithBool=*/true>(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    return Launch(FillKernel<T>, BlocksFor(n), kThreadsPerBlock, stream,
                  static_cast<const T*>(value), static_cast<T*>(out), n);
  });
}

}  // namespace tessera::gpu
