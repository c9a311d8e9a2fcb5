// Neg, Abs, Square, Relu and Relu6 on CPU (float, double, int32, int64).
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/unary_op.h"

namespace tessera::cpu {
namespace {

struct NegExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return -in;
  }
};
struct AbsExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.abs();
  }
};
struct SquareExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.square();
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
  TSR_SDK_RETURN_IF_ERROR(RegisterReal<NegExpr>(registrar, "Neg"));
  TSR_SDK_RETURN_IF_ERROR(RegisterReal<AbsExpr>(registrar, "Abs"));
  TSR_SDK_RETURN_IF_ERROR(RegisterReal<SquareExpr>(registrar, "Square"));
  TSR_SDK_RETURN_IF_ERROR(RegisterReal<ReluExpr>(registrar, "Relu"));
  return RegisterReal<Relu6Expr>(registrar, "Relu6");
}

}  // namespace tessera::cpu
