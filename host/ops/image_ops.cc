// TensorFlow's image and detection ops: ResizeBilinear and ResizeNearestNeighbor with their
// gradients, CropAndResize, and NonMaxSuppressionV2 to V5.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kBfloat16 = TSR_DTYPE_BFLOAT16;
constexpr DataType kHalf = TSR_DTYPE_HALF;
constexpr DataType kFloat = TSR_DTYPE_FLOAT;
constexpr DataType kDouble = TSR_DTYPE_DOUBLE;
constexpr DataType kInt8 = TSR_DTYPE_INT8;
constexpr DataType kUint8 = TSR_DTYPE_UINT8;
constexpr DataType kInt16 = TSR_DTYPE_INT16;
constexpr DataType kUint16 = TSR_DTYPE_UINT16;
constexpr DataType kInt32 = TSR_DTYPE_INT32;
constexpr DataType kInt64 = TSR_DTYPE_INT64;

// The image types of ResizeBilinear, ResizeNearestNeighbor and CropAndResize.
std::vector<DataType> ImageTypes() {
  return {kInt8, kUint8, kInt16, kUint16, kInt32, kInt64, kBfloat16, kHalf, kFloat, kDouble};
}

// Dimension `dim` of input `input` must be `value` (when known).
absl::Status DimMustBe(const ShapeInferenceContext& ctx, const PartialShape& shape, int dim,
                       int64_t value) {
  if (shape.rank_known() && shape.dim(dim) >= 0 && shape.dim(dim) != value) {
    return ctx.Error(absl::StrCat("Dimension must be ", value, " but is ", shape.dim(dim)));
  }
  return absl::OkStatus();
}

// [batch, height, width, channels] with height and width from the int32 vector input
// `size_input` of two elements (unknown when the vector is not a constant).
absl::Status SetOutputToSizedImage(ShapeInferenceContext& ctx, int64_t batch, int size_input,
                                   int64_t channels) {
  PartialShape size;
  ASSIGN_OR_RETURN(size, ctx.WithRank(size_input, 1));
  RETURN_IF_ERROR(DimMustBe(ctx, size, 0, 2));
  int64_t height = kUnknownDim;
  int64_t width = kUnknownDim;
  std::vector<int64_t> values;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(size_input, &values));
  if (known && values.size() == 2) {
    height = values[0];
    width = values[1];
  }
  ctx.set_output(0, PartialShape({batch, height, width, channels}));
  return absl::OkStatus();
}

// ResizeBilinear, ResizeNearestNeighbor (and its gradient): a rank-4 image resized to `size`.
absl::Status ResizeShape(ShapeInferenceContext& ctx) {
  PartialShape input;
  ASSIGN_OR_RETURN(input, ctx.WithRank(0, 4));
  return SetOutputToSizedImage(ctx, input.dim(0), 1, input.dim(3));
}

// ResizeBilinearGrad: the original image's shape.
absl::Status ResizeBilinearGradShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(0, 4).status());
  PartialShape original;
  ASSIGN_OR_RETURN(original, ctx.WithRank(1, 4));
  ctx.set_output(0, std::move(original));
  return absl::OkStatus();
}

// CropAndResize: [num_boxes, crop_height, crop_width, depth].
absl::Status CropAndResizeShape(ShapeInferenceContext& ctx) {
  PartialShape image;
  ASSIGN_OR_RETURN(image, ctx.WithRank(0, 4));
  PartialShape boxes;
  ASSIGN_OR_RETURN(boxes, ctx.WithRank(1, 2));
  PartialShape box_ind;
  ASSIGN_OR_RETURN(box_ind, ctx.WithRank(2, 1));
  int64_t num_boxes = kUnknownDim;
  ASSIGN_OR_RETURN(num_boxes, ctx.MergeDims(boxes.dim(0), box_ind.dim(0)));
  RETURN_IF_ERROR(DimMustBe(ctx, boxes, 1, 4));
  return SetOutputToSizedImage(ctx, num_boxes, 3, image.dim(3));
}

// The checks every NonMaxSuppression version shares: boxes [num_boxes, 4], scores [num_boxes],
// and scalars from input 2 to `last_scalar`.
absl::Status CheckNmsInputs(ShapeInferenceContext& ctx, int last_scalar) {
  PartialShape boxes;
  ASSIGN_OR_RETURN(boxes, ctx.WithRank(0, 2));
  PartialShape scores;
  ASSIGN_OR_RETURN(scores, ctx.WithRank(1, 1));
  for (int i = 2; i <= last_scalar; ++i) RETURN_IF_ERROR(ctx.WithRank(i, 0).status());
  RETURN_IF_ERROR(ctx.MergeDims(boxes.dim(0), scores.dim(0)).status());
  return DimMustBe(ctx, boxes, 1, 4);
}

// The length of the selected indices: max_output_size when padding to it, else unknown.
absl::StatusOr<int64_t> SelectedLength(ShapeInferenceContext& ctx) {
  bool pad = false;
  RETURN_IF_ERROR(ctx.GetAttr("pad_to_max_output_size", &pad));
  if (!pad) return kUnknownDim;
  std::vector<int64_t> values;
  bool known = false;
  ASSIGN_OR_RETURN(known, ctx.ConstantInputAsInt64s(2, &values));
  if (!known || values.empty()) return kUnknownDim;
  if (values[0] < 0) {
    return ctx.Error(absl::StrCat(
        "Dimension size, given by scalar input 2, must be non-negative but is ", values[0]));
  }
  return values[0];
}

absl::Status NmsShape(ShapeInferenceContext& ctx, int last_scalar) {
  RETURN_IF_ERROR(CheckNmsInputs(ctx, last_scalar));
  ctx.set_output(0, PartialShape({kUnknownDim}));
  return absl::OkStatus();
}

absl::Status NmsV4Shape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(CheckNmsInputs(ctx, 4));
  int64_t length = kUnknownDim;
  ASSIGN_OR_RETURN(length, SelectedLength(ctx));
  ctx.set_output(0, PartialShape({length}));
  ctx.set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status NmsV5Shape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(CheckNmsInputs(ctx, 5));
  int64_t length = kUnknownDim;
  ASSIGN_OR_RETURN(length, SelectedLength(ctx));
  ctx.set_output(0, PartialShape({length}));
  ctx.set_output(1, PartialShape({length}));
  ctx.set_output(2, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status RegisterResizeOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ResizeBilinear")
                                           .Input("images", "T")
                                           .Input("size", kInt32)
                                           .Output("resized_images", kFloat)
                                           .TypeAttr("T", ImageTypes())
                                           .BoolAttr("align_corners", false)
                                           .BoolAttr("half_pixel_centers", false)
                                           .SetShapeFn(ResizeShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ResizeBilinearGrad")
                                           .Input("grads", kFloat)
                                           .Input("original_image", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T", {kFloat, kBfloat16, kHalf, kDouble})
                                           .BoolAttr("align_corners", false)
                                           .BoolAttr("half_pixel_centers", false)
                                           .SetShapeFn(ResizeBilinearGradShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ResizeNearestNeighbor")
                                           .Input("images", "T")
                                           .Input("size", kInt32)
                                           .Output("resized_images", "T")
                                           .TypeAttr("T", ImageTypes())
                                           .BoolAttr("align_corners", false)
                                           .BoolAttr("half_pixel_centers", false)
                                           .SetShapeFn(ResizeShape)));
  return RegisterOp(registry,
                    OpDefBuilder("ResizeNearestNeighborGrad")
                        .Input("grads", "T")
                        .Input("size", kInt32)
                        .Output("output", "T")
                        .TypeAttr("T", {kUint8, kInt8, kInt32, kHalf, kFloat, kDouble, kBfloat16})
                        .BoolAttr("align_corners", false)
                        .BoolAttr("half_pixel_centers", false)
                        .SetShapeFn(ResizeShape));
}

absl::Status RegisterCropAndResizeOps(OpRegistry* registry) {
  return RegisterOp(registry, OpDefBuilder("CropAndResize")
                                  .Input("image", "T")
                                  .Input("boxes", kFloat)
                                  .Input("box_ind", kInt32)
                                  .Input("crop_size", kInt32)
                                  .Output("crops", kFloat)
                                  .TypeAttr("T", ImageTypes())
                                  .StringAttr("method", "bilinear", {"bilinear", "nearest"})
                                  .FloatAttr("extrapolation_value", 0.0f)
                                  .SetShapeFn(CropAndResizeShape));
}

absl::Status RegisterNonMaxSuppressionOps(OpRegistry* registry) {
  const std::vector<DataType> types = {kHalf, kFloat};
  RETURN_IF_ERROR(RegisterOp(
      registry, OpDefBuilder("NonMaxSuppressionV2")
                    .Input("boxes", "T")
                    .Input("scores", "T")
                    .Input("max_output_size", kInt32)
                    .Input("iou_threshold", "T_threshold")
                    .Output("selected_indices", kInt32)
                    .TypeAttr("T", types, kFloat)
                    .TypeAttr("T_threshold", types, kFloat)
                    .SetShapeFn([](ShapeInferenceContext& ctx) { return NmsShape(ctx, 3); })));
  RETURN_IF_ERROR(RegisterOp(
      registry, OpDefBuilder("NonMaxSuppressionV3")
                    .Input("boxes", "T")
                    .Input("scores", "T")
                    .Input("max_output_size", kInt32)
                    .Input("iou_threshold", "T_threshold")
                    .Input("score_threshold", "T_threshold")
                    .Output("selected_indices", kInt32)
                    .TypeAttr("T", types, kFloat)
                    .TypeAttr("T_threshold", types, kFloat)
                    .SetShapeFn([](ShapeInferenceContext& ctx) { return NmsShape(ctx, 4); })));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("NonMaxSuppressionV4")
                                           .Input("boxes", "T")
                                           .Input("scores", "T")
                                           .Input("max_output_size", kInt32)
                                           .Input("iou_threshold", "T_threshold")
                                           .Input("score_threshold", "T_threshold")
                                           .Output("selected_indices", kInt32)
                                           .Output("valid_outputs", kInt32)
                                           .TypeAttr("T", types, kFloat)
                                           .TypeAttr("T_threshold", types, kFloat)
                                           .BoolAttr("pad_to_max_output_size", false)
                                           .SetShapeFn(NmsV4Shape)));
  return RegisterOp(registry, OpDefBuilder("NonMaxSuppressionV5")
                                  .Input("boxes", "T")
                                  .Input("scores", "T")
                                  .Input("max_output_size", kInt32)
                                  .Input("iou_threshold", "T")
                                  .Input("score_threshold", "T")
                                  .Input("soft_nms_sigma", "T")
                                  .Output("selected_indices", kInt32)
                                  .Output("selected_scores", "T")
                                  .Output("valid_outputs", kInt32)
                                  .TypeAttr("T", types, kFloat)
                                  .BoolAttr("pad_to_max_output_size", false)
                                  .SetShapeFn(NmsV5Shape));
}

}  // namespace

absl::Status RegisterImageOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterResizeOps(registry));
  RETURN_IF_ERROR(RegisterCropAndResizeOps(registry));
  return RegisterNonMaxSuppressionOps(registry);
}

}  // namespace tessera
