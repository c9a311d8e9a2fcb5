// TensorFlow's neural-network ops: Relu, Relu6, BiasAdd and Softmax.
#include "absl/strings/str_cat.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"
#include "registry/status_macros.h"

namespace tessera {
namespace {

absl::Status BiasAddShape(ShapeInferenceContext& ctx) {
  std::string data_format;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
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

absl::Status SoftmaxShape(ShapeInferenceContext& ctx) {
  PartialShape logits;
  ASSIGN_OR_RETURN(logits, ctx.WithRankAtLeast(0, 1));
  ctx.set_output(0, std::move(logits));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterNnOps(OpRegistry* registry) {
  std::vector<DataType> relu_types = RealNumberTypes();
  relu_types.push_back(TSR_DTYPE_QINT8);
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Relu")
                                           .Input("features", "T")
                                           .Output("activations", "T")
                                           .TypeAttr("T", relu_types)
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Relu6")
                                           .Input("features", "T")
                                           .Output("activations", "T")
                                           .TypeAttr("T", RealNumberTypes())
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BiasAdd")
                                           .Input("value", "T")
                                           .Input("bias", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T", NumberTypes())
                                           .StringAttr("data_format", "NHWC", {"NHWC", "NCHW"})
                                           .SetShapeFn(BiasAddShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Softmax")
                                           .Input("logits", "T")
                                           .Output("softmax", "T")
                                           .TypeAttr("T", {TSR_DTYPE_HALF, TSR_DTYPE_BFLOAT16,
                                                           TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE})
                                           .SetShapeFn(SoftmaxShape)));
  return absl::OkStatus();
}

}  // namespace tessera
