// Conv2D on CPU (float, double): oneDNN's convolution primitives on the host's pool for float,
// im2col and the GEMM layer otherwise (double, grouped convolutions, or whatever oneDNN
// declines). NCHW tensors are transposed to NHWC and back around the computation.
#include <memory>
#include <type_traits>

#include "plugins/cpu/kernels/conv_gemm.h"
#include "plugins/cpu/kernels/conv_onednn.h"
#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class Conv2DKernel : public sdk::Kernel {
 public:
  explicit Conv2DKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadConvAttrs(ctx, /*depthwise=*/false, &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView filter;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &filter));
    ConvGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeConv2DGeometry(attrs_, input.shape(), filter.shape(), &g));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(
        0, attrs_.MakeShape(g.batch, g.out_rows, g.out_cols, g.out_depth), &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Convolve<T>(ctx, g, input.data<const T>(), filter.data<const T>(), output.data<T>());
      return OkStatus();
    });
  }

 private:
  template <typename T>
  void Convolve(KernelContext& ctx, const ConvGeometry& g, const T* input, const T* filter,
                T* output) {
    TSR_ThreadPool* pool = ctx.thread_pool();
    std::unique_ptr<T[]> input_nhwc;
    std::unique_ptr<T[]> output_nhwc;
    if (attrs_.nchw) {
      input_nhwc.reset(new T[static_cast<size_t>(g.batch * g.in_rows * g.in_cols * g.in_depth)]);
      output_nhwc.reset(
          new T[static_cast<size_t>(g.batch * g.out_rows * g.out_cols * g.out_depth)]);
      NchwToNhwc(input, g.batch, g.in_depth, g.in_rows, g.in_cols, input_nhwc.get(), pool);
      input = input_nhwc.get();
    }
    T* result = attrs_.nchw ? output_nhwc.get() : output;
    bool done = false;
    if constexpr (std::is_same_v<T, float>) done = onednn_.Run(g, input, filter, result, pool);
    if (!done) ConvForwardGemm(g, input, filter, result, pool);
    if (attrs_.nchw) {
      NhwcToNchw(result, g.batch, g.out_rows, g.out_cols, g.out_depth, output, pool);
    }
  }

  ConvAttrs attrs_;
  OneDnnConvolution onednn_;
};

}  // namespace

Status RegisterConv2DKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<Conv2DKernel>(registrar, "Conv2D", kCpu, {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
