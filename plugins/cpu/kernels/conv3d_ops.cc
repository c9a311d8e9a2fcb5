// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 (and the V1 gradients, which take the
// shape from a tensor instead of a shape vector) on CPU for float and double: im2col / col2im on
// the GEMM layer with any strides, dilations and SAME/VALID padding; NCDHW through transposes.
#include "plugins/cpu/kernels/conv3d.h"
#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// NDHWC copies of NCDHW tensors: the three spatial dimensions are one run of rows x columns.
template <typename T>
const T* InNdhwc(NhwcBuffers<T>& buffers, const T* data, int64_t batch, const int64_t spatial[3],
                 int64_t depth) {
  return buffers.In(data, batch, spatial[0] * spatial[1], spatial[2], depth);
}

class Conv3DKernel : public sdk::Kernel {
 public:
  explicit Conv3DKernel(KernelConstruction& ctx) { ctx.SetStatus(ReadConv3DAttrs(ctx, &attrs_)); }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView filter;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &filter));
    Conv3DGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeConv3DGeometry(attrs_, input.shape(), filter.shape(), &g));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, attrs_.MakeShape(g.batch, g.out, g.out_depth), &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      NhwcBuffers<T> buffers(attrs_.ncdhw, ctx.thread_pool());
      const T* x = InNdhwc(buffers, input.data<const T>(), g.batch, g.in, g.in_depth);
      T* y = buffers.Out(output.data<T>(), output.num_elements());
      Conv3DForward(g, x, filter.data<const T>(), y, ctx.thread_pool());
      buffers.Finish(output.data<T>(), g.batch, g.out[0] * g.out[1], g.out[2], g.out_depth);
      return OkStatus();
    });
  }

 private:
  Conv3DAttrs attrs_;
};

// Conv3DBackpropInputV2 (`sizes`: input 0 holds the input's shape) or Conv3DBackpropInput
// (input 0 is a tensor of the input's shape).
class Conv3DBackpropInputKernel : public sdk::Kernel {
 public:
  Conv3DBackpropInputKernel(KernelConstruction& ctx, bool sizes) : sizes_(sizes) {
    ctx.SetStatus(ReadConv3DAttrs(ctx, &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView first;
    TensorView filter;
    TensorView out_backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &first));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &filter));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &out_backprop));
    Shape input_shape = first.shape();
    if (sizes_) {
      TESSERA_SDK_RETURN_IF_ERROR(
          Conv3DShapeFromSizes("Conv3DBackpropInputOpV2", first, &input_shape));
    }
    Conv3DGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeConv3DBackpropGeometry(
        "Conv3DBackpropInputOp", attrs_, input_shape, filter.shape(), out_backprop.shape(), &g));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input_shape, &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, filter.dtype(), [&](auto tag) {
      using T = decltype(tag);
      NhwcBuffers<T> buffers(attrs_.ncdhw, ctx.thread_pool());
      const T* dy = InNdhwc(buffers, out_backprop.data<const T>(), g.batch, g.out, g.out_depth);
      T* dx = buffers.Out(output.data<T>(), output.num_elements());
      Conv3DBackpropInput(g, filter.data<const T>(), dy, dx, ctx.thread_pool());
      buffers.Finish(output.data<T>(), g.batch, g.in[0] * g.in[1], g.in[2], g.in_depth);
      return OkStatus();
    });
  }

 private:
  bool sizes_;
  Conv3DAttrs attrs_;
};

// Conv3DBackpropFilterV2 (`sizes`: input 1 holds the filter's shape) or Conv3DBackpropFilter
// (input 1 is a tensor of the filter's shape).
class Conv3DBackpropFilterKernel : public sdk::Kernel {
 public:
  Conv3DBackpropFilterKernel(KernelConstruction& ctx, bool sizes) : sizes_(sizes) {
    ctx.SetStatus(ReadConv3DAttrs(ctx, &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView second;
    TensorView out_backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &second));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &out_backprop));
    Shape filter_shape = second.shape();
    if (sizes_) {
      TESSERA_SDK_RETURN_IF_ERROR(
          Conv3DShapeFromSizes("Conv3DBackpropFilterOpV2", second, &filter_shape));
    }
    Conv3DGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeConv3DBackpropGeometry(
        "Conv3DBackpropFilterOp", attrs_, input.shape(), filter_shape, out_backprop.shape(), &g));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, filter_shape, &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      NhwcBuffers<T> buffers(attrs_.ncdhw, ctx.thread_pool());
      const T* x = InNdhwc(buffers, input.data<const T>(), g.batch, g.in, g.in_depth);
      const T* dy = InNdhwc(buffers, out_backprop.data<const T>(), g.batch, g.out, g.out_depth);
      Conv3DBackpropFilter(g, x, dy, output.data<T>(), ctx.thread_pool());
      return OkStatus();
    });
  }

 private:
  bool sizes_;
  Conv3DAttrs attrs_;
};

template <bool kSizes>
class Conv3DBackpropInputOf : public Conv3DBackpropInputKernel {
 public:
  explicit Conv3DBackpropInputOf(KernelConstruction& ctx)
      : Conv3DBackpropInputKernel(ctx, kSizes) {}
};
template <bool kSizes>
class Conv3DBackpropFilterOf : public Conv3DBackpropFilterKernel {
 public:
  explicit Conv3DBackpropFilterOf(KernelConstruction& ctx)
      : Conv3DBackpropFilterKernel(ctx, kSizes) {}
};

}  // namespace

Status RegisterConv3DKernels(TSR_Registrar* registrar) {
  const std::vector<sdk::TypeConstraint> floating = {{"T", FloatingTypes()}};
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<Conv3DKernel>(registrar, "Conv3D", kCpu, floating));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<Conv3DBackpropInputOf<true>>(
      registrar, "Conv3DBackpropInputV2", kCpu, floating, 0, 0, {"input_sizes"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<Conv3DBackpropFilterOf<true>>(
      registrar, "Conv3DBackpropFilterV2", kCpu, floating, 0, 0, {"filter_sizes"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<Conv3DBackpropInputOf<false>>(
      registrar, "Conv3DBackpropInput", kCpu, floating));
  return sdk::RegisterKernel<Conv3DBackpropFilterOf<false>>(registrar, "Conv3DBackpropFilter", kCpu,
                                                            floating);
}

}  // namespace tessera::cpu
