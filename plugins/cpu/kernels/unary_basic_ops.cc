// Neg, Abs, Square, Relu and Relu6 on CPU (float, double, int32, int64).
#include <type_traits>

#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/unary_op.h"

namespace tessera::cpu {
namespace {

// Integer Neg, Abs and Square wrap around in two's complement, as TensorFlow's do (Neg and Abs
// of INT32_MIN are INT32_MIN): computed in the unsigned type, where wrapping is defined.
template <typename T>
struct WrappingNeg {
  T operator()(T v) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U{0} - static_cast<U>(v));
  }
};
template <typename T>
struct WrappingAbs {
  T operator()(T v) const { return v < 0 ? WrappingNeg<T>()(v) : v; }
};
template <typename T>
struct WrappingSquare {
  T operator()(T v) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(v) * static_cast<U>(v));
  }
};

struct NegExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    if constexpr (std::is_integral_v<T>) {
      return in.unaryExpr(WrappingNeg<T>());
    } else {
      return -in;
    }
  }
};
struct AbsExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    if constexpr (std::is_integral_v<T>) {
      return in.unaryExpr(WrappingAbs<T>());
    } else {
      return in.abs();
    }
  }
};
struct SquareExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    if constexpr (std::is_integral_v<T>) {
      return in.unaryExpr(WrappingSquare<T>());
    } else {
      return in.square();
    }
  }
};
// TensorFlow: features.cwiseMax(0) and features.cwiseMax(0).cwiseMin(6).
struct ReluExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.cwiseMax(static_cast<T>(0));
  }
};
struct Relu6Expr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.cwiseMax(static_cast<T>(0)).cwiseMin(static_cast<T>(6));
  }
};

template <typename Expr>
Status RegisterReal(TSR_Registrar* registrar, const char* op_name) {
  return RegisterUnaryKernel<Expr, float, double, int32_t, int64_t>(registrar, op_name,
                                                                    RealNumberTypes());
}

}  // namespace

Status RegisterUnaryBasicKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReal<NegExpr>(registrar, "Neg"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReal<AbsExpr>(registrar, "Abs"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReal<SquareExpr>(registrar, "Square"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReal<ReluExpr>(registrar, "Relu"));
  return RegisterReal<Relu6Expr>(registrar, "Relu6");
}

}  // namespace tessera::cpu
