// Cumsum and Cumprod on CPU (float, double, int32, int64; axis int32/int64 in host memory) with
// TensorFlow's exclusive and reverse attrs: running sums or products along one axis, accumulated
// in T in scan order (integers wrap around).
#include <algorithm>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/register_math_kernels.h"

namespace tessera::cpu {
namespace {

struct SumScan {
  template <typename T>
  static constexpr T kIdentity = T(0);
  template <typename T>
  static T Combine(T a, T b) {
    return WrappingAdd(a, b);
  }
};
struct ProdScan {
  template <typename T>
  static constexpr T kIdentity = T(1);
  template <typename T>
  static T Combine(T a, T b) {
    return WrappingMultiply(a, b);
  }
};

template <typename Op>
class ScanKernel : public sdk::Kernel {
 public:
  explicit ScanKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("exclusive")) ctx.SetStatus(ctx.GetAttr("exclusive", &exclusive_));
    if (ctx.HasAttr("reverse")) ctx.SetStatus(ctx.GetAttr("reverse", &reverse_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView axis_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &axis_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, axis_view, "axis"));
    if (axis_view.rank() != 0) {
      return sdk::InvalidArgument("ScanOp: axis must be a scalar, not ",
                                  axis_view.shape().DebugString());
    }
    const int rank = x.rank();
    const int64_t axis_arg = IndexAt(axis_view, 0);
    const int64_t axis = axis_arg < 0 ? axis_arg + rank : axis_arg;
    if (axis < 0 || axis >= rank) {
      // TensorFlow reports the axis after adding the rank to a negative one.
      return sdk::InvalidArgument("ScanOp: Expected scan axis in the range [", -rank, ", ", rank,
                                  "), but got ", axis);
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &out));
    if (out.num_elements() == 0) return OkStatus();
    int64_t outer = 1;
    int64_t inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= x.dim(d);
    const int64_t length = x.dim(static_cast<int>(axis));
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Scan<T>(ctx, x.data<const T>(), outer, length, inner, out.data<T>());
      return OkStatus();
    });
  }

 private:
  // out[k1, r, k2] from in[k1, 0..r, k2] (or r..length-1 when reversed). Shards of the
  // flattened (k1, k2) columns scan a contiguous run of k2 together. Every input element is read
  // before the output element at its position is written, so the output may share the input's
  // buffer.
  template <typename T>
  void Scan(const KernelContext& ctx, const T* in, int64_t outer, int64_t length, int64_t inner,
            T* out) const {
    const bool exclusive = exclusive_;
    const bool reverse = reverse_;
    ctx.ParallelFor(outer * inner, length, [&](int64_t begin, int64_t end) {
      std::vector<T> acc;
      int64_t o = begin;
      while (o < end) {
        const int64_t k1 = o / inner;
        const int64_t k2 = o % inner;
        const int64_t n = std::min(inner - k2, end - o);
        acc.assign(static_cast<size_t>(n), Op::template kIdentity<T>);
        const int64_t base = k1 * length * inner + k2;
        for (int64_t step = 0; step < length; ++step) {
          const int64_t r = reverse ? length - 1 - step : step;
          const T* src = in + base + r * inner;
          T* dst = out + base + r * inner;
          for (int64_t k = 0; k < n; ++k) {
            const T value = src[k];
            if (exclusive) {
              dst[k] = acc[k];
              acc[k] = Op::Combine(acc[k], value);
            } else {
              acc[k] = Op::Combine(acc[k], value);
              dst[k] = acc[k];
            }
          }
        }
        o += n;
      }
    });
  }

  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace

Status RegisterCumsumKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<ScanKernel<SumScan>>(
      registrar, "Cumsum", kCpu, {{"T", RealNumberTypes()}, {"Tidx", IndexTypes()}}, 0, 0,
      {"axis"});
}

Status RegisterCumprodKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<ScanKernel<ProdScan>>(
      registrar, "Cumprod", kCpu, {{"T", RealNumberTypes()}, {"Tidx", IndexTypes()}}, 0, 0,
      {"axis"});
}

}  // namespace tessera::cpu
