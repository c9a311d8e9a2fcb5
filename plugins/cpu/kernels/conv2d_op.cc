// Conv2D and _FusedConv2D on CPU (float, double): oneDNN's convolution primitives on the host's
// pool for float (the fused bias and activation as the primitive's bias and post-op), im2col and
// the GEMM layer otherwise (double, grouped convolutions, or whatever oneDNN declines). NCHW
// tensors are transposed to NHWC and back around the computation.
#include <memory>
#include <type_traits>

#include "plugins/cpu/kernels/conv_gemm.h"
#include "plugins/cpu/kernels/conv_onednn.h"
#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/fused_epilogue.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Conv2D, or _FusedConv2D (`kFused`): the convolution followed by a bias over the output
// channels and maybe an activation (FusedEpilogue), inside oneDNN's primitive when it runs there,
// else over the output after the GEMM path.
template <bool kFused>
class Conv2DKernel : public sdk::Kernel {
 public:
  explicit Conv2DKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadConvAttrs(ctx, /*depthwise=*/false, &attrs_));
    if (kFused && ctx.ok()) ctx.SetStatus(epilogue_.Parse(ctx, "_FusedConv2D"));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView filter;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &filter));
    ConvGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeConv2DGeometry(attrs_, input.shape(), filter.shape(), &g));
    TensorView bias;
    if constexpr (kFused) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &bias));
      if (bias.rank() != 1 || bias.dim(0) != g.out_depth) {
        return sdk::InvalidArgument("_FusedConv2D's bias must be a vector of the ", g.out_depth,
                                    " output channels, got ", bias.shape().DebugString());
      }
    }
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(
        0, attrs_.MakeShape(g.batch, g.out_rows, g.out_cols, g.out_depth), &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Convolve<T>(ctx, g, input.data<const T>(), filter.data<const T>(),
                  kFused ? bias.data<const T>() : nullptr, output.data<T>());
      return OkStatus();
    });
  }

 private:
  template <typename T>
  void Convolve(KernelContext& ctx, const ConvGeometry& g, const T* input, const T* filter,
                const T* bias, T* output) {
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
    if constexpr (std::is_same_v<T, float>) {
      ConvPostOps post;
      post.bias = bias;
      post.activation = epilogue_.activation;
      post.leakyrelu_alpha = epilogue_.leakyrelu_alpha;
      done = onednn_.Run(g, input, filter, result, pool, post);
    }
    if (!done) {
      ConvForwardGemm(g, input, filter, result, pool);
      if (bias != nullptr) {
        epilogue_.Apply(ctx, bias, result, g.batch * g.out_rows * g.out_cols, g.out_depth);
      }
    }
    if (attrs_.nchw) {
      NhwcToNchw(result, g.batch, g.out_rows, g.out_cols, g.out_depth, output, pool);
    }
  }

  ConvAttrs attrs_;
  FusedEpilogue epilogue_;
  OneDnnConvolution onednn_;
};

}  // namespace

Status RegisterConv2DKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<Conv2DKernel<false>>(
      registrar, "Conv2D", kCpu, {{"T", FloatingTypes()}}));
  return sdk::RegisterKernel<Conv2DKernel<true>>(registrar, "_FusedConv2D", kCpu,
                                                 {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
