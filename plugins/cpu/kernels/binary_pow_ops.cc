// Pow and SquaredDifference on CPU (float, double, int32, int64). Integer Pow is exact
// repeated squaring with two's-complement wrap-around; a negative integer exponent is TensorFlow's
// "Integers to negative integer powers are not allowed".
#include <cmath>
#include <type_traits>

#include "plugins/cpu/kernels/checked_binary_op.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// x^y for y >= 0 (checked before the kernel runs).
template <typename T>
struct IntegerPowFn : ScalarBinaryFn<T> {
  T operator()(T x, T y) const {
    using U = std::make_unsigned_t<T>;
    U base = static_cast<U>(x);
    U result = 1;
    for (T e = y; e > 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  }
};

template <typename T>
using PowOp = std::conditional_t<std::is_integral_v<T>, IntegerPowFn<T>,
                                 Eigen::internal::scalar_pow_op<T, T>>;

// (x - y)^2; integers wrap instead of overflowing.
template <typename T>
struct SquaredDifferenceFn : ScalarBinaryFn<T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const U d = static_cast<U>(x) - static_cast<U>(y);
      return static_cast<T>(d * d);
    } else {
      const T d = x - y;
      return d * d;
    }
  }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    const Packet d = Eigen::internal::psub(x, y);
    return Eigen::internal::pmul(d, d);
  }
};

struct NonNegativeIntegerExponent {
  template <typename T>
  static Status Run(const KernelContext& /*ctx*/, const TensorView& y) {
    if constexpr (std::is_integral_v<T>) {
      const T* data = y.data<const T>();
      const int64_t n = y.num_elements();
      for (int64_t i = 0; i < n; ++i) {
        if (data[i] < T(0)) {
          return sdk::InvalidArgument("Integers to negative integer powers are not allowed");
        }
      }
    }
    return OkStatus();
  }
};

}  // namespace
}  // namespace tessera::cpu

namespace Eigen::internal {
template <typename T>
struct functor_traits<tessera::cpu::SquaredDifferenceFn<T>> {
  enum {
    Cost = NumTraits<T>::AddCost + NumTraits<T>::MulCost,
    // Integers take the scalar path, which wraps instead of overflowing.
    PacketAccess = !NumTraits<T>::IsInteger && packet_traits<T>::HasSub && packet_traits<T>::HasMul,
  };
};
}  // namespace Eigen::internal

namespace tessera::cpu {

Status RegisterBinaryPowKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterCheckedBinaryKernel<PowOp, NonNegativeIntegerExponent, float, double, int32_t,
                                   int64_t>(registrar, "Pow", RealNumberTypes())));
  return RegisterBinaryKernel<SquaredDifferenceFn, float, double, int32_t, int64_t>(
      registrar, "SquaredDifference", RealNumberTypes());
}

}  // namespace tessera::cpu
