// TensorFlow's slicing array ops: Slice, StridedSlice, Split, SplitV and Unpack, with their
// shape functions.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/ops/array_op_groups.h"
#include "host/ops/standard_ops.h"
#include "host/ops/strided_slice_shape.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

// The values of constant input `i` (any integer type); false when unknown.
absl::StatusOr<bool> ConstantIntegers(const ShapeInferenceContext& ctx, int i,
                                      std::vector<int64_t>* values) {
  const Tensor* tensor = ctx.input_tensor(i);
  if (tensor != nullptr && tensor->dtype() == TSR_DTYPE_INT8) {
    values->clear();
    for (int8_t v : tensor->flat<int8_t>()) values->push_back(v);
    return true;
  }
  return ctx.ConstantInputAsInt64s(i, values);
}

absl::Status SliceShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  PartialShape begin_shape;
  PartialShape size_shape;
  ASSIGN_OR_RETURN(begin_shape, ctx.WithRank(1, 1));
  ASSIGN_OR_RETURN(size_shape, ctx.WithRank(2, 1));
  int64_t num_dims;
  ASSIGN_OR_RETURN(num_dims, ctx.MergeDims(begin_shape.dim(0), size_shape.dim(0)));
  if (num_dims >= 0 && input.rank_known() && input.rank() != num_dims) {
    return ctx.Error(absl::StrCat("begin and size have ", num_dims,
                                  " entries, but the input has rank ", input.rank()));
  }
  std::vector<int64_t> begin;
  std::vector<int64_t> size;
  bool begin_known = false;
  bool size_known = false;
  ASSIGN_OR_RETURN(begin_known, ctx.ConstantInputAsInt64s(1, &begin));
  ASSIGN_OR_RETURN(size_known, ctx.ConstantInputAsInt64s(2, &size));
  if (!size_known) {
    const int rank = num_dims >= 0 ? static_cast<int>(num_dims) : input.rank();
    ctx.set_output(0, rank >= 0 ? PartialShape::UnknownOfRank(rank) : PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (begin_known && begin.size() != size.size()) {
    return ctx.Error(
        absl::StrCat("begin has ", begin.size(), " entries but size has ", size.size()));
  }
  PartialShape out = PartialShape::Scalar();
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] >= 0) {
      out.AddDim(size[i]);
      continue;
    }
    if (size[i] != -1) {
      return ctx.Error(absl::StrCat("size[", i, "] must be -1 or non-negative, got ", size[i]));
    }
    // -1 takes everything from begin to the end of the dimension.
    const int64_t dim = input.rank_known() ? input.dim(static_cast<int>(i)) : kUnknownDim;
    if (!begin_known || dim < 0) {
      out.AddDim(kUnknownDim);
    } else if (begin[i] < 0 || begin[i] > dim) {
      return ctx.Error(absl::StrCat("begin[", i, "] = ", begin[i], " is not in [0, ", dim, "]"));
    } else {
      out.AddDim(dim - begin[i]);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status StridedSliceShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  PartialShape index_shape;
  ASSIGN_OR_RETURN(index_shape, ctx.WithRank(1, 1));
  for (int i = 2; i <= 3; ++i) {
    PartialShape other;
    ASSIGN_OR_RETURN(other, ctx.WithRank(i, 1));
    ASSIGN_OR_RETURN(index_shape, ctx.MergeShapes(index_shape, other));
  }
  std::vector<int64_t> strides;
  bool strides_known = false;
  ASSIGN_OR_RETURN(strides_known, ctx.ConstantInputAsInt64s(3, &strides));
  if (!input.rank_known() || index_shape.dim(0) < 0 || !strides_known) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  StridedSliceMasks masks;
  RETURN_IF_ERROR(ctx.GetAttr("begin_mask", &masks.begin));
  RETURN_IF_ERROR(ctx.GetAttr("end_mask", &masks.end));
  RETURN_IF_ERROR(ctx.GetAttr("ellipsis_mask", &masks.ellipsis));
  RETURN_IF_ERROR(ctx.GetAttr("new_axis_mask", &masks.new_axis));
  RETURN_IF_ERROR(ctx.GetAttr("shrink_axis_mask", &masks.shrink_axis));
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  bool begin_known = false;
  bool end_known = false;
  ASSIGN_OR_RETURN(begin_known, ctx.ConstantInputAsInt64s(1, &begin));
  ASSIGN_OR_RETURN(end_known, ctx.ConstantInputAsInt64s(2, &end));
  absl::StatusOr<StridedSliceShapes> shapes = InferStridedSliceShapes(
      input, begin_known ? &begin : nullptr, end_known ? &end : nullptr, strides, masks);
  if (!shapes.ok()) return ctx.Error(shapes.status().message());
  if (shapes->final_shape.rank() > TSR_MAX_RANK) {
    return ctx.Error(absl::StrCat("the result has rank ", shapes->final_shape.rank(),
                                  ", above the maximum ", TSR_MAX_RANK));
  }
  ctx.set_output(0, std::move(shapes->final_shape));
  return absl::OkStatus();
}

// The split dimension from scalar input `i` in [-rank, rank), made non-negative; -1 when its
// value or the rank is unknown.
absl::StatusOr<int64_t> SplitDimension(const ShapeInferenceContext& ctx, int i,
                                       const PartialShape& input) {
  RETURN_IF_ERROR(ctx.WithRank(i, 0).status());
  std::vector<int64_t> value;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(i, &value));
  if (!known || !input.rank_known()) return int64_t{-1};
  const int rank = input.rank();
  const int64_t dim = value.empty() ? 0 : value[0];
  if (dim < -rank || dim >= rank) {
    return ctx.Error(absl::StrCat("-input rank(-", rank, ") <= split_dim < input rank (", rank,
                                  "), but got ", dim));
  }
  return dim < 0 ? dim + rank : dim;
}

absl::Status SplitShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(1);
  int64_t split_dim;
  ASSIGN_OR_RETURN(split_dim, SplitDimension(ctx, 0, input));
  const int num_split = ctx.num_outputs();
  PartialShape out;
  if (split_dim < 0) {
    out = input.rank_known() ? PartialShape::UnknownOfRank(input.rank()) : PartialShape::Unknown();
  } else {
    out = input;
    const int64_t size = input.dim(static_cast<int>(split_dim));
    if (size >= 0 && size % num_split != 0) {
      return ctx.Error(absl::StrCat(
          "Number of ways to split should evenly divide the split dimension, but got split_dim ",
          split_dim, " (size = ", size, ") and num_split ", num_split));
    }
    out.set_dim(static_cast<int>(split_dim), size < 0 ? kUnknownDim : size / num_split);
  }
  for (int i = 0; i < num_split; ++i) ctx.set_output(i, out);
  return absl::OkStatus();
}

absl::Status SplitVShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  int64_t split_dim;
  ASSIGN_OR_RETURN(split_dim, SplitDimension(ctx, 2, input));
  const int num_outputs = ctx.num_outputs();
  if (!input.rank_known()) {
    for (int i = 0; i < num_outputs; ++i) ctx.set_output(i, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (input.rank() == 0) return ctx.Error("Can't split scalars");
  std::vector<int64_t> sizes;
  bool sizes_known = false;
  ASSIGN_OR_RETURN(sizes_known, ConstantIntegers(ctx, 1, &sizes));
  if (split_dim < 0) {
    for (int i = 0; i < num_outputs; ++i) {
      ctx.set_output(i, PartialShape::UnknownOfRank(input.rank()));
    }
    return absl::OkStatus();
  }
  const int axis = static_cast<int>(split_dim);
  if (!sizes_known) {
    PartialShape out = input;
    out.set_dim(axis, kUnknownDim);
    for (int i = 0; i < num_outputs; ++i) ctx.set_output(i, out);
    return absl::OkStatus();
  }
  if (static_cast<int>(sizes.size()) != num_outputs) {
    return ctx.Error(absl::StrCat("Length of size_splits should be equal to num_outputs: ",
                                  sizes.size(), " vs. ", num_outputs));
  }
  int64_t total = 0;
  bool has_wildcard = false;
  for (int64_t size : sizes) {
    if (size == -1) {
      if (has_wildcard) return ctx.Error("size_splits can only have one -1");
      has_wildcard = true;
    } else if (size < 0) {
      return ctx.Error(absl::StrCat("size_splits must be >= 0 or -1, got ", size));
    } else if (__builtin_add_overflow(total, size, &total)) {
      return ctx.Error(absl::StrCat("size_splits [", absl::StrJoin(sizes, ","),
                                    "] add up to more than 64 bits hold"));
    }
  }
  const int64_t dim = input.dim(axis);
  if (dim >= 0 && (has_wildcard ? total > dim : total != dim)) {
    return ctx.Error(absl::StrCat("can't split axis of size ", dim, " into pieces of size [",
                                  absl::StrJoin(sizes, ","), "]"));
  }
  for (int i = 0; i < num_outputs; ++i) {
    PartialShape out = input;
    out.set_dim(axis, sizes[i] != -1 ? sizes[i] : dim < 0 ? kUnknownDim : dim - total);
    ctx.set_output(i, std::move(out));
  }
  return absl::OkStatus();
}

absl::Status UnpackShape(ShapeInferenceContext& ctx) {
  const PartialShape& value = ctx.input(0);
  PartialShape out = PartialShape::Unknown();
  if (value.rank_known()) {
    const int rank = value.rank();
    int64_t axis = 0;
    RETURN_IF_ERROR(ctx.GetAttr("axis", &axis));
    if (axis < -rank || axis >= rank) {
      return ctx.Error(
          absl::StrCat("Invalid axis: ", axis, "; must be in [", -rank, ",", rank, ")"));
    }
    if (axis < 0) axis += rank;
    const int64_t dim = value.dim(static_cast<int>(axis));
    if (dim >= 0 && dim != ctx.num_outputs()) {
      return ctx.Error(absl::StrCat("dimension ", axis, " of the value has size ", dim,
                                    ", but num is ", ctx.num_outputs()));
    }
    out = value.Subshape(0, static_cast<int>(axis))
              .Concatenate(value.Subshape(static_cast<int>(axis) + 1, rank));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, out);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArraySliceOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Slice")
                                           .Input("input", "T")
                                           .Input("begin", "Index")
                                           .Input("size", "Index")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Index", {kInt32, kInt64})
                                           .SetShapeFn(SliceShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("StridedSlice")
                                           .Input("input", "T")
                                           .Input("begin", "Index")
                                           .Input("end", "Index")
                                           .Input("strides", "Index")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Index", {kInt32, kInt64})
                                           .IntAttr("begin_mask", 0)
                                           .IntAttr("end_mask", 0)
                                           .IntAttr("ellipsis_mask", 0)
                                           .IntAttr("new_axis_mask", 0)
                                           .IntAttr("shrink_axis_mask", 0)
                                           .SetShapeFn(StridedSliceShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Split")
                                           .Input("split_dim", kInt32)
                                           .Input("value", "T")
                                           .OutputList("output", "num_split", "T")
                                           .IntAttr("num_split", std::nullopt, 1)
                                           .TypeAttr("T")
                                           .SetShapeFn(SplitShape)));
  RETURN_IF_ERROR(
      RegisterOp(registry, OpDefBuilder("SplitV")
                               .Input("value", "T")
                               .Input("size_splits", "Tlen")
                               .Input("split_dim", kInt32)
                               .OutputList("output", "num_split", "T")
                               .IntAttr("num_split", std::nullopt, 1)
                               .TypeAttr("T")
                               .TypeAttr("Tlen", {TSR_DTYPE_INT8, kInt32, kInt64}, kInt64)
                               .SetShapeFn(SplitVShape)));
  return RegisterOp(registry, OpDefBuilder("Unpack")
                                  .Input("value", "T")
                                  .OutputList("output", "num", "T")
                                  .IntAttr("num", std::nullopt, 0)
                                  .TypeAttr("T")
                                  .IntAttr("axis", 0)
                                  .SetShapeFn(UnpackShape));
}

}  // namespace tessera
