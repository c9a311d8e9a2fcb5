// TensorFlow's variable op definitions: ref variables (VariableV2, Variable), resource variables,
// and the sparse updates and reads of both (Scatter*, ResourceScatter*, ResourceGather).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

// The variable's declared shape (attr "shape"): an unknown-rank shape stays unknown.
absl::Status ShapeFromAttr(ShapeInferenceContext& ctx) {
  PartialShape shape;
  RETURN_IF_ERROR(ctx.GetAttr("shape", &shape));
  ctx.set_output(0, shape);
  return absl::OkStatus();
}

absl::Status ScalarShape(ShapeInferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status NoOutputs(ShapeInferenceContext&) { return absl::OkStatus(); }

// Assign: with validate_shape the two shapes must agree; the result has the value's shape.
absl::Status AssignShape(ShapeInferenceContext& ctx) {
  bool validate_shape = true;
  RETURN_IF_ERROR(ctx.GetAttr("validate_shape", &validate_shape));
  if (!validate_shape) {
    ctx.set_output(0, ctx.input(1));
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(PartialShape merged, ctx.MergeShapes(ctx.input(0), ctx.input(1)));
  ctx.set_output(0, merged);
  return absl::OkStatus();
}

// AssignAdd, AssignSub: the two shapes agree.
absl::Status MergedShape(ShapeInferenceContext& ctx) {
  ASSIGN_OR_RETURN(PartialShape merged, ctx.MergeShapes(ctx.input(0), ctx.input(1)));
  ctx.set_output(0, merged);
  return absl::OkStatus();
}

OpDefBuilder RefUpdate(const char* name) {
  OpDefBuilder builder(name);
  builder.RefInput("ref", "T")
      .Input("value", "T")
      .RefOutput("output_ref", "T")
      .TypeAttr("T", NumberTypes())
      .BoolAttr("use_locking", false)
      .SetShapeFn(MergedShape);
  return builder;
}

OpDefBuilder ResourceUpdate(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("resource", TSR_DTYPE_RESOURCE)
      .Input("value", "dtype")
      .TypeAttr("dtype")
      .SetIsStateful()
      .SetShapeFn(NoOutputs);
  return builder;
}

// Scatter<op>: updates must be indices.shape + ref.shape[1:], or a scalar; the output is the
// ref. A ref of rank 0 is refused.
absl::Status ScatterUpdateShape(ShapeInferenceContext& ctx) {
  ASSIGN_OR_RETURN(PartialShape ref, ctx.WithRankAtLeast(0, 1));
  const PartialShape& indices = ctx.input(1);
  const PartialShape& updates = ctx.input(2);
  if (updates.rank_known() && updates.rank() > 0 && ref.rank_known() && indices.rank_known()) {
    PartialShape expected = indices.Concatenate(ref.Subshape(1, ref.rank()));
    if (!PartialShape::Merge(updates, expected).ok()) {
      return ctx.Error(absl::StrCat(
          "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
          "got updates.shape ",
          updates.ToString(), ", indices.shape ", indices.ToString(), ", params.shape ",
          ref.ToString()));
    }
  }
  ctx.set_output(0, ref);
  return absl::OkStatus();
}

OpDefBuilder Scatter(const std::string& op, std::vector<DataType> types, bool use_locking) {
  OpDefBuilder builder("Scatter" + op);
  builder.RefInput("ref", "T")
      .Input("indices", "Tindices")
      .Input("updates", "T")
      .RefOutput("output_ref", "T")
      .TypeAttr("T", std::move(types))
      .TypeAttr("Tindices", {TSR_DTYPE_INT32, TSR_DTYPE_INT64})
      .BoolAttr("use_locking", use_locking)
      .SetShapeFn(ScatterUpdateShape);
  return builder;
}

OpDefBuilder ResourceScatter(const std::string& op, std::vector<DataType> types) {
  OpDefBuilder builder("ResourceScatter" + op);
  builder.Input("resource", TSR_DTYPE_RESOURCE)
      .Input("indices", "Tindices")
      .Input("updates", "dtype")
      .TypeAttr("dtype", std::move(types))
      .TypeAttr("Tindices", {TSR_DTYPE_INT32, TSR_DTYPE_INT64})
      .SetIsStateful()
      .SetShapeFn(NoOutputs);
  return builder;
}

}  // namespace

absl::Status RegisterStateOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("VariableV2")
                                           .RefOutput("ref", "dtype")
                                           .ShapeAttr("shape")
                                           .TypeAttr("dtype")
                                           .StringAttr("container", "")
                                           .StringAttr("shared_name", "")
                                           .SetIsStateful()
                                           .SetShapeFn(ShapeFromAttr)));
  // Variable: TensorFlow's first ref variable, the same as VariableV2.
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Variable")
                                           .RefOutput("ref", "dtype")
                                           .ShapeAttr("shape")
                                           .TypeAttr("dtype")
                                           .StringAttr("container", "")
                                           .StringAttr("shared_name", "")
                                           .SetIsStateful()
                                           .SetShapeFn(ShapeFromAttr)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Assign")
                                           .RefInput("ref", "T")
                                           .Input("value", "T")
                                           .RefOutput("output_ref", "T")
                                           .TypeAttr("T")
                                           .BoolAttr("validate_shape", true)
                                           .BoolAttr("use_locking", true)
                                           .SetAllowsUninitializedInput()
                                           .SetShapeFn(AssignShape)));
  RETURN_IF_ERROR(RegisterOp(registry, RefUpdate("AssignAdd")));
  RETURN_IF_ERROR(RegisterOp(registry, RefUpdate("AssignSub")));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("IsVariableInitialized")
                                           .RefInput("ref", "dtype")
                                           .Output("is_initialized", TSR_DTYPE_BOOL)
                                           .TypeAttr("dtype")
                                           .SetAllowsUninitializedInput()
                                           .SetShapeFn(ScalarShape)));

  tensorflow::OpDef::AttrDef allowed_devices;
  allowed_devices.set_name("allowed_devices");
  allowed_devices.set_type("list(string)");
  allowed_devices.mutable_default_value()->mutable_list();
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("VarHandleOp")
                                           .Output("resource", TSR_DTYPE_RESOURCE)
                                           .StringAttr("container", "")
                                           .StringAttr("shared_name", "")
                                           .StringAttr("debug_name", "")
                                           .TypeAttr("dtype")
                                           .ShapeAttr("shape")
                                           .Attr(allowed_devices)
                                           .SetIsStateful()
                                           .SetShapeFn(ScalarShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ReadVariableOp")
                                           .Input("resource", TSR_DTYPE_RESOURCE)
                                           .Output("value", "dtype")
                                           .TypeAttr("dtype")
                                           .SetShapeFn(UnknownShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("AssignVariableOp")
                                           .Input("resource", TSR_DTYPE_RESOURCE)
                                           .Input("value", "dtype")
                                           .TypeAttr("dtype")
                                           .BoolAttr("validate_shape", false)
                                           .SetIsStateful()
                                           .SetShapeFn(NoOutputs)));
  RETURN_IF_ERROR(RegisterOp(registry, ResourceUpdate("AssignAddVariableOp")));
  RETURN_IF_ERROR(RegisterOp(registry, ResourceUpdate("AssignSubVariableOp")));
  // ScatterUpdate locks by default, the arithmetic ones do not (TensorFlow's defaults).
  RETURN_IF_ERROR(RegisterOp(registry, Scatter("Update", {}, /*use_locking=*/true)));
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Scatter(op, NumberTypes(), /*use_locking=*/false)));
  }
  for (const char* op : {"Min", "Max"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Scatter(op, RealNumberTypes(), /*use_locking=*/false)));
  }
  RETURN_IF_ERROR(RegisterOp(registry, ResourceScatter("Update", {})));
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    RETURN_IF_ERROR(RegisterOp(registry, ResourceScatter(op, NumberTypes())));
  }
  for (const char* op : {"Min", "Max"}) {
    RETURN_IF_ERROR(RegisterOp(registry, ResourceScatter(op, RealNumberTypes())));
  }
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ResourceGather")
                                           .Input("resource", TSR_DTYPE_RESOURCE)
                                           .Input("indices", "Tindices")
                                           .Output("output", "dtype")
                                           .IntAttr("batch_dims", 0)
                                           .BoolAttr("validate_indices", true)
                                           .TypeAttr("dtype")
                                           .TypeAttr("Tindices", {TSR_DTYPE_INT32, TSR_DTYPE_INT64})
                                           .SetShapeFn(UnknownShape)));
  // TensorFlow 2.14+ restore functions call it before assigning a restored value; the host's
  // variables never copy on read, so it has nothing to change.
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("DisableCopyOnRead")
                                           .Input("resource", TSR_DTYPE_RESOURCE)
                                           .SetIsStateful()
                                           .SetShapeFn(UnknownShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("VarIsInitializedOp")
                                           .Input("resource", TSR_DTYPE_RESOURCE)
                                           .Output("is_initialized", TSR_DTYPE_BOOL)
                                           .SetShapeFn(ScalarShape)));
  return absl::OkStatus();
}

}  // namespace tessera
