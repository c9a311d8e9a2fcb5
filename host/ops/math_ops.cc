// TensorFlow's math ops: element-wise unary and binary ops, MatMul, reductions and Cast.
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
