// TensorFlow's math ops: element-wise unary and binary ops, comparisons, logical ops, MatMul,
// reductions and Cast.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"
#include "registry/status_macros.h"

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
  return {kBfloat16, kHalf, kFloat, kDouble, kInt8, kInt16, kInt32, kInt64, kComplex64,
          kComplex128};
}
// UNARY_COMPLEX(): floating and complex types.
std::vector<DataType> UnaryComplexTypes() {
  return {kBfloat16, kHalf, kFloat, kDouble, kComplex64, kComplex128};
}
// BINARY_MORE().
std::vector<DataType> BinaryMoreTypes() {
  return {kBfloat16, kHalf,  kFloat,  kDouble,    kUint8,      kInt8,   kUint16,
          kInt16,    kInt32, kInt64,  kComplex64, kComplex128, kUint32, kUint64};
}

OpDefBuilder Unary(const char* name, std::vector<DataType> types) {
  OpDefBuilder builder(name);
  builder.Input("x", "T").Output("y", "T").TypeAttr("T", std::move(types)).SetShapeFn(
      UnchangedShape);
  return builder;
}

OpDefBuilder Binary(const char* name, std::vector<DataType> types) {
  OpDefBuilder builder(name);
  builder.Input("x", "T").Input("y", "T").Output("z", "T").TypeAttr("T", std::move(types))
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

}  // namespace

absl::Status RegisterMathOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(
      registry, Binary("Add", {kBfloat16, kHalf, kFloat, kDouble, kUint8, kInt8, kInt16, kInt32,
                               kInt64, kComplex64, kComplex128, kString})));
  RETURN_IF_ERROR(RegisterOp(
      registry, Binary("AddV2", {kBfloat16, kHalf, kFloat, kDouble, kUint8, kUint16, kUint32,
                                 kUint64, kInt8, kInt16, kInt32, kInt64, kComplex64, kComplex128})
                    .SetIsAggregate()
                    .SetIsCommutative()));
  RETURN_IF_ERROR(RegisterOp(registry, Binary("Sub", BinaryMoreTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Binary("Mul", BinaryMoreTypes()).SetIsCommutative()));
  RETURN_IF_ERROR(RegisterOp(registry, Binary("RealDiv", BinaryMoreTypes())));
  const std::vector<DataType> min_max_types = {kBfloat16, kHalf,  kFloat,  kDouble,
                                               kInt8,     kUint8, kInt16,  kUint16,
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
  RETURN_IF_ERROR(RegisterOp(registry, Unary("Abs", {kBfloat16, kHalf, kFloat, kDouble, kInt8,
                                                     kInt16, kInt32, kInt64})));
  RETURN_IF_ERROR(RegisterOp(registry, Unary("Square", UnaryTypes())));
  for (const char* name : {"Exp", "Log", "Sqrt", "Rsqrt", "Tanh", "Sigmoid"}) {
    RETURN_IF_ERROR(RegisterOp(registry, Unary(name, UnaryComplexTypes())));
  }

  RETURN_IF_ERROR(RegisterOp(
      registry, OpDefBuilder("MatMul")
                    .Input("a", "T")
                    .Input("b", "T")
                    .Output("product", "T")
                    .BoolAttr("transpose_a", false)
                    .BoolAttr("transpose_b", false)
                    .TypeAttr("T", {kBfloat16, kHalf, kFloat, kDouble, kInt32, kInt64,
                                    kComplex64, kComplex128})
                    .BoolAttr("grad_a", false)
                    .BoolAttr("grad_b", false)
                    .SetShapeFn(MatMulShape)));

  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Sum", NumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Mean", NumberTypes())));
  RETURN_IF_ERROR(RegisterOp(registry, Reduction("Max", NumberTypes())));

  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Cast")
                                           .Input("x", "SrcT")
                                           .Output("y", "DstT")
                                           .TypeAttr("SrcT")
                                           .TypeAttr("DstT")
                                           .BoolAttr("Truncate", false)
                                           .SetShapeFn(UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace tessera
