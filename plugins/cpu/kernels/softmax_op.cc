// Softmax and LogSoftmax on CPU (float, double) over the last axis: subtract the row maximum,
// exponentiate, normalize (or subtract the log of the sum); rows sharded over the host's pool,
// each row vectorized with Eigen arrays. A row's -inf logits (masked positions) give exactly 0, and
// a NaN anywhere in a row makes the whole row NaN, as in TensorFlow.
#include <Eigen/Core>
#include <cmath>

#include "plugins/cpu/kernels/exact_math.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <bool kLog>
class SoftmaxKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView logits;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &logits));
    if (logits.rank() < 1) {
      return sdk::InvalidArgument("logits must have >= 1 dimension, got ",
                                  logits.shape().DebugString());
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, logits.shape(), &out));
    if (out.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, logits.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
      const int64_t depth = logits.dim(logits.rank() - 1);
      const int64_t rows = logits.num_elements() / depth;
      const T* in = logits.data<const T>();
      T* o = out.data<T>();
      ctx.ParallelFor(rows, depth * 20, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          Eigen::Map<const Row> src(in + r * depth, depth);
          Eigen::Map<Row> dst(o + r * depth, depth);
          const T max = src.template maxCoeff<Eigen::PropagateNaN>();
          const ExactUnaryOp<ExpPolicy, T> exp;
          if constexpr (kLog) {
            dst = src - max;
            dst -= std::log(dst.unaryExpr(exp).sum());
          } else {
            dst = (src - max).unaryExpr(exp);
            dst /= dst.sum();
          }
        }
      });
      return OkStatus();
    });
  }
};

}  // namespace

Status RegisterSoftmaxKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SoftmaxKernel<false>>(registrar, "Softmax", kCpu,
                                                                    {{"T", FloatingTypes()}}));
  return sdk::RegisterKernel<SoftmaxKernel<true>>(registrar, "LogSoftmax", kCpu,
                                                  {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
