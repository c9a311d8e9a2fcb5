// Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh and Atan2 on CPU (float, double). Each element goes
// through the C library's function: Eigen's vectorized sin and cos (built with fast math) lose
// accuracy for large arguments and are not IEEE-exact for infinities, NaN and denormals, and
// TensorFlow's answers are the C library's.
#include <cmath>

#include "plugins/cpu/kernels/checked_binary_op.h"
#include "plugins/cpu/kernels/register_math_kernels.h"
#include "plugins/cpu/kernels/unary_op.h"

namespace tessera::cpu {
namespace {

// A scalar functor without packet access: Eigen evaluates it one element at a time (sharded on
// the host's pool), calling Fn::Apply.
template <typename Fn, typename T>
struct ScalarUnaryFn {
  T operator()(const T& x) const { return Fn::Apply(x); }
};

template <typename Fn>
struct LibmExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.unaryExpr(ScalarUnaryFn<Fn, T>());
  }
};

#define TESSERA_LIBM_FN(Name, fn) \
  struct Name {                   \
    template <typename T>         \
    static T Apply(T x) {         \
      return std::fn(x);          \
    }                             \
  };
TESSERA_LIBM_FN(SinFn, sin)
TESSERA_LIBM_FN(CosFn, cos)
TESSERA_LIBM_FN(TanFn, tan)
TESSERA_LIBM_FN(AsinFn, asin)
TESSERA_LIBM_FN(AcosFn, acos)
TESSERA_LIBM_FN(AtanFn, atan)
TESSERA_LIBM_FN(SinhFn, sinh)
TESSERA_LIBM_FN(CoshFn, cosh)
#undef TESSERA_LIBM_FN

// Atan2(y, x): the angle of the point (x, y) in [-pi, pi], with the C library's signed zeros and
// infinities.
template <typename T>
struct Atan2Fn : ScalarBinaryFn<T> {
  T operator()(T y, T x) const { return std::atan2(y, x); }
};

template <typename Fn>
Status RegisterFloating(TSR_Registrar* registrar, const char* op_name) {
  return RegisterUnaryKernel<LibmExpr<Fn>, float, double>(registrar, op_name, FloatingTypes());
}

}  // namespace

Status RegisterTrigonometricKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<SinFn>(registrar, "Sin"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<CosFn>(registrar, "Cos"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<TanFn>(registrar, "Tan"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<AsinFn>(registrar, "Asin"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<AcosFn>(registrar, "Acos"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<AtanFn>(registrar, "Atan"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<SinhFn>(registrar, "Sinh"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<CoshFn>(registrar, "Cosh"));
  return RegisterBinaryKernel<Atan2Fn, float, double>(registrar, "Atan2", FloatingTypes());
}

}  // namespace tessera::cpu
