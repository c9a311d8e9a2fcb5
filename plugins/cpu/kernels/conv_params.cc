// Attribute and geometry checks of the convolution kernels, with TensorFlow's messages, and the
// layout transposes.
#include "plugins/cpu/kernels/conv_params.h"

#include <algorithm>
#include <limits>

#include "plugins/cpu/kernels/gemm/parallel.h"

namespace tessera::cpu {
namespace {

Status CheckValidPadding(const ConvAttrs& attrs) {
  if (attrs.padding != "EXPLICIT") {
    if (attrs.explicit_paddings.empty()) return OkStatus();
    return sdk::InvalidArgument(
        "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  }
  if (attrs.explicit_paddings.size() != 8) {
    return sdk::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                                attrs.explicit_paddings.size());
  }
  for (int64_t value : attrs.explicit_paddings) {
    if (value < 0) {
      return sdk::InvalidArgument("All elements of explicit_paddings must be nonnegative");
    }
  }
  for (int dim : {attrs.batch_dim(), attrs.depth_dim()}) {
    if (attrs.explicit_paddings[2 * dim] != 0 || attrs.explicit_paddings[2 * dim + 1] != 0) {
      return sdk::InvalidArgument(
          "Nonzero explicit padding in the batch or depth dimensions is not supported");
    }
  }
  return OkStatus();
}

// The output sizes and paddings of both spatial dimensions.
Status SpatialGeometry(const ConvAttrs& attrs, ConvGeometry* g) {
  g->stride_rows = attrs.strides[attrs.rows_dim()];
  g->stride_cols = attrs.strides[attrs.cols_dim()];
  g->dilation_rows = attrs.dilations[attrs.rows_dim()];
  g->dilation_cols = attrs.dilations[attrs.cols_dim()];
  if (attrs.padding == "EXPLICIT") {
    g->pad_top = attrs.explicit_paddings[2 * attrs.rows_dim()];
    g->pad_bottom = attrs.explicit_paddings[2 * attrs.rows_dim() + 1];
    g->pad_left = attrs.explicit_paddings[2 * attrs.cols_dim()];
    g->pad_right = attrs.explicit_paddings[2 * attrs.cols_dim() + 1];
  }
  TESSERA_SDK_RETURN_IF_ERROR(WindowedOutputSize(g->in_rows, g->filter_rows, g->dilation_rows,
                                             g->stride_rows, attrs.padding, &g->out_rows,
                                             &g->pad_top, &g->pad_bottom));
  return WindowedOutputSize(g->in_cols, g->filter_cols, g->dilation_cols, g->stride_cols,
                            attrs.padding, &g->out_cols, &g->pad_left, &g->pad_right);
}

}  // namespace

Shape ConvAttrs::MakeShape(int64_t batch, int64_t rows, int64_t cols, int64_t depth) const {
  return nchw ? Shape{batch, depth, rows, cols} : Shape{batch, rows, cols, depth};
}

bool ConvGeometry::IsPointwise() const {
  return filter_rows == 1 && filter_cols == 1 && stride_rows == 1 && stride_cols == 1 &&
         pad_top == 0 && pad_bottom == 0 && pad_left == 0 && pad_right == 0;
}

Status ReadConvAttrs(KernelConstruction& ctx, bool depthwise, ConvAttrs* attrs) {
  std::string data_format;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  if (data_format != "NHWC" && data_format != "NCHW") {
    return sdk::InvalidArgument("Invalid data format");
  }
  attrs->nchw = data_format == "NCHW";
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("strides", &attrs->strides));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("dilations", &attrs->dilations));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("padding", &attrs->padding));
  if (ctx.HasAttr("explicit_paddings")) {
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("explicit_paddings", &attrs->explicit_paddings));
  }
  if (attrs->dilations.size() != 4) {
    return sdk::InvalidArgument("Sliding window dilations field must specify 4 dimensions");
  }
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("strides", attrs->strides));
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("dilations", attrs->dilations));
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("explicit_paddings", attrs->explicit_paddings));
  if (attrs->strides.size() != 4) {
    return sdk::InvalidArgument("Sliding window strides field must specify 4 dimensions");
  }
  const auto& s = attrs->strides;
  if (s[attrs->batch_dim()] != 1 || s[attrs->depth_dim()] != 1) {
    return sdk::Unimplemented(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  }
  if (s[attrs->rows_dim()] <= 0 || s[attrs->cols_dim()] <= 0) {
    return sdk::InvalidArgument("Row and column strides should be larger than 0.");
  }
  if (depthwise && s[attrs->rows_dim()] != s[attrs->cols_dim()]) {
    return sdk::InvalidArgument(
        "Current implementation only supports equal length strides in the row and column "
        "dimensions.");
  }
  const auto& d = attrs->dilations;
  if (d[attrs->batch_dim()] != 1 || d[attrs->depth_dim()] != 1) {
    return sdk::Unimplemented(
        "Current implementation does not yet support dilations in the batch and depth "
        "dimensions.");
  }
  if (d[attrs->rows_dim()] <= 0 || d[attrs->cols_dim()] <= 0) {
    return sdk::InvalidArgument("Dilated rates should be larger than 0.");
  }
  return CheckValidPadding(*attrs);
}

Status WindowedOutputSize(int64_t input, int64_t filter, int64_t dilation, int64_t stride,
                          const std::string& padding, int64_t* output, int64_t* pad_before,
                          int64_t* pad_after) {
  if (stride <= 0) return sdk::InvalidArgument("Stride must be > 0, but got ", stride);
  if (dilation < 1) return sdk::InvalidArgument("Dilation rate must be >= 1, but got ", dilation);
  // 128-bit arithmetic: every operand is a 64-bit number, so nothing below can wrap; a size
  // beyond 64 bits is refused.
  using Wide = __int128;
  constexpr Wide kMax = std::numeric_limits<int64_t>::max();
  const Wide effective_filter = (Wide{filter} - 1) * dilation + 1;
  Wide out = 0;
  Wide before = 0;
  Wide after = 0;
  if (padding == "VALID") {
    out = (Wide{input} - effective_filter + stride) / stride;
  } else if (padding == "EXPLICIT") {
    before = *pad_before;
    after = *pad_after;
    out = (Wide{input} + before + after - effective_filter + stride) / stride;
  } else {
    out = (Wide{input} + stride - 1) / stride;
    Wide needed = (out - 1) * stride + effective_filter - input;
    if (needed < 0) needed = 0;
    before = needed / 2;
    after = needed - before;
  }
  if (effective_filter > kMax || out > kMax || before > kMax || after > kMax) {
    return sdk::InvalidArgument("the window of ", filter, " elements dilated by ", dilation,
                                " with stride ", stride, " over ", input,
                                " has sizes that do not fit in 64 bits");
  }
  *output = static_cast<int64_t>(out);
  *pad_before = static_cast<int64_t>(before);
  *pad_after = static_cast<int64_t>(after);
  if (*output < 0) {
    return sdk::InvalidArgument("Computed output size would be negative: ", *output,
                                " [input_size: ", input,
                                ", effective_filter_size: ", static_cast<int64_t>(effective_filter),
                                ", stride: ", stride, "]");
  }
  return OkStatus();
}

Status ComputeConv2DGeometry(const ConvAttrs& attrs, const Shape& input, const Shape& filter,
                             ConvGeometry* g) {
  if (input.rank() != 4) {
    return sdk::InvalidArgument("input must be 4-dimensional", input.DebugString());
  }
  if (filter.rank() != 4) {
    return sdk::InvalidArgument("filter must be 4-dimensional: ", filter.DebugString());
  }
  *g = ConvGeometry();
  g->batch = input.dim(attrs.batch_dim());
  g->in_rows = input.dim(attrs.rows_dim());
  g->in_cols = input.dim(attrs.cols_dim());
  g->in_depth = input.dim(attrs.depth_dim());
  g->filter_rows = filter.dim(0);
  g->filter_cols = filter.dim(1);
  g->filter_depth = filter.dim(2);
  g->out_depth = filter.dim(3);
  if (g->filter_depth <= 0) {
    return sdk::InvalidArgument("filter depth must be stricly positive, got ", g->filter_depth);
  }
  if (g->in_depth % g->filter_depth != 0) {
    return sdk::InvalidArgument("input depth must be evenly divisible by filter depth: ",
                                g->in_depth, " vs ", g->filter_depth);
  }
  const int64_t groups = g->groups();
  if (groups == 0 || g->out_depth % groups != 0 || g->out_depth < groups) {
    return sdk::InvalidArgument("output depth must be evenly divisible by number of groups: ",
                                g->out_depth, " vs ", groups);
  }
  return SpatialGeometry(attrs, g);
}

Status ComputeDepthwiseGeometry(const ConvAttrs& attrs, const Shape& input, const Shape& filter,
                                ConvGeometry* g) {
  if (input.rank() != 4) {
    return sdk::InvalidArgument("input must be 4-dimensional", input.DebugString());
  }
  if (filter.rank() != 4) {
    return sdk::InvalidArgument("filter must be 4-dimensional: ", filter.DebugString());
  }
  *g = ConvGeometry();
  g->batch = input.dim(attrs.batch_dim());
  g->in_rows = input.dim(attrs.rows_dim());
  g->in_cols = input.dim(attrs.cols_dim());
  g->in_depth = input.dim(attrs.depth_dim());
  if (g->in_depth != filter.dim(2)) {
    return sdk::InvalidArgument("input and filter must have the same depth: ", g->in_depth, " vs ",
                                filter.dim(2));
  }
  g->filter_rows = filter.dim(0);
  g->filter_cols = filter.dim(1);
  g->filter_depth = 1;
  g->out_depth = g->in_depth * filter.dim(3);
  return SpatialGeometry(attrs, g);
}

Status ComputeConvBackpropGeometry(const char* label, const ConvAttrs& attrs, const Shape& input,
                                   const Shape& filter, const Shape& out_backprop,
                                   ConvGeometry* g) {
  if (input.rank() != 4) return sdk::InvalidArgument(label, ": input must be 4-dimensional");
  if (filter.rank() != 4) return sdk::InvalidArgument(label, ": filter must be 4-dimensional");
  if (out_backprop.rank() != 4) {
    return sdk::InvalidArgument(label, ": out_backprop must be 4-dimensional");
  }
  *g = ConvGeometry();
  g->batch = input.dim(attrs.batch_dim());
  if (g->batch != out_backprop.dim(attrs.batch_dim())) {
    return sdk::InvalidArgument(label, ": input and out_backprop must have the same batch size.",
                                " Input batch: ", g->batch,
                                ", outbackprop batch: ", out_backprop.dim(attrs.batch_dim()),
                                ", batch_dim: ", attrs.batch_dim());
  }
  g->in_rows = input.dim(attrs.rows_dim());
  g->in_cols = input.dim(attrs.cols_dim());
  g->in_depth = input.dim(attrs.depth_dim());
  g->filter_rows = filter.dim(0);
  g->filter_cols = filter.dim(1);
  g->filter_depth = filter.dim(2);
  g->out_depth = filter.dim(3);
  if (g->filter_depth <= 0) {
    return sdk::InvalidArgument(label, ": filter depth must be strictly greated than zero");
  }
  if (g->in_depth % g->filter_depth != 0) {
    return sdk::InvalidArgument(label, ": input depth must be evenly divisible by filter depth");
  }
  if (g->out_depth != out_backprop.dim(attrs.depth_dim())) {
    return sdk::InvalidArgument(label, ": filter and out_backprop must have the same out_depth");
  }
  if (g->out_depth % g->groups() != 0) {
    return sdk::InvalidArgument(
        label, ": output depth must be evenly divisible by number of groups: ", g->out_depth,
        " vs ", g->groups());
  }
  TESSERA_SDK_RETURN_IF_ERROR(SpatialGeometry(attrs, g));
  const int64_t actual[2] = {out_backprop.dim(attrs.rows_dim()),
                             out_backprop.dim(attrs.cols_dim())};
  const int64_t computed[2] = {g->out_rows, g->out_cols};
  const int64_t dims[2] = {attrs.rows_dim(), attrs.cols_dim()};
  const int64_t inputs[2] = {g->in_rows, g->in_cols};
  const int64_t filters[2] = {g->filter_rows, g->filter_cols};
  const int64_t strides[2] = {g->stride_rows, g->stride_cols};
  const int64_t dilations[2] = {g->dilation_rows, g->dilation_cols};
  for (int i = 0; i < 2; ++i) {
    if (actual[i] != computed[i]) {
      return sdk::InvalidArgument(
          label, ": Size of out_backprop doesn't match computed: ", "actual = ", actual[i],
          ", computed = ", computed[i], " spatial_dim: ", dims[i], " input: ", inputs[i],
          " filter: ", filters[i], " output: ", actual[i], " stride: ", strides[i],
          " dilation: ", dilations[i]);
    }
  }
  return OkStatus();
}

template <typename T>
void NchwToNhwc(const T* in, int64_t batch, int64_t depth, int64_t rows, int64_t cols, T* out,
                TSR_ThreadPool* pool) {
  const int64_t plane = rows * cols;
  ParallelItems(pool, batch * rows, static_cast<double>(cols * depth), [&](int, int64_t item) {
    const int64_t b = item / rows;
    const int64_t r = item % rows;
    T* dst = out + (b * rows + r) * cols * depth;
    const T* src = in + b * depth * plane + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t d = 0; d < depth; ++d) dst[c * depth + d] = src[d * plane + c];
    }
  });
}

template <typename T>
void NhwcToNchw(const T* in, int64_t batch, int64_t rows, int64_t cols, int64_t depth, T* out,
                TSR_ThreadPool* pool) {
  const int64_t plane = rows * cols;
  ParallelItems(pool, batch * depth, static_cast<double>(plane), [&](int, int64_t item) {
    const int64_t b = item / depth;
    const int64_t d = item % depth;
    T* dst = out + (b * depth + d) * plane;
    const T* src = in + b * plane * depth + d;
    for (int64_t p = 0; p < plane; ++p) dst[p] = src[p * depth];
  });
}

template void NchwToNhwc<float>(const float*, int64_t, int64_t, int64_t, int64_t, float*,
                                TSR_ThreadPool*);
template void NchwToNhwc<double>(const double*, int64_t, int64_t, int64_t, int64_t, double*,
                                 TSR_ThreadPool*);
template void NhwcToNchw<float>(const float*, int64_t, int64_t, int64_t, int64_t, float*,
                                TSR_ThreadPool*);
template void NhwcToNchw<double>(const double*, int64_t, int64_t, int64_t, int64_t, double*,
                                 TSR_ThreadPool*);

}  // namespace tessera::cpu
