// Div, FloorDiv, TruncateDiv, FloorMod, TruncateMod and Mod on CPU with TensorFlow's semantics:
// integer Div and TruncateDiv truncate (C division), FloorDiv floors (floor(x / y) for floats),
// TruncateMod and Mod are C's % and fmod, FloorMod takes the divisor's sign; an integer zero
// divisor is "Integer division by zero", and lowest / -1 wraps instead of trapping.
#include <cmath>
#include <type_traits>

#include "plugins/cpu/kernels/checked_binary_op.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Integer x / y truncated toward zero.
template <typename T>
struct TruncateDivFn : ScalarBinaryFn<T> {
  T operator()(T x, T y) const {
    if (std::is_signed_v<T> && y == T(-1)) return WrappingNegate(x);
    return x / y;
  }
};

// Integers: the quotient rounded toward negative infinity.
template <typename T>
struct IntegerFloorDivFn : ScalarBinaryFn<T> {
  T operator()(T x, T y) const {
    if (std::is_signed_v<T> && y == T(-1)) return WrappingNegate(x);
    const T quotient = x / y;
    const T remainder = x % y;
    return remainder != 0 && ((remainder < 0) != (y < 0)) ? quotient - 1 : quotient;
  }
};

// Floats: floor(x / y), vectorized.
template <typename T>
struct RealFloorDivFn : ScalarBinaryFn<T> {
  T operator()(T x, T y) const { return std::floor(x / y); }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    return Eigen::internal::pfloor(Eigen::internal::pdiv(x, y));
  }
};

// C's remainder: the dividend's sign (% for integers, fmod for floats).
template <typename T>
struct TruncateModFn : ScalarBinaryFn<T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (std::is_signed_v<T> && y == T(-1)) return T(0);
      return x % y;
    } else {
      return std::fmod(x, y);
    }
  }
};

// The remainder of flooring division: C's remainder moved to the divisor's sign.
template <typename T>
struct FloorModFn : ScalarBinaryFn<T> {
  T operator()(T x, T y) const {
    const T remainder = TruncateModFn<T>()(x, y);
    return remainder != T(0) && ((remainder < T(0)) != (y < T(0))) ? remainder + y : remainder;
  }
};

template <typename T>
using DivOp = std::conditional_t<std::is_integral_v<T>, TruncateDivFn<T>,
                                 Eigen::internal::scalar_quotient_op<T, T>>;
template <typename T>
using FloorDivOp =
    std::conditional_t<std::is_integral_v<T>, IntegerFloorDivFn<T>, RealFloorDivFn<T>>;
// TruncateDiv has integer kernels only, as in TensorFlow.
template <typename T>
using TruncateDivOp = TruncateDivFn<T>;
template <typename T>
using TruncateModOp = TruncateModFn<T>;
template <typename T>
using FloorModOp = FloorModFn<T>;

struct NonZeroIntegerDivisor {
  template <typename T>
  static Status Run(const KernelContext& /*ctx*/, const TensorView& y) {
    if constexpr (std::is_integral_v<T>) {
      const T* data = y.data<const T>();
      const int64_t n = y.num_elements();
      for (int64_t i = 0; i < n; ++i) {
        if (data[i] == T(0)) return sdk::InvalidArgument("Integer division by zero");
      }
    }
    return OkStatus();
  }
};

template <template <typename> class Op, typename... Ts>
Status RegisterDivision(TSR_Registrar* registrar, const char* op_name,
                        const std::vector<TSR_DataType>& dtypes) {
  return RegisterCheckedBinaryKernel<Op, NonZeroIntegerDivisor, Ts...>(registrar, op_name, dtypes);
}

}  // namespace
}  // namespace tessera::cpu

namespace Eigen::internal {
template <typename T>
struct functor_traits<tessera::cpu::RealFloorDivFn<T>> {
  enum {
    Cost = 2 * NumTraits<T>::MulCost + NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasFloor,
  };
};
}  // namespace Eigen::internal

namespace tessera::cpu {

Status RegisterBinaryDivModKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR((RegisterDivision<DivOp, float, double, int32_t, int64_t>(
      registrar, "Div", RealNumberTypes())));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterDivision<FloorDivOp, float, double, int32_t, int64_t>(
      registrar, "FloorDiv", RealNumberTypes())));
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterDivision<TruncateDivOp, int32_t, int64_t>(registrar, "TruncateDiv", IndexTypes())));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterDivision<FloorModOp, float, double, int32_t, int64_t>(
      registrar, "FloorMod", RealNumberTypes())));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterDivision<TruncateModOp, float, double, int32_t, int64_t>(
      registrar, "TruncateMod", RealNumberTypes())));
  return RegisterDivision<TruncateModOp, float, double, int32_t, int64_t>(registrar, "Mod",
                                                                          RealNumberTypes());
}

}  // namespace tessera::cpu
