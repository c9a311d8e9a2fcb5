// MaxPoolGrad, MaxPoolGradV2 (float, double, int32, int64) and AvgPoolGrad (float, double) on CPU,
// NHWC and NCHW. MaxPoolGrad sends each output gradient to the first maximum of its window in
// row-major order (TensorFlow's tie rule, recomputed from orig_input); AvgPoolGrad spreads it
// evenly over the window's elements inside the input.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/pooling.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

Status ExpectShape(const char* what, const Shape& expected, const Shape& actual) {
  if (expected == actual) return OkStatus();
  return sdk::InvalidArgument("Expected ", what, " shape to be ", expected.DebugString(),
                              ", but got ", actual.DebugString());
}

// Calls fn(stride) with the channel stride as a compile-time 1 (NHWC) or as a value (NCHW).
template <typename Fn>
void WithDepthStride(int64_t stride, Fn&& fn) {
  if (stride == 1) {
    fn(std::integral_constant<int64_t, 1>());
  } else {
    fn(stride);
  }
}

Status CheckNoDepthPooling(const PoolAttrs& attrs) {
  if (attrs.ksize[attrs.depth_dim()] != 1 || attrs.strides[attrs.depth_dim()] != 1) {
    return sdk::Unimplemented("MaxPoolingGrad is not yet supported on the depth dimension.");
  }
  return OkStatus();
}

// MaxPoolGrad, or MaxPoolGradV2 (`kV2`: ksize and strides are inputs 3 and 4).
template <bool kV2>
class MaxPoolGradKernel : public sdk::Kernel {
 public:
  explicit MaxPoolGradKernel(KernelConstruction& ctx) {
    attrs_.Parse(ctx, /*allow_explicit=*/!kV2, /*window_attrs=*/!kV2);
    if (!ctx.ok() || kV2) return;
    ctx.SetStatus(CheckNoDepthPooling(attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView output;
    TensorView grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &output));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &grad));
    PoolAttrs attrs = attrs_;
    if constexpr (kV2) {
      TensorView ksize;
      TensorView strides;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(3, &ksize));
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(4, &strides));
      TESSERA_SDK_RETURN_IF_ERROR(attrs.SetWindow(ksize, strides));
      TESSERA_SDK_RETURN_IF_ERROR(CheckNoDepthPooling(attrs));
    }
    if (input.rank() != 4) return sdk::InvalidArgument("tensor_in must be 4-dimensional");
    if (output.rank() != 4) return sdk::InvalidArgument("tensor_out must be 4-dimensional");
    if (grad.rank() != 4) return sdk::InvalidArgument("out_backprop must be 4-dimensional");
    PoolGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(g.Init(attrs, input.shape()));
    const Shape out_shape = g.OutputShape(attrs.channels_first);
    TESSERA_SDK_RETURN_IF_ERROR(ExpectShape("orig_output", out_shape, output.shape()));
    TESSERA_SDK_RETURN_IF_ERROR(ExpectShape("grad", out_shape, grad.shape()));
    TensorView in_grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input.shape(), &in_grad));
    if (in_grad.num_elements() == 0) return OkStatus();
    std::memset(in_grad.raw_data(), 0, in_grad.byte_size());
    if (grad.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      // First the input offset of each window's maximum, then the scatter, one image per shard
      // (windows of different images never share an input element).
      std::vector<int64_t> argmax(static_cast<size_t>(grad.num_elements()));
      FindArgmax<T>(ctx, g, input.data<const T>(), argmax.data());
      const T* dy = grad.data<const T>();
      T* dx = in_grad.data<T>();
      const int64_t per_image = g.out_rows * g.out_cols * g.depth;
      ctx.ParallelFor(g.batch, per_image * 2, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin * per_image; i < end * per_image; ++i) {
          if (argmax[i] >= 0) dx[argmax[i]] += dy[i];
        }
      });
      return OkStatus();
    });
  }

 private:
  // argmax[o] = input offset of the first maximum (row-major in the window) of output o, for
  // outputs laid out as grad is.
  template <typename T>
  static void FindArgmax(KernelContext& ctx, const PoolGeometry& g, const T* in, int64_t* argmax) {
    const int64_t cost =
        CostPerUnit(static_cast<double>(g.out_cols) * static_cast<double>(g.depth) *
                    static_cast<double>(g.window_rows) * static_cast<double>(g.window_cols));
    ctx.ParallelFor(g.batch * g.out_rows, cost, [&](int64_t begin, int64_t end) {
      std::vector<T> best(static_cast<size_t>(g.depth));
      std::vector<int64_t> where(static_cast<size_t>(g.depth));
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t n = unit / g.out_rows;
        const int64_t r = unit % g.out_rows;
        for (int64_t c = 0; c < g.out_cols; ++c) {
          std::fill(best.begin(), best.end(), std::numeric_limits<T>::lowest());
          std::fill(where.begin(), where.end(), -1);
          for (int64_t ir = g.RowBegin(r); ir < g.RowEnd(r); ++ir) {
            for (int64_t ic = g.ColBegin(c); ic < g.ColEnd(c); ++ic) {
              const int64_t base = g.InputOffset(n, ir, ic);
              // NHWC's channels are contiguous: a constant stride of 1 lets the loop vectorise.
              WithDepthStride(g.in_depth_stride, [&](auto stride) {
                for (int64_t d = 0; d < g.depth; ++d) {
                  const int64_t offset = base + d * stride;
                  if (where[d] < 0 || best[d] < in[offset]) {
                    best[d] = in[offset];
                    where[d] = offset;
                  }
                }
              });
            }
          }
          int64_t* dst = argmax + g.OutputOffset(n, r, c);
          for (int64_t d = 0; d < g.depth; ++d) dst[d * g.out_depth_stride] = where[d];
        }
      }
    });
  }

  PoolAttrs attrs_;
};

class AvgPoolGradKernel : public sdk::Kernel {
 public:
  explicit AvgPoolGradKernel(KernelConstruction& ctx) {
    attrs_.Parse(ctx, /*allow_explicit=*/false);
    if (!ctx.ok()) return;
    if (attrs_.ksize[attrs_.depth_dim()] != 1 || attrs_.strides[attrs_.depth_dim()] != 1) {
      ctx.SetStatus(sdk::Unimplemented("Non-spatial pooling is not yet supported. Volunteers? :)"));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView shape_tensor;
    TensorView grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &shape_tensor));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &grad));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, shape_tensor, "orig_input_shape"));
    if (shape_tensor.rank() != 1 || shape_tensor.num_elements() != 4) {
      return sdk::InvalidArgument("orig_input_shape must be 1-dimensional and 4 elements, got ",
                                  shape_tensor.shape().DebugString());
    }
    if (grad.rank() != 4) return sdk::InvalidArgument("out_backprop must be 4-dimensional");
    Shape input_shape;
    for (int i = 0; i < 4; ++i) {
      const int64_t dim = IndexAt(shape_tensor, i);
      if (dim < 0) return sdk::InvalidArgument("Dimension ", dim, " must be >= 0");
      input_shape.AddDim(dim);
    }
    PoolGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(g.Init(attrs_, input_shape));
    TESSERA_SDK_RETURN_IF_ERROR(
        ExpectShape("grad", g.OutputShape(attrs_.channels_first), grad.shape()));
    TensorView in_grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input_shape, &in_grad));
    if (in_grad.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, grad.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Gather<T>(ctx, g, grad.data<const T>(), in_grad.data<T>());
      return OkStatus();
    });
  }

 private:
  // Each input element sums grad / window size over the outputs whose windows cover it, input
  // rows sharded over the pool (no two shards write one element).
  template <typename T>
  static void Gather(KernelContext& ctx, const PoolGeometry& g, const T* dy, T* dx) {
    const int64_t cost = g.cols * g.depth * 4 + 1;
    ctx.ParallelFor(g.batch * g.rows, cost, [&](int64_t begin, int64_t end) {
      std::vector<T> acc(static_cast<size_t>(g.depth));
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t n = unit / g.rows;
        const int64_t ir = unit % g.rows;
        for (int64_t ic = 0; ic < g.cols; ++ic) {
          std::fill(acc.begin(), acc.end(), T(0));
          for (int64_t r = g.FirstOutputRow(ir); r <= g.LastOutputRow(ir); ++r) {
            for (int64_t c = g.FirstOutputCol(ic); c <= g.LastOutputCol(ic); ++c) {
              const T count =
                  static_cast<T>((g.RowEnd(r) - g.RowBegin(r)) * (g.ColEnd(c) - g.ColBegin(c)));
              const T* src = dy + g.OutputOffset(n, r, c);
              WithDepthStride(g.out_depth_stride, [&](auto stride) {
                for (int64_t d = 0; d < g.depth; ++d) acc[d] += src[d * stride] / count;
              });
            }
          }
          T* dst = dx + g.InputOffset(n, ir, ic);
          WithDepthStride(g.in_depth_stride, [&](auto stride) {
            for (int64_t d = 0; d < g.depth; ++d) dst[d * stride] = acc[d];
          });
        }
      }
    });
  }

  PoolAttrs attrs_;
};

}  // namespace

Status RegisterPoolGradKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<MaxPoolGradKernel<false>>(
      registrar, "MaxPoolGrad", kCpu, {{"T", RealNumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<MaxPoolGradKernel<true>>(
      registrar, "MaxPoolGradV2", kCpu, {{"T", RealNumberTypes()}}, 0, 0, {"ksize", "strides"}));
  return sdk::RegisterKernel<AvgPoolGradKernel>(
      registrar, "AvgPoolGrad", kCpu, {{"T", FloatingTypes()}}, 0, 0, {"orig_input_shape"});
}

}  // namespace tessera::cpu
