// TensorFlow's array ops that place elements by index: Unique, DynamicStitch and
// ParallelDynamicStitch, with their shape functions.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/array_op_groups.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

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
  return absl::OkStatus();
}

}  // namespace tessera
