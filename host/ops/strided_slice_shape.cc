// StridedSlice's index rules over partial shapes: the sparse spec (with its ellipsis and new
// axes) is expanded to one entry per input dimension, then each range is clamped as numpy does.
#include "host/ops/strided_slice_shape.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

constexpr int kShrinkAxis = -1;
constexpr int kNewAxis = -2;

int64_t Bit(int i) { return int64_t{1} << i; }

// The spec with one entry per input dimension.
struct DenseSpec {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t shrink_axis_mask = 0;
  // Per output dimension: the dense dimension it comes from, or kNewAxis; kShrinkAxis entries
  // mark dimensions that disappear.
  std::vector<int> final_shape_gather_indices;
};

absl::StatusOr<DenseSpec> BuildDenseSpec(int rank, const std::vector<int64_t>* begin,
                                         const std::vector<int64_t>* end,
                                         const std::vector<int64_t>& strides,
                                         const StridedSliceMasks& masks) {
  int sparse_dims = static_cast<int>(strides.size());
  int64_t ellipsis_mask = masks.ellipsis;
  int num_add_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && (Bit(i) & masks.new_axis) != 0) ++num_add_axis_after_ellipsis;
    if ((Bit(i) & ellipsis_mask) != 0) ellipsis_seen = true;
  }
  // Without an ellipsis the unnamed trailing dimensions are taken whole, as if "..." ended it.
  if (!ellipsis_seen) {
    ellipsis_mask |= Bit(sparse_dims);
    ++sparse_dims;
  }
  DenseSpec dense;
  dense.begin.assign(rank, 0);
  dense.end.assign(rank, 0);
  dense.strides.assign(rank, 1);
  int full_index = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if ((Bit(i) & ellipsis_mask) != 0) {
      const int next_index =
          std::min(rank - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, rank);
      for (; full_index < next_index; ++full_index) {
        dense.begin_mask |= Bit(full_index);
        dense.end_mask |= Bit(full_index);
        dense.final_shape_gather_indices.push_back(full_index);
      }
    } else if ((Bit(i) & masks.new_axis) != 0) {
      dense.final_shape_gather_indices.push_back(kNewAxis);
    } else {
      if (full_index == rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Index out of range using input dim ", full_index, "; input has only ", rank, " dims"));
      }
      if (begin != nullptr) dense.begin[full_index] = (*begin)[i];
      if (end != nullptr) dense.end[full_index] = (*end)[i];
      dense.strides[full_index] = strides[i];
      if ((masks.begin & Bit(i)) != 0) dense.begin_mask |= Bit(full_index);
      if ((masks.end & Bit(i)) != 0) dense.end_mask |= Bit(full_index);
      if ((masks.shrink_axis & Bit(i)) != 0) {
        dense.final_shape_gather_indices.push_back(kShrinkAxis);
        dense.shrink_axis_mask |= Bit(full_index);
      } else {
        dense.final_shape_gather_indices.push_back(full_index);
      }
      ++full_index;
    }
  }
  return dense;
}

// The number of elements of a strided range of `length` (end - begin) with `stride`.
int64_t StridedCount(int64_t length, int64_t stride) {
  if (length == 0 || ((length < 0) != (stride < 0))) return 0;
  return length / stride + (length % stride != 0 ? 1 : 0);
}

}  // namespace

absl::StatusOr<StridedSliceShapes> InferStridedSliceShapes(const PartialShape& input,
                                                           const std::vector<int64_t>* begin,
                                                           const std::vector<int64_t>* end,
                                                           const std::vector<int64_t>& strides,
                                                           const StridedSliceMasks& masks) {
  const size_t n = strides.size();
  const bool begin_wrong = begin != nullptr && (begin->size() != n || begin->size() >= 32);
  const bool end_wrong = end != nullptr && end->size() != n;
  if (begin_wrong || end_wrong) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected begin, end, and strides to be 1D equal size tensors, but got lengths ",
        begin == nullptr ? -1 : static_cast<int64_t>(begin->size()), ", ",
        end == nullptr ? -1 : static_cast<int64_t>(end->size()), ", and ", n, " instead."));
  }
  if (masks.ellipsis != 0 && (masks.ellipsis & (masks.ellipsis - 1)) != 0) {
    return absl::InvalidArgumentError("Multiple ellipses in slice spec not allowed");
  }
  const int rank = input.rank();
  DenseSpec dense;
  {
    absl::StatusOr<DenseSpec> built = BuildDenseSpec(rank, begin, end, strides, masks);
    if (!built.ok()) return built.status();
    dense = *std::move(built);
  }
  const bool values_known = begin != nullptr && end != nullptr;
  StridedSliceShapes shapes;
  shapes.processing = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    const int64_t stride = dense.strides[i];
    const int64_t dim = input.dim(i);
    if (stride == 0) {
      return absl::InvalidArgumentError(absl::StrCat("strides[", i, "] must be non-zero"));
    }
    const bool shrink = (dense.shrink_axis_mask & Bit(i)) != 0;
    if (dim < 0) {
      shapes.processing.AddDim(shrink ? 1 : kUnknownDim);
      continue;
    }
    if (shrink && stride <= 0) {
      return absl::InvalidArgumentError("only stride 1 allowed on non-range indexing.");
    }
    const bool begin_masked = (dense.begin_mask & Bit(i)) != 0;
    const bool end_masked = (dense.end_mask & Bit(i)) != 0;
    // Valid positions: [0, dim] going forward, [-1, dim - 1] going backward.
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (stride > 0) == is_end ? hi : lo;
      const int64_t forward = x < 0 ? dim + x : x;
      return std::clamp(forward, lo, hi);
    };
    int64_t b = dense.begin[i];
    int64_t e = dense.end[i];
    if (values_known) {
      if (shrink) {
        b = b < 0 ? dim + b : b;
        e = b + 1;
        if (b < 0 || b >= dim) {
          return absl::InvalidArgumentError(
              absl::StrCat("slice index ", b, " of dimension ", i, " out of bounds."));
        }
      } else {
        b = canonical(b, begin_masked, false);
        e = canonical(e, end_masked, true);
      }
      shapes.processing.AddDim(StridedCount(e - b, stride));
    } else if (shrink) {
      shapes.processing.AddDim(1);
    } else if (begin_masked && end_masked && dim > 0) {
      shapes.processing.AddDim(StridedCount(stride < 0 ? -dim : dim, stride));
    } else {
      shapes.processing.AddDim(kUnknownDim);
    }
  }
  shapes.final_shape = PartialShape::Scalar();
  for (int gather_index : dense.final_shape_gather_indices) {
    if (gather_index >= 0) {
      shapes.final_shape.AddDim(shapes.processing.dim(gather_index));
    } else if (gather_index == kNewAxis) {
      shapes.final_shape.AddDim(1);
    }
  }
  return shapes;
}

}  // namespace tessera
