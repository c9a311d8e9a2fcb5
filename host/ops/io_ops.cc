// TensorFlow's checkpoint op definitions: SaveV2, RestoreV2 and MergeV2Checkpoints, with their
// shape functions. Their kernels are the host's (host/kernels/checkpoint_kernels.h).
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/checkpoint/tensor_slice.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kString = TSR_DTYPE_STRING;

// Dimension 0 of `shape` (rank 1) must be `expected` when known.
absl::Status CheckLength(ShapeInferenceContext& ctx, int input, const PartialShape& shape,
                         int64_t expected) {
  const int64_t length = shape.dim(0);
  if (length != kUnknownDim && length != expected) {
    return ctx.Error(
        absl::StrCat("Dimension must be ", expected, " but is ", length, " (input ", input, ")"));
  }
  return absl::OkStatus();
}

// prefix: a scalar; tensor_names and shape_and_slices: vectors with one entry per tensor.
absl::Status SaveV2Shape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 0).status());
  for (int i = 1; i <= 2; ++i) {
    ASSIGN_OR_RETURN(PartialShape names, ctx.WithRank(i, 1));
    RETURN_IF_ERROR(CheckLength(ctx, i, names, ctx.num_inputs() - 3));
  }
  return absl::OkStatus();
}

// As SaveV2's inputs; each output has the shape its shape_and_slices entry names when that input
// is a known constant ("" leaves it unknown: it is the stored tensor's).
absl::Status RestoreV2Shape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 0).status());
  ASSIGN_OR_RETURN(PartialShape names, ctx.WithRank(1, 1));
  ASSIGN_OR_RETURN(PartialShape slices, ctx.WithRank(2, 1));
  RETURN_IF_ERROR(ctx.MergeShapes(names, slices).status());
  const Tensor* specs = ctx.input_tensor(2);
  if (specs == nullptr) return absl::OkStatus();
  if (specs->dtype() != kString || !specs->HoldsStrings()) {
    return ctx.Error("Expected an input tensor of type string.");
  }
  if (specs->NumElements() != ctx.num_outputs()) {
    return ctx.Error("The number of shape_and_slice doesn't match tensor outputs.");
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const std::string& spec = specs->flat<std::string>()[i];
    if (spec.empty()) continue;
    absl::StatusOr<checkpoint::ShapeAndSlice> parsed = checkpoint::ParseShapeAndSlice(spec);
    if (!parsed.ok()) return ctx.Error(parsed.status().message());
    ctx.set_output(i, PartialShape::FromTensorShape(parsed->slice_shape));
  }
  return absl::OkStatus();
}

absl::Status MergeV2CheckpointsShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 1).status());
  return ctx.WithRank(1, 0).status();
}

}  // namespace

absl::Status RegisterIoOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("SaveV2")
                                           .Input("prefix", kString)
                                           .Input("tensor_names", kString)
                                           .Input("shape_and_slices", kString)
                                           .InputTypeList("tensors", "dtypes")
                                           .TypeListAttr("dtypes")
                                           .SetIsStateful()
                                           .SetShapeFn(SaveV2Shape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("RestoreV2")
                                           .Input("prefix", kString)
                                           .Input("tensor_names", kString)
                                           .Input("shape_and_slices", kString)
                                           .OutputTypeList("tensors", "dtypes")
                                           .TypeListAttr("dtypes")
                                           .SetIsStateful()
                                           .SetShapeFn(RestoreV2Shape)));
  return RegisterOp(registry, OpDefBuilder("MergeV2Checkpoints")
                                  .Input("checkpoint_prefixes", kString)
                                  .Input("destination_prefix", kString)
                                  .BoolAttr("delete_old_dirs", true)
                                  .BoolAttr("allow_missing_files", false)
                                  .SetIsStateful()
                                  .SetShapeFn(MergeV2CheckpointsShape));
}

}  // namespace tessera
