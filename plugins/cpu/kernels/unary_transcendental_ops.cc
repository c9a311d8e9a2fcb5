// Exp, Log, Sqrt, Rsqrt, Tanh and Sigmoid on CPU (float, double), with Eigen's vectorized
// functors (Sigmoid is Eigen's numerically stable logistic, as in TensorFlow); Exp, Log, Sqrt and
// Rsqrt redo the inputs Eigen's fast approximations get wrong (exact_math.h).
#include "plugins/cpu/kernels/exact_math.h"
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/unary_op.h"

namespace tessera::cpu {
namespace {

struct ExpExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.unaryExpr(ExactUnaryOp<ExpPolicy, T>());
  }
};
struct LogExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.unaryExpr(ExactUnaryOp<LogPolicy, T>());
  }
};
struct SqrtExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.unaryExpr(ExactUnaryOp<SqrtPolicy, T>());
  }
};
struct RsqrtExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.unaryExpr(ExactUnaryOp<RsqrtPolicy, T>());
  }
};
struct TanhExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.tanh();
  }
};
struct SigmoidExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.sigmoid();
  }
};

template <typename Expr>
Status RegisterFloating(TSR_Registrar* registrar, const char* op_name) {
  return RegisterUnaryKernel<Expr, float, double>(registrar, op_name, FloatingTypes());
}

}  // namespace

Status RegisterUnaryTranscendentalKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<ExpExpr>(registrar, "Exp"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<LogExpr>(registrar, "Log"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<SqrtExpr>(registrar, "Sqrt"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<RsqrtExpr>(registrar, "Rsqrt"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloating<TanhExpr>(registrar, "Tanh"));
  return RegisterFloating<SigmoidExpr>(registrar, "Sigmoid");
}

}  // namespace tessera::cpu
