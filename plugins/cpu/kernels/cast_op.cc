// Cast on CPU between float, double, bool and the 8- to 64-bit integer types (bool results are
// value != 0, as in TensorFlow), as a static_cast loop per dtype pair on the host's pool.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// A float or double converted to an integer type: truncated toward zero, saturated at the type's
// limits, NaN to 0. C++ leaves out-of-range conversions undefined (and x86 answers INT_MIN for
// every one of them), so the limits are checked first: -8.6 to uint8 is 0, 1e20 to int32 is
// INT32_MAX.
template <typename Dst, typename Src>
Dst SaturatingFromFloat(Src value) {
  if (std::isnan(value)) return Dst(0);
  // Both limits convert to Src exactly or round outward (INT32_MAX to 2^31), so every value
  // strictly between them truncates to a representable integer.
  constexpr Src kLowest = static_cast<Src>(std::numeric_limits<Dst>::lowest());
  constexpr Src kMax = static_cast<Src>(std::numeric_limits<Dst>::max());
  if (value <= kLowest) return std::numeric_limits<Dst>::lowest();
  if (value >= kMax) return std::numeric_limits<Dst>::max();
  return static_cast<Dst>(value);
}

template <typename Src, typename Dst>
void CastElements(const KernelContext& ctx, const Src* in, Dst* out, int64_t n) {
  ctx.ParallelFor(n, 2, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_same_v<Dst, bool>) {
        out[i] = in[i] != Src(0);
      } else if constexpr (std::is_floating_point_v<Src> && std::is_integral_v<Dst>) {
        out[i] = SaturatingFromFloat<Dst>(in[i]);
      } else {
        out[i] = static_cast<Dst>(in[i]);
      }
    }
  });
}

class CastKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input.shape(), &out));
    const int64_t n = input.num_elements();
    if (n == 0) return OkStatus();
    if (input.dtype() == out.dtype()) {
      std::memcpy(out.raw_data(), input.raw_data(), out.byte_size());
      return OkStatus();
    }
    return DispatchCast(ctx, input, out, n);
  }

 private:
  template <typename Src>
  static Status CastFrom(const KernelContext& ctx, const TensorView& input, const TensorView& out,
                         int64_t n) {
    return DispatchTypes<float, double, int32_t, int64_t, bool, uint8_t, int8_t, int16_t, uint16_t,
                         uint32_t, uint64_t>(ctx, out.dtype(), [&](auto tag) {
      using Dst = decltype(tag);
      CastElements<Src, Dst>(ctx, input.data<const Src>(), out.data<Dst>(), n);
      return OkStatus();
    });
  }

  static Status DispatchCast(const KernelContext& ctx, const TensorView& input,
                             const TensorView& out, int64_t n) {
    return DispatchTypes<float, double, int32_t, int64_t, bool, uint8_t, int8_t, int16_t, uint16_t,
                         uint32_t, uint64_t>(
        ctx, input.dtype(), [&](auto tag) { return CastFrom<decltype(tag)>(ctx, input, out, n); });
  }
};

}  // namespace

Status RegisterCastKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<CastKernel>(registrar, "Cast", kCpu,
                                         {{"SrcT", CastTypes()}, {"DstT", CastTypes()}},
                                         TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
