// Shape functions shared by many ops (TensorFlow's common_shape_fns).
#include "host/ops/common_shape_fns.h"

#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace tessera {

absl::StatusOr<int64_t> WindowedOutputSize(const ShapeInferenceContext& ctx, int64_t input,
                                           int64_t filter, int64_t dilation, int64_t stride,
                                           const std::string& padding, int64_t pad_before,
                                           int64_t pad_after) {
  if (stride < 1) return ctx.Error(absl::StrCat("Stride must be > 0, but got ", stride));
  if (dilation < 1) {
    return ctx.Error(absl::StrCat("Dilation rate must be >= 1, but got ", dilation));
  }
  if (input == kUnknownDim) return kUnknownDim;
  // 128-bit arithmetic: every operand is a 64-bit number, so nothing below can wrap.
  using Wide = __int128;
  if (padding == "SAME") return static_cast<int64_t>((Wide{input} + stride - 1) / stride);
  if (filter == kUnknownDim) return kUnknownDim;
  Wide padded = input;
  if (padding == "EXPLICIT") padded += Wide{pad_before} + pad_after;
  const Wide effective_filter = (Wide{filter} - 1) * dilation + 1;
  constexpr Wide kMax = std::numeric_limits<int64_t>::max();
  if (padded > kMax || effective_filter > kMax) {
    return ctx.Error(absl::StrCat("the window of ", filter, " elements dilated by ", dilation,
                                  " over ", input, " padded by ", pad_before, " and ", pad_after,
                                  " does not fit in 64 bits"));
  }
  if (padded < effective_filter) {
    return ctx.Error(absl::StrCat("Negative dimension size caused by subtracting ",
                                  static_cast<int64_t>(effective_filter), " from ",
                                  static_cast<int64_t>(padded)));
  }
  // A window of 0 elements dilated far has a negative effective size: the count can then exceed
  // 64 bits.
  const Wide out = (padded - effective_filter + stride) / stride;
  if (out > kMax) {
    return ctx.Error(absl::StrCat("the window of ", filter, " elements dilated by ", dilation,
                                  " over ", input, " gives an output size beyond 64 bits"));
  }
  return static_cast<int64_t>(out);
}

absl::Status UnchangedShape(ShapeInferenceContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

absl::Status UnknownShape(ShapeInferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status BroadcastBinaryOpShape(ShapeInferenceContext& ctx) {
  absl::StatusOr<PartialShape> out = PartialShape::Broadcast(ctx.input(0), ctx.input(1));
  if (!out.ok()) return ctx.Error(out.status().message());
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

absl::Status MatMulShape(ShapeInferenceContext& ctx) {
  PartialShape a;
  PartialShape b;
  ASSIGN_OR_RETURN(a, ctx.WithRank(0, 2));
  ASSIGN_OR_RETURN(b, ctx.WithRank(1, 2));
  bool transpose_a = false;
  bool transpose_b = false;
  RETURN_IF_ERROR(ctx.GetAttr("transpose_a", &transpose_a));
  RETURN_IF_ERROR(ctx.GetAttr("transpose_b", &transpose_b));
  const int64_t rows = a.dim(transpose_a ? 1 : 0);
  const int64_t cols = b.dim(transpose_b ? 0 : 1);
  const int64_t inner_a = a.dim(transpose_a ? 0 : 1);
  const int64_t inner_b = b.dim(transpose_b ? 1 : 0);
  RETURN_IF_ERROR(ctx.MergeDims(inner_a, inner_b).status());
  ctx.set_output(0, PartialShape({rows, cols}));
  return absl::OkStatus();
}

absl::Status ReductionShape(ShapeInferenceContext& ctx) {
  const PartialShape& input = ctx.input(0);
  RETURN_IF_ERROR(ctx.WithRankAtMost(1, 1).status());
  bool keep_dims = false;
  RETURN_IF_ERROR(ctx.GetAttr("keep_dims", &keep_dims));
  std::vector<int64_t> indices;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &indices));
  if (!known || !input.rank_known()) {
    ctx.set_output(0, keep_dims && input.rank_known() ? PartialShape::UnknownOfRank(input.rank())
                                                      : PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  std::set<int64_t> reduced;
  for (int64_t index : indices) {
    if (index < -rank || index >= rank) {
      return ctx.Error(absl::StrCat("invalid reduction dimension ", index, " for input with ", rank,
                                    " dimensions"));
    }
    reduced.insert(index < 0 ? index + rank : index);
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    if (reduced.count(i) > 0) {
      if (keep_dims) out.AddDim(1);
    } else {
      out.AddDim(input.dim(i));
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace tessera
