// Sign, Floor, Ceil and Round on CPU. Round is half to even (integers unchanged); Sign gives -1, 0
// or 1 and passes NaN through.
#include <type_traits>

#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/unary_op.h"

namespace tessera::cpu {
namespace {

template <typename T>
struct SignFn {
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>((x > 0) - (x < 0));
    } else {
      // Zeros and NaN come back unchanged.
      return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
    }
  }
};

struct SignExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.unaryExpr(SignFn<T>());
  }
};
struct FloorExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.floor();
  }
};
struct CeilExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.ceil();
  }
};
// rint rounds halves to even in the default rounding mode, which the host never changes.
struct RoundExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    if constexpr (std::is_integral_v<T>) {
      return in;
    } else {
      return in.rint();
    }
  }
};

}  // namespace

Status RegisterUnaryRoundingKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR((RegisterUnaryKernel<SignExpr, float, double, int32_t, int64_t>(
      registrar, "Sign", RealNumberTypes())));
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterUnaryKernel<FloorExpr, float, double>(registrar, "Floor", FloatingTypes())));
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterUnaryKernel<CeilExpr, float, double>(registrar, "Ceil", FloatingTypes())));
  return RegisterUnaryKernel<RoundExpr, float, double, int32_t, int64_t>(registrar, "Round",
                                                                         RealNumberTypes());
}

}  // namespace tessera::cpu
