// Add, AddV2, Sub and Mul on CPU (float, double, int32, int64).
#include <functional>
#include <type_traits>

#include "plugins/cpu/kernels/binary_op.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Integer sums, differences and products wrap around in two's complement, as TensorFlow's do
// (int32 2147483647 + 1 is -2147483648). The scalar path computes in the unsigned type, where
// wrapping is defined behaviour; the vector path is Eigen's, whose integer instructions wrap.
template <typename T, typename Base, typename Combine>
struct WrappingOp : Base {
  EIGEN_STRONG_INLINE T operator()(const T& a, const T& b) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(Combine()(static_cast<U>(a), static_cast<U>(b)));
  }
  using Base::packetOp;
};

template <typename T, typename Base, typename Combine>
using ArithmeticOp = std::conditional_t<std::is_integral_v<T>, WrappingOp<T, Base, Combine>, Base>;

template <typename T>
using SumOp = ArithmeticOp<T, Eigen::internal::scalar_sum_op<T, T>, std::plus<>>;
template <typename T>
using DifferenceOp = ArithmeticOp<T, Eigen::internal::scalar_difference_op<T, T>, std::minus<>>;
template <typename T>
using ProductOp = ArithmeticOp<T, Eigen::internal::scalar_product_op<T, T>, std::multiplies<>>;

}  // namespace
}  // namespace tessera::cpu

// Eigen vectorizes a functor only when its traits say so: the wrapping ones vectorize as their
// base does.
template <typename T, typename Base, typename Combine>
struct Eigen::internal::functor_traits<tessera::cpu::WrappingOp<T, Base, Combine>>
    : Eigen::internal::functor_traits<Base> {};

namespace tessera::cpu {

Status RegisterBinaryArithmeticKernels(TSR_Registrar* registrar) {
  // One kernel class serves Add and AddV2 (they differ only for strings in TensorFlow).
  TESSERA_SDK_RETURN_IF_ERROR((RegisterBinaryKernel<SumOp, float, double, int32_t, int64_t>(
      registrar, "Add", RealNumberTypes())));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterBinaryKernel<SumOp, float, double, int32_t, int64_t>(
      registrar, "AddV2", RealNumberTypes())));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterBinaryKernel<DifferenceOp, float, double, int32_t, int64_t>(
      registrar, "Sub", RealNumberTypes())));
  return RegisterBinaryKernel<ProductOp, float, double, int32_t, int64_t>(registrar, "Mul",
                                                                          RealNumberTypes());
}

}  // namespace tessera::cpu
