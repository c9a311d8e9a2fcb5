// Log1p, Expm1, Erf and Reciprocal on CPU (float, double), with Eigen's functors: log1p and expm1
// stay accurate near zero, Reciprocal of zero is an infinity of the zero's sign.
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/unary_op.h"

namespace tessera::cpu {
namespace {

struct Log1pExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.log1p();
  }
};
struct Expm1Expr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.expm1();
  }
};
struct ErfExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.erf();
  }
};
struct ReciprocalExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.inverse();
  }
};

template <typename Expr>
Status RegisterFloating(TSR_Registrar* registrar, const char* op_name) {
  return RegisterUnaryKernel<Expr, float, double>(registrar, op_name, FloatingTypes());
}

}  // namespace

Status RegisterUnarySpecialKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<Log1pExpr>(registrar, "Log1p"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<Expm1Expr>(registrar, "Expm1"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<ErfExpr>(registrar, "Erf"));
  return RegisterFloating<ReciprocalExpr>(registrar, "Reciprocal");
}

}  // namespace tessera::cpu
