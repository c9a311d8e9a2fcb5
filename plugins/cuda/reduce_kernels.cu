// Reductions over any axes (Sum, Mean, Max, Min, Prod) and ArgMax/ArgMin: one block per output
// element, grid-striding over the outputs.
#include <cstdint>

#include "plugins/cuda/elementwise_common.cuh"
#include "plugins/cuda/reduce_kernels.h"

namespace tessera::gpu {
namespace {

// The fold of OP over storage type T: floating types accumulate in float, integers in int64_t with
// wrapping arithmetic (the result, cast back, is the wrapped T result).
template <ReduceOp OP, typename T>
struct Fold {
  static constexpr bool kIntegral = std::is_integral_v<T>;
  using Acc = std::conditional_t<kIntegral, int64_t, float>;
  __device__ static Acc Init() {
    if constexpr (OP == ReduceOp::kProd) {
      return Acc(1);
    } else if constexpr (OP == ReduceOp::kMax) {
      if constexpr (std::is_same_v<T, int32_t>) return Acc(INT32_MIN);
      else if constexpr (std::is_same_v<T, int64_t>) return Acc(INT64_MIN);
      else return -INFINITY;
    } else if constexpr (OP == ReduceOp::kMin) {
      if constexpr (std::is_same_v<T, int32_t>) return Acc(INT32_MAX);
      else if constexpr (std::is_same_v<T, int64_t>) return Acc(INT64_MAX);
      else return INFINITY;
    } else {
      return Acc(0);
    }
  }
  __device__ static Acc Load(T v) { return static_cast<Acc>(Traits<T>::Load(v)); }
  __device__ static Acc Combine(Acc a, Acc b) {
    if constexpr (OP == ReduceOp::kSum || OP == ReduceOp::kMean) {
      return Wrapping(a, b, [](auto p, auto q) { return p + q; });
    } else if constexpr (OP == ReduceOp::kProd) {
      return Wrapping(a, b, [](auto p, auto q) { return p * q; });
    } else if constexpr (OP == ReduceOp::kMax) {
      return b > a || b != b ? b : a;  // NaN propagates
    } else {
      return b < a || b != b ? b : a;
    }
  }
  __device__ static T Finish(Acc acc, int64_t count) {
    if constexpr (OP == ReduceOp::kMean) {
      if constexpr (kIntegral) {
        // The (wrapped) sum of T, divided in 64 bits as the CPU plugin does: the count may not
        // fit T.
        return count == 0 ? T(0)
                          : static_cast<T>(static_cast<int64_t>(static_cast<T>(acc)) / count);
      } else {
        return Traits<T>::Store(acc / static_cast<float>(count));  // 0 / 0: NaN
      }
    } else if constexpr (kIntegral) {
      return static_cast<T>(acc);
    } else {
      return Traits<T>::Store(acc);
    }
  }
};

template <ReduceOp OP, typename T>
__global__ void ReduceKernel(const T* x, T* out, ReducePlan p) {
  using F = Fold<OP, T>;
  using Acc = typename F::Acc;
  __shared__ Acc scratch[kThreadsPerBlock];
  for (int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    const int64_t base = StridedOffset(o, p.kept_rank, p.kept_dims, p.kept_strides);
    Acc acc = F::Init();
    for (int64_t r = threadIdx.x; r < p.reduced; r += blockDim.x) {
      const int64_t offset = StridedOffset(r, p.reduced_rank, p.reduced_dims, p.reduced_strides);
      acc = F::Combine(acc, F::Load(x[base + offset]));
    }
    acc = BlockReduce(acc, scratch, [](Acc a, Acc b) { return F::Combine(a, b); });
    if (threadIdx.x == 0) out[o] = F::Finish(acc, p.reduced);
  }
}

// A candidate extreme: its value (in the element type's math type, so that large integers stay
// exact) and index; index -1 is "none yet".
template <typename V>
struct Candidate {
  V value;
  int64_t index;
};

template <bool kMax, typename V>
__device__ inline Candidate<V> Better(Candidate<V> a, Candidate<V> b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  const bool a_nan = a.value != a.value;
  const bool b_nan = b.value != b.value;
  // A number wins over NaN (as the CPU plugin and TensorFlow's Eigen reducer: a slice of only NaN
  // gives its first index); among equals the lower index wins.
  if (a_nan || b_nan) {
    if (a_nan && b_nan) return a.index < b.index ? a : b;
    return a_nan ? b : a;
  }
  if (a.value == b.value) return a.index < b.index ? a : b;
  return (kMax ? b.value > a.value : b.value < a.value) ? b : a;
}

template <bool kMax, typename T, typename Index>
__global__ void ArgReduceKernel(const T* x, Index* out, ReducePlan p) {
  using V = typename Traits<T>::Math;
  using C = Candidate<V>;
  __shared__ C scratch[kThreadsPerBlock];
  for (int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    const int64_t base = StridedOffset(o, p.kept_rank, p.kept_dims, p.kept_strides);
    C best{V(0), -1};
    for (int64_t r = threadIdx.x; r < p.reduced; r += blockDim.x) {
      const int64_t offset = StridedOffset(r, p.reduced_rank, p.reduced_dims, p.reduced_strides);
      best = Better<kMax>(best, C{Traits<T>::Load(x[base + offset]), r});
    }
    best = BlockReduce(best, scratch, [](C a, C b) { return Better<kMax>(a, b); });
    if (threadIdx.x == 0) out[o] = static_cast<Index>(best.index);
  }
}

unsigned ReduceBlocks(int64_t outputs) {
  return static_cast<unsigned>(outputs < kMaxBlocks ? outputs : kMaxBlocks);
}

template <ReduceOp OP>
gpuError_t LaunchFold(ElementType type, const void* x, void* out, const ReducePlan& plan,
                      gpuStream_t stream) {
  return DispatchType</*kWithBool=*/false>(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    return Launch(ReduceKernel<OP, T>, ReduceBlocks(plan.outputs), kThreadsPerBlock, stream,
                  static_cast<const T*>(x), static_cast<T*>(out), plan);
  });
}

template <bool kMax>
gpuError_t LaunchArg(ElementType type, ElementType index_type, const void* x, void* out,
                     const ReducePlan& plan, gpuStream_t stream) {
  return DispatchType</*kWithBool=*/false>(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    if (index_type == ElementType::kInt32) {
      return Launch(ArgReduceKernel<kMax, T, int32_t>, ReduceBlocks(plan.outputs),
                    kThreadsPerBlock, stream, static_cast<const T*>(x), static_cast<int32_t*>(out),
                    plan);
    }
    if (index_type == ElementType::kInt64) {
      return Launch(ArgReduceKernel<kMax, T, int64_t>, ReduceBlocks(plan.outputs),
                    kThreadsPerBlock, stream, static_cast<const T*>(x), static_cast<int64_t*>(out),
                    plan);
    }
    return gpuErrorInvalidValue;
  });
}

}  // namespace

gpuError_t LaunchReduce(ReduceOp op, ElementType type, const void* x, void* out,
                        const ReducePlan& plan, gpuStream_t stream, ElementType index_type) {
  if (plan.outputs == 0) return gpuSuccess;
  switch (op) {
    case ReduceOp::kSum:
      return LaunchFold<ReduceOp::kSum>(type, x, out, plan, stream);
    case ReduceOp::kMean:
      return LaunchFold<ReduceOp::kMean>(type, x, out, plan, stream);
    case ReduceOp::kMax:
      return LaunchFold<ReduceOp::kMax>(type, x, out, plan, stream);
    case ReduceOp::kMin:
      return LaunchFold<ReduceOp::kMin>(type, x, out, plan, stream);
    case ReduceOp::kProd:
      return LaunchFold<ReduceOp::kProd>(type, x, out, plan, stream);
    case ReduceOp::kArgMax:
      return LaunchArg<true>(type, index_type, x, out, plan, stream);
    case ReduceOp::kArgMin:
      return LaunchArg<false>(type, index_type, x, out, plan, stream);
  }
  return gpuErrorInvalidValue;
}

}  // namespace tessera::gpu
