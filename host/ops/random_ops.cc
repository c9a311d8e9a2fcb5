// TensorFlow's stateful random op definitions: RandomUniform, RandomStandardNormal,
// TruncatedNormal and RandomUniformInt, with their shape functions.
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

// The output shape is the value of the 1-D `shape` input (input 0).
absl::Status RandomShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 1).status());
  PartialShape out;
  ASSIGN_OR_RETURN(out, ctx.MakeShapeFromShapeTensor(0));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status RandomUniformIntShape(ShapeInferenceContext& ctx) {
  for (int i : {1, 2}) {
    if (!ctx.WithRank(i, 0).ok()) {
      return ctx.Error(absl::StrCat(i == 1 ? "minval" : "maxval",
                                    " must be a scalar; got a tensor of shape ",
                                    ctx.input(i).ToString()));
    }
  }
  return RandomShape(ctx);
}

// Shape `shape` (int32 or int64), attrs seed and seed2 (default 0: both 0 draws a
// non-deterministic seed), output of type `dtype`.
OpDefBuilder RandomFloatOp(const char* name) {
  return OpDefBuilder(name)
      .Input("shape", "T")
      .Output("output", "dtype")
      .IntAttr("seed", 0)
      .IntAttr("seed2", 0)
      .TypeAttr("dtype", {TSR_DTYPE_HALF, TSR_DTYPE_BFLOAT16, TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE})
      .TypeAttr("T", {kInt32, kInt64})
      .SetIsStateful()
      .SetShapeFn(RandomShape);
}

}  // namespace

absl::Status RegisterRandomOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, RandomFloatOp("RandomUniform")));
  RETURN_IF_ERROR(RegisterOp(registry, RandomFloatOp("RandomStandardNormal")));
  RETURN_IF_ERROR(RegisterOp(registry, RandomFloatOp("TruncatedNormal")));
  return RegisterOp(registry, OpDefBuilder("RandomUniformInt")
                                  .Input("shape", "T")
                                  .Input("minval", "Tout")
                                  .Input("maxval", "Tout")
                                  .Output("output", "Tout")
                                  .IntAttr("seed", 0)
                                  .IntAttr("seed2", 0)
                                  .TypeAttr("Tout", {kInt32, kInt64})
                                  .TypeAttr("T", {kInt32, kInt64})
                                  .SetIsStateful()
                                  .SetShapeFn(RandomUniformIntShape));
}

}  // namespace tessera
