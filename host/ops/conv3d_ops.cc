// TensorFlow's 3-D convolution and pooling op definitions: Conv3D with its gradients
// (Conv3DBackpropInput/Filter and their V2 forms), MaxPool3D, AvgPool3D and their gradients,
// with TensorFlow's shape functions.
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
constexpr DataType kInt64 = TSR_DTYPE_INT64;

// Index of the channel dimension and of spatial dimension i of a 5-D tensor.
struct Layout5 {
  int depth;
  int spatial[3];
};
Layout5 LayoutOf(const std::string& data_format) {
  if (data_format == "NCDHW") return {1, {2, 3, 4}};
  return {4, {1, 2, 3}};
}

std::string DataFormatOf(ShapeInferenceContext& ctx) {
  std::string data_format = "NDHWC";
  if (!ctx.GetAttr("data_format", &data_format).ok()) data_format = "NDHWC";
  return data_format;
}

// TensorFlow's Conv3DShape: NDHWC or NCDHW input, DHWIO filter.
absl::Status Conv3DShape(ShapeInferenceContext& ctx) {
  const Layout5 layout = LayoutOf(DataFormatOf(ctx));
  PartialShape input;
  PartialShape filter;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, 5));
  ASSIGN_OR_RETURN(filter, ctx.WithRank(1, 5));
  std::vector<int64_t> dilations;
  std::vector<int64_t> strides;
  RETURN_IF_ERROR(ctx.GetAttr("dilations", &dilations));
  if (dilations.size() != 5) {
    return ctx.Error(absl::StrCat(
        "Conv3D requires the dilation attribute to contain 5 values, but got: ", dilations.size()));
  }
  RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
  if (strides.size() != 5) {
    return ctx.Error(absl::StrCat(
        "Conv3D requires the stride attribute to contain 5 values, but got: ", strides.size()));
  }
  const int64_t input_depth = input.dim(layout.depth);
  const int64_t filter_depth = filter.dim(3);
  const int64_t output_depth = filter.dim(4);
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
  std::string padding;
  RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
  PartialShape output = input;
  for (int i = 0; i < 3; ++i) {
    const int dim = layout.spatial[i];
    int64_t size;
    ASSIGN_OR_RETURN(size, WindowedOutputSize(ctx, input.dim(dim), filter.dim(i), dilations[dim],
                                              strides[dim], padding, 0, 0));
    output.set_dim(dim, size);
  }
  output.set_dim(layout.depth, output_depth);
  ctx.set_output(0, std::move(output));
  return absl::OkStatus();
}

// TensorFlow's Pool3DShape: the spatial sizes of the windows over a 5-D input, depth unchanged.
absl::Status Pool3DShape(ShapeInferenceContext& ctx) {
  const Layout5 layout = LayoutOf(DataFormatOf(ctx));
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, 5));
  std::vector<int64_t> strides;
  std::vector<int64_t> ksize;
  RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
  if (strides.size() != 5) {
    return ctx.Error(absl::StrCat(
        "Pool3D ops require the stride attribute to contain 5 values, but got: ", strides.size()));
  }
  RETURN_IF_ERROR(ctx.GetAttr("ksize", &ksize));
  if (ksize.size() != 5) {
    return ctx.Error(absl::StrCat(
        "Pool3D requires the ksize attribute to contain 5 values, but got: ", ksize.size()));
  }
  std::string padding;
  RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
  PartialShape output = input;
  for (int dim : layout.spatial) {
    int64_t size;
    ASSIGN_OR_RETURN(
        size, WindowedOutputSize(ctx, input.dim(dim), ksize[dim], 1, strides[dim], padding, 0, 0));
    output.set_dim(dim, size);
  }
  ctx.set_output(0, std::move(output));
  return absl::OkStatus();
}

// The shape is the value of shape tensor `input` (a 5-D shape of unknown sizes while unknown).
absl::Status ShapeFromInput5(ShapeInferenceContext& ctx, int input, const char* name) {
  PartialShape sizes;
  ASSIGN_OR_RETURN(sizes, ctx.MakeShapeFromShapeTensor(input));
  if (!sizes.rank_known()) sizes = PartialShape::UnknownOfRank(5);
  if (sizes.rank() != 5) {
    return ctx.Error(
        absl::StrCat("Shape must be rank 5 but is rank ", sizes.rank(), " (", name, ")"));
  }
  ctx.set_output(0, std::move(sizes));
  return absl::OkStatus();
}

// The output has the shape of input `input`, which must have rank 5.
absl::Status ShapeOfInput5(ShapeInferenceContext& ctx, int input) {
  PartialShape shape;
  ASSIGN_OR_RETURN(shape, ctx.WithRank(input, 5));
  ctx.set_output(0, std::move(shape));
  return absl::OkStatus();
}

// strides, padding, [data_format,] dilations in TensorFlow's order.
OpDefBuilder& Conv3DAttrs(OpDefBuilder& builder, bool data_format) {
  builder.IntListAttr("strides", std::nullopt, 5)
      .StringAttr("padding", std::nullopt, {"SAME", "VALID"});
  if (data_format) builder.StringAttr("data_format", "NDHWC", {"NDHWC", "NCDHW"});
  builder.IntListAttr("dilations", std::vector<int64_t>{1, 1, 1, 1, 1});
  return builder;
}

OpDefBuilder& Pool3DAttrs(OpDefBuilder& builder) {
  builder.IntListAttr("ksize", std::nullopt, 5)
      .IntListAttr("strides", std::nullopt, 5)
      .StringAttr("padding", std::nullopt, {"SAME", "VALID"})
      .StringAttr("data_format", "NDHWC", {"NDHWC", "NCDHW"});
  return builder;
}

absl::Status RegisterConv3DFamily(OpRegistry* registry) {
  OpDefBuilder conv("Conv3D");
  conv.Input("input", "T").Input("filter", "T").Output("output", "T");
  conv.TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble});
  RETURN_IF_ERROR(RegisterOp(registry, Conv3DAttrs(conv, true).SetShapeFn(Conv3DShape)));

  OpDefBuilder input_v1("Conv3DBackpropInput");
  input_v1.Input("input", "T")
      .Input("filter", "T")
      .Input("out_backprop", "T")
      .Output("output", "T");
  input_v1.TypeAttr("T", {kHalf, kFloat, kDouble});
  RETURN_IF_ERROR(
      RegisterOp(registry, Conv3DAttrs(input_v1, false).SetShapeFn([](ShapeInferenceContext& ctx) {
        return ShapeOfInput5(ctx, 0);
      })));

  OpDefBuilder filter_v1("Conv3DBackpropFilter");
  filter_v1.Input("input", "T")
      .Input("filter", "T")
      .Input("out_backprop", "T")
      .Output("output", "T");
  filter_v1.TypeAttr("T", {kHalf, kFloat, kDouble});
  RETURN_IF_ERROR(
      RegisterOp(registry, Conv3DAttrs(filter_v1, false).SetShapeFn([](ShapeInferenceContext& ctx) {
        return ShapeOfInput5(ctx, 1);
      })));

  OpDefBuilder input_v2("Conv3DBackpropInputV2");
  input_v2.Input("input_sizes", "Tshape")
      .Input("filter", "T")
      .Input("out_backprop", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble});
  Conv3DAttrs(input_v2, true).TypeAttr("Tshape", {kInt32, kInt64}, kInt32);
  RETURN_IF_ERROR(RegisterOp(registry, input_v2.SetShapeFn([](ShapeInferenceContext& ctx) {
    return ShapeFromInput5(ctx, 0, "input_sizes");
  })));

  OpDefBuilder filter_v2("Conv3DBackpropFilterV2");
  filter_v2.Input("input", "T")
      .Input("filter_sizes", kInt32)
      .Input("out_backprop", "T")
      .Output("output", "T")
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble});
  return RegisterOp(registry,
                    Conv3DAttrs(filter_v2, true).SetShapeFn([](ShapeInferenceContext& ctx) {
                      return ShapeFromInput5(ctx, 1, "filter_sizes");
                    }));
}

absl::Status RegisterPool3DFamily(OpRegistry* registry) {
  OpDefBuilder avg_pool("AvgPool3D");
  avg_pool.Input("input", "T").Output("output", "T");
  Pool3DAttrs(avg_pool).TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble}).SetShapeFn(Pool3DShape);
  RETURN_IF_ERROR(RegisterOp(registry, avg_pool));

  OpDefBuilder avg_pool_grad("AvgPool3DGrad");
  avg_pool_grad.Input("orig_input_shape", kInt32).Input("grad", "T").Output("output", "T");
  Pool3DAttrs(avg_pool_grad)
      .TypeAttr("T", {kHalf, kBfloat16, kFloat, kDouble})
      .SetShapeFn(
          [](ShapeInferenceContext& ctx) { return ShapeFromInput5(ctx, 0, "orig_input_shape"); });
  RETURN_IF_ERROR(RegisterOp(registry, avg_pool_grad));

  OpDefBuilder max_pool("MaxPool3D");
  max_pool.Input("input", "T").Output("output", "T");
  Pool3DAttrs(max_pool).TypeAttr("T", {kHalf, kBfloat16, kFloat}).SetShapeFn(Pool3DShape);
  RETURN_IF_ERROR(RegisterOp(registry, max_pool));

  OpDefBuilder max_pool_grad("MaxPool3DGrad");
  max_pool_grad.Input("orig_input", "TInput")
      .Input("orig_output", "TInput")
      .Input("grad", "T")
      .Output("output", "T");
  Pool3DAttrs(max_pool_grad)
      .TypeAttr("T", {kHalf, kBfloat16, kFloat}, kFloat)
      .TypeAttr("TInput", {kHalf, kBfloat16, kFloat}, kFloat)
      .SetShapeFn([](ShapeInferenceContext& ctx) { return ShapeOfInput5(ctx, 0); });
  return RegisterOp(registry, max_pool_grad);
}

}  // namespace

absl::Status RegisterConv3DOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterConv3DFamily(registry));
  return RegisterPool3DFamily(registry);
}

}  // namespace tessera
