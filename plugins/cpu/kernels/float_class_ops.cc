// IsNan, IsInf and IsFinite (float, double in, bool out) and Rint (float, double: round half to
// even, as the default rounding mode, which the host never changes, does).
#include <cmath>

#include "plugins/cpu/kernels/eigen_util.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_math_kernels.h"
#include "plugins/cpu/kernels/unary_op.h"

namespace tessera::cpu {
namespace {

struct IsNanFn {
  template <typename T>
  static bool Apply(T x) {
    return std::isnan(x);
  }
};
struct IsInfFn {
  template <typename T>
  static bool Apply(T x) {
    return std::isinf(x);
  }
};
struct IsFiniteFn {
  template <typename T>
  static bool Apply(T x) {
    return std::isfinite(x);
  }
};

// y[i] = Fn::Apply(x[i]) as a bool, in shards of the host's pool.
template <typename Fn>
class FloatPredicateKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    return DispatchTypes<float, double>(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.shape(), &out));
      const T* in = x.data<const T>();
      bool* o = out.data<bool>();
      ctx.ParallelFor(out.num_elements(), 2, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = Fn::Apply(in[i]);
      });
      return OkStatus();
    });
  }
};

template <typename Fn>
Status RegisterPredicate(TSR_Registrar* registrar, const char* op_name) {
  return sdk::RegisterKernel<FloatPredicateKernel<Fn>>(
      registrar, op_name, kCpu, {{"T", FloatingTypes()}}, TSR_KERNEL_FLAG_CHEAP);
}

struct RintExpr {
  template <typename T, typename In>
  static auto Apply(const In& in) {
    return in.rint();
  }
};

}  // namespace

Status RegisterFloatClassKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterPredicate<IsNanFn>(registrar, "IsNan"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterPredicate<IsInfFn>(registrar, "IsInf"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterPredicate<IsFiniteFn>(registrar, "IsFinite"));
  return RegisterUnaryKernel<RintExpr, float, double>(registrar, "Rint", FloatingTypes());
}

}  // namespace tessera::cpu
