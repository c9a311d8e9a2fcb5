// LogicalAnd and LogicalOr (bool, broadcasting) and LogicalNot (bool) on CPU.
#include "plugins/cpu/kernels/bool_binary_op.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

struct LogicalAndFn {
  static constexpr bool kIncompatibleShapesResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x && y;
  }
};
struct LogicalOrFn {
  static constexpr bool kIncompatibleShapesResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x || y;
  }
};

class LogicalNotKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    if (x.dtype() != TSR_DTYPE_BOOL) return UnsupportedType(ctx, x.dtype());
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &out));
    const bool* xp = x.data<const bool>();
    bool* op = out.data<bool>();
    ctx.ParallelFor(out.num_elements(), 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) op[i] = !xp[i];
    });
    return OkStatus();
  }
};

}  // namespace

Status RegisterLogicalKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterBoolBinaryKernel<LogicalAndFn, bool>(registrar, "LogicalAnd", {})));
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterBoolBinaryKernel<LogicalOrFn, bool>(registrar, "LogicalOr", {})));
  return sdk::RegisterKernel<LogicalNotKernel>(registrar, "LogicalNot", kCpu, {},
                                               TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
