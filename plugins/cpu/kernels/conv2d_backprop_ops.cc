// Conv2DBackpropInput and Conv2DBackpropFilter on CPU (float, double): col2im and im2col on the
// GEMM layer, any groups, strides, dilations and paddings; NCHW through transposes to NHWC.
#include "plugins/cpu/kernels/conv_gemm.h"
#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// A shape from the values of a 1-D int32 tensor.
Status ShapeFromSizes(const TensorView& sizes, Shape* shape) {
  *shape = Shape();
  for (int64_t i = 0; i < sizes.num_elements(); ++i) {
    const int64_t size = IndexAt(sizes, i);
    if (size < 0) return sdk::InvalidArgument("Dimension ", size, " must be >= 0");
    shape->AddDim(size);
  }
  return OkStatus();
}

class Conv2DBackpropInputKernel : public sdk::Kernel {
 public:
  explicit Conv2DBackpropInputKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadConvAttrs(ctx, /*depthwise=*/false, &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView sizes;
    TensorView filter;
    TensorView out_backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &sizes));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &filter));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &out_backprop));
    if (sizes.rank() != 1) {
      return sdk::InvalidArgument("Conv2DBackpropInput: input_sizes input must be 1-dim, not ",
                                  sizes.rank());
    }
    Shape input_shape;
    if (sizes.num_elements() == 4) {
      TESSERA_SDK_RETURN_IF_ERROR(ShapeFromSizes(sizes, &input_shape));
    } else if (sizes.num_elements() == 2) {
      if (out_backprop.rank() != 4 || filter.rank() != 4) {
        return sdk::InvalidArgument(
            "Conv2DCustomBackpropInput: ", out_backprop.rank() != 4 ? "out_backprop" : "filter",
            " must be 4-dimensional");
      }
      Shape spatial;
      TESSERA_SDK_RETURN_IF_ERROR(ShapeFromSizes(sizes, &spatial));
      input_shape = attrs_.MakeShape(out_backprop.dim(attrs_.batch_dim()), spatial.dim(0),
                                     spatial.dim(1), filter.dim(2));
    } else {
      return sdk::InvalidArgument(
          "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: ",
          sizes.num_elements());
    }
    ConvGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeConvBackpropGeometry("Conv2DCustomBackpropInput", attrs_,
                                                        input_shape, filter.shape(),
                                                        out_backprop.shape(), &g));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input_shape, &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, filter.dtype(), [&](auto tag) {
      using T = decltype(tag);
      NhwcBuffers<T> nhwc(attrs_.nchw, ctx.thread_pool());
      const T* dy =
          nhwc.In(out_backprop.data<const T>(), g.batch, g.out_rows, g.out_cols, g.out_depth);
      T* dx = nhwc.Out(output.data<T>(), output.num_elements());
      ConvBackpropInputGemm(g, filter.data<const T>(), dy, dx, ctx.thread_pool());
      nhwc.Finish(output.data<T>(), g.batch, g.in_rows, g.in_cols, g.in_depth);
      return OkStatus();
    });
  }

 private:
  ConvAttrs attrs_;
};

class Conv2DBackpropFilterKernel : public sdk::Kernel {
 public:
  explicit Conv2DBackpropFilterKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadConvAttrs(ctx, /*depthwise=*/false, &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView sizes;
    TensorView out_backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &sizes));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &out_backprop));
    if (sizes.rank() != 1) {
      return sdk::InvalidArgument(
          "Conv2DCustomBackpropFilter: filter_sizes input must be 1-dim, not ", sizes.rank());
    }
    Shape filter_shape;
    TESSERA_SDK_RETURN_IF_ERROR(ShapeFromSizes(sizes, &filter_shape));
    ConvGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeConvBackpropGeometry("Conv2DCustomBackpropFilter", attrs_,
                                                        input.shape(), filter_shape,
                                                        out_backprop.shape(), &g));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, filter_shape, &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      NhwcBuffers<T> nhwc(attrs_.nchw, ctx.thread_pool());
      const T* x = nhwc.In(input.data<const T>(), g.batch, g.in_rows, g.in_cols, g.in_depth);
      const T* dy =
          nhwc.In(out_backprop.data<const T>(), g.batch, g.out_rows, g.out_cols, g.out_depth);
      ConvBackpropFilterGemm(g, x, dy, output.data<T>(), ctx.thread_pool());
      return OkStatus();
    });
  }

 private:
  ConvAttrs attrs_;
};

}  // namespace

Status RegisterConv2DBackpropKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<Conv2DBackpropInputKernel>(
      registrar, "Conv2DBackpropInput", kCpu, {{"T", FloatingTypes()}}, 0, 0, {"input_sizes"}));
  return sdk::RegisterKernel<Conv2DBackpropFilterKernel>(
      registrar, "Conv2DBackpropFilter", kCpu, {{"T", FloatingTypes()}}, 0, 0, {"filter_sizes"});
}

}  // namespace tessera::cpu
