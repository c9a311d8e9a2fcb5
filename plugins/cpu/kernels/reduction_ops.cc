// Sum, Mean, Max, Min and Prod (float, double, int32, int64) and All and Any (bool) on CPU, with
// reduction_indices int32/int64 in host memory. An empty reduction gives the reducer's identity
// (0, NaN for a floating Mean, -inf/lowest, +inf/highest, 1, true, false). The common shapes
// [outer, reduced, inner] run as vectorized row or column loops on the host's pool; other axis
// patterns use a strided loop per output element.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/reduction.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename T>
using ConstRow = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// A row folded with R::Combine from R::Init, element by element.
template <typename R, typename T>
T FoldRow(const T* p, int64_t n) {
  T acc = R::Init();
  for (int64_t i = 0; i < n; ++i) acc = R::Combine(acc, p[i]);
  return acc;
}

// Integer sums and products wrap (WrappingAdd, WrappingMultiply) and fold element by element;
// floating rows use Eigen's vectorized reductions.
template <typename T>
struct SumReducer {
  static T Init() { return T(0); }
  static T Combine(T a, T b) { return WrappingAdd(a, b); }
  static T Row(const T* p, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      return FoldRow<SumReducer>(p, n);
    } else {
      return n == 0 ? Init() : ConstRow<T>(p, n).sum();
    }
  }
  static T Finalize(T acc, int64_t /*count*/) { return acc; }
};

// TensorFlow divides the sum by the count, with integer division for integer types.
template <typename T>
struct MeanReducer : SumReducer<T> {
  static T Finalize(T acc, int64_t count) {
    if constexpr (std::is_integral_v<T>) {
      // In 64 bits: a count beyond the type (2^32 int32 values) must not wrap to 0.
      return count == 0 ? T(0) : static_cast<T>(static_cast<int64_t>(acc) / count);
    } else {
      return acc / static_cast<T>(count);
    }
  }
};

// The identity of max: -inf for floating types (what Eigen and TensorFlow produce for an empty
// reduction), lowest() for integers.
// Max and Min propagate NaN wherever it sits among the reduced elements, as TensorFlow does.
template <typename T>
struct MaxReducer {
  static T Init() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  static T Combine(T a, T b) { return b > a || IsNan(b) ? b : a; }
  static T Row(const T* p, int64_t n) {
    return n == 0 ? Init() : ConstRow<T>(p, n).template maxCoeff<Eigen::PropagateNaN>();
  }
  static T Finalize(T acc, int64_t /*count*/) { return acc; }
};

// The identity of min: +inf for floating types, highest() for integers.
template <typename T>
struct MinReducer {
  static T Init() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  static T Combine(T a, T b) { return b < a || IsNan(b) ? b : a; }
  static T Row(const T* p, int64_t n) {
    return n == 0 ? Init() : ConstRow<T>(p, n).template minCoeff<Eigen::PropagateNaN>();
  }
  static T Finalize(T acc, int64_t /*count*/) { return acc; }
};

template <typename T>
struct ProdReducer {
  static T Init() { return T(1); }
  static T Combine(T a, T b) { return WrappingMultiply(a, b); }
  static T Row(const T* p, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      return FoldRow<ProdReducer>(p, n);
    } else {
      return n == 0 ? Init() : ConstRow<T>(p, n).prod();
    }
  }
  static T Finalize(T acc, int64_t /*count*/) { return acc; }
};

// All and Any stop scanning a row at the first element that decides it.
template <typename T>
struct AllReducer {
  static T Init() { return true; }
  static T Combine(T a, T b) { return a && b; }
  static T Row(const T* p, int64_t n) { return std::find(p, p + n, false) == p + n; }
  static T Finalize(T acc, int64_t /*count*/) { return acc; }
};

template <typename T>
struct AnyReducer {
  static T Init() { return false; }
  static T Combine(T a, T b) { return a || b; }
  static T Row(const T* p, int64_t n) { return std::find(p, p + n, true) != p + n; }
  static T Finalize(T acc, int64_t /*count*/) { return acc; }
};

// out[k1, k2] = reduce over r of in[k1, r, k2].
template <typename R, typename T>
void ReduceOuterMiddleInner(const KernelContext& ctx, const T* in, int64_t outer, int64_t middle,
                            int64_t inner, int64_t count, T* out) {
  if (inner == 1) {
    if (outer == 1 && middle > 16384) {
      // One long row: partial results per block, combined on this thread.
      const int64_t blocks = std::min<int64_t>(64, middle / 4096);
      const int64_t block_size = (middle + blocks - 1) / blocks;
      // Not std::vector<T>: shards write their own slots, which vector<bool> would share.
      std::unique_ptr<T[]> partial(new T[static_cast<size_t>(blocks)]);
      ctx.ParallelFor(blocks, block_size, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          const int64_t start = b * block_size;
          const int64_t n = std::min(block_size, middle - start);
          partial[b] = R::Row(in + start, n);
        }
      });
      T acc = R::Init();
      for (int64_t b = 0; b < blocks; ++b) acc = R::Combine(acc, partial[b]);
      out[0] = R::Finalize(acc, count);
      return;
    }
    ctx.ParallelFor(outer, std::max<int64_t>(middle, 1), [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        out[k] = R::Finalize(R::Row(in + k * middle, middle), count);
      }
    });
    return;
  }
  // Shards of the flattened (k1, k2) output; each contiguous k2 run accumulates across r.
  ctx.ParallelFor(outer * inner, std::max<int64_t>(middle, 1), [&](int64_t begin, int64_t end) {
    int64_t o = begin;
    while (o < end) {
      const int64_t k1 = o / inner;
      const int64_t k2 = o % inner;
      const int64_t n = std::min(inner - k2, end - o);
      T* acc = out + o;
      for (int64_t k = 0; k < n; ++k) acc[k] = R::Init();
      const T* base = in + k1 * middle * inner + k2;
      for (int64_t r = 0; r < middle; ++r) {
        const T* src = base + r * inner;
        for (int64_t k = 0; k < n; ++k) acc[k] = R::Combine(acc[k], src[k]);
      }
      for (int64_t k = 0; k < n; ++k) acc[k] = R::Finalize(acc[k], count);
      o += n;
    }
  });
}

// Any axis pattern: each output element walks its reduced positions with a stride table.
template <typename R, typename T>
void ReduceGeneric(const KernelContext& ctx, const TensorView& input, const ReductionPlan& plan,
                   int64_t count, T* out) {
  int64_t kept_dims[Shape::kMaxRank];
  int64_t kept_strides[Shape::kMaxRank];
  int64_t reduced_dims[Shape::kMaxRank];
  int64_t reduced_strides[Shape::kMaxRank];
  int num_kept = 0;
  int num_reduced = 0;
  int64_t stride = 1;
  for (int d = input.rank() - 1; d >= 0; --d) {
    if (plan.axis_reduced(d)) {
      reduced_dims[num_reduced] = input.dim(d);
      reduced_strides[num_reduced++] = stride;
    } else {
      kept_dims[num_kept] = input.dim(d);
      kept_strides[num_kept++] = stride;
    }
    stride *= input.dim(d);
  }
  const T* in = input.data<const T>();
  int64_t total = 1;
  for (int i = 0; i < num_kept; ++i) total *= kept_dims[i];
  ctx.ParallelFor(total, std::max<int64_t>(count, 1), [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      // Kept dimensions are stored innermost first.
      int64_t base = 0;
      int64_t rest = o;
      for (int i = 0; i < num_kept; ++i) {
        base += (rest % kept_dims[i]) * kept_strides[i];
        rest /= kept_dims[i];
      }
      T acc = R::Init();
      int64_t index[Shape::kMaxRank] = {};
      int64_t offset = 0;
      for (int64_t visited = 0; visited < count; ++visited) {
        acc = R::Combine(acc, in[base + offset]);
        for (int i = 0; i < num_reduced; ++i) {
          offset += reduced_strides[i];
          if (++index[i] < reduced_dims[i]) break;
          offset -= reduced_dims[i] * reduced_strides[i];
          index[i] = 0;
        }
      }
      out[o] = R::Finalize(acc, count);
    }
  });
}

// Reducer<T> for T among Ts.
template <template <typename> class Reducer, typename... Ts>
class ReductionKernel : public sdk::Kernel {
 public:
  explicit ReductionKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("keep_dims")) ctx.SetStatus(ctx.GetAttr("keep_dims", &keep_dims_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView indices;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &indices));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, indices, "reduction_indices"));
    std::vector<int64_t> axes(static_cast<size_t>(indices.num_elements()));
    for (size_t i = 0; i < axes.size(); ++i) axes[i] = IndexAt(indices, static_cast<int64_t>(i));
    ReductionPlan plan;
    std::string error;
    if (!plan.Init(input.shape(), axes, keep_dims_, &error)) return sdk::InvalidArgument(error);
    if (plan.is_identity()) return ctx.SetOutputFromInput(0, 0, plan.output_shape());
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, plan.output_shape(), &out));
    if (out.num_elements() == 0) return OkStatus();
    return DispatchTypes<Ts...>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Reduce<Reducer<T>, T>(ctx, input, plan, out.data<T>());
      return OkStatus();
    });
  }

 private:
  template <typename R, typename T>
  static void Reduce(const KernelContext& ctx, const TensorView& input, const ReductionPlan& plan,
                     T* out) {
    // Groups alternate, so [kept?, reduced, kept?] is any plan with at most three groups that
    // does not start and end with a reduced group.
    const int n = plan.num_groups();
    const bool fits = n <= 2 || (n == 3 && !plan.group_reduced(0));
    if (!fits) {
      ReduceGeneric<R, T>(ctx, input, plan, plan.reduced_count(), out);
      return;
    }
    int64_t outer = 1;
    int64_t middle = 1;
    int64_t inner = 1;
    int g = 0;
    if (g < n && !plan.group_reduced(g)) outer = plan.group_size(g++);
    if (g < n) middle = plan.group_size(g++);
    if (g < n) inner = plan.group_size(g++);
    ReduceOuterMiddleInner<R, T>(ctx, input.data<const T>(), outer, middle, inner,
                                 plan.reduced_count(), out);
  }

  bool keep_dims_ = false;
};

template <template <typename> class Reducer>
Status RegisterReduction(TSR_Registrar* registrar, const char* op_name) {
  return sdk::RegisterKernel<ReductionKernel<Reducer, float, double, int32_t, int64_t>>(
      registrar, op_name, kCpu, {{"T", RealNumberTypes()}, {"Tidx", IndexTypes()}}, 0, 0,
      {"reduction_indices"});
}

// All and Any: bool input and output, no T attr.
template <template <typename> class Reducer>
Status RegisterLogicalReduction(TSR_Registrar* registrar, const char* op_name) {
  return sdk::RegisterKernel<ReductionKernel<Reducer, bool>>(
      registrar, op_name, kCpu, {{"Tidx", IndexTypes()}}, 0, 0, {"reduction_indices"});
}

}  // namespace

Status RegisterReductionKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<SumReducer>(registrar, "Sum"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<MeanReducer>(registrar, "Mean"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<MaxReducer>(registrar, "Max"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<MinReducer>(registrar, "Min"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<ProdReducer>(registrar, "Prod"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterLogicalReduction<AllReducer>(registrar, "All"));
  return RegisterLogicalReduction<AnyReducer>(registrar, "Any");
}

}  // namespace tessera::cpu
