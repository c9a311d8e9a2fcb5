// TensorFlow's TensorArray (V3) and Stack (V2) op definitions. Their kernels are the host's
// (host/kernels/data_flow_kernels.h), on every device.
#include <vector>

#include "base/status_macros.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

// A handle's static shape is TensorFlow's two-element vector; the runtime carries a scalar.
absl::Status HandleAndFlow(ShapeInferenceContext& ctx) {
  ctx.set_output(0, PartialShape{2});
  if (ctx.num_outputs() > 1) ctx.set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status ScalarOutput(ShapeInferenceContext& ctx) {
  ctx.set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status NoOutputs(ShapeInferenceContext&) { return absl::OkStatus(); }

absl::Status TensorArrayShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 0).status());
  return HandleAndFlow(ctx);
}

absl::Status GradWithShapeShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  RETURN_IF_ERROR(ctx.WithRank(2, 1).status());
  return HandleAndFlow(ctx);
}

absl::Status WriteShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  RETURN_IF_ERROR(ctx.WithRank(3, 0).status());
  return ScalarOutput(ctx);
}

absl::Status ReadShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  RETURN_IF_ERROR(ctx.WithRank(2, 0).status());
  ctx.set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

// [len(indices)] + element_shape.
absl::Status GatherShape(ShapeInferenceContext& ctx) {
  ASSIGN_OR_RETURN(PartialShape indices, ctx.WithRank(1, 1));
  RETURN_IF_ERROR(ctx.WithRank(2, 0).status());
  PartialShape element_shape;
  RETURN_IF_ERROR(ctx.GetAttr("element_shape", &element_shape));
  ctx.set_output(0, PartialShape{indices.dim(0)}.Concatenate(element_shape));
  return absl::OkStatus();
}

absl::Status ScatterShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 1).status());
  RETURN_IF_ERROR(ctx.WithRankAtLeast(2, 1).status());
  RETURN_IF_ERROR(ctx.WithRank(3, 0).status());
  return ScalarOutput(ctx);
}

// value: [?] + element_shape_except0; lengths: [?].
absl::Status ConcatShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  PartialShape except0;
  RETURN_IF_ERROR(ctx.GetAttr("element_shape_except0", &except0));
  ctx.set_output(
      0, except0.rank_known() ? PartialShape{-1}.Concatenate(except0) : PartialShape::Unknown());
  ctx.set_output(1, PartialShape{-1});
  return absl::OkStatus();
}

absl::Status SplitShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRankAtLeast(1, 1).status());
  RETURN_IF_ERROR(ctx.WithRank(2, 1).status());
  RETURN_IF_ERROR(ctx.WithRank(3, 0).status());
  return ScalarOutput(ctx);
}

absl::Status StackShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 0).status());
  return HandleAndFlow(ctx);
}

absl::Status PushShape(ShapeInferenceContext& ctx) {
  ctx.set_output(0, ctx.input(1));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterDataFlowOps(OpRegistry* registry) {
  const DataType kResource = TSR_DTYPE_RESOURCE;
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayV3")
                                           .Input("size", TSR_DTYPE_INT32)
                                           .Output("handle", kResource)
                                           .Output("flow", TSR_DTYPE_FLOAT)
                                           .TypeAttr("dtype")
                                           .ShapeAttr("element_shape", PartialShape::Unknown())
                                           .BoolAttr("dynamic_size", false)
                                           .BoolAttr("clear_after_read", true)
                                           .BoolAttr("identical_element_shapes", false)
                                           .StringAttr("tensor_array_name", "")
                                           .SetIsStateful()
                                           .SetShapeFn(TensorArrayShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayGradV3")
                                           .Input("handle", kResource)
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Output("grad_handle", kResource)
                                           .Output("flow_out", TSR_DTYPE_FLOAT)
                                           .StringAttr("source")
                                           .SetIsStateful()
                                           .SetShapeFn(HandleAndFlow)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayGradWithShape")
                                           .Input("handle", kResource)
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Input("shape_to_prepend", TSR_DTYPE_INT32)
                                           .Output("grad_handle", kResource)
                                           .Output("flow_out", TSR_DTYPE_FLOAT)
                                           .StringAttr("source")
                                           .SetIsStateful()
                                           .SetShapeFn(GradWithShapeShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayWriteV3")
                                           .Input("handle", kResource)
                                           .Input("index", TSR_DTYPE_INT32)
                                           .Input("value", "T")
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Output("flow_out", TSR_DTYPE_FLOAT)
                                           .TypeAttr("T")
                                           .SetShapeFn(WriteShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayReadV3")
                                           .Input("handle", kResource)
                                           .Input("index", TSR_DTYPE_INT32)
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Output("value", "dtype")
                                           .TypeAttr("dtype")
                                           .SetShapeFn(ReadShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayGatherV3")
                                           .Input("handle", kResource)
                                           .Input("indices", TSR_DTYPE_INT32)
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Output("value", "dtype")
                                           .TypeAttr("dtype")
                                           .ShapeAttr("element_shape", PartialShape::Unknown())
                                           .SetShapeFn(GatherShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayScatterV3")
                                           .Input("handle", kResource)
                                           .Input("indices", TSR_DTYPE_INT32)
                                           .Input("value", "T")
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Output("flow_out", TSR_DTYPE_FLOAT)
                                           .TypeAttr("T")
                                           .SetShapeFn(ScatterShape)));
  RETURN_IF_ERROR(
      RegisterOp(registry, OpDefBuilder("TensorArrayConcatV3")
                               .Input("handle", kResource)
                               .Input("flow_in", TSR_DTYPE_FLOAT)
                               .Output("value", "dtype")
                               .Output("lengths", TSR_DTYPE_INT64)
                               .TypeAttr("dtype")
                               .ShapeAttr("element_shape_except0", PartialShape::Unknown())
                               .SetShapeFn(ConcatShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArraySplitV3")
                                           .Input("handle", kResource)
                                           .Input("value", "T")
                                           .Input("lengths", TSR_DTYPE_INT64)
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Output("flow_out", TSR_DTYPE_FLOAT)
                                           .TypeAttr("T")
                                           .SetShapeFn(SplitShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArraySizeV3")
                                           .Input("handle", kResource)
                                           .Input("flow_in", TSR_DTYPE_FLOAT)
                                           .Output("size", TSR_DTYPE_INT32)
                                           .SetShapeFn(ScalarOutput)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("TensorArrayCloseV3")
                                           .Input("handle", kResource)
                                           .SetIsStateful()
                                           .SetShapeFn(NoOutputs)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("StackV2")
                                           .Input("max_size", TSR_DTYPE_INT32)
                                           .Output("handle", kResource)
                                           .TypeAttr("elem_type")
                                           .StringAttr("stack_name", "")
                                           .SetIsStateful()
                                           .SetShapeFn(StackShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("StackPushV2")
                                           .Input("handle", kResource)
                                           .Input("elem", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .BoolAttr("swap_memory", false)
                                           .SetIsStateful()
                                           .SetShapeFn(PushShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("StackPopV2")
                                           .Input("handle", kResource)
                                           .Output("elem", "elem_type")
                                           .TypeAttr("elem_type")
                                           .SetIsStateful()
                                           .SetShapeFn(UnknownShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("StackCloseV2")
                                           .Input("handle", kResource)
                                           .SetIsStateful()
                                           .SetShapeFn(NoOutputs)));
  return absl::OkStatus();
}

}  // namespace tessera
