// TensorFlow's string ops that checkpoints and SavedModels use to name their files: StringJoin,
// ShardedFilename, ShardedFilespec and StaticRegexFullMatch. Their kernels are the host's
// (host/kernels/string_op_kernels.h).
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kString = TSR_DTYPE_STRING;

// Scalars broadcast; every other input has the one shape of the output.
absl::Status StringJoinShape(ShapeInferenceContext& ctx) {
  PartialShape out = PartialShape::Scalar();
  bool have_non_scalar = false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const PartialShape& shape = ctx.input(i);
    if (shape.rank() == 0) continue;
    if (!have_non_scalar) {
      out = shape;
      have_non_scalar = true;
      continue;
    }
    ASSIGN_OR_RETURN(out, ctx.MergeShapes(out, shape));
  }
  // An input of unknown rank may be a scalar or the output's shape.
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.input(i).rank_known() && !have_non_scalar) out = PartialShape::Unknown();
  }
  ctx.set_output(0, out);
  return absl::OkStatus();
}

// Scalars, or vectors of one element (TensorFlow's legacy scalars, which the kernels check).
absl::Status ScalarInputsScalarOutput(ShapeInferenceContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) RETURN_IF_ERROR(ctx.WithRankAtMost(i, 1).status());
  ctx.set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterStringOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("StringJoin")
                                           .InputList("inputs", "N", kString)
                                           .Output("output", kString)
                                           .IntAttr("N", std::nullopt, 0)
                                           .StringAttr("separator", "")
                                           .SetShapeFn(StringJoinShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ShardedFilename")
                                           .Input("basename", kString)
                                           .Input("shard", TSR_DTYPE_INT32)
                                           .Input("num_shards", TSR_DTYPE_INT32)
                                           .Output("filename", kString)
                                           .SetShapeFn(ScalarInputsScalarOutput)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ShardedFilespec")
                                           .Input("basename", kString)
                                           .Input("num_shards", TSR_DTYPE_INT32)
                                           .Output("filename", kString)
                                           .SetShapeFn(ScalarInputsScalarOutput)));
  return RegisterOp(registry, OpDefBuilder("StaticRegexFullMatch")
                                  .Input("input", kString)
                                  .Output("output", TSR_DTYPE_BOOL)
                                  .StringAttr("pattern")
                                  .SetShapeFn(UnchangedShape));
}

}  // namespace tessera
