// The ops that TensorFlow's array gradients are built from: StridedSliceGrad, MirrorPadGrad,
// UnsortedSegmentSum and InvertPermutation; and the other segment reductions (SegmentSum,
// SegmentMean, SegmentMax, UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd); with
// their shape functions.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

// StridedSliceGrad: the output has the shape given by the `shape` input.
absl::Status StridedSliceGradShape(ShapeInferenceContext& ctx) {
  PartialShape out;
  ASSIGN_OR_RETURN(out, ctx.MakeShapeFromShapeTensor(0));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MirrorPadGrad: each dimension of the padded gradient shrinks by its two paddings.
absl::Status MirrorPadGradShape(ShapeInferenceContext& ctx) {
  PartialShape paddings;
  ASSIGN_OR_RETURN(paddings, ctx.WithRank(1, 2));
  RETURN_IF_ERROR(ctx.MergeDims(paddings.dim(1), 2).status());
  const int64_t rank = paddings.dim(0);
  if (rank < 0) {
    // The rank of the result is unknown while the number of padding rows is.
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, static_cast<int>(rank)));
  std::vector<int64_t> pads;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(1, &pads));
  if (!known) {
    ctx.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(rank)));
    return absl::OkStatus();
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    const int64_t before = pads[2 * i];
    const int64_t after = pads[2 * i + 1];
    if (before < 0 || after < 0) return ctx.Error("Paddings must be non-negative");
    const int64_t dim = input.dim(i);
    if (dim >= 0 && dim < before + after) {
      return ctx.Error(absl::StrCat("Negative dimension size caused by subtracting ",
                                    before + after, " from ", dim));
    }
    out.AddDim(dim < 0 ? kUnknownDim : dim - before - after);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// UnsortedSegmentSum: [num_segments] followed by the dimensions of data past those of
// segment_ids, whose shape must be a prefix of data's.
absl::Status UnsortedSegmentSumShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(2, 0).status());
  const PartialShape& ids = ctx.input(1);
  if (!ids.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape data;
  ASSIGN_OR_RETURN(data, ctx.WithRankAtLeast(0, ids.rank()));
  for (int i = 0; data.rank_known() && i < ids.rank(); ++i) {
    RETURN_IF_ERROR(ctx.MergeDims(data.dim(i), ids.dim(i)).status());
  }
  std::vector<int64_t> num_segments;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(2, &num_segments));
  int64_t rows = kUnknownDim;
  if (known && !num_segments.empty()) {
    rows = num_segments[0];
    if (rows < 0) {
      return ctx.Error(absl::StrCat(
          "Dimension size, given by scalar input 2, must be non-negative but is ", rows));
    }
  }
  ctx.set_output(0, data.rank_known()
                        ? PartialShape({rows}).Concatenate(data.Subshape(ids.rank(), data.rank()))
                        : PartialShape::Unknown());
  return absl::OkStatus();
}

// SegmentSum, SegmentMean, SegmentMax: [unknown] followed by data's dimensions past the first;
// segment_ids must be a vector.
absl::Status SegmentReductionShape(ShapeInferenceContext& ctx) {
  PartialShape data;
  ASSIGN_OR_RETURN(data, ctx.WithRankAtLeast(0, 1));
  RETURN_IF_ERROR(ctx.WithRank(1, 1).status());
  ctx.set_output(0, PartialShape({kUnknownDim}).Concatenate(data.Subshape(1, data.rank())));
  return absl::OkStatus();
}

absl::Status InvertPermutationShape(ShapeInferenceContext& ctx) {
  PartialShape x;
  ASSIGN_OR_RETURN(x, ctx.WithRank(0, 1));
  ctx.set_output(0, std::move(x));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArrayGradOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("StridedSliceGrad")
                                           .Input("shape", "Index")
                                           .Input("begin", "Index")
                                           .Input("end", "Index")
                                           .Input("strides", "Index")
                                           .Input("dy", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Index", {kInt32, kInt64})
                                           .IntAttr("begin_mask", 0)
                                           .IntAttr("end_mask", 0)
                                           .IntAttr("ellipsis_mask", 0)
                                           .IntAttr("new_axis_mask", 0)
                                           .IntAttr("shrink_axis_mask", 0)
                                           .SetShapeFn(StridedSliceGradShape)));
  RETURN_IF_ERROR(
      RegisterOp(registry, OpDefBuilder("MirrorPadGrad")
                               .Input("input", "T")
                               .Input("paddings", "Tpaddings")
                               .Output("output", "T")
                               .TypeAttr("T")
                               .TypeAttr("Tpaddings", {kInt32, kInt64}, kInt32)
                               .StringAttr("mode", std::nullopt, {"REFLECT", "SYMMETRIC"})
                               .SetShapeFn(MirrorPadGradShape)));
  for (const char* op : {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                         "UnsortedSegmentProd"}) {
    const bool real = std::string(op) == "UnsortedSegmentMax" ||
                      std::string(op) == "UnsortedSegmentMin";
    RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder(op)
                                             .Input("data", "T")
                                             .Input("segment_ids", "Tindices")
                                             .Input("num_segments", "Tnumsegments")
                                             .Output("output", "T")
                                             .TypeAttr("T", real ? RealNumberTypes() : NumberTypes())
                                             .TypeAttr("Tindices", {kInt32, kInt64})
                                             .TypeAttr("Tnumsegments", {kInt32, kInt64}, kInt32)
                                             .SetShapeFn(UnsortedSegmentSumShape)));
  }
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax"}) {
    const bool real = std::string(op) == "SegmentMax";
    RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder(op)
                                             .Input("data", "T")
                                             .Input("segment_ids", "Tindices")
                                             .Output("output", "T")
                                             .TypeAttr("T", real ? RealNumberTypes() : NumberTypes())
                                             .TypeAttr("Tindices", {kInt32, kInt64})
                                             .SetShapeFn(SegmentReductionShape)));
  }
  return RegisterOp(registry, OpDefBuilder("InvertPermutation")
                                  .Input("x", "T")
                                  .Output("y", "T")
                                  .TypeAttr("T", {kInt32, kInt64}, kInt32)
                                  .SetShapeFn(InvertPermutationShape));
}

}  // namespace tessera
