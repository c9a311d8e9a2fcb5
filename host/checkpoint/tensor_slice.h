// TensorSlice: a box inside a tensor (start and length per dimension), with TensorFlow's string
// form ("-" for a whole dimension, "start,length" otherwise, joined by ':'), the
// "shape_and_slices" spec of SaveV2/RestoreV2 and the index key of a saved slice.
#ifndef TESSERA_HOST_CHECKPOINT_TENSOR_SLICE_H_
#define TESSERA_HOST_CHECKPOINT_TENSOR_SLICE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/checkpoint/proto/tensor_slice.pb.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace checkpoint {

class TensorSlice {
 public:
  // The length of a dimension taken whole (its start is then 0).
  static constexpr int64_t kFullExtent = -1;

  // A slice of rank 0 (the whole of a scalar).
  TensorSlice() = default;
  // {start, length} per dimension; {0, kFullExtent} takes the whole dimension. Not validated:
  // use Parse or FromProto for untrusted input.
  TensorSlice(std::initializer_list<std::pair<int64_t, int64_t>> extents);
  // Every dimension whole.
  static TensorSlice Full(int rank);

  // "-:0,2" and the like; "" is rank 0. INVALID_ARGUMENT for anything but "-" or two integers
  // per dimension, a negative start, a length below 1 or an end past the int64 range.
  static absl::StatusOr<TensorSlice> Parse(absl::string_view spec);
  // {start, length} per dimension with the same validation as Parse (INVALID_ARGUMENT).
  static absl::StatusOr<TensorSlice> FromExtents(
      const std::vector<std::pair<int64_t, int64_t>>& extents);
  // The same validation as Parse (INVALID_ARGUMENT).
  static absl::StatusOr<TensorSlice> FromProto(const tensorflow::TensorSliceProto& proto);
  // Whole dimensions are written as empty extents, as TensorFlow does.
  void ToProto(tensorflow::TensorSliceProto* proto) const;

  int rank() const { return static_cast<int>(starts_.size()); }
  int64_t start(int d) const { return starts_[d]; }
  int64_t length(int d) const { return lengths_[d]; }
  bool IsFullAt(int d) const { return starts_[d] == 0 && lengths_[d] == kFullExtent; }
  bool IsFull() const;
  // The slice's own shape inside a tensor of shape `full`. INVALID_ARGUMENT when the ranks differ
  // or an extent ends past its dimension.
  absl::StatusOr<TensorShape> SliceShape(const TensorShape& full) const;
  // True when this slice, applied to `full`, covers all of it (also when no extent is "-").
  bool CoversShape(const TensorShape& full) const;
  // This slice with every whole dimension written as {0, dim}. REQUIRES: SliceShape(full) is OK.
  TensorSlice Resolved(const TensorShape& full) const;

  // The common part of two slices of equal rank, false when they are disjoint or ranks differ.
  bool Intersect(const TensorSlice& other, TensorSlice* result) const;
  bool Overlaps(const TensorSlice& other) const { return Intersect(other, nullptr); }

  // "-:0,2"; "" for rank 0.
  std::string ToString() const;

  bool operator==(const TensorSlice& other) const {
    return starts_ == other.starts_ && lengths_ == other.lengths_;
  }
  bool operator!=(const TensorSlice& other) const { return !(*this == other); }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> lengths_;
};

// One element of the "shape_and_slices" input of SaveV2/RestoreV2: the full shape's dimensions
// then the slice, separated by spaces ("4 5 0,2:-").
struct ShapeAndSlice {
  TensorShape full_shape;
  TensorSlice slice;
  TensorShape slice_shape;
};

// Parses a non-empty spec. INVALID_ARGUMENT for fewer than two space-separated parts, a
// dimension that is not a non-negative integer, a bad slice, or a slice that does not fit the
// shape (rank or bounds). (The empty spec means "the whole tensor" and is handled by callers.)
absl::StatusOr<ShapeAndSlice> ParseShapeAndSlice(absl::string_view spec);
// "4 5 0,2:-". REQUIRES: rank >= 1 (a scalar has no non-empty spec).
std::string FormatShapeAndSlice(const TensorShape& full_shape, const TensorSlice& slice);

// The index key under which a slice of tensor `name` is stored: ordered-code number 0, the name,
// the rank, then start and length (-1 for a whole dimension) of each dimension.
std::string EncodeTensorNameSlice(absl::string_view name, const TensorSlice& slice);
// The inverse; INVALID_ARGUMENT for a key that is not such an encoding.
absl::Status DecodeTensorNameSlice(absl::string_view key, std::string* name, TensorSlice* slice);

// Copies the elements where `src_slice` and `dst_slice` (slices of a tensor of shape `full`)
// intersect, from `src` (laid out densely in src_slice's shape) into `dst` (dst_slice's shape).
// REQUIRES: both slices fit `full`; element_size > 0.
void CopySliceIntersection(const TensorShape& full, const TensorSlice& src_slice, const char* src,
                           const TensorSlice& dst_slice, char* dst, size_t element_size);

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_TENSOR_SLICE_H_
