// LinSpace on CPU (float, double; num int32/int64): `num` evenly spaced values from start to stop,
// the last exactly stop, as TensorFlow computes them (start + i * step). Inputs in host memory.
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_math_kernels.h"

namespace tessera::cpu {
namespace {

class LinSpaceKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    static const char* const kNames[3] = {"start", "stop", "num"};
    TensorView views[3];
    for (int i = 0; i < 3; ++i) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &views[i]));
      // A one-element vector is accepted as a scalar, as TensorFlow does.
      const bool scalar = views[i].rank() == 0 || (views[i].rank() == 1 && views[i].dim(0) == 1);
      if (!scalar) {
        return sdk::InvalidArgument(kNames[i], " must be a scalar, not shape ",
                                    views[i].shape().DebugString());
      }
    }
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, views[2], "num"));
    const int64_t num = IndexAt(views[2], 0);
    if (num <= 0) return sdk::InvalidArgument("Requires num > 0: ", num);
    return DispatchTypes<float, double>(ctx, views[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T start = views[0].data<const T>()[0];
      const T stop = views[1].data<const T>()[0];
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape({num}), &out));
      T* o = out.data<T>();
      if (num == 1) {
        o[0] = start;
        return OkStatus();
      }
      const T step = (stop - start) / static_cast<T>(num - 1);
      for (int64_t i = 0; i < num - 1; ++i) o[i] = start + step * static_cast<T>(i);
      o[num - 1] = stop;
      return OkStatus();
    });
  }
};

}  // namespace

Status RegisterLinSpaceKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<LinSpaceKernel>(registrar, "LinSpace", kCpu,
                                             {{"T", FloatingTypes()}, {"Tidx", IndexTypes()}},
                                             TSR_KERNEL_FLAG_CHEAP, 0, {"start", "stop", "num"});
}

}  // namespace tessera::cpu
