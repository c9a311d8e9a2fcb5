// PartialShape: a tensor shape whose rank and dimensions may be unknown (shape inference).
#ifndef TESSERA_HOST_OPS_PARTIAL_SHAPE_H_
#define TESSERA_HOST_OPS_PARTIAL_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "host/framework/proto/tensor_shape.pb.h"
#include "host/runtime/tensor.h"

namespace tessera {

inline constexpr int64_t kUnknownDim = -1;

// Either an unknown rank, or a list of dimensions where kUnknownDim (-1) marks an unknown size.
class PartialShape {
 public:
  // Unknown rank.
  PartialShape() = default;
  // Known rank; dimensions of -1 are unknown.
  PartialShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialShape(absl::Span<const int64_t> dims)
      : known_rank_(true), dims_(dims.begin(), dims.end()) {}

  static PartialShape Unknown() { return PartialShape(); }
  static PartialShape Scalar() { return PartialShape(absl::Span<const int64_t>()); }
  static PartialShape UnknownOfRank(int rank);
  static PartialShape FromTensorShape(const TensorShape& shape);
  // INVALID_ARGUMENT for dimensions below -1, dims given with unknown_rank, or a rank above
  // TSR_MAX_RANK.
  static absl::StatusOr<PartialShape> FromProto(const tensorflow::TensorShapeProto& proto);
  void ToProto(tensorflow::TensorShapeProto* proto) const;

  bool rank_known() const { return known_rank_; }
  // -1 when unknown.
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  // Dimension `i` (negative counts from the end); requires a known rank and a valid index.
  int64_t dim(int i) const { return dims_[i < 0 ? i + dims_.size() : i]; }
  absl::Span<const int64_t> dims() const { return dims_; }
  void set_dim(int i, int64_t size) { dims_[i] = size; }
  void AddDim(int64_t size) { dims_.push_back(size); }

  bool IsFullyDefined() const;
  // -1 unless fully defined.
  int64_t num_elements() const;
  // The TensorShape of a fully defined shape; INVALID_ARGUMENT otherwise.
  absl::StatusOr<TensorShape> ToTensorShape() const;
  // True when some fully defined shape matches both.
  bool IsCompatibleWith(const PartialShape& other) const;
  // Dimensions [begin, end) (negative values count from the end); unknown rank stays unknown.
  PartialShape Subshape(int begin, int end) const;
  PartialShape Concatenate(const PartialShape& other) const;

  // The most specific shape compatible with both; INVALID_ARGUMENT naming both when they
  // conflict.
  static absl::StatusOr<PartialShape> Merge(const PartialShape& a, const PartialShape& b);
  // NumPy/TensorFlow broadcasting of two shapes; INVALID_ARGUMENT naming both shapes when two
  // known dimensions differ and neither is 1.
  static absl::StatusOr<PartialShape> Broadcast(const PartialShape& a, const PartialShape& b);
  // Merges two dimensions (-1 unknown); returns false when both are known and differ.
  static bool MergeDim(int64_t a, int64_t b, int64_t* out);

  // "[2,?,3]", "[]" for a scalar, "<unknown>" for an unknown rank.
  std::string ToString() const;

  bool operator==(const PartialShape& other) const {
    return known_rank_ == other.known_rank_ && dims_ == other.dims_;
  }
  bool operator!=(const PartialShape& other) const { return !(*this == other); }

 private:
  bool known_rank_ = false;
  // A std::vector rather than an inlined vector: GCC 12 reports false "maybe uninitialized"
  // errors when an empty inlined vector is moved, and shapes are not on a hot path.
  std::vector<int64_t> dims_;
};

inline std::ostream& operator<<(std::ostream& out, const PartialShape& shape) {
  return out << shape.ToString();
}

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_PARTIAL_SHAPE_H_
