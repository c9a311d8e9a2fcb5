// TensorFlow's reshaping array ops: Transpose, ReverseV2, Reverse, ReverseSequence, Tile,
// BroadcastTo, Pad, PadV2, MirrorPad, GatherV2, Gather, OneHot and MatrixBandPart, with their
// shape functions.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/array_op_groups.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

PartialShape UnknownOfRankOrUnknown(int rank) {
  return rank >= 0 ? PartialShape::UnknownOfRank(rank) : PartialShape::Unknown();
}

absl::Status TransposeShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  const PartialShape& perm_shape = ctx.input(1);
  std::vector<int64_t> perm;
  bool perm_known = false;
  ASSIGN_OR_RETURN(perm_known, ctx.ConstantInputAsInt64s(1, &perm));
  const int64_t perm_elements = perm_shape.rank() == 1 ? perm_shape.dim(0) : kUnknownDim;
  if (!input.rank_known() && perm_elements < 0 && !perm_known) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t rank = input.rank_known()   ? input.rank()
                       : perm_elements >= 0 ? perm_elements
                                            : static_cast<int64_t>(perm.size());
  // A one-element permutation fits both a scalar and a vector, which Transpose returns as is.
  if (!input.rank_known() && rank < 2) {
    ctx.set_output(0, input);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(ctx.WithRank(1, 1).status());
  if (perm_elements >= 0 && perm_elements != rank) {
    return ctx.Error(
        absl::StrCat("perm has ", perm_elements, " entries, but the input has rank ", rank));
  }
  if (!perm_known) {
    ctx.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(rank)));
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(perm.size()) != rank) {
    return ctx.Error(
        absl::StrCat("perm has ", perm.size(), " entries, but the input has rank ", rank));
  }
  PartialShape out = PartialShape::Scalar();
  for (int64_t d : perm) {
    if (d >= rank || d < -rank) {
      return ctx.Error(absl::StrCat("perm dim ", d, " is out of range of input rank ", rank));
    }
    out.AddDim(input.rank_known() ? input.dim(static_cast<int>(d < 0 ? d + rank : d))
                                  : kUnknownDim);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// Reverse (v1): the input's shape, whose rank must be the length of the bool vector `dims`.
absl::Status ReverseShape(ShapeInferenceContext& ctx) {
  PartialShape dims;
  ASSIGN_OR_RETURN(dims, ctx.WithRank(1, 1));
  PartialShape input = ctx.input(0);
  if (dims.dim(0) >= 0) {
    ASSIGN_OR_RETURN(input, ctx.WithRank(0, static_cast<int>(dims.dim(0))));
  }
  if (input.rank() > 8) {
    return ctx.Error("reverse does not work on tensors with more than 8 dimensions");
  }
  ctx.set_output(0, std::move(input));
  return absl::OkStatus();
}

// Gather (v1): indices' shape followed by params' past the first dimension.
absl::Status GatherShape(ShapeInferenceContext& ctx) {
  PartialShape params;
  ASSIGN_OR_RETURN(params, ctx.WithRankAtLeast(0, 1));
  ctx.set_output(0, ctx.input(1).Concatenate(params.Subshape(1, params.rank())));
  return absl::OkStatus();
}

// ReverseSequence: the input's shape, its batch dimension merged with seq_lengths' length.
absl::Status ReverseSequenceShape(ShapeInferenceContext& ctx) {
  PartialShape lengths;
  ASSIGN_OR_RETURN(lengths, ctx.WithRank(1, 1));
  int64_t seq_dim = 0;
  int64_t batch_dim = 0;
  RETURN_IF_ERROR(ctx.GetAttr("seq_dim", &seq_dim));
  RETURN_IF_ERROR(ctx.GetAttr("batch_dim", &batch_dim));
  const PartialShape& input = ctx.input(0);
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t rank = input.rank();
  if (batch_dim >= rank) {
    return ctx.Error(absl::StrCat("batch_dim must be < input rank: ", batch_dim, " vs. ", rank));
  }
  if (seq_dim >= rank) {
    return ctx.Error(absl::StrCat("seq_dim must be < input rank: ", seq_dim, " vs. ", rank));
  }
  if (batch_dim < 0 || seq_dim < 0) {
    return ctx.Error(absl::StrCat("seq_dim and batch_dim must be non-negative, got ", seq_dim,
                                  " and ", batch_dim));
  }
  int64_t batch = 0;
  ASSIGN_OR_RETURN(batch, ctx.MergeDims(input.dim(static_cast<int>(batch_dim)), lengths.dim(0)));
  PartialShape out = input;
  out.set_dim(static_cast<int>(batch_dim), batch);
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ReverseV2Shape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  RETURN_IF_ERROR(ctx.WithRank(1, 1).status());
  if (input.rank() > 8) {
    return ctx.Error("reverse does not work on tensors with more than 8 dimensions");
  }
  std::vector<int64_t> axes;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &axes));
  if (known && input.rank_known()) {
    const int rank = input.rank();
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (axis < 0 || axis >= rank) {
        return ctx.Error(absl::StrCat("'axis'[", i, "] = ", axes[i], " is out of valid range [0, ",
                                      rank - 1, "]"));
      }
      if (seen[axis]) return ctx.Error(absl::StrCat("axis ", axis, " specified more than once."));
      seen[axis] = true;
    }
  }
  ctx.set_output(0, input);
  return absl::OkStatus();
}

absl::Status TileShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  PartialShape multiples;
  ASSIGN_OR_RETURN(multiples, ctx.MakeShapeFromShapeTensor(1));
  if (input.rank_known()) {
    const PartialShape& multiples_shape = ctx.input(1);
    const int64_t length = multiples.rank_known()        ? multiples.rank()
                           : multiples_shape.rank() == 1 ? multiples_shape.dim(0)
                                                         : kUnknownDim;
    if (length >= 0 && length != input.rank()) {
      return ctx.Error(absl::StrCat("Expected multiples argument to be a vector of length ",
                                    input.rank(), " but got length ", length));
    }
    if (!multiples.rank_known()) multiples = PartialShape::UnknownOfRank(input.rank());
  }
  if (!multiples.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < multiples.rank(); ++i) {
    const int64_t dim = input.rank_known() ? input.dim(i) : kUnknownDim;
    const int64_t multiple = multiples.dim(i);
    int64_t product = 0;
    // A product beyond int64 is left unknown here; the kernel refuses it with the shape and the
    // limit.
    const bool overflows = __builtin_mul_overflow(dim, multiple, &product);
    out.AddDim(dim == 0 || multiple == 0              ? 0
               : dim < 0 || multiple < 0 || overflows ? kUnknownDim
                                                      : product);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status BroadcastToShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 1).status());
  PartialShape out;
  ASSIGN_OR_RETURN(out, ctx.MakeShapeFromShapeTensor(1));
  const PartialShape& input = ctx.input(0);
  if (!out.rank_known() || !input.rank_known()) {
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }
  const int out_rank = out.rank();
  const int in_rank = input.rank();
  if (in_rank > out_rank) {
    return ctx.Error(absl::StrCat("Rank of input (", in_rank,
                                  ") must be no greater than rank of output shape (", out_rank,
                                  ")."));
  }
  for (int i = 0; i < in_rank; ++i) {
    const int64_t in_dim = input.dim(in_rank - 1 - i);
    // Only dimensions above 1 constrain the output: 1 (and unknown) may broadcast.
    if (in_dim > 1) {
      int64_t merged;
      ASSIGN_OR_RETURN(merged, ctx.MergeDims(in_dim, out.dim(out_rank - 1 - i)));
      out.set_dim(out_rank - 1 - i, merged);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// Pad, PadV2 and MirrorPad: paddings is a [rank, 2] matrix of (before, after) counts.
absl::Status PadShape(ShapeInferenceContext& ctx) {
  PartialShape paddings;
  ASSIGN_OR_RETURN(paddings, ctx.WithRank(1, 2));
  RETURN_IF_ERROR(ctx.MergeDims(paddings.dim(1), 2).status());
  const PartialShape& input = ctx.input(0);
  int64_t rank = paddings.dim(0);
  if (rank >= 0 && input.rank_known() && input.rank() != rank) {
    return ctx.Error(absl::StrCat("The first dimension of paddings must be the rank of inputs: ",
                                  rank, " vs. ", input.rank()));
  }
  if (rank < 0 && input.rank_known()) rank = input.rank();
  std::vector<int64_t> pads;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &pads));
  if (!known) {
    ctx.set_output(0, UnknownOfRankOrUnknown(static_cast<int>(rank)));
    return absl::OkStatus();
  }
  const int num_dims = static_cast<int>(pads.size() / 2);
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < num_dims; ++i) {
    const int64_t before = pads[2 * i];
    const int64_t after = pads[2 * i + 1];
    if (before < 0 || after < 0) return ctx.Error("Paddings must be non-negative");
    const int64_t dim = input.rank_known() ? input.dim(i) : kUnknownDim;
    int64_t padded = kUnknownDim;
    // A sum beyond int64 stays unknown here; the kernel refuses it with the shape and the limit.
    if (dim >= 0 && (__builtin_add_overflow(dim, before, &padded) ||
                     __builtin_add_overflow(padded, after, &padded))) {
      padded = kUnknownDim;
    }
    out.AddDim(padded);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status GatherV2Shape(ShapeInferenceContext& ctx) {
  PartialShape params;
  ASSIGN_OR_RETURN(params, ctx.WithRankAtLeast(0, 1));
  const PartialShape& indices = ctx.input(1);
  RETURN_IF_ERROR(ctx.WithRank(2, 0).status());
  std::vector<int64_t> axis_value;
  bool axis_known = false;
  ASSIGN_OR_RETURN(axis_known, ctx.ConstantInputAsInt64s(2, &axis_value));
  if (!axis_known) {
    ctx.set_output(0, params.rank_known() && indices.rank_known()
                          ? PartialShape::UnknownOfRank(params.rank() + indices.rank() - 1)
                          : PartialShape::Unknown());
    return absl::OkStatus();
  }
  int64_t axis = axis_value.empty() ? 0 : axis_value[0];
  // The least rank a value names, bounded so that no negation or cast of it can overflow (a rank
  // that large fails the check anyway).
  const auto least_rank = [](int64_t value, bool inclusive) {
    constexpr int64_t kBound = int64_t{1} << 20;
    const int64_t magnitude = value < -kBound || value > kBound ? kBound : (value < 0 ? -value : value);
    return static_cast<int>(value < 0 || !inclusive ? magnitude : magnitude + 1);
  };
  RETURN_IF_ERROR(ctx.WithRankAtLeast(0, least_rank(axis, true)).status());
  int64_t batch_dims = 0;
  RETURN_IF_ERROR(ctx.GetAttr("batch_dims", &batch_dims));
  RETURN_IF_ERROR(ctx.WithRankAtLeast(1, least_rank(batch_dims, false)).status());
  if (!params.rank_known() || !indices.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims >= params.rank()) {
    return ctx.Error(absl::StrCat("batch_dims (", batch_dims, ") must be less than rank(params) (",
                                  params.rank(), ")."));
  }
  if (axis < 0) axis += params.rank();
  if (axis < batch_dims) {
    return ctx.Error(absl::StrCat("batch_dims (", batch_dims,
                                  ") must be less than or equal to axis (", axis, ")."));
  }
  PartialShape out =
      params.Subshape(0, static_cast<int>(axis))
          .Concatenate(indices.Subshape(static_cast<int>(batch_dims), indices.rank()))
          .Concatenate(params.Subshape(static_cast<int>(axis) + 1, params.rank()));
  for (int i = 0; i < batch_dims; ++i) {
    int64_t merged;
    ASSIGN_OR_RETURN(merged, ctx.MergeDims(params.dim(i), indices.dim(i)));
    out.set_dim(i, merged);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status OneHotShape(ShapeInferenceContext& ctx) {
  int64_t axis = -1;
  RETURN_IF_ERROR(ctx.GetAttr("axis", &axis));
  if (axis < -1) return ctx.Error("axis must be >= -1");
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  std::vector<int64_t> depth_value;
  bool depth_known = false;
  ASSIGN_OR_RETURN(depth_known, ctx.ConstantInputAsInt64s(1, &depth_value));
  int64_t depth = kUnknownDim;
  if (depth_known && !depth_value.empty()) {
    depth = depth_value[0];
    if (depth < 0) {
      return ctx.Error(absl::StrCat("depth must be non-negative, got: ", depth));
    }
  }
  const PartialShape& indices = ctx.input(0);
  if (!indices.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int new_rank = indices.rank() + 1;
  if (axis >= new_rank) {
    return ctx.Error(absl::StrCat("Expected axis to be -1 or between [0, ", new_rank,
                                  ").  But received: ", axis));
  }
  const int depth_index = axis == -1 ? indices.rank() : static_cast<int>(axis);
  PartialShape out = indices.Subshape(0, depth_index);
  out.AddDim(depth);
  ctx.set_output(0, out.Concatenate(indices.Subshape(depth_index, indices.rank())));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArrayTransformOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Transpose")
                                           .Input("x", "T")
                                           .Input("perm", "Tperm")
                                           .Output("y", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tperm", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(TransposeShape)));
  RETURN_IF_ERROR(RegisterOp(
      registry,
      OpDefBuilder("ReverseV2")
          .Input("tensor", "T")
          .Input("axis", "Tidx")
          .Output("output", "T")
          .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
          .TypeAttr("T", {TSR_DTYPE_UINT8, TSR_DTYPE_INT8, TSR_DTYPE_UINT16, TSR_DTYPE_INT16,
                          TSR_DTYPE_INT32, TSR_DTYPE_INT64, TSR_DTYPE_BOOL, TSR_DTYPE_BFLOAT16,
                          TSR_DTYPE_HALF, TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_COMPLEX64,
                          TSR_DTYPE_COMPLEX128, TSR_DTYPE_STRING})
          .SetShapeFn(ReverseV2Shape)));
  RETURN_IF_ERROR(RegisterOp(
      registry,
      OpDefBuilder("Reverse")
          .Input("tensor", "T")
          .Input("dims", TSR_DTYPE_BOOL)
          .Output("output", "T")
          .TypeAttr("T", {TSR_DTYPE_UINT8, TSR_DTYPE_INT8, TSR_DTYPE_UINT16, TSR_DTYPE_INT16,
                          kInt32, kInt64, TSR_DTYPE_BOOL, TSR_DTYPE_HALF, TSR_DTYPE_FLOAT,
                          TSR_DTYPE_DOUBLE, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128,
                          TSR_DTYPE_STRING})
          .SetShapeFn(ReverseShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ReverseSequence")
                                           .Input("input", "T")
                                           .Input("seq_lengths", "Tlen")
                                           .Output("output", "T")
                                           .IntAttr("seq_dim")
                                           .IntAttr("batch_dim", 0)
                                           .TypeAttr("T")
                                           .TypeAttr("Tlen", {kInt32, kInt64}, kInt64)
                                           .SetShapeFn(ReverseSequenceShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Tile")
                                           .Input("input", "T")
                                           .Input("multiples", "Tmultiples")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tmultiples", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(TileShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BroadcastTo")
                                           .Input("input", "T")
                                           .Input("shape", "Tidx")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(BroadcastToShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Pad")
                                           .Input("input", "T")
                                           .Input("paddings", "Tpaddings")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tpaddings", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(PadShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("PadV2")
                                           .Input("input", "T")
                                           .Input("paddings", "Tpaddings")
                                           .Input("constant_values", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tpaddings", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(PadShape)));
  RETURN_IF_ERROR(
      RegisterOp(registry, OpDefBuilder("MirrorPad")
                               .Input("input", "T")
                               .Input("paddings", "Tpaddings")
                               .Output("output", "T")
                               .TypeAttr("T")
                               .TypeAttr("Tpaddings", {kInt32, kInt64}, kInt32)
                               .StringAttr("mode", std::nullopt, {"REFLECT", "SYMMETRIC"})
                               .SetShapeFn(PadShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("GatherV2")
                                           .Input("params", "Tparams")
                                           .Input("indices", "Tindices")
                                           .Input("axis", "Taxis")
                                           .IntAttr("batch_dims", 0)
                                           .Output("output", "Tparams")
                                           .TypeAttr("Tparams")
                                           .TypeAttr("Tindices", {kInt32, kInt64})
                                           .TypeAttr("Taxis", {kInt32, kInt64})
                                           .SetShapeFn(GatherV2Shape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Gather")
                                           .Input("params", "Tparams")
                                           .Input("indices", "Tindices")
                                           .Output("output", "Tparams")
                                           .BoolAttr("validate_indices", true)
                                           .TypeAttr("Tparams")
                                           .TypeAttr("Tindices", {kInt32, kInt64})
                                           .SetShapeFn(GatherShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("MatrixBandPart")
                                           .Input("input", "T")
                                           .Input("num_lower", "Tindex")
                                           .Input("num_upper", "Tindex")
                                           .Output("band", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tindex", {kInt32, kInt64}, kInt64)
                                           .SetShapeFn(UnchangedShape)));
  return RegisterOp(registry,
                    OpDefBuilder("OneHot")
                        .Input("indices", "TI")
                        .Input("depth", kInt32)
                        .Input("on_value", "T")
                        .Input("off_value", "T")
                        .IntAttr("axis", -1)
                        .Output("output", "T")
                        .TypeAttr("T")
                        .TypeAttr("TI", {TSR_DTYPE_UINT8, TSR_DTYPE_INT8, kInt32, kInt64}, kInt64)
                        .SetShapeFn(OneHotShape));
}

}  // namespace tessera
