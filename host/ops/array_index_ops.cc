// TensorFlow's array ops that place elements by index: Unique, DynamicStitch,
// ParallelDynamicStitch, GatherNd and ScatterNd, with their shape functions.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/array_op_groups.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;
constexpr DataType kInt16 = TSR_DTYPE_INT16;

// Unique: `y` is a vector of unknown length, `idx` has the shape of `x`, which must be a vector.
absl::Status UniqueShape(ShapeInferenceContext& ctx) {
  ctx.set_output(0, PartialShape({kUnknownDim}));
  ctx.set_output(1, ctx.input(0));
  return ctx.WithRank(0, 1).status();
}

// DynamicStitch(indices_0..N-1, data_0..N-1): [max index + 1] (known when every indices input
// is a constant) followed by the dimensions of data_i past those of indices_i, which must agree
// across the inputs; each data_i's shape must start with indices_i's.
absl::Status DynamicStitchShape(ShapeInferenceContext& ctx) {
  const int n = ctx.num_inputs() / 2;
  bool all_constant = true;
  int64_t max_index = -1;
  PartialShape extra = PartialShape::Unknown();
  for (int i = 0; i < n; ++i) {
    const Tensor* indices_value = ctx.input_tensor(i);
    if (indices_value == nullptr) all_constant = false;
    const PartialShape& indices = ctx.input(i);
    const PartialShape& data = ctx.input(i + n);
    if (!indices.rank_known()) continue;
    PartialShape rest = PartialShape::Unknown();
    if (data.rank_known()) {
      if (data.rank() < indices.rank()) {
        return ctx.Error(absl::StrCat("Shape of data[", i, "] must be at least rank ",
                                      indices.rank(), " (the rank of indices[", i, "]) but is rank ",
                                      data.rank()));
      }
      for (int d = 0; d < indices.rank(); ++d) {
        RETURN_IF_ERROR(ctx.MergeDims(data.dim(d), indices.dim(d)).status());
      }
      rest = data.Subshape(indices.rank(), data.rank());
    }
    ASSIGN_OR_RETURN(extra, ctx.MergeShapes(extra, rest));
    if (indices_value != nullptr) {
      std::vector<int64_t> values;
      bool known = false;
      ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(i, &values));
      for (int64_t v : values) {
        if (known && v > max_index) max_index = v;
      }
    }
  }
  ctx.set_output(0,
                 PartialShape({all_constant ? max_index + 1 : kUnknownDim}).Concatenate(extra));
  return absl::OkStatus();
}

// GatherNd: indices.shape[:-1] + params.shape[indices.shape[-1]:].
absl::Status GatherNdShape(ShapeInferenceContext& ctx) {
  PartialShape indices;
  ASSIGN_OR_RETURN(indices, ctx.WithRankAtLeast(1, 1));
  const PartialShape& params = ctx.input(0);
  if (!params.rank_known() || !indices.rank_known() || indices.dim(indices.rank() - 1) < 0) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t depth = indices.dim(indices.rank() - 1);
  if (depth > params.rank()) {
    return ctx.Error(absl::StrCat(
        "indices.shape[-1] must be <= params.rank, but saw indices shape: ", indices.ToString(),
        " and params shape: ", params.ToString()));
  }
  ctx.set_output(0, indices.Subshape(0, indices.rank() - 1)
                        .Concatenate(params.Subshape(static_cast<int>(depth), params.rank())));
  return absl::OkStatus();
}

// The number of elements of `shape` (saturated at INT64_MAX: only whether it is zero matters), or
// -1 when a dimension (or the rank) is unknown.
int64_t KnownNumElements(const PartialShape& shape) {
  if (!shape.rank_known()) return -1;
  int64_t n = 1;
  bool empty = false;
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t dim = shape.dim(d);
    if (dim < 0) return -1;
    if (dim == 0) {
      empty = true;
    } else {
      n = n > std::numeric_limits<int64_t>::max() / dim ? std::numeric_limits<int64_t>::max()
                                                         : n * dim;
    }
  }
  return empty ? 0 : n;
}

// ScatterNd(indices, updates, shape): the output has the shape given by `shape`; indices'
// leading dimensions must match updates', and updates' trailing ones the output's past
// indices.shape[-1].
absl::Status ScatterNdShape(ShapeInferenceContext& ctx) {
  PartialShape indices;
  PartialShape updates;
  PartialShape out;
  ASSIGN_OR_RETURN(indices, ctx.WithRankAtLeast(0, 1));
  ASSIGN_OR_RETURN(updates, ctx.WithRankAtLeast(1, 1));
  ASSIGN_OR_RETURN(out, ctx.MakeShapeFromShapeTensor(2));
  if (KnownNumElements(out) == 0 &&
      (KnownNumElements(indices) > 0 || KnownNumElements(updates) > 0)) {
    return ctx.Error("Indices and updates specified for empty input");
  }
  if (indices.rank_known() && updates.rank_known() && out.rank_known() &&
      indices.dim(indices.rank() - 1) >= 0) {
    const int outer = indices.rank() - 1;
    const int64_t depth = indices.dim(outer);
    const PartialShape indices_prefix = indices.Subshape(0, outer);
    const PartialShape updates_prefix = updates.Subshape(0, outer);
    absl::StatusOr<PartialShape> merged = PartialShape::Merge(indices_prefix, updates_prefix);
    if (!merged.ok() || updates.rank() < outer) {
      return ctx.Error(absl::StrCat("Dimensions [0,", outer, ") of indices[shape=",
                                    indices.ToString(), "] = ", indices_prefix.ToString(),
                                    " must match dimensions [0,", outer, ") of updates[shape=",
                                    updates.ToString(), "] = ", updates_prefix.ToString()));
    }
    const PartialShape out_suffix = out.Subshape(static_cast<int>(depth), out.rank());
    const PartialShape updates_suffix = updates.Subshape(outer, updates.rank());
    merged = PartialShape::Merge(out_suffix, updates_suffix);
    if (!merged.ok() || depth > out.rank()) {
      return ctx.Error(absl::StrCat("Dimensions [", depth, ",", out.rank(), ") of input[shape=",
                                    out.ToString(), "] = ", out_suffix.ToString(),
                                    " must match dimensions [", outer, ",", updates.rank(),
                                    ") of updates[shape=", updates.ToString(), "] = ",
                                    updates_suffix.ToString()));
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArrayIndexOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Unique")
                                           .Input("x", "T")
                                           .Output("y", "T")
                                           .Output("idx", "out_idx")
                                           .TypeAttr("T")
                                           .TypeAttr("out_idx", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn(UniqueShape)));
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder(op)
                                             .InputList("indices", "N", kInt32)
                                             .InputList("data", "N", "T")
                                             .Output("merged", "T")
                                             .IntAttr("N", std::nullopt, 1)
                                             .TypeAttr("T")
                                             .SetShapeFn(DynamicStitchShape)));
  }
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("GatherNd")
                                           .Input("params", "Tparams")
                                           .Input("indices", "Tindices")
                                           .Output("output", "Tparams")
                                           .TypeAttr("Tparams")
                                           .TypeAttr("Tindices", {kInt16, kInt32, kInt64})
                                           .SetShapeFn(GatherNdShape)));
  return RegisterOp(registry, OpDefBuilder("ScatterNd")
                                  .Input("indices", "Tindices")
                                  .Input("updates", "T")
                                  .Input("shape", "Tindices")
                                  .Output("output", "T")
                                  .TypeAttr("T")
                                  .TypeAttr("Tindices", {kInt16, kInt32, kInt64})
                                  .SetShapeFn(ScatterNdShape));
}

}  // namespace tessera
