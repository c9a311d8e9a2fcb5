// TensorFlow's neural-network ops: activations and their gradients, BiasAdd, BiasAddV1 (BiasAdd
// without data_format), BiasAddGrad, softmax and the cross-entropy losses, L2Loss, LRN(Grad),
// MaxPool/AvgPool and their gradients, MaxPoolV2 and MaxPoolGradV2, FusedBatchNorm, V2 and V3 with
// their gradients, and TopKV2.
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

// TensorFlow's {half, bfloat16, float, double}.
std::vector<DataType> FloatingTypes() { return {kHalf, kBfloat16, kFloat, kDouble}; }

// ---- Shape functions -------------------------------------------------------------------------

absl::Status BiasAddShape(ShapeInferenceContext& ctx) {
  // BiasAddV1 has no data_format: its channel is the last dimension.
  std::string data_format = "NHWC";
  if (ctx.attr("data_format") != nullptr) RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  const bool nchw = data_format == "NCHW";
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRankAtLeast(0, nchw ? 3 : 2));
  PartialShape bias;
  ASSIGN_OR_RETURN(bias, ctx.WithRank(1, 1));
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int channel = nchw ? input.rank() - 3 : input.rank() - 1;
  int64_t merged;
  ASSIGN_OR_RETURN(merged, ctx.MergeDims(input.dim(channel), bias.dim(0)));
  input.set_dim(channel, merged);
  ctx.set_output(0, std::move(input));
  return absl::OkStatus();
}

// A vector of the channel dimension: dimension 1 for NCHW, the last one otherwise.
absl::Status BiasAddGradShape(ShapeInferenceContext& ctx) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  const bool nchw = data_format == "NCHW";
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRankAtLeast(0, nchw ? 3 : 2));
  const int64_t channels =
      input.rank_known() ? input.dim(nchw ? 1 : input.rank() - 1) : kUnknownDim;
  ctx.set_output(0, PartialShape({channels}));
  return absl::OkStatus();
}

absl::Status UnchangedShapeWithRankAtLeastOne(ShapeInferenceContext& ctx) {
  PartialShape logits;
  ASSIGN_OR_RETURN(logits, ctx.WithRankAtLeast(0, 1));
  ctx.set_output(0, std::move(logits));
  return absl::OkStatus();
}

absl::Status UnchangedShapeWithRankFour(ShapeInferenceContext& ctx) {
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, 4));
  ctx.set_output(0, std::move(input));
  return absl::OkStatus();
}

// TensorFlow's MergeBothInputsShapeFn: the gradient ops' two inputs have one shape.
absl::Status MergeBothInputsShape(ShapeInferenceContext& ctx) {
  PartialShape merged;
  ASSIGN_OR_RETURN(merged, ctx.MergeShapes(ctx.input(0), ctx.input(1)));
  ctx.set_output(0, std::move(merged));
  return absl::OkStatus();
}

absl::Status ScalarShape(ShapeInferenceContext& ctx) {
  ctx.set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status LrnGradShape(ShapeInferenceContext& ctx) {
  PartialShape s;
  ASSIGN_OR_RETURN(s, ctx.WithRank(0, 4));
  ASSIGN_OR_RETURN(s, ctx.MergeShapes(s, ctx.input(1)));
  ASSIGN_OR_RETURN(s, ctx.MergeShapes(s, ctx.input(2)));
  ctx.set_output(0, std::move(s));
  return absl::OkStatus();
}

// features [batch, classes] and labels of the same shape, or two shapes that broadcast to a
// matrix; loss [batch], backprop the (broadcast) matrix.
absl::Status SoftmaxCrossEntropyShape(ShapeInferenceContext& ctx) {
  absl::StatusOr<PartialShape> matrix = ctx.WithRank(0, 2);
  if (matrix.ok()) {
    absl::StatusOr<PartialShape> merged = PartialShape::Merge(*matrix, ctx.input(1));
    if (merged.ok()) {
      ctx.set_output(0, PartialShape({merged->dim(0)}));
      ctx.set_output(1, *std::move(merged));
      return absl::OkStatus();
    }
  }
  absl::StatusOr<PartialShape> broadcast = PartialShape::Broadcast(ctx.input(0), ctx.input(1));
  if (!broadcast.ok()) return ctx.Error(broadcast.status().message());
  if (!broadcast->rank_known()) {
    return ctx.Error("Shape must be broadcasted with rank 2, but is rank is unknown.");
  }
  if (broadcast->rank() != 2) {
    return ctx.Error(
        absl::StrCat("Shape must be broadcasted with rank 2, but is rank ", broadcast->rank()));
  }
  ctx.set_output(0, PartialShape({broadcast->dim(0)}));
  ctx.set_output(1, *std::move(broadcast));
  return absl::OkStatus();
}

absl::Status SparseSoftmaxCrossEntropyShape(ShapeInferenceContext& ctx) {
  PartialShape features;
  PartialShape labels;
  ASSIGN_OR_RETURN(features, ctx.WithRank(0, 2));
  ASSIGN_OR_RETURN(labels, ctx.WithRank(1, 1));
  int64_t batch;
  ASSIGN_OR_RETURN(batch, ctx.MergeDims(features.dim(0), labels.dim(0)));
  features.set_dim(0, batch);
  ctx.set_output(0, PartialShape({batch}));
  ctx.set_output(1, std::move(features));
  return absl::OkStatus();
}

// The dimension indices of a 4-D NHWC or NCHW (or NCHW_VECT_C's first four) tensor.
struct Layout {
  int batch, rows, cols, depth;
};
Layout LayoutOf(const std::string& data_format) {
  if (data_format == "NHWC") return {0, 1, 2, 3};
  return {0, 2, 3, 1};
}

// TensorFlow's CheckValidPadding for 4-D tensors.
absl::Status CheckExplicitPaddings(const ShapeInferenceContext& ctx, const std::string& padding,
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

// MaxPool and AvgPool: `op` names the op in TensorFlow's attr-length errors; MaxPool also pools
// over the depth dimension and accepts EXPLICIT padding.
// The shape of a pooling with the given window sizes and strides (from attrs or, for the V2
// ops, from constant inputs).
absl::Status PoolShapeOf(ShapeInferenceContext& ctx, const char* op, bool max_pool,
                         const PartialShape& input, const std::vector<int64_t>& ksize,
                         const std::vector<int64_t>& strides) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  if (strides.size() != 4) {
    return ctx.Error(absl::StrCat(
        op, " requires the stride attribute to contain 4 values, but got: ", strides.size()));
  }
  for (size_t i = 0; i < ksize.size(); ++i) {
    if (ksize[i] < 1) {
      return ctx.Error(absl::StrCat("Sliding window ksize for dimension ", i, " was zero."));
    }
  }
  if (ksize.size() != 4) {
    return ctx.Error(absl::StrCat(
        op, " requires the ksize attribute to contain 4 values, but got: ", ksize.size()));
  }
  const Layout layout = LayoutOf(data_format);
  std::string padding;
  RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
  std::vector<int64_t> paddings(8, 0);
  if (max_pool && ctx.attr("explicit_paddings") != nullptr) {
    std::vector<int64_t> explicit_paddings;
    RETURN_IF_ERROR(ctx.GetAttr("explicit_paddings", &explicit_paddings));
    RETURN_IF_ERROR(CheckExplicitPaddings(ctx, padding, explicit_paddings, layout));
    if (padding == "EXPLICIT") paddings = explicit_paddings;
  }
  PartialShape output = input;
  for (int dim : {layout.rows, layout.cols}) {
    int64_t size;
    ASSIGN_OR_RETURN(size, WindowedOutputSize(ctx, input.dim(dim), ksize[dim], 1, strides[dim],
                                              padding, paddings[2 * dim], paddings[2 * dim + 1]));
    output.set_dim(dim, size);
  }
  if (max_pool) {
    int64_t depth;
    ASSIGN_OR_RETURN(depth, WindowedOutputSize(ctx, input.dim(layout.depth), ksize[layout.depth], 1,
                                               strides[layout.depth], padding, 0, 0));
    output.set_dim(layout.depth, depth);
  }
  ctx.set_output(0, std::move(output));
  return absl::OkStatus();
}

// MaxPool and AvgPool, whose ksize and strides are attrs.
absl::Status PoolShape(ShapeInferenceContext& ctx, const char* op, bool max_pool) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, data_format == "NCHW_VECT_C" ? 5 : 4));
  std::vector<int64_t> strides;
  std::vector<int64_t> ksize;
  RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
  RETURN_IF_ERROR(ctx.GetAttr("ksize", &ksize));
  return PoolShapeOf(ctx, op, max_pool, input, ksize, strides);
}

// MaxPoolV2: ksize and strides are inputs 1 and 2, 4-element vectors; while either value is
// unknown so is the shape.
absl::Status MaxPoolV2Shape(ShapeInferenceContext& ctx) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, data_format == "NCHW_VECT_C" ? 5 : 4));
  for (int i : {1, 2}) {
    PartialShape sizes;
    ASSIGN_OR_RETURN(sizes, ctx.WithRank(i, 1));
    if (sizes.dim(0) != kUnknownDim && sizes.dim(0) != 4) {
      return ctx.Error(absl::StrCat("Dimension must be 4 but is ", sizes.dim(0), " (",
                                    i == 1 ? "ksize" : "strides", ")"));
    }
  }
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &ksize));
  if (known) {
    ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(2, &strides));
  }
  if (!known) {
    ctx.set_output(0, PartialShape());
    return absl::OkStatus();
  }
  return PoolShapeOf(ctx, "MaxPool", true, input, ksize, strides);
}

// AvgPoolGrad: the shape is the value of orig_input_shape when known, else any 4-D shape.
absl::Status AvgPoolGradShape(ShapeInferenceContext& ctx) {
  PartialShape shape;
  ASSIGN_OR_RETURN(shape, ctx.MakeShapeFromShapeTensor(0));
  if (!shape.rank_known()) {
    shape = PartialShape::UnknownOfRank(4);
  } else if (shape.rank() != 4) {
    return ctx.Error(
        absl::StrCat("shape must be rank 4 but is rank ", shape.rank(), " (orig_input_shape)"));
  }
  ctx.set_output(0, std::move(shape));
  return absl::OkStatus();
}

// The rank of FusedBatchNorm's x for a data format and the index of its channel dimension.
int BatchNormRank(const std::string& data_format) {
  return data_format == "NDHWC" || data_format == "NCDHW" ? 5 : 4;
}
int BatchNormChannel(const std::string& data_format, int rank) {
  return data_format == "NCHW" || data_format == "NCDHW" ? 1 : rank - 1;
}

// Merges dimension 0 of the vectors at `inputs` into `channels`.
absl::Status MergeChannelVectors(const ShapeInferenceContext& ctx, std::vector<int> inputs,
                                 int64_t* channels) {
  for (int i : inputs) {
    PartialShape vector;
    ASSIGN_OR_RETURN(vector, ctx.WithRank(i, 1));
    ASSIGN_OR_RETURN(*channels, ctx.MergeDims(*channels, vector.dim(0)));
  }
  return absl::OkStatus();
}

absl::Status FusedBatchNormV3Shape(ShapeInferenceContext& ctx) {
  std::string data_format;
  bool is_training = true;
  float exponential_avg_factor = 1.0f;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  RETURN_IF_ERROR(ctx.GetAttr("is_training", &is_training));
  RETURN_IF_ERROR(ctx.GetAttr("exponential_avg_factor", &exponential_avg_factor));
  const int rank = BatchNormRank(data_format);
  PartialShape x;
  ASSIGN_OR_RETURN(x, ctx.WithRank(0, rank));
  const int channel = BatchNormChannel(data_format, rank);
  int64_t channels = x.dim(channel);
  // Training with the default factor ignores mean and variance (they may be empty).
  if (is_training && exponential_avg_factor == 1.0f) {
    RETURN_IF_ERROR(MergeChannelVectors(ctx, {1, 2}, &channels));
  } else {
    RETURN_IF_ERROR(MergeChannelVectors(ctx, {1, 2, 3, 4}, &channels));
  }
  x.set_dim(channel, channels);
  ctx.set_output(0, std::move(x));
  for (int i = 1; i < 5; ++i) ctx.set_output(i, PartialShape({channels}));
  if (ctx.num_outputs() > 5) ctx.set_output(5, PartialShape::Unknown());  // V3's reserve_space_3
  return absl::OkStatus();
}

absl::Status FusedBatchNormGradV3Shape(ShapeInferenceContext& ctx) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  const int rank = BatchNormRank(data_format);
  PartialShape y_backprop;
  PartialShape x;
  ASSIGN_OR_RETURN(y_backprop, ctx.WithRank(0, rank));
  ASSIGN_OR_RETURN(x, ctx.WithRank(1, rank));
  const int channel = BatchNormChannel(data_format, rank);
  int64_t channels;
  ASSIGN_OR_RETURN(channels, ctx.MergeDims(y_backprop.dim(channel), x.dim(channel)));
  // scale, reserve_space_1 and reserve_space_2 (V3's reserve_space_3 is opaque).
  RETURN_IF_ERROR(MergeChannelVectors(ctx, {2, 3, 4}, &channels));
  y_backprop.set_dim(channel, channels);
  ctx.set_output(0, std::move(y_backprop));
  ctx.set_output(1, PartialShape({channels}));
  ctx.set_output(2, PartialShape({channels}));
  ctx.set_output(3, PartialShape({0}));
  ctx.set_output(4, PartialShape({0}));
  return absl::OkStatus();
}

// ---- Definitions -----------------------------------------------------------------------------

// features -> activations, as Relu.
OpDefBuilder Activation(const char* name, std::vector<DataType> types) {
  OpDefBuilder builder(name);
  builder.Input("features", "T")
      .Output("activations", "T")
      .TypeAttr("T", std::move(types))
      .SetShapeFn(UnchangedShape);
  return builder;
}

// gradients, <second> -> backprops, as ReluGrad (second: "features") and EluGrad ("outputs").
OpDefBuilder ActivationGrad(const char* name, const char* second, std::vector<DataType> types) {
  OpDefBuilder builder(name);
  builder.Input("gradients", "T")
      .Input(second, "T")
      .Output("backprops", "T")
      .TypeAttr("T", std::move(types))
      .SetShapeFn(MergeBothInputsShape);
  return builder;
}

// y, dy -> z with TensorFlow's UNARY_GRADIENT_COMPLEX types (SigmoidGrad, TanhGrad).
OpDefBuilder UnaryGradient(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("y", "T")
      .Input("dy", "T")
      .Output("z", "T")
      .TypeAttr("T", {kBfloat16, kHalf, kFloat, kDouble, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128})
      .SetShapeFn(UnchangedShape);
  return builder;
}

OpDefBuilder LeakyReluDef(const char* name, bool grad) {
  OpDefBuilder builder(name);
  if (grad) {
    builder.Input("gradients", "T").Input("features", "T").Output("backprops", "T");
    builder.SetShapeFn(MergeBothInputsShape);
  } else {
    builder.Input("features", "T").Output("activations", "T").SetShapeFn(UnchangedShape);
  }
  builder.FloatAttr("alpha", 0.2f).TypeAttr("T", FloatingTypes(), kFloat);
  return builder;
}

OpDefBuilder LrnAttrs(OpDefBuilder builder) {
  builder.IntAttr("depth_radius", 5)
      .FloatAttr("bias", 1.0f)
      .FloatAttr("alpha", 1.0f)
      .FloatAttr("beta", 0.5f)
      .TypeAttr("T", {kHalf, kBfloat16, kFloat}, kFloat);
  return builder;
}

// ksize, strides (at least 4 values each), padding and data_format, in TensorFlow's order.
OpDefBuilder& PoolAttrs(OpDefBuilder& builder, bool explicit_padding,
                        std::vector<std::string> data_formats) {
  builder.IntListAttr("ksize", std::nullopt, 4).IntListAttr("strides", std::nullopt, 4);
  if (explicit_padding) {
    builder.StringAttr("padding", std::nullopt, {"SAME", "VALID", "EXPLICIT"})
        .IntListAttr("explicit_paddings", std::vector<int64_t>{});
  } else {
    builder.StringAttr("padding", std::nullopt, {"SAME", "VALID"});
  }
  builder.StringAttr("data_format", "NHWC", std::move(data_formats));
  return builder;
}

absl::Status RegisterActivationOps(OpRegistry* registry) {
  std::vector<DataType> relu_types = RealNumberTypes();
  relu_types.push_back(TSR_DTYPE_QINT8);
  RETURN_IF_ERROR(RegisterOp(registry, Activation("Relu", relu_types)));
  RETURN_IF_ERROR(RegisterOp(registry, ActivationGrad("ReluGrad", "features", RealNumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Activation("Relu6", RealNumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, ActivationGrad("Relu6Grad", "features", RealNumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, LeakyReluDef("LeakyRelu", /*grad=*/false)));
  RETURN_IF_ERROR(RegisterOp(registry, LeakyReluDef("LeakyReluGrad", /*grad=*/true)));
  RETURN_IF_ERROR(RegisterOp(registry, Activation("Elu", FloatingTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, ActivationGrad("EluGrad", "outputs", FloatingTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Activation("Selu", FloatingTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, ActivationGrad("SeluGrad", "outputs", FloatingTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Activation("Softplus", FloatingTypes())));
  RETURN_IF_ERROR(
      RegisterOp(registry, ActivationGrad("SoftplusGrad", "features", FloatingTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Activation("Softsign", FloatingTypes())));
  RETURN_IF_ERROR(
      RegisterOp(registry, ActivationGrad("SoftsignGrad", "features", FloatingTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, UnaryGradient("SigmoidGrad")));
  return RegisterOp(registry, UnaryGradient("TanhGrad"));
}

absl::Status RegisterSoftmaxAndLossOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Softmax")
                                           .Input("logits", "T")
                                           .Output("softmax", "T")
                                           .TypeAttr("T", FloatingTypes())
                                           .SetShapeFn(UnchangedShapeWithRankAtLeastOne)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("LogSoftmax")
                                           .Input("logits", "T")
                                           .Output("logsoftmax", "T")
                                           .TypeAttr("T", FloatingTypes())
                                           .SetShapeFn(UnchangedShapeWithRankAtLeastOne)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("SoftmaxCrossEntropyWithLogits")
                                           .Input("features", "T")
                                           .Input("labels", "T")
                                           .Output("loss", "T")
                                           .Output("backprop", "T")
                                           .TypeAttr("T", FloatingTypes())
                                           .SetShapeFn(SoftmaxCrossEntropyShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
                                           .Input("features", "T")
                                           .Input("labels", "Tlabels")
                                           .Output("loss", "T")
                                           .Output("backprop", "T")
                                           .TypeAttr("T", FloatingTypes())
                                           .TypeAttr("Tlabels", {kInt32, kInt64}, kInt64)
                                           .SetShapeFn(SparseSoftmaxCrossEntropyShape)));
  return RegisterOp(registry, OpDefBuilder("L2Loss")
                                  .Input("t", "T")
                                  .Output("output", "T")
                                  .TypeAttr("T", FloatingTypes())
                                  .SetShapeFn(ScalarShape));
}

absl::Status RegisterBiasAndLrnOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BiasAdd")
                                           .TypeAttr("T", NumberTypes())
                                           .Input("value", "T")
                                           .Input("bias", "T")
                                           .StringAttr("data_format", "NHWC", {"NHWC", "NCHW"})
                                           .Output("output", "T")
                                           .SetShapeFn(BiasAddShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BiasAddV1")
                                           .Input("value", "T")
                                           .Input("bias", "T")
                                           .TypeAttr("T", NumberTypes())
                                           .Output("output", "T")
                                           .SetShapeFn(BiasAddShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BiasAddGrad")
                                           .TypeAttr("T", NumberTypes())
                                           .Input("out_backprop", "T")
                                           .StringAttr("data_format", "NHWC", {"NHWC", "NCHW"})
                                           .Output("output", "T")
                                           .SetShapeFn(BiasAddGradShape)));
  RETURN_IF_ERROR(RegisterOp(registry, LrnAttrs(OpDefBuilder("LRN")
                                                    .Input("input", "T")
                                                    .Output("output", "T")
                                                    .SetShapeFn(UnchangedShapeWithRankFour))));
  return RegisterOp(registry, LrnAttrs(OpDefBuilder("LRNGrad")
                                           .Input("input_grads", "T")
                                           .Input("input_image", "T")
                                           .Input("output_image", "T")
                                           .Output("output", "T")
                                           .SetShapeFn(LrnGradShape)));
}

absl::Status RegisterPoolingOps(OpRegistry* registry) {
  const std::vector<std::string> formats = {"NHWC", "NCHW"};
  OpDefBuilder avg_pool("AvgPool");
  avg_pool.Input("value", "T").Output("output", "T");
  PoolAttrs(avg_pool, /*explicit_padding=*/false, formats)
      .TypeAttr("T", FloatingTypes())
      .SetShapeFn([](ShapeInferenceContext& ctx) { return PoolShape(ctx, "AvgPool", false); });
  RETURN_IF_ERROR(RegisterOp(registry, avg_pool));

  OpDefBuilder avg_pool_grad("AvgPoolGrad");
  avg_pool_grad.Input("orig_input_shape", kInt32).Input("grad", "T").Output("output", "T");
  PoolAttrs(avg_pool_grad, /*explicit_padding=*/false, formats)
      .TypeAttr("T", FloatingTypes())
      .SetShapeFn(AvgPoolGradShape);
  RETURN_IF_ERROR(RegisterOp(registry, avg_pool_grad));

  OpDefBuilder max_pool("MaxPool");
  max_pool.TypeAttr("T",
                    {kHalf, kBfloat16, kFloat, kDouble, kInt32, kInt64, TSR_DTYPE_UINT8,
                     TSR_DTYPE_INT16, TSR_DTYPE_INT8, TSR_DTYPE_UINT16, TSR_DTYPE_QINT8},
                    kFloat);
  PoolAttrs(max_pool, /*explicit_padding=*/true, {"NHWC", "NCHW", "NCHW_VECT_C"})
      .Input("input", "T")
      .Output("output", "T")
      .SetShapeFn([](ShapeInferenceContext& ctx) { return PoolShape(ctx, "MaxPool", true); });
  RETURN_IF_ERROR(RegisterOp(registry, max_pool));

  OpDefBuilder max_pool_grad("MaxPoolGrad");
  PoolAttrs(max_pool_grad, /*explicit_padding=*/true, formats)
      .Input("orig_input", "T")
      .Input("orig_output", "T")
      .Input("grad", "T")
      .Output("output", "T")
      .TypeAttr("T", RealNumberTypes(), kFloat)
      .SetShapeFn(UnchangedShapeWithRankFour);
  RETURN_IF_ERROR(RegisterOp(registry, max_pool_grad));

  OpDefBuilder max_pool_v2("MaxPoolV2");
  max_pool_v2
      .TypeAttr("T",
                {kHalf, kBfloat16, kFloat, kDouble, kInt32, kInt64, TSR_DTYPE_UINT8,
                 TSR_DTYPE_INT16, TSR_DTYPE_INT8, TSR_DTYPE_UINT16, TSR_DTYPE_QINT8},
                kFloat)
      .Input("input", "T")
      .Input("ksize", kInt32)
      .Input("strides", kInt32)
      .Output("output", "T")
      .StringAttr("padding", std::nullopt, {"SAME", "VALID"})
      .StringAttr("data_format", "NHWC", {"NHWC", "NCHW", "NCHW_VECT_C"})
      .SetShapeFn(MaxPoolV2Shape);
  RETURN_IF_ERROR(RegisterOp(registry, max_pool_v2));

  OpDefBuilder max_pool_grad_v2("MaxPoolGradV2");
  max_pool_grad_v2.StringAttr("padding", std::nullopt, {"SAME", "VALID"})
      .StringAttr("data_format", "NHWC", formats)
      .Input("orig_input", "T")
      .Input("orig_output", "T")
      .Input("grad", "T")
      .Input("ksize", kInt32)
      .Input("strides", kInt32)
      .Output("output", "T")
      .TypeAttr("T", RealNumberTypes(), kFloat)
      .SetShapeFn(UnchangedShapeWithRankFour);
  return RegisterOp(registry, max_pool_grad_v2);
}

absl::Status RegisterBatchNormOps(OpRegistry* registry) {
  const std::vector<std::string> formats = {"NHWC", "NCHW", "NDHWC", "NCDHW"};
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("FusedBatchNormV3")
                                           .Input("x", "T")
                                           .Input("scale", "U")
                                           .Input("offset", "U")
                                           .Input("mean", "U")
                                           .Input("variance", "U")
                                           .Output("y", "T")
                                           .Output("batch_mean", "U")
                                           .Output("batch_variance", "U")
                                           .Output("reserve_space_1", "U")
                                           .Output("reserve_space_2", "U")
                                           .Output("reserve_space_3", "U")
                                           .TypeAttr("T", {kHalf, kBfloat16, kFloat})
                                           .TypeAttr("U", {kBfloat16, kFloat})
                                           .FloatAttr("epsilon", 0.0001f)
                                           .FloatAttr("exponential_avg_factor", 1.0f)
                                           .StringAttr("data_format", "NHWC", formats)
                                           .BoolAttr("is_training", true)
                                           .SetShapeFn(FusedBatchNormV3Shape)));
  // FusedBatchNorm (every tensor T = float) and FusedBatchNormV2 (statistics U = float): V3 without
  // reserve_space_3, for 4-D tensors only.
  const std::vector<std::string> formats_2d = {"NHWC", "NCHW"};
  for (bool v2 : {false, true}) {
    const char* u = v2 ? "U" : "T";
    OpDefBuilder forward(v2 ? "FusedBatchNormV2" : "FusedBatchNorm");
    forward.Input("x", "T")
        .Input("scale", u)
        .Input("offset", u)
        .Input("mean", u)
        .Input("variance", u)
        .Output("y", "T")
        .Output("batch_mean", u)
        .Output("batch_variance", u)
        .Output("reserve_space_1", u)
        .Output("reserve_space_2", u);
    if (v2) {
      forward.TypeAttr("T", {kHalf, kBfloat16, kFloat}).TypeAttr("U", {kFloat});
    } else {
      forward.TypeAttr("T", {kFloat});
    }
    forward.FloatAttr("epsilon", 0.0001f)
        .FloatAttr("exponential_avg_factor", 1.0f)
        .StringAttr("data_format", "NHWC", formats_2d)
        .BoolAttr("is_training", true)
        .SetShapeFn(FusedBatchNormV3Shape);
    RETURN_IF_ERROR(RegisterOp(registry, forward));
    OpDefBuilder grad(v2 ? "FusedBatchNormGradV2" : "FusedBatchNormGrad");
    grad.Input("y_backprop", "T").Input("x", "T");
    if (v2) {
      grad.Input("scale", kFloat);
    } else {
      grad.Input("scale", "T");
    }
    grad.Input("reserve_space_1", u)
        .Input("reserve_space_2", u)
        .Output("x_backprop", "T")
        .Output("scale_backprop", u)
        .Output("offset_backprop", u)
        .Output("reserve_space_3", u)
        .Output("reserve_space_4", u);
    if (v2) {
      grad.TypeAttr("T", {kHalf, kBfloat16, kFloat}).TypeAttr("U", {kFloat});
    } else {
      grad.TypeAttr("T", {kFloat});
    }
    grad.FloatAttr("epsilon", 0.0001f)
        .StringAttr("data_format", "NHWC", formats_2d)
        .BoolAttr("is_training", true)
        .SetShapeFn(FusedBatchNormGradV3Shape);
    RETURN_IF_ERROR(RegisterOp(registry, grad));
  }
  return RegisterOp(registry, OpDefBuilder("FusedBatchNormGradV3")
                                  .Input("y_backprop", "T")
                                  .Input("x", "T")
                                  .Input("scale", kFloat)
                                  .Input("reserve_space_1", "U")
                                  .Input("reserve_space_2", "U")
                                  .Input("reserve_space_3", "U")
                                  .Output("x_backprop", "T")
                                  .Output("scale_backprop", "U")
                                  .Output("offset_backprop", "U")
                                  .Output("reserve_space_4", "U")
                                  .Output("reserve_space_5", "U")
                                  .TypeAttr("T", {kHalf, kBfloat16, kFloat})
                                  .TypeAttr("U", {kFloat})
                                  .FloatAttr("epsilon", 0.0001f)
                                  .StringAttr("data_format", "NHWC", formats)
                                  .BoolAttr("is_training", true)
                                  .SetShapeFn(FusedBatchNormGradV3Shape));
}

// TopKV2: the input's shape with the last dimension replaced by k (a scalar, at most that
// dimension), for both values and indices.
absl::Status TopKShape(ShapeInferenceContext& ctx) {
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRankAtLeast(0, 1));
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  std::vector<int64_t> k_values;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &k_values));
  int64_t k = kUnknownDim;
  if (known && !k_values.empty()) {
    k = k_values[0];
    if (k < 0) {
      return ctx.Error(absl::StrCat(
          "Dimension size, given by scalar input 1, must be non-negative but is ", k));
    }
  }
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    ctx.set_output(1, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t last = input.dim(input.rank() - 1);
  if (last >= 0 && k >= 0 && last < k) {
    return ctx.Error(
        absl::StrCat("input must have last dimension >= k = ", k, " but is ", last));
  }
  PartialShape out = input.Subshape(0, input.rank() - 1);
  out.AddDim(k);
  ctx.set_output(0, out);
  ctx.set_output(1, std::move(out));
  return absl::OkStatus();
}

absl::Status RegisterTopKOps(OpRegistry* registry) {
  constexpr DataType kInt16 = TSR_DTYPE_INT16;
  return RegisterOp(registry, OpDefBuilder("TopKV2")
                                  .Input("input", "T")
                                  .Input("k", "Tk")
                                  .Output("values", "T")
                                  .Output("indices", "index_type")
                                  .BoolAttr("sorted", true)
                                  .TypeAttr("T", RealNumberTypes())
                                  .TypeAttr("Tk", {kInt16, kInt32, kInt64}, kInt32)
                                  .TypeAttr("index_type", {kInt16, kInt32, kInt64}, kInt32)
                                  .SetShapeFn(TopKShape));
}

}  // namespace

absl::Status RegisterNnOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterActivationOps(registry));
  RETURN_IF_ERROR(RegisterSoftmaxAndLossOps(registry));
  RETURN_IF_ERROR(RegisterBiasAndLrnOps(registry));
  RETURN_IF_ERROR(RegisterPoolingOps(registry));
  RETURN_IF_ERROR(RegisterBatchNormOps(registry));
  return RegisterTopKOps(registry);
}

}  // namespace tessera
