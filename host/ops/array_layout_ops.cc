// TensorFlow's ops that move blocks of space into the batch or the depth and back:
// SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth and DepthToSpace, with
// their shape functions.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/array_op_groups.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

// The shape of SpaceToBatch(ND) (`to_batch`) or BatchToSpace(ND) of input 0 with `block` (its
// values when known; `num_block_dims` of them, -1 when unknown) and the paddings or crops of
// input `amounts_input`.
absl::Status SpaceBatchShape(ShapeInferenceContext& ctx, bool to_batch,
                             const std::vector<int64_t>* block, int64_t num_block_dims,
                             int amounts_input) {
  PartialShape amounts;
  ASSIGN_OR_RETURN(amounts, ctx.WithRank(amounts_input, 2));
  RETURN_IF_ERROR(ctx.MergeDims(amounts.dim(1), 2).status());
  ASSIGN_OR_RETURN(num_block_dims, ctx.MergeDims(num_block_dims, amounts.dim(0)));
  const PartialShape& input = ctx.input(0);
  if (!input.rank_known()) {
    ctx.set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (num_block_dims >= 0 && input.rank() < 1 + num_block_dims) {
    return ctx.Error(
        absl::StrCat("input rank should be >= ", 1 + num_block_dims, " instead of ", input.rank()));
  }
  if (num_block_dims < 0) {
    ctx.set_output(0, PartialShape::UnknownOfRank(input.rank()));
    return absl::OkStatus();
  }
  const int m = static_cast<int>(num_block_dims);
  std::vector<int64_t> values;
  bool amounts_known = false;
  ASSIGN_OR_RETURN(amounts_known, ctx.ConstantInputAsInt64s(amounts_input, &values));
  PartialShape out = input;
  int64_t product = 1;
  if (block != nullptr) {
    for (int i = 0; i < m; ++i) {
      if ((*block)[i] < 1) {
        return ctx.Error(
            absl::StrCat("block_shape must be positive, got ", (*block)[i], " at index ", i));
      }
      product *= (*block)[i];
    }
  }
  const int64_t batch = input.dim(0);
  if (block == nullptr || batch < 0) {
    out.set_dim(0, kUnknownDim);
  } else if (to_batch) {
    out.set_dim(0, batch * product);
  } else if (batch % product != 0) {
    return ctx.Error(absl::StrCat("batch size ", batch,
                                  " is not divisible by the product of block sizes ", product));
  } else {
    out.set_dim(0, batch / product);
  }
  for (int i = 0; i < m; ++i) {
    const int64_t size = input.dim(i + 1);
    if (amounts_known && (values[2 * i] < 0 || values[2 * i + 1] < 0)) {
      return ctx.Error(to_batch ? "paddings cannot be negative" : "crops cannot be negative");
    }
    if (block == nullptr || !amounts_known || size < 0) {
      out.set_dim(i + 1, kUnknownDim);
      continue;
    }
    const int64_t b = (*block)[i];
    if (to_batch) {
      const int64_t padded = size + values[2 * i] + values[2 * i + 1];
      if (padded % b != 0) {
        return ctx.Error(absl::StrCat("padded_shape[", i, "]=", padded,
                                      " is not divisible by block_shape[", i, "]=", b));
      }
      out.set_dim(i + 1, padded / b);
    } else {
      const int64_t cropped = size * b - values[2 * i] - values[2 * i + 1];
      if (cropped < 0) {
        return ctx.Error(absl::StrCat("crops must not exceed the block-expanded size ", size * b,
                                      " of dimension ", i + 1));
      }
      out.set_dim(i + 1, cropped);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status SpaceBatchNdShape(ShapeInferenceContext& ctx, bool to_batch) {
  PartialShape block_shape;
  ASSIGN_OR_RETURN(block_shape, ctx.WithRank(1, 1));
  std::vector<int64_t> block;
  bool block_known = false;
  ASSIGN_OR_RETURN(block_known, ctx.ConstantInputAsInt64s(1, &block));
  return SpaceBatchShape(ctx, to_batch, block_known ? &block : nullptr, block_shape.dim(0), 2);
}

// The first versions: a 4-D input and one block_size for both spatial dimensions.
absl::Status SpaceBatchV1Shape(ShapeInferenceContext& ctx, bool to_batch) {
  RETURN_IF_ERROR(ctx.WithRank(0, 4).status());
  int64_t block_size = 0;
  RETURN_IF_ERROR(ctx.GetAttr("block_size", &block_size));
  const std::vector<int64_t> block = {block_size, block_size};
  return SpaceBatchShape(ctx, to_batch, &block, 2, 1);
}

// SpaceToDepth (`to_depth`) or DepthToSpace: a 4-D input whose height and width shrink (grow) by
// block_size while its depth grows (shrinks) by block_size squared.
absl::Status SpaceDepthShape(ShapeInferenceContext& ctx, bool to_depth) {
  std::string data_format;
  int64_t block_size = 0;
  RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  RETURN_IF_ERROR(ctx.GetAttr("block_size", &block_size));
  if (data_format == "NCHW_VECT_C") {
    RETURN_IF_ERROR(ctx.WithRank(0, 5).status());
    ctx.set_output(0, PartialShape::UnknownOfRank(5));
    return absl::OkStatus();
  }
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, 4));
  const bool nchw = data_format == "NCHW";
  const int h = nchw ? 2 : 1;
  const int w = nchw ? 3 : 2;
  const int c = nchw ? 1 : 3;
  auto divide = [&](int64_t size, int64_t by) -> absl::StatusOr<int64_t> {
    if (size < 0) return kUnknownDim;
    if (size % by != 0) {
      return ctx.Error(
          absl::StrCat("Dimension size must be evenly divisible by ", by, " but is ", size));
    }
    return size / by;
  };
  auto multiply = [](int64_t size, int64_t by) { return size < 0 ? kUnknownDim : size * by; };
  PartialShape out = input;
  if (to_depth) {
    int64_t height = 0;
    int64_t width = 0;
    ASSIGN_OR_RETURN(height, divide(input.dim(h), block_size));
    ASSIGN_OR_RETURN(width, divide(input.dim(w), block_size));
    out.set_dim(h, height);
    out.set_dim(w, width);
    out.set_dim(c, multiply(input.dim(c), block_size * block_size));
  } else {
    int64_t depth = 0;
    ASSIGN_OR_RETURN(depth, divide(input.dim(c), block_size * block_size));
    out.set_dim(h, multiply(input.dim(h), block_size));
    out.set_dim(w, multiply(input.dim(w), block_size));
    out.set_dim(c, depth);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArrayLayoutOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("SpaceToBatchND")
                                           .Input("input", "T")
                                           .Input("block_shape", "Tblock_shape")
                                           .Input("paddings", "Tpaddings")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tblock_shape", {kInt32, kInt64}, kInt32)
                                           .TypeAttr("Tpaddings", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn([](ShapeInferenceContext& ctx) {
                                             return SpaceBatchNdShape(ctx, /*to_batch=*/true);
                                           })));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BatchToSpaceND")
                                           .Input("input", "T")
                                           .Input("block_shape", "Tblock_shape")
                                           .Input("crops", "Tcrops")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tblock_shape", {kInt32, kInt64}, kInt32)
                                           .TypeAttr("Tcrops", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn([](ShapeInferenceContext& ctx) {
                                             return SpaceBatchNdShape(ctx, /*to_batch=*/false);
                                           })));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("SpaceToBatch")
                                           .Input("input", "T")
                                           .Input("paddings", "Tpaddings")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .TypeAttr("Tpaddings", {kInt32, kInt64}, kInt32)
                                           .IntAttr("block_size", std::nullopt, 2)
                                           .SetShapeFn([](ShapeInferenceContext& ctx) {
                                             return SpaceBatchV1Shape(ctx, /*to_batch=*/true);
                                           })));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("BatchToSpace")
                                           .Input("input", "T")
                                           .Input("crops", "Tidx")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .IntAttr("block_size", std::nullopt, 2)
                                           .TypeAttr("Tidx", {kInt32, kInt64}, kInt32)
                                           .SetShapeFn([](ShapeInferenceContext& ctx) {
                                             return SpaceBatchV1Shape(ctx, /*to_batch=*/false);
                                           })));
  for (const bool to_depth : {true, false}) {
    RETURN_IF_ERROR(
        RegisterOp(registry, OpDefBuilder(to_depth ? "SpaceToDepth" : "DepthToSpace")
                                 .Input("input", "T")
                                 .Output("output", "T")
                                 .TypeAttr("T")
                                 .IntAttr("block_size", std::nullopt, 2)
                                 .StringAttr("data_format", "NHWC", {"NHWC", "NCHW", "NCHW_VECT_C"})
                                 .SetShapeFn([to_depth](ShapeInferenceContext& ctx) {
                                   return SpaceDepthShape(ctx, to_depth);
                                 })));
  }
  return absl::OkStatus();
}

}  // namespace tessera
