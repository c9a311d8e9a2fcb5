// Shape functions shared by many ops (TensorFlow's common_shape_fns).
#ifndef TESSERA_HOST_OPS_COMMON_SHAPE_FNS_H_
#define TESSERA_HOST_OPS_COMMON_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "host/ops/shape_inference.h"

namespace tessera {

// Output 0 has input 0's shape.
absl::Status UnchangedShape(ShapeInferenceContext& ctx);
// Every output stays unknown.
absl::Status UnknownShape(ShapeInferenceContext& ctx);
// Output 0 is the broadcast of inputs 0 and 1.
absl::Status BroadcastBinaryOpShape(ShapeInferenceContext& ctx);
// [m, k] x [k, n] -> [m, n] with transpose_a / transpose_b.
absl::Status MatMulShape(ShapeInferenceContext& ctx);
// input, reduction_indices (constant when known) and keep_dims.
absl::Status ReductionShape(ShapeInferenceContext& ctx);

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_COMMON_SHAPE_FNS_H_
