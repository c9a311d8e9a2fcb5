// Typed wrappers of TensorFlow's image and detection ops: ResizeBilinear and
// ResizeNearestNeighbor with their gradients, CropAndResize and NonMaxSuppressionV2 to V5.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out) and keeps its outputs under TensorFlow's names, as the wrappers in nn_ops.h do.
#ifndef TESSERA_HOST_CLIENT_IMAGE_OPS_H_
#define TESSERA_HOST_CLIENT_IMAGE_OPS_H_

#include <string>

#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// The attrs of the resize ops and their gradients: align_corners and half_pixel_centers (both
// default false; at most one may be true).
struct ResizeAttrs {
  ResizeAttrs AlignCorners(bool x) const {
    ResizeAttrs ret = *this;
    ret.align_corners_ = x;
    return ret;
  }
  ResizeAttrs HalfPixelCenters(bool x) const {
    ResizeAttrs ret = *this;
    ret.half_pixel_centers_ = x;
    return ret;
  }
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// Declares a resize wrapper `Name(scope, first, second[, attrs])` with one output.
#define TESSERA_RESIZE_WRAPPER(Name)                                                             \
  class Name {                                                                                   \
   public:                                                                                       \
    using Attrs = ResizeAttrs;                                                                   \
    Name(const Scope& scope, Input first, Input second) : Name(scope, first, second, Attrs()) {} \
    Name(const Scope& scope, Input first, Input second, const Attrs& attrs);                     \
    static Attrs AlignCorners(bool x) { return Attrs().AlignCorners(x); }                        \
    static Attrs HalfPixelCenters(bool x) { return Attrs().HalfPixelCenters(x); }                \
    operator Output() const { return output; }                                                   \
    Operation operation;                                                                         \
    Output output;                                                                               \
  }

// `images` [batch, height, width, channels] resized bilinearly to `size` (int32 [new_height,
// new_width]); the output is float whatever the image type.
TESSERA_RESIZE_WRAPPER(ResizeBilinear);
// ResizeBilinear's gradient: `grads` (float, the resized shape) sent back onto the shape of
// `original_image` (whose type the output takes).
TESSERA_RESIZE_WRAPPER(ResizeBilinearGrad);
// `images` resized to `size` by copying the nearest pixel; the output keeps the image type.
TESSERA_RESIZE_WRAPPER(ResizeNearestNeighbor);
// ResizeNearestNeighbor's gradient: `grads` summed back into an image of `size` (the original
// height and width).
TESSERA_RESIZE_WRAPPER(ResizeNearestNeighborGrad);

#undef TESSERA_RESIZE_WRAPPER

// Crops of `image` at `boxes` ([num_boxes, 4] normalized y1, x1, y2, x2) of the images
// `box_ind`, each resized to `crop_size` (int32 [height, width]); float output. Attrs method
// ("bilinear" or "nearest"), extrapolation_value (for samples outside the image).
class CropAndResize {
 public:
  struct Attrs {
    Attrs Method(std::string x) const {
      Attrs ret = *this;
      ret.method_ = std::move(x);
      return ret;
    }
    Attrs ExtrapolationValue(float x) const {
      Attrs ret = *this;
      ret.extrapolation_value_ = x;
      return ret;
    }
    std::string method_ = "bilinear";
    float extrapolation_value_ = 0.0f;
  };
  CropAndResize(const Scope& scope, Input image, Input boxes, Input box_ind, Input crop_size)
      : CropAndResize(scope, image, boxes, box_ind, crop_size, Attrs()) {}
  CropAndResize(const Scope& scope, Input image, Input boxes, Input box_ind, Input crop_size,
                const Attrs& attrs);
  static Attrs Method(std::string x) { return Attrs().Method(std::move(x)); }
  static Attrs ExtrapolationValue(float x) { return Attrs().ExtrapolationValue(x); }
  operator Output() const { return crops; }
  Operation operation;
  Output crops;
};

// Greedy non-max suppression: the indices of at most `max_output_size` boxes ([num_boxes, 4],
// any two opposite corners) by descending `scores`, skipping boxes whose IOU with one already
// selected exceeds `iou_threshold`. T (boxes and scores) and T_threshold are half or float.
class NonMaxSuppressionV2 {
 public:
  NonMaxSuppressionV2(const Scope& scope, Input boxes, Input scores, Input max_output_size,
                      Input iou_threshold);
  operator Output() const { return selected_indices; }
  Operation operation;
  Output selected_indices;
};

// V2 that also drops boxes scoring at most `score_threshold`.
class NonMaxSuppressionV3 {
 public:
  NonMaxSuppressionV3(const Scope& scope, Input boxes, Input scores, Input max_output_size,
                      Input iou_threshold, Input score_threshold);
  operator Output() const { return selected_indices; }
  Operation operation;
  Output selected_indices;
};

// V3 with attr pad_to_max_output_size (zeros after the valid indices) and the count of valid
// indices (`valid_outputs`).
class NonMaxSuppressionV4 {
 public:
  struct Attrs {
    Attrs PadToMaxOutputSize(bool x) const {
      Attrs ret = *this;
      ret.pad_to_max_output_size_ = x;
      return ret;
    }
    bool pad_to_max_output_size_ = false;
  };
  NonMaxSuppressionV4(const Scope& scope, Input boxes, Input scores, Input max_output_size,
                      Input iou_threshold, Input score_threshold)
      : NonMaxSuppressionV4(scope, boxes, scores, max_output_size, iou_threshold, score_threshold,
                            Attrs()) {}
  NonMaxSuppressionV4(const Scope& scope, Input boxes, Input scores, Input max_output_size,
                      Input iou_threshold, Input score_threshold, const Attrs& attrs);
  static Attrs PadToMaxOutputSize(bool x) { return Attrs().PadToMaxOutputSize(x); }
  Operation operation;
  Output selected_indices;
  Output valid_outputs;
};

// V4 with soft-NMS: `soft_nms_sigma` > 0 decays overlapping scores by exp(-iou^2 / (2 sigma))
// instead of dropping the boxes; also returns the (decayed) `selected_scores`. One type T for
// every float input.
class NonMaxSuppressionV5 {
 public:
  using Attrs = NonMaxSuppressionV4::Attrs;
  NonMaxSuppressionV5(const Scope& scope, Input boxes, Input scores, Input max_output_size,
                      Input iou_threshold, Input score_threshold, Input soft_nms_sigma)
      : NonMaxSuppressionV5(scope, boxes, scores, max_output_size, iou_threshold, score_threshold,
                            soft_nms_sigma, Attrs()) {}
  NonMaxSuppressionV5(const Scope& scope, Input boxes, Input scores, Input max_output_size,
                      Input iou_threshold, Input score_threshold, Input soft_nms_sigma,
                      const Attrs& attrs);
  static Attrs PadToMaxOutputSize(bool x) { return Attrs().PadToMaxOutputSize(x); }
  Operation operation;
  Output selected_indices;
  Output selected_scores;
  Output valid_outputs;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_IMAGE_OPS_H_
