// CheckNumerics on CPU (float, double): passes its input through unchanged, or fails the step
// with TensorFlow's INVALID_ARGUMENT "<message> : Tensor had Inf values" ("NaN", "Inf and NaN")
// when any element is an infinity or NaN.
#include <cmath>
#include <string>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_math_kernels.h"

namespace tessera::cpu {
namespace {

class CheckNumericsKernel : public sdk::Kernel {
 public:
  explicit CheckNumericsKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("message", &message_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    bool has_inf = false;
    bool has_nan = false;
    Status scanned = DispatchTypes<float, double>(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* data = x.data<const T>();
      const int64_t n = x.num_elements();
      for (int64_t i = 0; i < n && !(has_inf && has_nan); ++i) {
        has_inf = has_inf || std::isinf(data[i]);
        has_nan = has_nan || std::isnan(data[i]);
      }
      return OkStatus();
    });
    if (!scanned.ok()) return scanned;
    if (has_inf || has_nan) {
      const char* what = has_inf && has_nan ? "Inf and NaN" : (has_inf ? "Inf" : "NaN");
      return sdk::InvalidArgument(message_, " : Tensor had ", what, " values");
    }
    return ctx.SetOutputFromInput(0, 0);
  }

 private:
  std::string message_;
};

}  // namespace

Status RegisterCheckNumericsKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<CheckNumericsKernel>(registrar, "CheckNumerics", kCpu,
                                                  {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
