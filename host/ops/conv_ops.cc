// TensorFlow's convolution op definitions: Conv2D, DepthwiseConv2dNative and the two gradients
// of each (Conv2DBackpropInput/Filter, DepthwiseConv2dNativeBackpropInput/Filter), with
// TensorFlow's shape functions.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kBfloat16 = TSR_DTYPE_BFLOAT16;
constexpr DataType kHalf = TSR_DTYPE_HALF;
constexpr DataType kFloat = TSR_DTYPE_FLOAT;
constexpr DataType kDouble = TSR_DTYPE_DOUBLE;
constexpr DataType kInt32 = TSR_DTYPE_INT32;

// The dimension indices of a 4-D NHWC or NCHW tensor.
struct Layout {
  int batch, rows, cols, depth;
};
Layout LayoutOf(const std::string& data_format) {
  if (data_format == "NCHW") return {0, 2, 3, 1};
  return {0, 1, 2, 3};
}

// A 4-D shape from per-layout dimensions.
PartialShape MakeShape(const Layout& layout, int64_t batch, int64_t rows, int64_t cols,
                       int64_t depth) {
  PartialShape shape = PartialShape::UnknownOfRank(4);
  shape.set_dim(layout.batch, batch);
  shape.set_dim(layout.rows, rows);
  shape.set_dim(layout.cols, cols);
  shape.set_dim(layout.depth, depth);
  return shape;
}

// a * b, unknown when either is or when the product does not fit in 64 bits (a shape that large
// is refused when it is allocated).
int64_t MultiplyDims(int64_t a, int64_t b) {
  int64_t product = 0;
  if (a == kUnknownDim || b == kUnknownDim || __builtin_mul_overflow(a, b, &product)) {
    return kUnknownDim;
  }
  return product;
}

// TensorFlow's CheckValidPadding for 4-D tensors.
absl::Status CheckValidPadding(const ShapeInferenceContext& ctx, const std::string& padding,
                               const std::vector<int64_t>& paddings, const Layout& layout) {
  if (padding != "EXPLICIT") {
    if (paddings.empty()) return absl::OkStatus();
    return ctx.Error(
        "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  }
  if (paddings.size() != 8) {
    return ctx.Error(absl::StrCat("explicit_paddings attribute must contain 8 values, but got: ",
                                  paddings.size()));
  }
  for (int64_t value : paddings) {
    if (value < 0) return ctx.Error("All elements of explicit_paddings must be nonnegative");
  }
  for (int dim : {layout.batch, layout.depth}) {
    if (paddings[2 * dim] != 0 || paddings[2 * dim + 1] != 0) {
      return ctx.Error(
          "Nonzero explicit padding in the batch or depth dimensions is not supported");
    }
  }
  return absl::OkStatus();
}

// The spatial output sizes of a convolution over `input` with window rows x cols, from the
// node's strides, dilations, padding and explicit_paddings (already checked to have 4 values).
absl::Status SpatialOutputSizes(const ShapeInferenceContext& ctx, const Layout& layout,
                                const PartialShape& input, int64_t filter_rows, int64_t filter_cols,
                                const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& dilations, int64_t* rows,
                                int64_t* cols) {
  std::string padding;
  std::vector<int64_t> paddings;
  RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
  RETURN_IF_ERROR(ctx.GetAttr("explicit_paddings", &paddings));
  RETURN_IF_ERROR(CheckValidPadding(ctx, padding, paddings, layout));
  if (padding != "EXPLICIT") paddings.assign(8, 0);
  ASSIGN_OR_RETURN(
      *rows, WindowedOutputSize(ctx, input.dim(layout.rows), filter_rows, dilations[layout.rows],
                                strides[layout.rows], padding, paddings[2 * layout.rows],
                                paddings[2 * layout.rows + 1]));
  ASSIGN_OR_RETURN(
      *cols, WindowedOutputSize(ctx, input.dim(layout.cols), filter_cols, dilations[layout.cols],
                                strides[layout.cols], padding, paddings[2 * layout.cols],
                                paddings[2 * layout.cols + 1]));
  return absl::OkStatus();
}

// TensorFlow's Conv2DShapeWithExplicitPadding: NHWC or NCHW input, HWIO filter, grouped when the
// input depth is a multiple of the filter's input depth.
absl::Status Conv2DShape(ShapeInferenceContext& ctx) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  const Layout layout = LayoutOf(data_format);
  PartialShape input;
  PartialShape filter;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, 4));
  ASSIGN_OR_RETURN(filter, ctx.WithRank(1, 4));
  std::vector<int64_t> dilations;
  std::vector<int64_t> strides;
  RETURN_IF_ERROR(ctx.GetAttr("dilations", &dilations));
  if (dilations.size() != 4) {
    return ctx.Error(absl::StrCat(
        "Conv2D requires the dilation attribute to contain 4 values, but got: ", dilations.size()));
  }
  RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
  if (strides.size() != 4) {
    return ctx.Error(absl::StrCat(
        "Conv2D on data format ", data_format,
        " requires the stride attribute to contain 4 values, but got: ", strides.size()));
  }
  const int64_t input_depth = input.dim(layout.depth);
  const int64_t filter_depth = filter.dim(2);
  const int64_t output_depth = filter.dim(3);
  if (input_depth != kUnknownDim && filter_depth != kUnknownDim) {
    if (filter_depth == 0) return ctx.Error("Depth of filter must not be 0");
    if (input_depth % filter_depth != 0) {
      return ctx.Error(absl::StrCat("Depth of input (", input_depth,
                                    ") is not a multiple of input depth of filter (", filter_depth,
                                    ")"));
    }
    const int64_t groups = input_depth / filter_depth;
    if (groups > 1 && output_depth != kUnknownDim && output_depth % groups != 0) {
      return ctx.Error(absl::StrCat("Depth of output (", output_depth,
                                    ") is not a multiple of the number of groups (", groups, ")"));
    }
  }
  int64_t rows;
  int64_t cols;
  RETURN_IF_ERROR(SpatialOutputSizes(ctx, layout, input, filter.dim(0), filter.dim(1), strides,
                                     dilations, &rows, &cols));
  ctx.set_output(0, MakeShape(layout, input.dim(layout.batch), rows, cols, output_depth));
  return absl::OkStatus();
}

// TensorFlow's DepthwiseConv2DNativeShapeWithExplicitPadding: filter [rows, cols, in_depth,
// multiplier], output depth in_depth * multiplier.
absl::Status DepthwiseConv2dNativeShape(ShapeInferenceContext& ctx) {
  PartialShape input;
  PartialShape filter;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, 4));
  ASSIGN_OR_RETURN(filter, ctx.WithRank(1, 4));
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
  if (strides.size() != 4) {
    return ctx.Error(
        absl::StrCat("DepthwiseConv2D requires the stride attribute to contain 4 values, but got: ",
                     strides.size()));
  }
  RETURN_IF_ERROR(ctx.GetAttr("dilations", &dilations));
  if (dilations.size() != 4) {
    return ctx.Error(absl::StrCat(
        "DepthwiseConv2D requires the dilations attribute to contain 4 values, but got: ",
        dilations.size()));
  }
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  const Layout layout = LayoutOf(data_format);
  int64_t input_depth;
  ASSIGN_OR_RETURN(input_depth, ctx.MergeDims(input.dim(layout.depth), filter.dim(2)));
  int64_t rows;
  int64_t cols;
  RETURN_IF_ERROR(SpatialOutputSizes(ctx, layout, input, filter.dim(0), filter.dim(1), strides,
                                     dilations, &rows, &cols));
  ctx.set_output(0, MakeShape(layout, input.dim(layout.batch), rows, cols,
                              MultiplyDims(input_depth, filter.dim(3))));
  return absl::OkStatus();
}

// TensorFlow's Conv2DBackpropInputShape: the shape is input_sizes (4 values, or the 2 spatial
// sizes with batch from out_backprop and depth from the filter).
absl::Status Conv2DBackpropInputShape(ShapeInferenceContext& ctx) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  const Layout layout = LayoutOf(data_format);
  PartialShape out_backprop;
  PartialShape filter;
  ASSIGN_OR_RETURN(out_backprop, ctx.WithRank(2, 4));
  ASSIGN_OR_RETURN(filter, ctx.WithRank(1, 4));
  RETURN_IF_ERROR(ctx.MergeDims(out_backprop.dim(layout.depth), filter.dim(3)).status());
  PartialShape sizes;
  ASSIGN_OR_RETURN(sizes, ctx.MakeShapeFromShapeTensor(0));
  if (!sizes.rank_known()) sizes = PartialShape::UnknownOfRank(4);
  int64_t batch = out_backprop.dim(layout.batch);
  if (sizes.rank() == 4) {
    ASSIGN_OR_RETURN(batch, ctx.MergeDims(sizes.dim(layout.batch), batch));
    ctx.set_output(0, MakeShape(layout, batch, sizes.dim(layout.rows), sizes.dim(layout.cols),
                                sizes.dim(layout.depth)));
    return absl::OkStatus();
  }
  if (sizes.rank() == 2) {
    ctx.set_output(0, MakeShape(layout, batch, sizes.dim(0), sizes.dim(1), filter.dim(2)));
    return absl::OkStatus();
  }
  return ctx.Error(absl::StrCat(
      "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: ",
      sizes.rank()));
}

// Conv2DBackpropFilter: the shape is filter_sizes, which must have 4 values.
absl::Status Conv2DBackpropFilterShape(ShapeInferenceContext& ctx) {
  PartialShape sizes;
  ASSIGN_OR_RETURN(sizes, ctx.MakeShapeFromShapeTensor(1));
  if (!sizes.rank_known()) sizes = PartialShape::UnknownOfRank(4);
  if (sizes.rank() != 4) {
    return ctx.Error(
        absl::StrCat("Shape must be rank 4 but is rank ", sizes.rank(), " (filter_sizes)"));
  }
  ctx.set_output(0, std::move(sizes));
  return absl::OkStatus();
}

// strides, [use_cudnn_on_gpu,] padding, explicit_paddings, data_format and dilations, in
// TensorFlow's order.
OpDefBuilder& ConvAttrs(OpDefBuilder& builder, bool use_cudnn_on_gpu) {
  builder.IntListAttr("strides");
  if (use_cudnn_on_gpu) builder.BoolAttr("use_cudnn_on_gpu", true);
  builder.StringAttr("padding", std::nullopt, {"SAME", "VALID", "EXPLICIT"})
      .IntListAttr("explicit_paddings", std::vector<int64_t>{})
      .StringAttr("data_format", "NHWC", {"NHWC", "NCHW"})
      .IntListAttr("dilations", std::vector<int64_t>{1, 1, 1, 1});
  return builder;
}

}  // namespace

absl::Status RegisterConvOps(OpRegistry* registry) {
  OpDefBuilder conv("Conv2D");
  conv.Input("input", "T")
      .Input("filter", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble, kInt32});
  RETURN_IF_ERROR(RegisterOp(registry, ConvAttrs(conv, true).SetShapeFn(Conv2DShape)));

  // Conv2D followed by the ops named in fused_ops (BiasAdd, then maybe an activation), which take
  // their extra inputs from `args`. Internal: the op fusion pass makes it (docs/op_fusion.md).
  OpDefBuilder fused_conv("_FusedConv2D");
  fused_conv.Input("input", "T")
      .Input("filter", "T")
      .InputList("args", "num_args", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble})
      .IntAttr("num_args", std::nullopt, 0);
  ConvAttrs(fused_conv, true)
      .StringListAttr("fused_ops", std::vector<std::string>{})
      .FloatAttr("epsilon", 0.0001f)
      .FloatAttr("leakyrelu_alpha", 0.2f)
      .SetShapeFn(Conv2DShape);
  RETURN_IF_ERROR(RegisterOp(registry, fused_conv));

  OpDefBuilder backprop_input("Conv2DBackpropInput");
  backprop_input.Input("input_sizes", kInt32)
      .Input("filter", "T")
      .Input("out_backprop", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble, kInt32});
  RETURN_IF_ERROR(
      RegisterOp(registry, ConvAttrs(backprop_input, true).SetShapeFn(Conv2DBackpropInputShape)));

  OpDefBuilder backprop_filter("Conv2DBackpropFilter");
  backprop_filter.Input("input", "T")
      .Input("filter_sizes", kInt32)
      .Input("out_backprop", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble});
  RETURN_IF_ERROR(
      RegisterOp(registry, ConvAttrs(backprop_filter, true).SetShapeFn(Conv2DBackpropFilterShape)));

  OpDefBuilder depthwise("DepthwiseConv2dNative");
  depthwise.Input("input", "T")
      .Input("filter", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble});
  RETURN_IF_ERROR(
      RegisterOp(registry, ConvAttrs(depthwise, false).SetShapeFn(DepthwiseConv2dNativeShape)));

  // The depthwise gradients take their shape from input_sizes / filter_sizes, which must hold 4
  // values (unknown values: a 4-D shape of unknown dimensions).
  OpDefBuilder depthwise_input("DepthwiseConv2dNativeBackpropInput");
  depthwise_input.Input("input_sizes", kInt32)
      .Input("filter", "T")
      .Input("out_backprop", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble});
  RETURN_IF_ERROR(RegisterOp(
      registry, ConvAttrs(depthwise_input, false).SetShapeFn([](ShapeInferenceContext& ctx) {
        PartialShape sizes;
        ASSIGN_OR_RETURN(sizes, ctx.MakeShapeFromShapeTensor(0));
        if (!sizes.rank_known()) sizes = PartialShape::UnknownOfRank(4);
        if (sizes.rank() != 4) {
          return ctx.Error(
              absl::StrCat("Shape must be rank 4 but is rank ", sizes.rank(), " (input_sizes)"));
        }
        ctx.set_output(0, std::move(sizes));
        return absl::OkStatus();
      })));
  OpDefBuilder depthwise_filter("DepthwiseConv2dNativeBackpropFilter");
  depthwise_filter.Input("input", "T")
      .Input("filter_sizes", kInt32)
      .Input("out_backprop", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble});
  return RegisterOp(registry,
                    ConvAttrs(depthwise_filter, false).SetShapeFn(Conv2DBackpropFilterShape));
}

}  // namespace tessera
