// Shape functions shared by many ops (TensorFlow's common_shape_fns).
#ifndef TESSERA_HOST_OPS_COMMON_SHAPE_FNS_H_
#define TESSERA_HOST_OPS_COMMON_SHAPE_FNS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/ops/shape_inference.h"

namespace tessera {

// Output 0 has input 0's shape.
absl::Status UnchangedShape(ShapeInferenceContext& ctx);

// TensorFlow's GetWindowedOutputSizeFromDimsV2: the output length of a window of `filter`
// elements dilated by `dilation` sliding with `stride` over `input` ("VALID", "SAME", or
// "EXPLICIT" with the given pads). Unknown sizes stay unknown; sizes whose arithmetic would not
// fit in 64 bits are an error, never a wrapped number.
absl::StatusOr<int64_t> WindowedOutputSize(const ShapeInferenceContext& ctx, int64_t input,
                                           int64_t filter, int64_t dilation, int64_t stride,
                                           const std::string& padding, int64_t pad_before,
                                           int64_t pad_after);
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
