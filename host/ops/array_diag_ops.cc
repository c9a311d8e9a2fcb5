// TensorFlow's matrix diagonal ops in their three versions: MatrixDiag, MatrixDiagPart and
// MatrixSetDiag (the main diagonal), their V2 forms (a band k of diagonals, num_rows, num_cols,
// padding_value) and V3 forms (V2 with the `align` attr), with their shape functions.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/array_op_groups.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;

// The band [lower, upper] when input `i` (k) is a constant; false when it is not known.
absl::StatusOr<bool> ConstantBand(ShapeInferenceContext& ctx, int i, int64_t* lower,
                                  int64_t* upper) {
  RETURN_IF_ERROR(ctx.WithRankAtMost(i, 1).status());
  std::vector<int64_t> k;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(i, &k));
  if (!known) return false;
  if (k.empty() || k.size() > 2) {
    return ctx.Error(absl::StrCat("diag_index must have only one or two elements, received ",
                                  k.size(), " elements."));
  }
  *lower = k[0];
  *upper = k.size() == 2 ? k[1] : k[0];
  if (*lower > *upper) {
    return ctx.Error(absl::StrCat(
        "lower_diag_index must not be larger than upper_diag_index: ", *lower, " > ", *upper));
  }
  return true;
}

int64_t ConstantScalarOr(ShapeInferenceContext& ctx, int i, int64_t fallback) {
  std::vector<int64_t> values;
  absl::StatusOr<bool> known = ctx.ConstantInputAsInt64s(i, &values);
  return known.ok() && *known && values.size() == 1 ? values[0] : fallback;
}

// MatrixDiag (version 1): [..., n] -> [..., n, n].
absl::Status MatrixDiagShape(ShapeInferenceContext& ctx) {
  PartialShape diagonal;
  ASSIGN_OR_RETURN(diagonal, ctx.WithRankAtLeast(0, 1));
  if (!diagonal.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out = diagonal;
  out.AddDim(diagonal.dim(diagonal.rank() - 1));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixDiagV2/V3: the batch dimensions of `diagonal` and [num_rows, num_cols], known when k,
// num_rows and num_cols are constants (num_rows / num_cols -1: the smallest that fits).
absl::Status MatrixDiagV2Shape(ShapeInferenceContext& ctx) {
  PartialShape diagonal;
  ASSIGN_OR_RETURN(diagonal, ctx.WithRankAtLeast(0, 1));
  for (int i : {2, 3, 4}) RETURN_IF_ERROR(ctx.WithRank(i, 0).status());
  int64_t lower = 0;
  int64_t upper = 0;
  bool band_known = false;
  ASSIGN_OR_RETURN(band_known, ConstantBand(ctx, 1, &lower, &upper));
  if (!band_known || !diagonal.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int batch_rank = diagonal.rank() - (lower == upper ? 1 : 2);
  if (batch_rank < 0) {
    return ctx.Error("diagonal must be at least 2-dim when k names more than one diagonal");
  }
  PartialShape out = PartialShape::Scalar();
  for (int d = 0; d < batch_rank; ++d) out.AddDim(diagonal.dim(d));
  const int64_t max_diag_len = diagonal.dim(diagonal.rank() - 1);
  int64_t rows = ConstantScalarOr(ctx, 2, kUnknownDim - 1);
  int64_t cols = ConstantScalarOr(ctx, 3, kUnknownDim - 1);
  if (max_diag_len < 0 || rows < kUnknownDim || cols < kUnknownDim) {
    out.AddDim(rows >= 0 ? rows : kUnknownDim);
    out.AddDim(cols >= 0 ? cols : kUnknownDim);
  } else {
    const int64_t min_rows = max_diag_len - std::min<int64_t>(upper, 0);
    const int64_t min_cols = max_diag_len + std::max<int64_t>(lower, 0);
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    out.AddDim(rows);
    out.AddDim(cols);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixDiagPart (version 1): [..., m, n] -> [..., min(m, n)].
absl::Status MatrixDiagPartShape(ShapeInferenceContext& ctx) {
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRankAtLeast(0, 2));
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t rows = input.dim(input.rank() - 2);
  const int64_t cols = input.dim(input.rank() - 1);
  PartialShape out = PartialShape::Scalar();
  for (int d = 0; d < input.rank() - 2; ++d) out.AddDim(input.dim(d));
  out.AddDim(rows < 0 || cols < 0 ? kUnknownDim : std::min(rows, cols));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixDiagPartV2/V3: [..., num_diags (when more than one), max_diag_len].
absl::Status MatrixDiagPartV2Shape(ShapeInferenceContext& ctx) {
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRankAtLeast(0, 2));
  RETURN_IF_ERROR(ctx.WithRank(2, 0).status());
  int64_t lower = 0;
  int64_t upper = 0;
  bool band_known = false;
  ASSIGN_OR_RETURN(band_known, ConstantBand(ctx, 1, &lower, &upper));
  if (!band_known || !input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t rows = input.dim(input.rank() - 2);
  const int64_t cols = input.dim(input.rank() - 1);
  PartialShape out = PartialShape::Scalar();
  for (int d = 0; d < input.rank() - 2; ++d) out.AddDim(input.dim(d));
  if (lower != upper) out.AddDim(upper - lower + 1);
  out.AddDim(rows < 0 || cols < 0
                 ? kUnknownDim
                 : std::max<int64_t>(0, std::min(rows + std::min<int64_t>(upper, 0),
                                                 cols - std::max<int64_t>(lower, 0))));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixSetDiag, V2 and V3: the input's shape.
absl::Status MatrixSetDiagShape(ShapeInferenceContext& ctx) {
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRankAtLeast(0, 2));
  RETURN_IF_ERROR(ctx.WithRankAtLeast(1, 1).status());
  if (ctx.num_inputs() > 2) RETURN_IF_ERROR(ctx.WithRankAtMost(2, 1).status());
  ctx.set_output(0, input);
  return absl::OkStatus();
}

OpDefBuilder WithAlign(OpDefBuilder builder) {
  return builder.StringAttr("align", "RIGHT_LEFT",
                            {"LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT"});
}

}  // namespace

absl::Status RegisterArrayDiagOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("MatrixDiag")
                                           .Input("diagonal", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .SetShapeFn(MatrixDiagShape)));
  for (const bool v3 : {false, true}) {
    OpDefBuilder builder(v3 ? "MatrixDiagV3" : "MatrixDiagV2");
    builder.Input("diagonal", "T")
        .Input("k", kInt32)
        .Input("num_rows", kInt32)
        .Input("num_cols", kInt32)
        .Input("padding_value", "T")
        .Output("output", "T")
        .TypeAttr("T")
        .SetShapeFn(MatrixDiagV2Shape);
    RETURN_IF_ERROR(RegisterOp(registry, v3 ? WithAlign(builder) : builder));
  }
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("MatrixDiagPart")
                                           .Input("input", "T")
                                           .Output("diagonal", "T")
                                           .TypeAttr("T")
                                           .SetShapeFn(MatrixDiagPartShape)));
  for (const bool v3 : {false, true}) {
    OpDefBuilder builder(v3 ? "MatrixDiagPartV3" : "MatrixDiagPartV2");
    builder.Input("input", "T")
        .Input("k", kInt32)
        .Input("padding_value", "T")
        .Output("diagonal", "T")
        .TypeAttr("T")
        .SetShapeFn(MatrixDiagPartV2Shape);
    RETURN_IF_ERROR(RegisterOp(registry, v3 ? WithAlign(builder) : builder));
  }
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("MatrixSetDiag")
                                           .Input("input", "T")
                                           .Input("diagonal", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .SetShapeFn(MatrixSetDiagShape)));
  for (const bool v3 : {false, true}) {
    OpDefBuilder builder(v3 ? "MatrixSetDiagV3" : "MatrixSetDiagV2");
    builder.Input("input", "T")
        .Input("diagonal", "T")
        .Input("k", kInt32)
        .Output("output", "T")
        .TypeAttr("T")
        .SetShapeFn(MatrixSetDiagShape);
    RETURN_IF_ERROR(RegisterOp(registry, v3 ? WithAlign(builder) : builder));
  }
  return absl::OkStatus();
}

}  // namespace tessera
