// StridedSlice's index rules: the sparse spec is expanded around its ellipsis, then each range
// is clamped numpy-style (negative indices count from the end, masks take the whole range).
#include "plugins/cpu/kernels/strided_slice_spec.h"

#include <algorithm>

namespace tessera::cpu {
namespace {

constexpr int kShrinkAxis = -1;
constexpr int kNewAxis = -2;

int64_t Bit(int i) { return int64_t{1} << i; }

int64_t StridedCount(int64_t length, int64_t stride) {
  if (length == 0 || ((length < 0) != (stride < 0))) return 0;
  return length / stride + (length % stride != 0 ? 1 : 0);
}

}  // namespace

sdk::Status PlanStridedSlice(const sdk::Shape& input, const std::vector<int64_t>& begin,
                             const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                             const StridedSliceMasks& masks, StridedSlicePlan* plan) {
  if (masks.ellipsis != 0 && (masks.ellipsis & (masks.ellipsis - 1)) != 0) {
    return sdk::InvalidArgument("Multiple ellipses in slice spec not allowed");
  }
  // Step 1: count the new axes after the ellipsis; without an ellipsis, one closes the spec.
  int sparse_dims = static_cast<int>(strides.size());
  int64_t ellipsis_mask = masks.ellipsis;
  int new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && (Bit(i) & masks.new_axis) != 0) ++new_axes_after_ellipsis;
    if ((Bit(i) & ellipsis_mask) != 0) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis_mask |= Bit(sparse_dims);
    ++sparse_dims;
  }
  // Step 2: one entry per input dimension.
  const int rank = input.rank();
  std::vector<int64_t> dense_begin(rank, 0);
  std::vector<int64_t> dense_end(rank, 0);
  std::vector<int64_t> dense_strides(rank, 1);
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t shrink_mask = 0;
  std::vector<int> gather;  // per output dimension: dense index, kNewAxis or kShrinkAxis
  int full_index = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if ((Bit(i) & ellipsis_mask) != 0) {
      const int next = std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full_index < next; ++full_index) {
        begin_mask |= Bit(full_index);
        end_mask |= Bit(full_index);
        gather.push_back(full_index);
      }
    } else if ((Bit(i) & masks.new_axis) != 0) {
      gather.push_back(kNewAxis);
    } else {
      if (full_index == rank) {
        return sdk::InvalidArgument("Index out of range using input dim ", full_index,
                                    "; input has only ", rank, " dims");
      }
      dense_begin[full_index] = begin[i];
      dense_end[full_index] = end[i];
      dense_strides[full_index] = strides[i];
      if ((masks.begin & Bit(i)) != 0) begin_mask |= Bit(full_index);
      if ((masks.end & Bit(i)) != 0) end_mask |= Bit(full_index);
      if ((masks.shrink_axis & Bit(i)) != 0) {
        gather.push_back(kShrinkAxis);
        shrink_mask |= Bit(full_index);
      } else {
        gather.push_back(full_index);
      }
      ++full_index;
    }
  }
  // Step 3: canonical ranges and their lengths.
  plan->begin.assign(rank, 0);
  plan->strides.assign(rank, 1);
  plan->processing_shape.assign(rank, 0);
  plan->is_identity = true;
  for (int i = 0; i < rank; ++i) {
    const int64_t stride = dense_strides[i];
    const int64_t dim = input.dim(i);
    if (stride == 0) return sdk::InvalidArgument("strides[", i, "] must be non-zero");
    const bool shrink = (shrink_mask & Bit(i)) != 0;
    if (shrink && stride <= 0) {
      return sdk::InvalidArgument("only stride 1 allowed on non-range indexing.");
    }
    // Valid positions: [0, dim] going forward, [-1, dim - 1] going backward.
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (stride > 0) == is_end ? hi : lo;
      return std::clamp(x < 0 ? dim + x : x, lo, hi);
    };
    int64_t b;
    int64_t e;
    if (shrink) {
      b = dense_begin[i] < 0 ? dim + dense_begin[i] : dense_begin[i];
      e = b + 1;
      if (b < 0 || b >= dim) {
        return sdk::InvalidArgument("slice index ", b, " of dimension ", i, " out of bounds.");
      }
    } else {
      b = canonical(dense_begin[i], (begin_mask & Bit(i)) != 0, false);
      e = canonical(dense_end[i], (end_mask & Bit(i)) != 0, true);
    }
    plan->is_identity &= stride == 1 && b == 0 && e == dim;
    plan->begin[i] = b;
    plan->strides[i] = stride;
    plan->processing_shape[i] = StridedCount(e - b, stride);
  }
  // Step 4: the output shape.
  plan->final_shape.clear();
  for (int index : gather) {
    if (index >= 0) {
      plan->final_shape.push_back(plan->processing_shape[index]);
    } else if (index == kNewAxis) {
      plan->final_shape.push_back(1);
    }
  }
  return sdk::OkStatus();
}

}  // namespace tessera::cpu
