// Cast on CPU between half, bfloat16, float, double, bool and the 8- to 64-bit integer types (bool
// results are value != 0, as in TensorFlow), as a conversion loop per dtype pair on the host's
// pool. half and bfloat16 convert through float with round-to-nearest-even, as Eigen's types do;
// Truncate=true makes float and double to bfloat16 drop the low mantissa bits instead.
#include <Eigen/Core>
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

// half and bfloat16 compute in float.
template <typename T>
constexpr bool kIsReducedFloat =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;
template <typename T>
using Widened = std::conditional_t<kIsReducedFloat<T>, float, T>;

// bfloat16 by truncation: the upper half of the float's bits (NaN stays a quiet NaN).
inline Eigen::bfloat16 TruncateToBfloat16(float value) {
  if (std::isnan(value)) return Eigen::numext::bit_cast<Eigen::bfloat16>(uint16_t{0x7FC0});
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<uint16_t>(bits >> 16));
}

template <typename Src, typename Dst>
Dst ConvertOne(Src value, bool truncate) {
  using W = Widened<Src>;
  const W wide = static_cast<W>(value);
  if constexpr (std::is_same_v<Dst, bool>) {
    return wide != W(0);
  } else if constexpr (std::is_floating_point_v<W> && std::is_integral_v<Dst>) {
    return SaturatingFromFloat<Dst>(wide);
  } else if constexpr (std::is_same_v<Dst, Eigen::bfloat16>) {
    if constexpr (std::is_floating_point_v<W>) {
      if (truncate) return TruncateToBfloat16(static_cast<float>(wide));
    }
    return Dst(static_cast<float>(wide));
  } else if constexpr (std::is_same_v<Dst, Eigen::half>) {
    return Dst(static_cast<float>(wide));
  } else {
    return static_cast<Dst>(wide);
  }
}

template <typename Src, typename Dst>
void CastElements(const KernelContext& ctx, const Src* in, Dst* out, int64_t n, bool truncate) {
  ctx.ParallelFor(n, 2, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = ConvertOne<Src, Dst>(in[i], truncate);
  });
}

// The dtype of each type Cast handles (the SDK's DataTypeOf has no Eigen types).
template <typename T>
constexpr TSR_DataType kCastDtype = sdk::DataTypeOf<T>::value;
template <>
constexpr TSR_DataType kCastDtype<Eigen::half> = TSR_DTYPE_HALF;
template <>
constexpr TSR_DataType kCastDtype<Eigen::bfloat16> = TSR_DTYPE_BFLOAT16;

// Calls fn(T{}) for the cast type T whose dtype is `dtype`.
template <typename Fn>
Status DispatchCastType(const KernelContext& ctx, TSR_DataType dtype, Fn&& fn) {
  bool matched = false;
  Status status;
  auto one = [&](auto tag) {
    if (!matched && dtype == kCastDtype<decltype(tag)>) {
      matched = true;
      status = fn(tag);
    }
  };
  one(float{});
  one(double{});
  one(int32_t{});
  one(int64_t{});
  one(bool{});
  one(uint8_t{});
  one(int8_t{});
  one(int16_t{});
  one(uint16_t{});
  one(uint32_t{});
  one(uint64_t{});
  one(Eigen::half{});
  one(Eigen::bfloat16{});
  if (!matched) return UnsupportedType(ctx, dtype);
  return status;
}

class CastKernel : public sdk::Kernel {
 public:
  explicit CastKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("Truncate")) ctx.SetStatus(ctx.GetAttr("Truncate", &truncate_));
  }

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
    return DispatchCastType(ctx, input.dtype(), [&](auto src_tag) {
      using Src = decltype(src_tag);
      return DispatchCastType(ctx, out.dtype(), [&](auto dst_tag) {
        using Dst = decltype(dst_tag);
        CastElements<Src, Dst>(ctx, input.data<const Src>(), out.data<Dst>(), n, truncate_);
        return OkStatus();
      });
    });
  }

 private:
  bool truncate_ = false;
};

}  // namespace

Status RegisterCastKernels(TSR_Registrar* registrar) {
  std::vector<TSR_DataType> types = CastTypes();
  types.push_back(TSR_DTYPE_HALF);
  types.push_back(TSR_DTYPE_BFLOAT16);
  return sdk::RegisterKernel<CastKernel>(registrar, "Cast", kCpu,
                                         {{"SrcT", types}, {"DstT", types}},
                                         TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
