// StridedSlice's index rules (TensorFlow's ValidateStridedSliceOp) over partially known input
// shapes and index values, for the op's shape function.
#ifndef TESSERA_HOST_OPS_STRIDED_SLICE_SHAPE_H_
#define TESSERA_HOST_OPS_STRIDED_SLICE_SHAPE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "host/ops/partial_shape.h"

namespace tessera {

// The five mask attrs of StridedSlice; bit i refers to entry i of begin/end/strides.
struct StridedSliceMasks {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t ellipsis = 0;
  int64_t new_axis = 0;
  int64_t shrink_axis = 0;
};

struct StridedSliceShapes {
  // One dimension per input dimension: the extent of the strided range (shrunk dimensions are 1).
  PartialShape processing;
  // The output: the processing shape without shrunk dimensions, with new axes inserted.
  PartialShape final_shape;
};

// `input` must have a known rank; `begin` and `end` may be null when their values are unknown;
// `strides` must be known. Errors are TensorFlow's messages (INVALID_ARGUMENT, no op prefix).
absl::StatusOr<StridedSliceShapes> InferStridedSliceShapes(const PartialShape& input,
                                                           const std::vector<int64_t>* begin,
                                                           const std::vector<int64_t>* end,
                                                           const std::vector<int64_t>& strides,
                                                           const StridedSliceMasks& masks);

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_STRIDED_SLICE_SHAPE_H_
