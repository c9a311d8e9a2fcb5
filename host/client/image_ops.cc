// Typed wrappers of TensorFlow's image and detection ops (see image_ops.h).
#include "host/client/image_ops.h"

#include <initializer_list>
#include <string>
#include <vector>

#include "host/client/math_ops.h"
#include "host/client/op_builder.h"
#include "host/framework/proto/attr_value.pb.h"

namespace tessera {
namespace ops {
namespace {

Output NthOutput(const Operation& op, int i) { return op.valid() ? op.output(i) : Output(); }

// Adds a resize node: first (images or grads), second (size or original_image), T from `typed`
// (the input whose type is T), output of `out_type` (TSR_DTYPE_INVALID: T).
Operation AddResize(const Scope& scope, const char* op, Input first, Input second,
                    const ResizeAttrs& attrs, int typed, DataType out_type) {
  if (!scope.ok()) return Operation();
  Output a = AsNodeOut(scope, first);
  Output b = AsNodeOut(scope, second);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  const DataType t = typed == 0 ? a.type() : b.type();
  builder.Input(a).Input(b).AttrType("T", t);
  builder.AttrBool("align_corners", attrs.align_corners_)
      .AttrBool("half_pixel_centers", attrs.half_pixel_centers_);
  const DataType out = out_type == TSR_DTYPE_INVALID ? t : out_type;
  return builder.Finalize({out});
}

// Adds NonMaxSuppressionV2 to V5 (`version`) with the given inputs and outputs.
Operation AddNms(const Scope& scope, int version, std::initializer_list<Input> inputs,
                 bool pad_to_max_output_size) {
  if (!scope.ok()) return Operation();
  std::vector<Output> in;
  for (const Input& input : inputs) in.push_back(AsNodeOut(scope, input));
  if (!scope.ok()) return Operation();
  const std::string op = "NonMaxSuppressionV" + std::to_string(version);
  OpBuilder builder(scope, op);
  const DataType t = builder.CommonType("T", {in[0], in[1]});
  for (const Output& input : in) builder.Input(input);
  builder.AttrType("T", t);
  if (version < 5) builder.AttrType("T_threshold", in[3].type());
  if (version >= 4) builder.AttrBool("pad_to_max_output_size", pad_to_max_output_size);
  switch (version) {
    case 4:
      return builder.Finalize({DT_INT32, DT_INT32});
    case 5:
      return builder.Finalize({DT_INT32, t, DT_INT32});
    default:
      return builder.Finalize({DT_INT32});
  }
}

}  // namespace

ResizeBilinear::ResizeBilinear(const Scope& scope, Input images, Input size, const Attrs& attrs)
    : operation(AddResize(scope, "ResizeBilinear", images, size, attrs, 0, DT_FLOAT)),
      output(internal::FirstOutput(operation)) {}

ResizeBilinearGrad::ResizeBilinearGrad(const Scope& scope, Input grads, Input original_image,
                                       const Attrs& attrs)
    : operation(AddResize(scope, "ResizeBilinearGrad", grads, original_image, attrs, 1,
                          TSR_DTYPE_INVALID)),
      output(internal::FirstOutput(operation)) {}

ResizeNearestNeighbor::ResizeNearestNeighbor(const Scope& scope, Input images, Input size,
                                             const Attrs& attrs)
    : operation(
          AddResize(scope, "ResizeNearestNeighbor", images, size, attrs, 0, TSR_DTYPE_INVALID)),
      output(internal::FirstOutput(operation)) {}

ResizeNearestNeighborGrad::ResizeNearestNeighborGrad(const Scope& scope, Input grads, Input size,
                                                     const Attrs& attrs)
    : operation(
          AddResize(scope, "ResizeNearestNeighborGrad", grads, size, attrs, 0, TSR_DTYPE_INVALID)),
      output(internal::FirstOutput(operation)) {}

CropAndResize::CropAndResize(const Scope& scope, Input image, Input boxes, Input box_ind,
                             Input crop_size, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, image);
  Output b = AsNodeOut(scope, boxes);
  Output ind = AsNodeOut(scope, box_ind);
  Output size = AsNodeOut(scope, crop_size);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "CropAndResize");
  builder.Input(in).Input(b).Input(ind).Input(size).AttrType("T", in.type());
  builder.AttrString("method", attrs.method_);
  tensorflow::AttrValue extrapolation;
  extrapolation.set_f(attrs.extrapolation_value_);
  builder.AttrProto("extrapolation_value", extrapolation);
  operation = builder.Finalize({DT_FLOAT});
  crops = internal::FirstOutput(operation);
}

NonMaxSuppressionV2::NonMaxSuppressionV2(const Scope& scope, Input boxes, Input scores,
                                         Input max_output_size, Input iou_threshold)
    : operation(AddNms(scope, 2, {boxes, scores, max_output_size, iou_threshold}, false)),
      selected_indices(internal::FirstOutput(operation)) {}

NonMaxSuppressionV3::NonMaxSuppressionV3(const Scope& scope, Input boxes, Input scores,
                                         Input max_output_size, Input iou_threshold,
                                         Input score_threshold)
    : operation(AddNms(scope, 3, {boxes, scores, max_output_size, iou_threshold, score_threshold},
                       false)),
      selected_indices(internal::FirstOutput(operation)) {}

NonMaxSuppressionV4::NonMaxSuppressionV4(const Scope& scope, Input boxes, Input scores,
                                         Input max_output_size, Input iou_threshold,
                                         Input score_threshold, const Attrs& attrs)
    : operation(AddNms(scope, 4, {boxes, scores, max_output_size, iou_threshold, score_threshold},
                       attrs.pad_to_max_output_size_)),
      selected_indices(NthOutput(operation, 0)),
      valid_outputs(NthOutput(operation, 1)) {}

NonMaxSuppressionV5::NonMaxSuppressionV5(const Scope& scope, Input boxes, Input scores,
                                         Input max_output_size, Input iou_threshold,
                                         Input score_threshold, Input soft_nms_sigma,
                                         const Attrs& attrs)
    : operation(
          AddNms(scope, 5,
                 {boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma},
                 attrs.pad_to_max_output_size_)),
      selected_indices(NthOutput(operation, 0)),
      selected_scores(NthOutput(operation, 1)),
      valid_outputs(NthOutput(operation, 2)) {}

}  // namespace ops
}  // namespace tessera
