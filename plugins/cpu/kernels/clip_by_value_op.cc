// ClipByValue on CPU (float, double, int32, int64): min(max(t, clip_value_min), clip_value_max)
// element-wise, each bound a scalar or of t's shape, as TensorFlow's kernel requires. A NaN in t
// stays NaN.
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_math_kernels.h"

namespace tessera::cpu {
namespace {

// TensorFlow's order: the upper bound first (a NaN in x fails both comparisons and stays), then
// the lower one, which wins when the bounds cross.
template <typename T>
T Clip(T x, T lo, T hi) {
  const T upper = hi < x ? hi : x;
  return upper < lo ? lo : upper;
}

class ClipByValueKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView t;
    TensorView lo;
    TensorView hi;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &t));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &lo));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &hi));
    const Shape shape = t.shape();
    const bool lo_ok = lo.shape() == shape || lo.rank() == 0;
    const bool hi_ok = hi.shape() == shape || hi.rank() == 0;
    if (!lo_ok || !hi_ok) {
      return sdk::InvalidArgument(
          "clip_value_min and clip_value_max must be either of the same shape as input, or a "
          "scalar. input shape: ",
          shape.DebugString(), " clip_value_min shape: ", lo.shape().DebugString(),
          " clip_value_max shape: ", hi.shape().DebugString());
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* x = t.data<const T>();
      const T* lp = lo.data<const T>();
      const T* hp = hi.data<const T>();
      // A scalar bound is read at index 0 for every element.
      const int64_t lo_stride = lo.rank() == 0 ? 0 : 1;
      const int64_t hi_stride = hi.rank() == 0 ? 0 : 1;
      T* o = out.data<T>();
      ctx.ParallelFor(out.num_elements(), 2, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          o[i] = Clip(x[i], lp[i * lo_stride], hp[i * hi_stride]);
        }
      });
      return OkStatus();
    });
  }
};

}  // namespace

Status RegisterClipByValueKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<ClipByValueKernel>(registrar, "ClipByValue", kCpu,
                                                {{"T", RealNumberTypes()}}, TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
