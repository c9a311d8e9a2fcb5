// Shape: a fixed-capacity (TSR_MAX_RANK) list of dimensions that never allocates.
#ifndef TESSERA_SDK_SHAPE_H_
#define TESSERA_SDK_SHAPE_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "tessera/plugin_api/common.h"

namespace tessera::sdk {

class Shape {
 public:
  static constexpr int kMaxRank = TSR_MAX_RANK;

  Shape() = default;
  // Throws std::length_error past kMaxRank (a broken invariant: callers check ranks first).
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t dim : dims) AddDim(dim);
  }
  Shape(int rank, const int64_t* dims) {
    for (int i = 0; i < rank; ++i) AddDim(dims[i]);
  }

  int rank() const { return rank_; }
  int64_t dim(int i) const { return dims_[i]; }
  const int64_t* dims() const { return dims_.data(); }
  void set_dim(int i, int64_t size) { dims_[i] = size; }
  void AddDim(int64_t size) {
    if (rank_ >= kMaxRank) throw std::length_error("shape rank exceeds TSR_MAX_RANK");
    dims_[rank_++] = size;
  }
  // Inserts `size` before dimension `index` (0 <= index <= rank).
  void InsertDim(int index, int64_t size) {
    if (rank_ >= kMaxRank) throw std::length_error("shape rank exceeds TSR_MAX_RANK");
    for (int i = rank_; i > index; --i) dims_[i] = dims_[i - 1];
    dims_[index] = size;
    ++rank_;
  }
  void RemoveDim(int index) {
    for (int i = index; i + 1 < rank_; ++i) dims_[i] = dims_[i + 1];
    --rank_;
  }
  // The product of the dimensions; INT64_MAX when it does not fit in int64 (never a wrapped
  // value). The host refuses a tensor of such a shape (and of more than 2^62 bytes) with
  // INVALID_ARGUMENT when it is allocated, so a kernel that allocates its output before it writes
  // can never write past a buffer.
  int64_t num_elements() const { return CheckedProduct(rank_, dims_.data()); }
  static int64_t CheckedProduct(int rank, const int64_t* dims) {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) {
      if (__builtin_mul_overflow(n, dims[i], &n)) return INT64_MAX;
    }
    return n;
  }
  // "[2,3]"; "[]" for a scalar; "?" for a negative (unknown) dimension.
  std::string DebugString() const {
    std::string out = "[";
    for (int i = 0; i < rank_; ++i) {
      if (i > 0) out += ",";
      out += dims_[i] < 0 ? std::string("?") : std::to_string(dims_[i]);
    }
    return out + "]";
  }
  bool operator==(const Shape& other) const {
    if (rank_ != other.rank_) return false;
    for (int i = 0; i < rank_; ++i) {
      if (dims_[i] != other.dims_[i]) return false;
    }
    return true;
  }
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  std::array<int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_SHAPE_H_
