// ArgMax and ArgMin on CPU (float, double, int32, int64, bool; dimension int32/int64 in host
// memory; output_type int32/int64). Ties go to the first index; NaN never wins against a number
// (as with TensorFlow's Eigen reducer), so a slice of only NaN gives 0.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// True when `candidate` replaces `best` (a strictly better number, or any number over NaN).
template <bool kMax, typename T>
bool Better(T candidate, T best) {
  if (kMax ? candidate > best : candidate < best) return true;
  return IsNan(best) && !IsNan(candidate);
}

template <bool kMax>
class ArgOpKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView dimension;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &dimension));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, dimension, "dimension"));
    if (dimension.rank() != 0) {
      return sdk::InvalidArgument("dim must be a scalar, but received tensor of shape: ",
                                  dimension.shape().DebugString());
    }
    const int rank = input.rank();
    const int64_t dim = IndexAt(dimension, 0);
    const int64_t axis = dim < 0 ? dim + rank : dim;
    if (axis < 0 || axis >= rank) {
      return sdk::InvalidArgument("Expected dimension in the range [", -rank, ", ", rank,
                                  "), but got ", dim);
    }
    if (input.dim(static_cast<int>(axis)) == 0) {
      return sdk::InvalidArgument("Reduction axis ", dim, " is empty in shape ",
                                  input.shape().DebugString());
    }
    Shape out_shape = input.shape();
    out_shape.RemoveDim(static_cast<int>(axis));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    int64_t outer = 1;
    int64_t inner = 1;
    for (int d = 0; d < axis; ++d) outer *= input.dim(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= input.dim(d);
    const int64_t middle = input.dim(static_cast<int>(axis));
    return DispatchTypes<float, double, int32_t, int64_t, bool>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      return DispatchTypes<int32_t, int64_t>(ctx, out.dtype(), [&](auto out_tag) {
        using Out = decltype(out_tag);
        Arg<T, Out>(ctx, input.data<const T>(), outer, middle, inner, out.data<Out>());
        return OkStatus();
      });
    });
  }

 private:
  // out[k1, k2] = index r of the best in[k1, r, k2]; shards of the flattened (k1, k2) output keep
  // one best value per k2 of a contiguous run while walking r.
  template <typename T, typename Out>
  static void Arg(const KernelContext& ctx, const T* in, int64_t outer, int64_t middle,
                  int64_t inner, Out* out) {
    ctx.ParallelFor(outer * inner, middle, [&](int64_t begin, int64_t end) {
      std::vector<T> best;
      int64_t o = begin;
      while (o < end) {
        const int64_t k1 = o / inner;
        const int64_t k2 = o % inner;
        const int64_t n = std::min(inner - k2, end - o);
        const T* base = in + k1 * middle * inner + k2;
        best.assign(base, base + n);
        Out* index = out + o;
        std::fill(index, index + n, Out(0));
        for (int64_t r = 1; r < middle; ++r) {
          const T* row = base + r * inner;
          for (int64_t k = 0; k < n; ++k) {
            if (Better<kMax, T>(row[k], best[k])) {
              best[k] = row[k];
              index[k] = static_cast<Out>(r);
            }
          }
        }
        o += n;
      }
    });
  }
};

}  // namespace

Status RegisterArgMinMaxKernels(TSR_Registrar* registrar) {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32, TSR_DTYPE_INT64, TSR_DTYPE_BOOL};
  const std::vector<sdk::TypeConstraint> constraints = {
      {"T", *types}, {"Tidx", IndexTypes()}, {"output_type", IndexTypes()}};
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ArgOpKernel<true>>(registrar, "ArgMax", kCpu,
                                                                 constraints, 0, 0, {"dimension"}));
  return sdk::RegisterKernel<ArgOpKernel<false>>(registrar, "ArgMin", kCpu, constraints, 0, 0,
                                                 {"dimension"});
}

}  // namespace tessera::cpu
