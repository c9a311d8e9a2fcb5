// TensorFlow's array ops: Const, Identity, placeholders, Reshape, Shape, ShapeN, ExpandDims,
// Squeeze, ConcatV2, Concat, ConcatOffset, Fill, ZerosLike, OnesLike, Pack, the identity family
// (IdentityN, StopGradient, PreventGradient, Snapshot), Size, Rank, BroadcastGradientArgs, Where,
// Range and CheckNumerics, with their shape functions; then the slicing, reshaping and indexing
// groups (array_slice_ops.cc, array_transform_ops.cc, array_index_ops.cc).
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"
#include "host/ops/array_op_groups.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

absl::Status ConstShape(ShapeInferenceContext& ctx) {
  const tensorflow::TensorProto* value = nullptr;
  DataType dtype;
  RETURN_IF_ERROR(ctx.GetAttr("value", &value));
  RETURN_IF_ERROR(ctx.GetAttr("dtype", &dtype));
  if (static_cast<int>(value->dtype()) != static_cast<int>(dtype)) {
    return ctx.Error(absl::StrCat("value has dtype ", ProtoDataTypeString(value->dtype()),
                                  ", but attr dtype is ", DataTypeString(dtype)));
  }
  absl::StatusOr<TensorShape> shape = TensorShapeFromProto(value->tensor_shape());
  if (!shape.ok()) return ctx.Error(absl::StrCat("value: ", shape.status().message()));
  const size_t element_size = DataTypeSize(dtype);
  if (!value->tensor_content().empty() && element_size > 0 &&
      value->tensor_content().size() / element_size !=
          static_cast<uint64_t>(shape->num_elements())) {
    return ctx.Error(absl::StrCat(
        "value of shape ", shape->DebugString(), " has ", value->tensor_content().size(),
        " bytes of tensor_content, expected ", shape->num_elements() * element_size));
  }
  ctx.set_output(0, PartialShape::FromTensorShape(*shape));
  return absl::OkStatus();
}

absl::Status PlaceholderShape(ShapeInferenceContext& ctx) {
  PartialShape shape;
  RETURN_IF_ERROR(ctx.GetAttr("shape", &shape));
  ctx.set_output(0, std::move(shape));
  return absl::OkStatus();
}

absl::Status PlaceholderWithDefaultShape(ShapeInferenceContext& ctx) {
  PartialShape shape;
  RETURN_IF_ERROR(ctx.GetAttr("shape", &shape));
  // The declared shape may be less precise than the default's; they must only be compatible.
  if (!ctx.input(0).IsCompatibleWith(shape)) {
    return ctx.Error(absl::StrCat("default value of shape ", ctx.input(0).ToString(),
                                  " is not compatible with attr shape ", shape.ToString()));
  }
  ctx.set_output(0, std::move(shape));
  return absl::OkStatus();
}

absl::Status ReshapeShape(ShapeInferenceContext& ctx) {
  const PartialShape& in = ctx.input(0);
  PartialShape out;
  ASSIGN_OR_RETURN(out, ctx.MakeShapeFromShapeTensor(1));
  std::vector<int64_t> requested;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &requested));
  if (known) {
    int wildcards = 0;
    for (int64_t d : requested) wildcards += d == -1;
    if (wildcards > 1) {
      return ctx.Error(absl::StrCat("only one dimension of the new shape may be -1, got [",
                                    absl::StrJoin(requested, ","), "]"));
    }
  }
  if (!out.rank_known()) {
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }
  int64_t known_product = 1;
  int unknown_index = -1;
  int unknown_count = 0;
  for (int i = 0; i < out.rank(); ++i) {
    if (out.dim(i) < 0) {
      unknown_index = i;
      ++unknown_count;
    } else if (out.dim(i) > 0 && known_product > std::numeric_limits<int64_t>::max() / out.dim(i)) {
      return ctx.Error(
          absl::StrCat("new shape ", out.ToString(), " has more elements than an int64 can count"));
    } else {
      known_product *= out.dim(i);
    }
  }
  const int64_t in_elements = in.num_elements();
  if (in_elements >= 0) {
    if (unknown_count == 0 && known_product != in_elements) {
      return ctx.Error(absl::StrCat("cannot reshape a tensor with ", in_elements,
                                    " elements to shape ", out.ToString(), " (", known_product,
                                    " elements)"));
    }
    if (unknown_count == 1 && known_product > 0) {
      if (in_elements % known_product != 0) {
        return ctx.Error(absl::StrCat(
            "cannot reshape a tensor with ", in_elements, " elements to shape ", out.ToString(),
            ": the number of elements is not a multiple of ", known_product));
      }
      out.set_dim(unknown_index, in_elements / known_product);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ShapeShape(ShapeInferenceContext& ctx) {
  ctx.set_output(0, PartialShape({ctx.input(0).rank_known() ? ctx.input(0).rank() : -1}));
  return absl::OkStatus();
}

// ShapeN: output i is a vector as long as input i's rank.
absl::Status ShapeNShape(ShapeInferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const PartialShape& input = ctx.input(i);
    ctx.set_output(i, PartialShape({input.rank_known() ? input.rank() : kUnknownDim}));
  }
  return absl::OkStatus();
}

// ConcatOffset(concat_dim, shape_0..shape_N-1): offset i has the shape of shape_i.
absl::Status ConcatOffsetShape(ShapeInferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(i + 1));
  return absl::OkStatus();
}

absl::Status ExpandDimsShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  std::vector<int64_t> dim;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &dim));
  if (known && dim.size() != 1) {
    return ctx.Error(absl::StrCat("'dim' must hold a single value, got ", dim.size()));
  }
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  if (!known) {
    ctx.set_output(0, PartialShape::UnknownOfRank(rank + 1));
    return absl::OkStatus();
  }
  int64_t d = dim[0];
  if (d < -rank - 1 || d > rank) {
    return ctx.Error(
        absl::StrCat("dim ", d, " is not in the interval [", -rank - 1, ", ", rank, "]"));
  }
  if (d < 0) d += rank + 1;
  PartialShape out = input.Subshape(0, static_cast<int>(d));
  out.AddDim(1);
  ctx.set_output(0, out.Concatenate(input.Subshape(static_cast<int>(d), rank)));
  return absl::OkStatus();
}

absl::Status SqueezeShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  std::vector<int64_t> squeeze_dims;
  RETURN_IF_ERROR(ctx.GetAttr("squeeze_dims", &squeeze_dims));
  std::set<int64_t> wrapped;
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank) {
      return ctx.Error(absl::StrCat("cannot squeeze dimension ", d, " of a tensor with ", rank,
                                    " dimensions (expected a dimension in [", -rank, ", ", rank,
                                    "))"));
    }
    wrapped.insert(d < 0 ? d + rank : d);
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    const bool listed = wrapped.count(i) > 0;
    const int64_t d = input.dim(i);
    if (d < 0) {
      if (listed) continue;  // assumed to be 1 at run time
      if (wrapped.empty()) {
        ctx.set_output(0, PartialShape::Unknown());
        return absl::OkStatus();
      }
    } else if (d == 1) {
      if (listed || wrapped.empty()) continue;
    } else if (listed) {
      return ctx.Error(
          absl::StrCat("cannot squeeze dimension ", i, ": expected a dimension of 1, got ", d));
    }
    out.AddDim(d);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// ConcatV2 (values, then the axis) and Concat (the axis, then values): the values' common shape
// with the axis dimensions summed.
absl::Status ConcatShapeOf(ShapeInferenceContext& ctx, int first_value, int axis_input) {
  const int n = ctx.num_inputs() - 1;
  int rank = -1;
  int first_known = -1;
  for (int i = 0; i < n; ++i) {
    const PartialShape& shape = ctx.input(first_value + i);
    if (!shape.rank_known()) continue;
    if (rank == -1) {
      rank = shape.rank();
      first_known = i;
    } else if (shape.rank() != rank) {
      return ctx.Error(absl::StrCat("all inputs must have the same rank, but input ", first_known,
                                    " has rank ", rank, " and input ", i, " has rank ",
                                    shape.rank()));
    }
  }
  std::vector<int64_t> axis_values;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(axis_input, &axis_values));
  if (known && axis_values.size() != 1) {
    return ctx.Error(absl::StrCat("axis must hold a single value, got ", axis_values.size()));
  }
  if (rank == -1) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (!known) {
    ctx.set_output(0, PartialShape::UnknownOfRank(rank));
    return absl::OkStatus();
  }
  if (rank == 0) return ctx.Error("cannot concatenate scalars (use Pack)");
  int64_t axis = axis_values[0];
  if (axis < -rank || axis >= rank) {
    return ctx.Error(absl::StrCat("expected the concatenation axis in the range [", -rank, ", ",
                                  rank, "), but got ", axis));
  }
  if (axis < 0) axis += rank;
  PartialShape out = PartialShape::UnknownOfRank(rank);
  int64_t axis_size = 0;
  for (int i = 0; i < n; ++i) {
    const PartialShape& shape = ctx.input(first_value + i);
    if (!shape.rank_known()) {
      axis_size = kUnknownDim;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      int64_t merged;
      if (!PartialShape::MergeDim(out.dim(d), shape.dim(d), &merged)) {
        return ctx.Error(absl::StrCat("dimension ", d, " of input ", i, " is ", shape.dim(d),
                                      ", but earlier inputs have ", out.dim(d)));
      }
      out.set_dim(d, merged);
    }
    if (axis_size >= 0) {
      const int64_t d = shape.dim(static_cast<int>(axis));
      if (d >= 0 && axis_size > std::numeric_limits<int64_t>::max() - d) {
        return ctx.Error(absl::StrCat("the concatenated dimension ", axis, " overflows int64"));
      }
      axis_size = d < 0 ? kUnknownDim : axis_size + d;
    }
  }
  out.set_dim(static_cast<int>(axis), axis_size);
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ConcatV2Shape(ShapeInferenceContext& ctx) {
  return ConcatShapeOf(ctx, 0, ctx.num_inputs() - 1);
}

absl::Status ConcatShape(ShapeInferenceContext& ctx) { return ConcatShapeOf(ctx, 1, 0); }

absl::Status FillShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 1).status());
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  PartialShape out;
  ASSIGN_OR_RETURN(out, ctx.MakeShapeFromShapeTensor(0));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status PackShape(ShapeInferenceContext& ctx) {
  PartialShape merged = ctx.input(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    absl::StatusOr<PartialShape> next = PartialShape::Merge(merged, ctx.input(i));
    if (!next.ok()) {
      return ctx.Error(absl::StrCat(
          "shapes of all inputs must match: values[0].shape = ", ctx.input(0).ToString(),
          " != values[", i, "].shape = ", ctx.input(i).ToString()));
    }
    merged = *std::move(next);
  }
  if (!merged.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = merged.rank();
  int64_t axis = 0;
  RETURN_IF_ERROR(ctx.GetAttr("axis", &axis));
  if (axis < -rank - 1 || axis > rank) {
    return ctx.Error(
        absl::StrCat("invalid axis ", axis, "; must be in [", -rank - 1, ", ", rank + 1, ")"));
  }
  if (axis < 0) axis += rank + 1;
  PartialShape out = merged.Subshape(0, static_cast<int>(axis));
  out.AddDim(ctx.num_inputs());
  ctx.set_output(0, out.Concatenate(merged.Subshape(static_cast<int>(axis), rank)));
  return absl::OkStatus();
}

absl::Status ScalarShape(ShapeInferenceContext& ctx) {
  ctx.set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status IdentityNShape(ShapeInferenceContext& ctx) {
  for (int i = 0; i < ctx.num_inputs() && i < ctx.num_outputs(); ++i) {
    ctx.set_output(i, ctx.input(i));
  }
  return absl::OkStatus();
}

absl::Status BroadcastGradientArgsShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 1).status());
  RETURN_IF_ERROR(ctx.WithRank(1, 1).status());
  ctx.set_output(0, PartialShape({kUnknownDim}));
  ctx.set_output(1, PartialShape({kUnknownDim}));
  return absl::OkStatus();
}

absl::Status WhereShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  ctx.set_output(0, PartialShape({kUnknownDim, input.rank_known() ? input.rank() : kUnknownDim}));
  return absl::OkStatus();
}

template <typename T>
bool IsNegative(T value) {
  if constexpr (std::is_signed_v<T>) {
    return value < 0;
  } else {
    return false;
  }
}

// The length of Range(start, limit, delta), with TensorFlow's errors.
template <typename T>
absl::StatusOr<int64_t> RangeLength(const ShapeInferenceContext& ctx, T start, T limit, T delta) {
  using Printed = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
  const bool positive = delta > 0;
  if (start > limit && positive) {
    return ctx.Error(absl::StrCat("Requires start <= limit when delta > 0: ",
                                  static_cast<Printed>(start), "/", static_cast<Printed>(limit)));
  }
  if (start < limit && IsNegative(delta)) {
    return ctx.Error(absl::StrCat("Requires start >= limit when delta < 0: ",
                                  static_cast<Printed>(start), "/", static_cast<Printed>(limit)));
  }
  if (delta == 0) return ctx.Error("Requires delta != 0");
  if constexpr (std::is_integral_v<T>) {
    const int64_t span = std::abs(static_cast<int64_t>(limit) - static_cast<int64_t>(start));
    const int64_t step = std::abs(static_cast<int64_t>(delta));
    return span / step + (span % step != 0 ? 1 : 0);
  } else {
    // In the op's type, as the kernel and TensorFlow do (not in double: see the kernel).
    const double length = static_cast<double>(std::ceil(std::abs((limit - start) / delta)));
    if (!(length <= static_cast<double>(std::numeric_limits<int64_t>::max()))) {
      return ctx.Error("Requires ((limit - start) / delta) <= 9223372036854775807");
    }
    return static_cast<int64_t>(length);
  }
}

template <typename T>
absl::StatusOr<int64_t> RangeLengthOf(const ShapeInferenceContext& ctx) {
  const T start = ctx.input_tensor(0)->data<T>()[0];
  const T limit = ctx.input_tensor(1)->data<T>()[0];
  const T delta = ctx.input_tensor(2)->data<T>()[0];
  return RangeLength<T>(ctx, start, limit, delta);
}

absl::Status RangeShape(ShapeInferenceContext& ctx) {
  for (int i = 0; i < 3; ++i) RETURN_IF_ERROR(ctx.WithRank(i, 0).status());
  for (int i = 0; i < 3; ++i) {
    const Tensor* t = ctx.input_tensor(i);
    if (t == nullptr || t->NumElements() != 1) {
      ctx.set_output(0, PartialShape({kUnknownDim}));
      return absl::OkStatus();
    }
  }
  absl::StatusOr<int64_t> length = int64_t{kUnknownDim};
  switch (ctx.input_type(0)) {
    case TSR_DTYPE_FLOAT:
      length = RangeLengthOf<float>(ctx);
      break;
    case TSR_DTYPE_DOUBLE:
      length = RangeLengthOf<double>(ctx);
      break;
    case TSR_DTYPE_INT8:
      length = RangeLengthOf<int8_t>(ctx);
      break;
    case TSR_DTYPE_INT16:
      length = RangeLengthOf<int16_t>(ctx);
      break;
    case TSR_DTYPE_INT32:
      length = RangeLengthOf<int32_t>(ctx);
      break;
    case TSR_DTYPE_INT64:
      length = RangeLengthOf<int64_t>(ctx);
      break;
    case TSR_DTYPE_UINT16:
      length = RangeLengthOf<uint16_t>(ctx);
      break;
    case TSR_DTYPE_UINT32:
      length = RangeLengthOf<uint32_t>(ctx);
      break;
    default:  // half and bfloat16 constants are left to the kernel
      break;
  }
  if (!length.ok()) return length.status();
  ctx.set_output(0, PartialShape({*length}));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArrayOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Const")
                                           .Output("output", "dtype")
                                           .TensorAttr("value")
                                           .TypeAttr("dtype")
                                           .SetShapeFn(ConstShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Identity")
                                           .Input("input", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Placeholder")
                                           .Output("output", "dtype")
                                           .TypeAttr("dtype")
                                           .ShapeAttr("shape", PartialShape::Unknown())
                                           .SetShapeFn(PlaceholderShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("PlaceholderWithDefault")
                                           .Input("input", "dtype")
                                           .Output("output", "dtype")
                                           .TypeAttr("dtype")
                                           .ShapeAttr("shape")
                                           .SetShapeFn(PlaceholderWithDefaultShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Reshape")
                                           .Input("tensor", "T")
                                           .Input("shape", "Tshape")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tshape", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(ReshapeShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Shape")
                                           .Input("input", "T")
                                           .Output("output", "out_type")
                                           .TypeAttr("T")
                                           .TypeAttr("out_type", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(ShapeShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ShapeN")
                                           .InputList("input", "N", "T")
                                           .OutputList("output", "N", "out_type")
                                           .IntAttr("N", std::nullopt, 1)
                                           .TypeAttr("T")
                                           .TypeAttr("out_type", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(ShapeNShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ExpandDims")
                                           .Input("input", "T")
                                           .Input("dim", "Tdim")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tdim", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(ExpandDimsShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Squeeze")
                                           .Input("input", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .IntListAttr("squeeze_dims", std::vector<int64_t>{}, 0)
                                           .SetShapeFn(SqueezeShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ConcatV2")
                                           .InputList("values", "N", "T")
                                           .Input("axis", "Tidx")
                                           .Output("output", "T")
                                           .IntAttr("N", std::nullopt, 2)
                                           .TypeAttr("T")
                                           .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(ConcatV2Shape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Concat")
                                           .Input("concat_dim", kInt32)
                                           .InputList("values", "N", "T")
                                           .Output("output", "T")
                                           .IntAttr("N", std::nullopt, 2)
                                           .TypeAttr("T")
                                           .SetShapeFn(ConcatShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ConcatOffset")
                                           .Input("concat_dim", kInt32)
                                           .InputList("shape", "N", "shape_type")
                                           .OutputList("offset", "N", "shape_type")
                                           .IntAttr("N", std::nullopt, 2)
                                           .TypeAttr("shape_type", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(ConcatOffsetShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Fill")
                                           .Input("dims", "index_type")
                                           .Input("value", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("index_type", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(FillShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ZerosLike")
                                           .Input("x", "T")
                                           .Output("y", "T")
                                           .TypeAttr("T")
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Pack")
                                           .InputList("values", "N", "T")
                                           .Output("output", "T")
                                           .IntAttr("N", std::nullopt, 1)
                                           .TypeAttr("T")
                                           .IntAttr("axis", 0)
                                           .SetShapeFn(PackShape)));
  RETURN_IF_ERROR(RegisterOp(
      registry,
      OpDefBuilder("OnesLike")
          .Input("x", "T")
          .Output("y", "T")
          .TypeAttr("T", {TSR_DTYPE_BFLOAT16, TSR_DTYPE_HALF, TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE,
                          TSR_DTYPE_INT8, TSR_DTYPE_UINT8, TSR_DTYPE_INT16, TSR_DTYPE_UINT16,
                          kInt32, TSR_DTYPE_UINT32, kInt64, TSR_DTYPE_UINT64, TSR_DTYPE_COMPLEX64,
                          TSR_DTYPE_COMPLEX128, TSR_DTYPE_BOOL})
          .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("IdentityN")
                                           .InputTypeList("input", "T")
                                           .OutputTypeList("output", "T")
                                           .TypeListAttr("T")
                                           .SetShapeFn(IdentityNShape)));
  for (const char* op : {"StopGradient", "Snapshot"}) {
    RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder(op)
                                             .Input("input", "T")
                                             .Output("output", "T")
                                             .TypeAttr("T")
                                             .SetShapeFn(UnchangedShape)));
  }
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("PreventGradient")
                                           .Input("input", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .StringAttr("message", "")
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Size")
                                           .Input("input", "T")
                                           .Output("output", "out_type")
                                           .TypeAttr("T")
                                           .TypeAttr("out_type", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(ScalarShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Rank")
                                           .Input("input", "T")
                                           .Output("output", kInt32)
                                           .TypeAttr("T")
                                           .SetShapeFn(ScalarShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BroadcastGradientArgs")
                                           .Input("s0", "T")
                                           .Input("s1", "T")
                                           .Output("r0", "T")
                                           .Output("r1", "T")
                                           .TypeAttr("T", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(BroadcastGradientArgsShape)));
  std::vector<DataType> where_types = NumberTypes();
  where_types.push_back(TSR_DTYPE_BOOL);
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Where")
                                           .Input("input", "T")
                                           .TypeAttr("T", where_types, TSR_DTYPE_BOOL)
                                           .Output("index", kInt64)
                                           .SetShapeFn(WhereShape)));
  RETURN_IF_ERROR(
      RegisterOp(registry, OpDefBuilder("Range")
                               .Input("start", "Tidx")
                               .Input("limit", "Tidx")
                               .Input("delta", "Tidx")
                               .Output("output", "Tidx")
                               .TypeAttr("Tidx",
                                         {TSR_DTYPE_BFLOAT16, TSR_DTYPE_HALF, TSR_DTYPE_FLOAT,
                                          TSR_DTYPE_DOUBLE, TSR_DTYPE_INT8, TSR_DTYPE_INT16, kInt32,
                                          kInt64, TSR_DTYPE_UINT16, TSR_DTYPE_UINT32},
                                         kInt32)
                               .SetShapeFn(RangeShape)));
  // CheckNumerics: stateful, so that it is never folded away or merged with another check.
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("CheckNumerics")
                                           .Input("tensor", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T", {TSR_DTYPE_BFLOAT16, TSR_DTYPE_HALF,
                                                           TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE})
                                           .StringAttr("message")
                                           .SetIsStateful()
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterArraySliceOps(registry));
  RETURN_IF_ERROR(RegisterArrayTransformOps(registry));
  RETURN_IF_ERROR(RegisterArrayIndexOps(registry));
  RETURN_IF_ERROR(RegisterArrayLayoutOps(registry));
  return RegisterArrayDiagOps(registry);
}

}  // namespace tessera
