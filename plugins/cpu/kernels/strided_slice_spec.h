// StridedSlice's index rules (TensorFlow's ValidateStridedSliceOp) for known shapes: expands the
// sparse spec (ellipsis, new axes, shrunk axes) to one canonical range per input dimension.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_STRIDED_SLICE_SPEC_H_
#define TESSERA_PLUGINS_CPU_KERNELS_STRIDED_SLICE_SPEC_H_

#include <cstdint>
#include <vector>

#include "tessera/sdk/shape.h"
#include "tessera/sdk/status.h"

namespace tessera::cpu {

// The five mask attrs; bit i refers to entry i of begin/end/strides.
struct StridedSliceMasks {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t ellipsis = 0;
  int64_t new_axis = 0;
  int64_t shrink_axis = 0;
};

struct StridedSlicePlan {
  // Per input dimension: the first index read and the step (both canonical, in range).
  std::vector<int64_t> begin;
  std::vector<int64_t> strides;
  // Per input dimension: how many indices are read (shrunk dimensions read 1).
  std::vector<int64_t> processing_shape;
  // The output shape: shrunk dimensions removed, new axes inserted (may exceed the maximum rank;
  // the caller checks).
  std::vector<int64_t> final_shape;
  // True when the slice takes every element in order (the output is the input reshaped).
  bool is_identity = true;
};

// `begin`, `end` and `strides` have the same length (checked by the caller, with the shapes in
// the message). Errors are TensorFlow's INVALID_ARGUMENT messages.
sdk::Status PlanStridedSlice(const sdk::Shape& input, const std::vector<int64_t>& begin,
                             const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                             const StridedSliceMasks& masks, StridedSlicePlan* plan);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_STRIDED_SLICE_SPEC_H_
