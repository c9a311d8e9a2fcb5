// Binary element-wise kernels with broadcasting: arithmetic, comparisons and activation
// gradients, one grid-stride kernel per (op, type, general-or-not) instantiation.
#include "plugins/cuda/elementwise_common.cuh"

namespace tessera::gpu {
namespace {

template <BinaryOp OP>
constexpr bool kIsComparison =
    OP == BinaryOp::kLess || OP == BinaryOp::kLessEqual || OP == BinaryOp::kGreater ||
    OP == BinaryOp::kGreaterEqual || OP == BinaryOp::kEqual || OP == BinaryOp::kNotEqual;

template <BinaryOp OP>
constexpr bool kFloatingOnly =
    OP == BinaryOp::kDiv || OP == BinaryOp::kReluGrad || OP == BinaryOp::kRelu6Grad ||
    OP == BinaryOp::kSigmoidGrad || OP == BinaryOp::kTanhGrad;

template <BinaryOp OP, typename M>
__device__ inline auto Apply(M a, M b) {
  if constexpr (OP == BinaryOp::kAdd) {
    return Wrapping(a, b, [](auto p, auto q) { return p + q; });
  } else if constexpr (OP == BinaryOp::kSub) {
    return Wrapping(a, b, [](auto p, auto q) { return p - q; });
  } else if constexpr (OP == BinaryOp::kMul) {
    return Wrapping(a, b, [](auto p, auto q) { return p * q; });
  } else if constexpr (OP == BinaryOp::kDiv) {
    return a / b;
  } else if constexpr (OP == BinaryOp::kMaximum || OP == BinaryOp::kMinimum) {
    // NaN propagates, as in TensorFlow.
    if constexpr (!std::is_integral_v<M>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return OP == BinaryOp::kMaximum ? (a < b ? b : a) : (b < a ? b : a);
  } else if constexpr (OP == BinaryOp::kSquaredDifference) {
    const M d = Wrapping(a, b, [](auto p, auto q) { return p - q; });
    return Wrapping(d, d, [](auto p, auto q) { return p * q; });
  } else if constexpr (OP == BinaryOp::kLess) {
    return a < b;
  } else if constexpr (OP == BinaryOp::kLessEqual) {
    return a <= b;
  } else if constexpr (OP == BinaryOp::kGreater) {
    return a > b;
  } else if constexpr (OP == BinaryOp::kGreaterEqual) {
    return a >= b;
  } else if constexpr (OP == BinaryOp::kEqual) {
    return a == b;
  } else if constexpr (OP == BinaryOp::kNotEqual) {
    return a != b;
  } else if constexpr (OP == BinaryOp::kReluGrad) {
    // Multiplies, so a NaN gradient stays NaN (TensorFlow's definition).
    return a * static_cast<M>(b > M(0));
  } else if constexpr (OP == BinaryOp::kRelu6Grad) {
    return a * static_cast<M>(b > M(0) && b < M(6));
  } else if constexpr (OP == BinaryOp::kSigmoidGrad) {
    return b * a * (M(1) - a);
  } else {
    static_assert(OP == BinaryOp::kTanhGrad);
    return b * (M(1) - a * a);
  }
}

template <BinaryOp OP, typename T, bool kGeneral>
__global__ void BinaryKernel(const T* x, const T* y,
                             std::conditional_t<kIsComparison<OP>, bool, T>* out, int64_t n,
                             BroadcastPlan plan) {
  using Tr = Traits<T>;
  TESSERA_GPU_GRID_LOOP(i, n) {
    int64_t xi = i;
    int64_t yi = i;
    if constexpr (kGeneral) {
      xi = 0;
      yi = 0;
      int64_t rest = i;
      for (int d = plan.rank - 1; d >= 0; --d) {
        const int64_t coordinate = rest % plan.dims[d];
        rest /= plan.dims[d];
        xi += coordinate * plan.x_strides[d];
        yi += coordinate * plan.y_strides[d];
      }
    } else {
      if (plan.mode == BroadcastPlan::kXScalar) xi = 0;
      if (plan.mode == BroadcastPlan::kYScalar) yi = 0;
    }
    const auto result = Apply<OP>(Tr::Load(x[xi]), Tr::Load(y[yi]));
    if constexpr (kIsComparison<OP>) {
      out[i] = result;
    } else {
      out[i] = Tr::Store(static_cast<typename Tr::Math>(result));
    }
  }
}

template <BinaryOp OP>
gpuError_t LaunchOp(ElementType type, const void* x, const void* y, void* out, int64_t n,
                    const BroadcastPlan& plan, gpuStream_t stream) {
  return DispatchType</*kWithBool=*/false>(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    if constexpr (kFloatingOnly<OP> && std::is_integral_v<T>) {
      return gpuErrorInvalidValue;
    } else {
      using Out = std::conditional_t<kIsComparison<OP>, bool, T>;
      const auto* xt = static_cast<const T*>(x);
      const auto* yt = static_cast<const T*>(y);
      auto* o = static_cast<Out*>(out);
      return plan.mode == BroadcastPlan::kGeneral
                 ? Launch(BinaryKernel<OP, T, true>, BlocksFor(n), kThreadsPerBlock, stream, xt, yt,
                          o, n, plan)
                 : Launch(BinaryKernel<OP, T, false>, BlocksFor(n), kThreadsPerBlock, stream, xt,
                          yt, o, n, plan);
    }
  });
}

}  // namespace

gpuError_t LaunchBinary(BinaryOp op, ElementType type, const void* x, const void* y, void* out,
                        int64_t n, const BroadcastPlan& plan, gpuStream_t stream) {
  if (n == 0) return gpuSuccess;
  switch (op) {
#define TESSERA_GPU_BINARY_CASE(name) \
  case BinaryOp::name:                \
    return LaunchOp<BinaryOp::name>(type, x, y, out, n, plan, stream);
    TESSERA_GPU_BINARY_CASE(kAdd)
    TESSERA_GPU_BINARY_CASE(kSub)
    TESSERA_GPU_BINARY_CASE(kMul)
    TESSERA_GPU_BINARY_CASE(kDiv)
    TESSERA_GPU_BINARY_CASE(kMaximum)
    TESSERA_GPU_BINARY_CASE(kMinimum)
    TESSERA_GPU_BINARY_CASE(kSquaredDifference)
    TESSERA_GPU_BINARY_CASE(kLess)
    TESSERA_GPU_BINARY_CASE(kLessEqual)
    TESSERA_GPU_BINARY_CASE(kGreater)
    TESSERA_GPU_BINARY_CASE(kGreaterEqual)
    TESSERA_GPU_BINARY_CASE(kEqual)
    TESSERA_GPU_BINARY_CASE(kNotEqual)
    TESSERA_GPU_BINARY_CASE(kReluGrad)
    TESSERA_GPU_BINARY_CASE(kRelu6Grad)
    TESSERA_GPU_BINARY_CASE(kSigmoidGrad)
    TESSERA_GPU_BINARY_CASE(kTanhGrad)
#undef TESSERA_GPU_BINARY_CASE
  }
  return gpuErrorInvalidValue;
}

}  // namespace tessera::gpu
