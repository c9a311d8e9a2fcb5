// DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter on CPU (float,
// double): direct loops on the host's pool, any strides (equal in rows and columns, as TensorFlow
// requires), dilations and paddings; NCHW through transposes to NHWC.
#include <algorithm>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/gemm/parallel.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// The attrs, checked as ReadConvAttrs does, except that strides in the batch or depth dimension
// are INVALID_ARGUMENT, as TensorFlow's depthwise gradients say.
Status ReadDepthwiseBackpropAttrs(KernelConstruction& ctx, ConvAttrs* attrs) {
  std::vector<int64_t> strides;
  std::string data_format;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  const bool nchw = data_format == "NCHW";
  // TensorFlow checks that the row and column strides are equal first.
  if (strides.size() == 4 && strides[nchw ? 2 : 1] == strides[nchw ? 3 : 2] &&
      (strides[0] != 1 || strides[nchw ? 1 : 3] != 1)) {
    return sdk::InvalidArgument(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  }
  return ReadConvAttrs(ctx, /*depthwise=*/true, attrs);
}

// A shape from the values of the 1-D int32 tensor `sizes` (input `name`).
Status ShapeFromSizes(const TensorView& sizes, const char* name, Shape* shape) {
  *shape = Shape();
  for (int64_t i = 0; i < sizes.num_elements(); ++i) {
    const int64_t size = IndexAt(sizes, i);
    if (size < 0) return sdk::InvalidArgument("Dimension ", i, " of ", name, " must be >= 0");
    shape->AddDim(size);
  }
  return OkStatus();
}

// TensorFlow's checks of the gradients' operands (`label` starts every message), then the
// forward convolution's geometry, whose output must be out_backprop's size.
Status DepthwiseBackpropGeometry(const char* label, const ConvAttrs& attrs, const Shape& input,
                                 const Shape& filter, const Shape& out_backprop, ConvGeometry* g) {
  if (input.rank() != 4) return sdk::InvalidArgument(label, ": input must be 4-dimensional");
  if (filter.rank() != 4) return sdk::InvalidArgument(label, ": filter must be 4-dimensional");
  if (out_backprop.rank() != 4) {
    return sdk::InvalidArgument(label, ": out_backprop must be 4-dimensional");
  }
  if (input.dim(attrs.batch_dim()) != out_backprop.dim(attrs.batch_dim())) {
    return sdk::InvalidArgument(label, ": input and out_backprop must have the same batch size");
  }
  const int64_t in_depth = input.dim(attrs.depth_dim());
  if (in_depth != filter.dim(2)) {
    return sdk::InvalidArgument(label, ": input and filter must have the same in_depth");
  }
  if (in_depth * filter.dim(3) != out_backprop.dim(attrs.depth_dim())) {
    return sdk::InvalidArgument(label, ": depth_multiplier * in_depth not equal to out_depth");
  }
  TESSERA_SDK_RETURN_IF_ERROR(ComputeDepthwiseGeometry(attrs, input, filter, g));
  if (out_backprop.dim(attrs.rows_dim()) != g->out_rows) {
    return sdk::InvalidArgument(label, ": Number of rows of out_backprop doesn't match computed: ",
                                "actual = ", out_backprop.dim(attrs.rows_dim()),
                                ", computed = ", g->out_rows);
  }
  if (out_backprop.dim(attrs.cols_dim()) != g->out_cols) {
    return sdk::InvalidArgument(label, ": Number of cols of out_backprop doesn't match computed: ",
                                "actual = ", out_backprop.dim(attrs.cols_dim()),
                                ", computed = ", g->out_cols);
  }
  return OkStatus();
}

// in_backprop[b, iy, ix, c] = sum over the taps (kh, kw) that read input (iy, ix) of
// sum_q out_backprop[b, oy, ox, c * multiplier + q] * filter[kh, kw, c, q], in (kh, kw) order;
// one input row per item, so every output element is written by one thread.
template <typename T>
void DepthwiseBackpropInput(const ConvGeometry& g, const T* filter, const T* out_backprop,
                            T* in_backprop, TSR_ThreadPool* pool) {
  const int64_t depth = g.in_depth;
  const int64_t out_depth = g.out_depth;
  const int64_t multiplier = depth == 0 ? 0 : out_depth / depth;
  const double work =
      2.0 * static_cast<double>(g.in_cols * g.filter_rows * g.filter_cols * out_depth);
  ParallelItems(pool, g.batch * g.in_rows, work, [&](int, int64_t item) {
    const int64_t b = item / g.in_rows;
    const int64_t iy = item % g.in_rows;
    T* in_row = in_backprop + item * g.in_cols * depth;
    std::fill(in_row, in_row + g.in_cols * depth, T(0));
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t oy = g.OutputRow(iy, kh);
      if (oy < 0) continue;
      const T* dy_line = out_backprop + (b * g.out_rows + oy) * g.out_cols * out_depth;
      for (int64_t ix = 0; ix < g.in_cols; ++ix) {
        T* dx = in_row + ix * depth;
        for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
          const int64_t ox = g.OutputCol(ix, kw);
          if (ox < 0) continue;
          const T* dy = dy_line + ox * out_depth;
          const T* f = filter + (kh * g.filter_cols + kw) * out_depth;
          if (multiplier == 1) {
            for (int64_t c = 0; c < depth; ++c) dx[c] += dy[c] * f[c];
          } else {
            for (int64_t c = 0; c < depth; ++c) {
              T sum = T(0);
              for (int64_t q = 0; q < multiplier; ++q) {
                sum += dy[c * multiplier + q] * f[c * multiplier + q];
              }
              dx[c] += sum;
            }
          }
        }
      }
    }
  });
}

// filter_backprop[kh, kw, c, q] = sum over (b, oy, ox) of input[b, iy, ix, c] *
// out_backprop[b, oy, ox, c * multiplier + q]. One item per window tap and block of channels,
// so every output element is summed by one thread in the same order on every run.
template <typename T>
void DepthwiseBackpropFilter(const ConvGeometry& g, const T* input, const T* out_backprop,
                             T* filter_backprop, TSR_ThreadPool* pool) {
  const int64_t depth = g.in_depth;
  const int64_t out_depth = g.out_depth;
  const int64_t multiplier = depth == 0 ? 0 : out_depth / depth;
  const int64_t taps = g.filter_rows * g.filter_cols;
  const int64_t block = std::max<int64_t>(1, 64 / std::max<int64_t>(1, multiplier));
  const int64_t blocks = (depth + block - 1) / block;
  const double work = 2.0 * static_cast<double>(g.batch * g.out_rows * g.out_cols *
                                                std::min(block, depth) * multiplier);
  ParallelItems(pool, taps * blocks, work, [&](int, int64_t item) {
    const int64_t tap = item / blocks;
    const int64_t kh = tap / g.filter_cols;
    const int64_t kw = tap % g.filter_cols;
    const int64_t c_begin = (item % blocks) * block;
    const int64_t c_end = std::min(depth, c_begin + block);
    T* df = filter_backprop + tap * out_depth;
    std::fill(df + c_begin * multiplier, df + c_end * multiplier, T(0));
    int64_t oy_begin, oy_end, ox_begin, ox_end;
    g.OutputRowsReading(kh, &oy_begin, &oy_end);
    g.OutputColsReading(kw, &ox_begin, &ox_end);
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t oy = oy_begin; oy < oy_end; ++oy) {
        const int64_t iy = g.InputRow(oy, kh);
        const T* x_line = input + (b * g.in_rows + iy) * g.in_cols * depth;
        const T* dy_line = out_backprop + (b * g.out_rows + oy) * g.out_cols * out_depth;
        for (int64_t ox = ox_begin; ox < ox_end; ++ox) {
          const int64_t ix = g.InputCol(ox, kw);
          const T* x = x_line + ix * depth;
          const T* dy = dy_line + ox * out_depth;
          if (multiplier == 1) {
            for (int64_t c = c_begin; c < c_end; ++c) df[c] += x[c] * dy[c];
          } else {
            for (int64_t c = c_begin; c < c_end; ++c) {
              const T v = x[c];
              for (int64_t q = 0; q < multiplier; ++q) {
                df[c * multiplier + q] += v * dy[c * multiplier + q];
              }
            }
          }
        }
      }
    }
  });
}

class DepthwiseConv2dNativeBackpropInputKernel : public sdk::Kernel {
 public:
  explicit DepthwiseConv2dNativeBackpropInputKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadDepthwiseBackpropAttrs(ctx, &attrs_));
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
    TESSERA_SDK_RETURN_IF_ERROR(ShapeFromSizes(sizes, "input_sizes", &input_shape));
    ConvGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(DepthwiseBackpropGeometry("DepthwiseConv2DBackpropInput", attrs_,
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
      DepthwiseBackpropInput(g, filter.data<const T>(), dy, dx, ctx.thread_pool());
      nhwc.Finish(output.data<T>(), g.batch, g.in_rows, g.in_cols, g.in_depth);
      return OkStatus();
    });
  }

 private:
  ConvAttrs attrs_;
};

class DepthwiseConv2dNativeBackpropFilterKernel : public sdk::Kernel {
 public:
  explicit DepthwiseConv2dNativeBackpropFilterKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadDepthwiseBackpropAttrs(ctx, &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView sizes;
    TensorView out_backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &sizes));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &out_backprop));
    if (sizes.rank() != 1) {
      return sdk::InvalidArgument("Conv2DBackpropFilter: filter_sizes input must be 1-dim, not ",
                                  sizes.rank());
    }
    Shape filter_shape;
    TESSERA_SDK_RETURN_IF_ERROR(ShapeFromSizes(sizes, "filter_sizes", &filter_shape));
    ConvGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(DepthwiseBackpropGeometry("DepthwiseConv2DBackpropFilter", attrs_,
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
      DepthwiseBackpropFilter(g, x, dy, output.data<T>(), ctx.thread_pool());
      return OkStatus();
    });
  }

 private:
  ConvAttrs attrs_;
};

}  // namespace

Status RegisterDepthwiseConvBackpropKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<DepthwiseConv2dNativeBackpropInputKernel>(
      registrar, "DepthwiseConv2dNativeBackpropInput", kCpu, {{"T", FloatingTypes()}}, 0, 0,
      {"input_sizes"}));
  return sdk::RegisterKernel<DepthwiseConv2dNativeBackpropFilterKernel>(
      registrar, "DepthwiseConv2dNativeBackpropFilter", kCpu, {{"T", FloatingTypes()}}, 0, 0,
      {"filter_sizes"});
}

}  // namespace tessera::cpu
