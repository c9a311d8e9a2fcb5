// TensorFlow's math ops: element-wise unary and binary ops (trigonometric and hyperbolic ones,
// IsNan/IsInf/IsFinite, Atan2, Rint), comparisons, logical ops, AddN, Select, MatMul, reductions,
// ArgMax/ArgMin, Cumsum and Cumprod, ClipByValue, LinSpace, Bucketize and Cast.
#include <algorithm>

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
constexpr DataType kUint8 = TSR_DTYPE_UINT8;
constexpr DataType kUint16 = TSR_DTYPE_UINT16;
constexpr DataType kUint32 = TSR_DTYPE_UINT32;
constexpr DataType kUint64 = TSR_DTYPE_UINT64;
constexpr DataType kInt8 = TSR_DTYPE_INT8;
constexpr DataType kInt16 = TSR_DTYPE_INT16;
constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;
constexpr DataType kComplex64 = TSR_DTYPE_COMPLEX64;
constexpr DataType kComplex128 = TSR_DTYPE_COMPLEX128;
constexpr DataType kString = TSR_DTYPE_STRING;
constexpr DataType kBool = TSR_DTYPE_BOOL;

// TensorFlow's UNARY() types.
std::vector<DataType> UnaryTypes() {
  return {kBfloat16, kHalf,  kFloat, kDouble,    kInt8,
          kInt16,    kInt32, kInt64, kComplex64, kComplex128};
}
// UNARY_COMPLEX(): floating and complex types.
std::vector<DataType> UnaryComplexTypes() {
  return {kBfloat16, kHalf, kFloat, kDouble, kComplex64, kComplex128};
}
// BINARY_MORE().
std::vector<DataType> BinaryMoreTypes() {
  return {kBfloat16, kHalf,  kFloat, kDouble,    kUint8,      kInt8,   kUint16,
          kInt16,    kInt32, kInt64, kComplex64, kComplex128, kUint32, kUint64};
}

OpDefBuilder Unary(const char* name, std::vector<DataType> types) {
  OpDefBuilder builder(name);
  builder.Input("x", "T")
      .Output("y", "T")
      .TypeAttr("T", std::move(types))
      .SetShapeFn(UnchangedShape);
  return builder;
}

OpDefBuilder Binary(const char* name, std::vector<DataType> types) {
  OpDefBuilder builder(name);
  builder.Input("x", "T")
      .Input("y", "T")
      .Output("z", "T")
      .TypeAttr("T", std::move(types))
      .SetShapeFn(BroadcastBinaryOpShape);
  return builder;
}

OpDefBuilder Reduction(const char* name, std::vector<DataType> types) {
  OpDefBuilder builder(name);
  builder.Input("input", "T")
      .Input("reduction_indices", "Tidx")
      .Output("output", "T")
      .BoolAttr("keep_dims", false)
      .TypeAttr("T", std::move(types))
      .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
      .SetShapeFn(ReductionShape);
  return builder;
}

// Less, LessEqual, Greater, GreaterEqual: real numbers in, bool out, broadcasting.
OpDefBuilder Comparison(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("x", "T")
      .Input("y", "T")
      .Output("z", kBool)
      .TypeAttr("T", RealNumberTypes())
      .SetShapeFn(BroadcastBinaryOpShape);
  return builder;
}

// TensorFlow's BroadcastBinaryOpOutputShapeFnHelper with incompatible_shape_error = false: known
// dimensions that do not broadcast give a scalar (the kernel's result then is one bool); an
// unknown dimension against a known one other than 1 might not broadcast, so the shape is unknown.
PartialShape LenientBroadcastShape(const PartialShape& x, const PartialShape& y) {
  if (!x.rank_known() || !y.rank_known()) return PartialShape::Unknown();
  const int rank = std::max(x.rank(), y.rank());
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.rank());
    const int yi = i - (rank - y.rank());
    const int64_t dx = xi < 0 ? 1 : x.dim(xi);
    const int64_t dy = yi < 0 ? 1 : y.dim(yi);
    if (dx == kUnknownDim || dy == kUnknownDim) {
      // Unknown against unknown or 1 stays unknown; against any other size it may not broadcast.
      if (dx != dy && dx != 1 && dy != 1) return PartialShape::Unknown();
      out.AddDim(kUnknownDim);
    } else if (dx == 1 || dy == 1 || dx == dy) {
      out.AddDim(dx == 1 ? dy : dx);
    } else {
      return PartialShape::Scalar();
    }
  }
  return out;
}

absl::Status EqualityComparisonShape(ShapeInferenceContext& ctx) {
  bool incompatible_shape_error = true;
  RETURN_IF_ERROR(ctx.GetAttr("incompatible_shape_error", &incompatible_shape_error));
  if (incompatible_shape_error) return BroadcastBinaryOpShape(ctx);
  ctx.set_output(0, LenientBroadcastShape(ctx.input(0), ctx.input(1)));
  return absl::OkStatus();
}

// Equal, NotEqual: any type (TensorFlow's `T: type`), bool out, broadcasting unless
// incompatible_shape_error is false.
OpDefBuilder EqualityComparison(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("x", "T")
      .Input("y", "T")
      .Output("z", kBool)
      .SetIsCommutative()
      .TypeAttr("T")
      .BoolAttr("incompatible_shape_error", true)
      .SetShapeFn(EqualityComparisonShape);
  return builder;
}

// LogicalAnd, LogicalOr: bool in and out, broadcasting.
OpDefBuilder BinaryLogical(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("x", kBool)
      .Input("y", kBool)
      .Output("z", kBool)
      .SetIsCommutative()
      .SetShapeFn(BroadcastBinaryOpShape);
  return builder;
}

// ---- Division, modulo, powers, rounding, AddN, Select, more reductions, ArgMax, Cumsum ----

constexpr DataType kQint8 = TSR_DTYPE_QINT8;
constexpr DataType kQuint8 = TSR_DTYPE_QUINT8;
constexpr DataType kQint16 = TSR_DTYPE_QINT16;
constexpr DataType kQuint16 = TSR_DTYPE_QUINT16;
constexpr DataType kQint32 = TSR_DTYPE_QINT32;
constexpr DataType kVariant = TSR_DTYPE_VARIANT;

// BINARY_FEWER().
std::vector<DataType> BinaryFewerTypes() {
  return {kBfloat16, kHalf, kFloat, kDouble, kInt32, kInt64, kComplex64, kComplex128};
}
// UNARY_REAL().
std::vector<DataType> UnaryRealTypes() { return {kBfloat16, kHalf, kFloat, kDouble}; }
// Min and Max: {realnumbertype, quantizedtype}.
std::vector<DataType> MinMaxTypes() {
  std::vector<DataType> types = RealNumberTypes();
  types.insert(types.end(), {kQint8, kQuint8, kQint32, kQint16, kQuint16});
  return types;
}

// Every input has the same shape: their merge, so that a dimension known in any input is known
// in the output.
absl::Status AddNShape(ShapeInferenceContext& ctx) {
  PartialShape merged = ctx.input(ctx.num_inputs() - 1);
  for (int i = ctx.num_inputs() - 2; i >= 0; --i) {
    absl::StatusOr<PartialShape> next = PartialShape::Merge(ctx.input(i), merged);
    if (!next.ok()) {
      return ctx.Error(absl::StrCat(next.status().message(), ", from merging shape ", i,
                                    " with the other shapes"));
    }
    merged = *std::move(next);
  }
  ctx.set_output(0, std::move(merged));
  return absl::OkStatus();
}

// TensorFlow's Select rule: t and e have one shape; condition is a scalar, has that shape, or is
// a vector as long as its first dimension.
absl::Status SelectShape(ShapeInferenceContext& ctx) {
  PartialShape data;
  ASSIGN_OR_RETURN(data, ctx.MergeShapes(ctx.input(1), ctx.input(2)));
  const PartialShape& cond = ctx.input(0);
  if (!cond.rank_known() || !data.rank_known() || cond.rank() == 0) {
    ctx.set_output(0, std::move(data));
    return absl::OkStatus();
  }
  if (cond.rank() != 1 || data.rank() == 0) {
    ASSIGN_OR_RETURN(data, ctx.MergeShapes(data, cond));
    ctx.set_output(0, std::move(data));
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(ctx.MergeShapes(cond, PartialShape({data.dim(0)})).status());
  ctx.set_output(0, std::move(data));
  return absl::OkStatus();
}

// SelectV2: condition, t and e broadcast together.
absl::Status SelectV2Shape(ShapeInferenceContext& ctx) {
  absl::StatusOr<PartialShape> values = PartialShape::Broadcast(ctx.input(1), ctx.input(2));
  if (!values.ok()) return ctx.Error(values.status().message());
  absl::StatusOr<PartialShape> out = PartialShape::Broadcast(ctx.input(0), *values);
  if (!out.ok()) return ctx.Error(out.status().message());
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// ArgMax, ArgMin: the input's shape without the `dimension` axis (a scalar for inputs of rank 0
// or 1, where the kernel checks the axis).
absl::Status ArgOpShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  const PartialShape& input = ctx.input(0);
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  if (rank <= 1) {
    ctx.set_output(0, PartialShape::Scalar());
    return absl::OkStatus();
  }
  std::vector<int64_t> values;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &values));
  if (!known || values.size() != 1) {
    ctx.set_output(0, PartialShape::UnknownOfRank(rank - 1));
    return absl::OkStatus();
  }
  const int64_t dimension = values[0];
  const int64_t axis = dimension < 0 ? dimension + rank : dimension;
  if (axis < 0 || axis >= rank) {
    return ctx.Error(absl::StrCat("Dimension (", dimension, ") must be in the range [", -rank, ", ",
                                  rank, "), where ", rank,
                                  " is the number of dimensions in the input."));
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    if (i != axis) out.AddDim(input.dim(i));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

OpDefBuilder ArgOp(const char* name) {
  OpDefBuilder builder(name);
  std::vector<DataType> types = NumberTypes();
  types.push_back(kBool);
  builder.Input("input", "T")
      .Input("dimension", "Tidx")
      .Output("output", "output_type")
      .TypeAttr("T", std::move(types))
      .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
      .TypeAttr("output_type", {kInt32, kInt64}, kInt64)
      .SetShapeFn(ArgOpShape);
  return builder;
}

// All, Any: bool in and out.
OpDefBuilder LogicalReduction(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("input", kBool)
      .Input("reduction_indices", "Tidx")
      .Output("output", kBool)
      .BoolAttr("keep_dims", false)
      .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
      .SetShapeFn(ReductionShape);
  return builder;
}

OpDefBuilder Select(const char* name, ShapeFn shape_fn) {
  OpDefBuilder builder(name);
  builder.Input("condition", kBool)
      .Input("t", "T")
      .Input("e", "T")
      .Output("output", "T")
      .TypeAttr("T")
      .SetShapeFn(std::move(shape_fn));
  return builder;
}

// Cumsum, Cumprod: running sums or products along `axis`.
OpDefBuilder Scan(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("x", "T")
      .Input("axis", "Tidx")
      .BoolAttr("exclusive", false)
      .BoolAttr("reverse", false)
      .Output("out", "T")
      .TypeAttr("T", NumberTypes())
      .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
      .SetShapeFn(UnchangedShape);
  return builder;
}

absl::Status RegisterDivisionAndPowerOps(OpRegistry* registry) {
  for (const char* name : {"Div", "FloorDiv", "TruncateDiv"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Binary(name, BinaryMoreTypes())));
  }
  RETURN_IF_ERROR(RegisterOp(
      registry, Binary("FloorMod", {kInt8, kInt16, kInt32, kInt64, kUint8, kUint16, kUint32,
                                    kUint64, kBfloat16, kHalf, kFloat, kDouble})));
  RETURN_IF_ERROR(RegisterOp(
      registry, Binary("TruncateMod", {kInt32, kInt64, kBfloat16, kHalf, kFloat, kDouble})));
  RETURN_IF_ERROR(
      RegisterOp(registry, Binary("Mod", {kInt32, kInt64, kHalf, kBfloat16, kFloat, kDouble})));
  RETURN_IF_ERROR(
      RegisterOp(registry, Binary("Pow", {kBfloat16, kFloat, kHalf, kDouble, kInt8, kInt16, kInt32,
                                          kInt64, kComplex64, kComplex128})));
  return RegisterOp(registry, Binary("SquaredDifference", BinaryFewerTypes()).SetIsCommutative());
}

absl::Status RegisterMoreUnaryOps(OpRegistry* registry) {
  for (const char* name : {"Sign", "Round", "Reciprocal"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Unary(name, UnaryTypes())));
  }
  for (const char* name : {"Floor", "Ceil", "Erf"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Unary(name, UnaryRealTypes())));
  }
  for (const char* name : {"Log1p", "Expm1"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Unary(name, UnaryComplexTypes())));
  }
  return absl::OkStatus();
}

absl::Status RegisterAddNAndSelectOps(OpRegistry* registry) {
  std::vector<DataType> add_n_types = NumberTypes();
  add_n_types.push_back(kVariant);
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("AddN")
                                           .InputList("inputs", "N", "T")
                                           .Output("sum", "T")
                                           .IntAttr("N", std::nullopt, 1)
                                           .TypeAttr("T", std::move(add_n_types))
                                           .SetIsCommutative()
                                           .SetIsAggregate()
                                           .SetShapeFn(AddNShape)));
  RETURN_IF_ERROR(RegisterOp(registry, Select("Select", SelectShape)));
  return RegisterOp(registry, Select("SelectV2", SelectV2Shape));
}

absl::Status RegisterMoreReductionOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Prod", NumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Min", MinMaxTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, LogicalReduction("All")));
  RETURN_IF_ERROR(RegisterOp(registry, LogicalReduction("Any")));
  RETURN_IF_ERROR(RegisterOp(registry, ArgOp("ArgMax")));
  RETURN_IF_ERROR(RegisterOp(registry, ArgOp("ArgMin")));
  return RegisterOp(registry, Scan("Cumsum"));
}

// x -> bool of the same shape: IsNan, IsInf, IsFinite.
OpDefBuilder FloatPredicate(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("x", "T")
      .Output("y", kBool)
      .TypeAttr("T", UnaryRealTypes())
      .SetShapeFn(UnchangedShape);
  return builder;
}

absl::Status RegisterTrigonometricOps(OpRegistry* registry) {
  for (const char* name : {"Sin", "Cos", "Sinh", "Cosh"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Unary(name, UnaryComplexTypes())));
  }
  for (const char* name : {"Tan", "Asin", "Acos", "Atan"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Unary(name, UnaryTypes())));
  }
  for (const char* name : {"IsNan", "IsInf", "IsFinite"}) {
    RETURN_IF_ERROR(RegisterOp(registry, FloatPredicate(name)));
  }
  RETURN_IF_ERROR(RegisterOp(registry, Unary("Rint", UnaryRealTypes())));
  // Atan2(y, x): the angle of the point (x, y); TensorFlow names the first input y.
  return RegisterOp(registry, OpDefBuilder("Atan2")
                                  .Input("y", "T")
                                  .Input("x", "T")
                                  .Output("z", "T")
                                  .TypeAttr("T", UnaryRealTypes())
                                  .SetShapeFn(BroadcastBinaryOpShape));
}

// LinSpace: start, stop and num are scalars; a constant num gives the output's length.
absl::Status LinSpaceShape(ShapeInferenceContext& ctx) {
  static constexpr const char* kNames[] = {"start", "stop", "num"};
  for (int i = 0; i < 3; ++i) {
    const PartialShape& shape = ctx.input(i);
    if (shape.rank_known() && shape.rank() != 0) {
      return ctx.Error(absl::StrCat("shape must be rank 0 but is rank ", shape.rank(), " for '",
                                    kNames[i], "' (input ", i, ")"));
    }
  }
  std::vector<int64_t> num;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(2, &num));
  if (!known || num.size() != 1) {
    ctx.set_output(0, PartialShape({kUnknownDim}));
    return absl::OkStatus();
  }
  if (num[0] <= 0) return ctx.Error(absl::StrCat("Requires num > 0: ", num[0]));
  ctx.set_output(0, PartialShape({num[0]}));
  return absl::OkStatus();
}

absl::Status RegisterClipAndSequenceOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, Scan("Cumprod")));
  // The kernel checks that the bounds are scalars or of t's shape.
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ClipByValue")
                                           .Input("t", "T")
                                           .Input("clip_value_min", "T")
                                           .Input("clip_value_max", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T", NumberTypes())
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("LinSpace")
                                           .Input("start", "T")
                                           .Input("stop", "T")
                                           .Input("num", "Tidx")
                                           .Output("output", "T")
                                           .TypeAttr("T", UnaryRealTypes())
                                           .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(LinSpaceShape)));
  tensorflow::OpDef::AttrDef boundaries;
  boundaries.set_name("boundaries");
  boundaries.set_type("list(float)");
  return RegisterOp(registry, OpDefBuilder("Bucketize")
                                  .Input("input", "T")
                                  .Output("output", kInt32)
                                  .TypeAttr("T", {kInt32, kInt64, kFloat, kDouble})
                                  .Attr(boundaries)
                                  .SetShapeFn(UnchangedShape));
}

// BatchMatMulV2, BatchMatMulV3: [..., r, c] matrices whose batch dimensions broadcast.
absl::Status BatchMatMulV2Shape(ShapeInferenceContext& ctx) {
  PartialShape x;
  PartialShape y;
  ASSIGN_OR_RETURN(x, ctx.WithRankAtLeast(0, 2));
  ASSIGN_OR_RETURN(y, ctx.WithRankAtLeast(1, 2));
  if (!x.rank_known() || !y.rank_known()) return absl::OkStatus();
  bool adj_x = false;
  bool adj_y = false;
  RETURN_IF_ERROR(ctx.GetAttr("adj_x", &adj_x));
  RETURN_IF_ERROR(ctx.GetAttr("adj_y", &adj_y));
  RETURN_IF_ERROR(ctx.MergeDims(x.dim(adj_x ? -2 : -1), y.dim(adj_y ? -1 : -2)).status());
  const PartialShape x_batch = x.Subshape(0, -2);
  const PartialShape y_batch = y.Subshape(0, -2);
  absl::StatusOr<PartialShape> batch = PartialShape::Broadcast(x_batch, y_batch);
  if (!batch.ok()) {
    return ctx.Error(
        absl::StrCat("Incompatible shapes: ", x_batch.ToString(), " vs. ", y_batch.ToString()));
  }
  ctx.set_output(
      0, batch->Concatenate(PartialShape({x.dim(adj_x ? -1 : -2), y.dim(adj_y ? -2 : -1)})));
  return absl::OkStatus();
}

// BatchMatMul (the first version): the batch dimensions do not broadcast but merge.
absl::Status BatchMatMulShape(ShapeInferenceContext& ctx) {
  PartialShape x;
  PartialShape y;
  ASSIGN_OR_RETURN(x, ctx.WithRankAtLeast(0, 2));
  ASSIGN_OR_RETURN(y, ctx.WithRankAtLeast(1, 2));
  if (!x.rank_known() || !y.rank_known()) return absl::OkStatus();
  bool adj_x = false;
  bool adj_y = false;
  RETURN_IF_ERROR(ctx.GetAttr("adj_x", &adj_x));
  RETURN_IF_ERROR(ctx.GetAttr("adj_y", &adj_y));
  PartialShape batch;
  ASSIGN_OR_RETURN(batch, ctx.MergeShapes(x.Subshape(0, -2), y.Subshape(0, -2)));
  RETURN_IF_ERROR(ctx.MergeDims(x.dim(adj_x ? -2 : -1), y.dim(adj_y ? -1 : -2)).status());
  ctx.set_output(0,
                 batch.Concatenate(PartialShape({x.dim(adj_x ? -1 : -2), y.dim(adj_y ? -2 : -1)})));
  return absl::OkStatus();
}

OpDefBuilder& BatchMatMulAttrs(OpDefBuilder& builder) {
  builder.BoolAttr("adj_x", false)
      .BoolAttr("adj_y", false)
      .BoolAttr("grad_x", false)
      .BoolAttr("grad_y", false);
  return builder;
}

absl::Status RegisterBatchMatMulOps(OpRegistry* registry) {
  OpDefBuilder v1("BatchMatMul");
  v1.Input("x", "T")
      .Input("y", "T")
      .Output("output", "T")
      .TypeAttr("T", {kBfloat16, kHalf, kFloat, kDouble, kInt32, kInt64, kComplex64, kComplex128});
  RETURN_IF_ERROR(RegisterOp(registry, BatchMatMulAttrs(v1).SetShapeFn(BatchMatMulShape)));
  OpDefBuilder v2("BatchMatMulV2");
  v2.Input("x", "T")
      .Input("y", "T")
      .Output("output", "T")
      .TypeAttr("T", {kBfloat16, kHalf, kFloat, kDouble, kInt16, kInt32, kInt64, kUint8, kUint16,
                      kUint32, kUint64, kComplex64, kComplex128});
  RETURN_IF_ERROR(RegisterOp(registry, BatchMatMulAttrs(v2).SetShapeFn(BatchMatMulV2Shape)));
  // BatchMatMulV3: x, y and the output each have their own type.
  const std::vector<DataType> operand_types = {kBfloat16, kHalf,      kFloat,     kDouble,
                                               kUint8,    kInt8,      kInt16,     kInt32,
                                               kInt64,    kComplex64, kComplex128};
  OpDefBuilder v3("BatchMatMulV3");
  v3.Input("x", "Ta")
      .Input("y", "Tb")
      .Output("output", "Tout")
      .TypeAttr("Ta", operand_types)
      .TypeAttr("Tb", operand_types)
      .TypeAttr("Tout", {kBfloat16, kHalf, kFloat, kDouble, kInt16, kInt32, kInt64, kComplex64,
                         kComplex128});
  return RegisterOp(registry, BatchMatMulAttrs(v3).SetShapeFn(BatchMatMulV2Shape));
}

}  // namespace

absl::Status RegisterMathOps(OpRegistry* registry) {
  RETURN_IF_ERROR(
      RegisterOp(registry, Binary("Add", {kBfloat16, kHalf, kFloat, kDouble, kUint8, kInt8, kInt16,
                                          kInt32, kInt64, kComplex64, kComplex128, kString})));
  RETURN_IF_ERROR(RegisterOp(
      registry, Binary("AddV2", {kBfloat16, kHalf, kFloat, kDouble, kUint8, kUint16, kUint32,
                                 kUint64, kInt8, kInt16, kInt32, kInt64, kComplex64, kComplex128})
                    .SetIsAggregate()
                    .SetIsCommutative()));
  RETURN_IF_ERROR(RegisterOp(registry, Binary("Sub", BinaryMoreTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Binary("Mul", BinaryMoreTypes()).SetIsCommutative()));
  RETURN_IF_ERROR(RegisterOp(registry, Binary("RealDiv", BinaryMoreTypes())));
  const std::vector<DataType> min_max_types = {kBfloat16, kHalf,   kFloat, kDouble,
                                               kInt8,     kUint8,  kInt16, kUint16,
                                               kInt32,    kUint32, kInt64, kUint64};
  RETURN_IF_ERROR(RegisterOp(registry, Binary("Maximum", min_max_types)));
  RETURN_IF_ERROR(RegisterOp(registry, Binary("Minimum", min_max_types)));

  for (const char* name : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Comparison(name)));
  }
  RETURN_IF_ERROR(RegisterOp(registry, EqualityComparison("Equal")));
  RETURN_IF_ERROR(RegisterOp(registry, EqualityComparison("NotEqual")));
  RETURN_IF_ERROR(RegisterOp(registry, BinaryLogical("LogicalAnd")));
  RETURN_IF_ERROR(RegisterOp(registry, BinaryLogical("LogicalOr")));
  RETURN_IF_ERROR(RegisterOp(
      registry,
      OpDefBuilder("LogicalNot").Input("x", kBool).Output("y", kBool).SetShapeFn(UnchangedShape)));

  RETURN_IF_ERROR(RegisterOp(registry, Unary("Neg", UnaryTypes())));
  RETURN_IF_ERROR(RegisterOp(
      registry, Unary("Abs", {kBfloat16, kHalf, kFloat, kDouble, kInt8, kInt16, kInt32, kInt64})));
  RETURN_IF_ERROR(RegisterOp(registry, Unary("Square", UnaryTypes())));
  for (const char* name : {"Exp", "Log", "Sqrt", "Rsqrt", "Tanh", "Sigmoid"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Unary(name, UnaryComplexTypes())));
  }

  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("MatMul")
                                           .Input("a", "T")
                                           .Input("b", "T")
                                           .Output("product", "T")
                                           .BoolAttr("transpose_a", false)
                                           .BoolAttr("transpose_b", false)
                                           .TypeAttr("T", {kBfloat16, kHalf, kFloat, kDouble,
                                                           kInt32, kInt64, kComplex64, kComplex128})
                                           .BoolAttr("grad_a", false)
                                           .BoolAttr("grad_b", false)
                                           .SetShapeFn(MatMulShape)));

  // MatMul followed by the ops named in fused_ops (BiasAdd, then maybe an activation), which take
  // their extra inputs from `args`. Internal: the op fusion pass makes it (docs/op_fusion.md).
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("_FusedMatMul")
                                           .Input("a", "T")
                                           .Input("b", "T")
                                           .InputList("args", "num_args", "T")
                                           .Output("product", "T")
                                           .BoolAttr("transpose_a", false)
                                           .BoolAttr("transpose_b", false)
                                           .TypeAttr("T", {kBfloat16, kHalf, kFloat, kDouble})
                                           .IntAttr("num_args", std::nullopt, 0)
                                           .StringListAttr("fused_ops", std::vector<std::string>{})
                                           .FloatAttr("epsilon", 0.0001f)
                                           .FloatAttr("leakyrelu_alpha", 0.2f)
                                           .SetShapeFn(MatMulShape)));

  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Sum", NumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Mean", NumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Max", MinMaxTypes())));
  RETURN_IF_ERROR(RegisterMoreReductionOps(registry));
  RETURN_IF_ERROR(RegisterDivisionAndPowerOps(registry));
  RETURN_IF_ERROR(RegisterMoreUnaryOps(registry));
  RETURN_IF_ERROR(RegisterTrigonometricOps(registry));
  RETURN_IF_ERROR(RegisterClipAndSequenceOps(registry));
  RETURN_IF_ERROR(RegisterAddNAndSelectOps(registry));

  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Cast")
                                           .Input("x", "SrcT")
                                           .Output("y", "DstT")
                                           .TypeAttr("SrcT")
                                           .TypeAttr("DstT")
                                           .BoolAttr("Truncate", false)
                                           .SetShapeFn(UnchangedShape)));

  return RegisterBatchMatMulOps(registry);
}

}  // namespace tessera
