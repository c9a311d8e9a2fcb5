// TensorSlice parsing, formatting, geometry, slice keys and copies between slices.
#include "host/checkpoint/tensor_slice.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "host/checkpoint/ordered_code.h"

namespace tessera {
namespace checkpoint {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// A non-whole extent must start at >= 0, have a positive length and end inside the int64 range.
bool ValidExtent(int64_t start, int64_t length) {
  if (start == 0 && length == TensorSlice::kFullExtent) return true;
  return start >= 0 && length > 0 && start <= kInt64Max - length;
}

}  // namespace

TensorSlice::TensorSlice(std::initializer_list<std::pair<int64_t, int64_t>> extents) {
  for (const auto& [start, length] : extents) {
    starts_.push_back(start);
    lengths_.push_back(length);
  }
}

TensorSlice TensorSlice::Full(int rank) {
  TensorSlice slice;
  slice.starts_.assign(rank, 0);
  slice.lengths_.assign(rank, kFullExtent);
  return slice;
}

absl::StatusOr<TensorSlice> TensorSlice::Parse(absl::string_view spec) {
  TensorSlice slice;
  for (absl::string_view item : absl::StrSplit(spec, ':', absl::SkipEmpty())) {
    int64_t start = 0;
    int64_t length = kFullExtent;
    if (item != "-") {
      std::vector<absl::string_view> parts = absl::StrSplit(item, ',', absl::SkipEmpty());
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &start) ||
          !absl::SimpleAtoi(parts[1], &length)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "bad tensor slice '", spec, "': expected '-' or 'start,length' but got '", item, "'"));
      }
      if (start < 0 || length <= 0 || start > kInt64Max - length) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad tensor slice '", spec, "': expected a non-negative start and a ",
                         "positive length but got start = ", start, ", length = ", length));
      }
    }
    slice.starts_.push_back(start);
    slice.lengths_.push_back(length);
  }
  return slice;
}

absl::StatusOr<TensorSlice> TensorSlice::FromExtents(
    const std::vector<std::pair<int64_t, int64_t>>& extents) {
  TensorSlice slice;
  for (const auto& [start, length] : extents) {
    if (!ValidExtent(start, length)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad tensor slice extent: expected a non-negative start and a positive ",
                       "length but got start = ", start, ", length = ", length));
    }
    slice.starts_.push_back(start);
    slice.lengths_.push_back(length);
  }
  return slice;
}

absl::StatusOr<TensorSlice> TensorSlice::FromProto(const tensorflow::TensorSliceProto& proto) {
  std::vector<std::pair<int64_t, int64_t>> extents;
  extents.reserve(proto.extent_size());
  for (const tensorflow::TensorSliceProto::Extent& extent : proto.extent()) {
    const bool has_length =
        extent.has_length_case() == tensorflow::TensorSliceProto::Extent::kLength;
    extents.emplace_back(extent.start(), has_length ? extent.length() : kFullExtent);
  }
  return FromExtents(extents);
}

void TensorSlice::ToProto(tensorflow::TensorSliceProto* proto) const {
  for (int d = 0; d < rank(); ++d) {
    tensorflow::TensorSliceProto::Extent* extent = proto->add_extent();
    if (!IsFullAt(d)) {
      extent->set_start(starts_[d]);
      extent->set_length(lengths_[d]);
    }
  }
}

bool TensorSlice::IsFull() const {
  for (int d = 0; d < rank(); ++d) {
    if (!IsFullAt(d)) return false;
  }
  return true;
}

absl::StatusOr<TensorShape> TensorSlice::SliceShape(const TensorShape& full) const {
  if (full.rank() != rank()) {
    return absl::InvalidArgumentError(absl::StrCat("slice '", ToString(), "' has rank ", rank(),
                                                   " but the tensor shape ", full.DebugString(),
                                                   " has rank ", full.rank()));
  }
  TensorShape shape;
  for (int d = 0; d < rank(); ++d) {
    if (IsFullAt(d)) {
      shape.AddDim(full.dim(d));
    } else if (starts_[d] + lengths_[d] <= full.dim(d)) {
      shape.AddDim(lengths_[d]);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("slice '", ToString(), "' does not fit the tensor shape ",
                       full.DebugString(), ": extent ", starts_[d], ",", lengths_[d],
                       " of dimension ", d, " ends past ", full.dim(d)));
    }
  }
  return shape;
}

bool TensorSlice::CoversShape(const TensorShape& full) const {
  absl::StatusOr<TensorShape> shape = SliceShape(full);
  return shape.ok() && *shape == full;
}

TensorSlice TensorSlice::Resolved(const TensorShape& full) const {
  TensorSlice resolved = *this;
  for (int d = 0; d < rank(); ++d) {
    if (IsFullAt(d)) resolved.lengths_[d] = full.dim(d);
  }
  return resolved;
}

bool TensorSlice::Intersect(const TensorSlice& other, TensorSlice* result) const {
  if (rank() != other.rank()) return false;
  TensorSlice common = Full(rank());
  for (int d = 0; d < rank(); ++d) {
    if (IsFullAt(d)) {
      common.starts_[d] = other.starts_[d];
      common.lengths_[d] = other.lengths_[d];
    } else if (other.IsFullAt(d)) {
      common.starts_[d] = starts_[d];
      common.lengths_[d] = lengths_[d];
    } else {
      const int64_t start = std::max(starts_[d], other.starts_[d]);
      const int64_t end = std::min(starts_[d] + lengths_[d], other.starts_[d] + other.lengths_[d]);
      if (end <= start) return false;
      common.starts_[d] = start;
      common.lengths_[d] = end - start;
    }
  }
  if (result != nullptr) *result = std::move(common);
  return true;
}

std::string TensorSlice::ToString() const {
  std::string out;
  for (int d = 0; d < rank(); ++d) {
    if (d > 0) out.push_back(':');
    if (IsFullAt(d)) {
      out.push_back('-');
    } else {
      absl::StrAppend(&out, starts_[d], ",", lengths_[d]);
    }
  }
  return out;
}

absl::StatusOr<ShapeAndSlice> ParseShapeAndSlice(absl::string_view spec) {
  std::vector<absl::string_view> parts = absl::StrSplit(spec, ' ');
  if (parts.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("shape_and_slice spec '", spec,
                                                   "' needs at least two space-separated parts ",
                                                   "(the dimensions, then the slice)"));
  }
  ShapeAndSlice result;
  absl::StatusOr<TensorSlice> slice = TensorSlice::Parse(parts.back());
  if (!slice.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("in shape_and_slice spec '", spec, "': ", slice.status().message()));
  }
  result.slice = *std::move(slice);
  parts.pop_back();
  int64_t elements = 1;
  for (absl::string_view part : parts) {
    int64_t dim = 0;
    if (!absl::SimpleAtoi(part, &dim) || dim < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape_and_slice spec '", spec,
                                                     "' has dimension '", part,
                                                     "', expected a non-negative integer"));
    }
    if (dim > 0 && elements > kInt64Max / dim) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape_and_slice spec '", spec, "' has more elements than int64 holds"));
    }
    elements *= dim;
    result.full_shape.AddDim(dim);
  }
  absl::StatusOr<TensorShape> slice_shape = result.slice.SliceShape(result.full_shape);
  if (!slice_shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("in shape_and_slice spec '", spec, "': ", slice_shape.status().message()));
  }
  result.slice_shape = *std::move(slice_shape);
  return result;
}

std::string FormatShapeAndSlice(const TensorShape& full_shape, const TensorSlice& slice) {
  return absl::StrCat(absl::StrJoin(full_shape.dims(), " "), " ", slice.ToString());
}

std::string EncodeTensorNameSlice(absl::string_view name, const TensorSlice& slice) {
  std::string key;
  ordered_code::WriteNumIncreasing(&key, 0);
  ordered_code::WriteString(&key, name);
  ordered_code::WriteNumIncreasing(&key, static_cast<uint64_t>(slice.rank()));
  for (int d = 0; d < slice.rank(); ++d) {
    ordered_code::WriteSignedNumIncreasing(&key, slice.start(d));
    ordered_code::WriteSignedNumIncreasing(&key, slice.length(d));
  }
  return key;
}

absl::Status DecodeTensorNameSlice(absl::string_view key, std::string* name, TensorSlice* slice) {
  absl::string_view src = key;
  uint64_t leading = 0;
  uint64_t rank = 0;
  if (!ordered_code::ReadNumIncreasing(&src, &leading) || leading != 0) {
    return absl::InvalidArgumentError("slice key does not start with ordered-code number 0");
  }
  if (!ordered_code::ReadString(&src, name)) {
    return absl::InvalidArgumentError("slice key has no valid tensor name");
  }
  // Each dimension takes at least two bytes, which bounds the rank by the key's length.
  if (!ordered_code::ReadNumIncreasing(&src, &rank) || rank == 0 || rank > src.size() / 2) {
    return absl::InvalidArgumentError("slice key has no valid rank");
  }
  std::vector<std::pair<int64_t, int64_t>> extents;
  for (uint64_t d = 0; d < rank; ++d) {
    int64_t start = 0;
    int64_t length = 0;
    if (!ordered_code::ReadSignedNumIncreasing(&src, &start) ||
        !ordered_code::ReadSignedNumIncreasing(&src, &length)) {
      return absl::InvalidArgumentError(absl::StrCat("slice key has no valid extent ", d));
    }
    // TensorFlow writes start 0 and length -1 for a whole dimension; any negative length means it.
    if (length < 0) {
      start = 0;
      length = TensorSlice::kFullExtent;
    }
    extents.emplace_back(start, length);
  }
  if (!src.empty()) return absl::InvalidArgumentError("slice key has trailing bytes");
  absl::StatusOr<TensorSlice> decoded = TensorSlice::FromExtents(extents);
  if (!decoded.ok()) return decoded.status();
  *slice = *std::move(decoded);
  return absl::OkStatus();
}

void CopySliceIntersection(const TensorShape& full, const TensorSlice& src_slice, const char* src,
                           const TensorSlice& dst_slice, char* dst, size_t element_size) {
  const int rank = full.rank();
  if (rank == 0) {
    std::memcpy(dst, src, element_size);
    return;
  }
  const TensorSlice s = src_slice.Resolved(full);
  const TensorSlice t = dst_slice.Resolved(full);
  std::vector<int64_t> lo(rank);
  std::vector<int64_t> hi(rank);
  for (int d = 0; d < rank; ++d) {
    lo[d] = std::max(s.start(d), t.start(d));
    hi[d] = std::min(s.start(d) + s.length(d), t.start(d) + t.length(d));
    if (hi[d] <= lo[d]) return;
  }
  // Row-major strides (in elements) of the two dense layouts.
  std::vector<int64_t> src_stride(rank, 1);
  std::vector<int64_t> dst_stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    src_stride[d] = src_stride[d + 1] * s.length(d + 1);
    dst_stride[d] = dst_stride[d + 1] * t.length(d + 1);
  }
  const int last = rank - 1;
  const size_t run_bytes = static_cast<size_t>(hi[last] - lo[last]) * element_size;
  std::vector<int64_t> index(lo);  // walks the intersection's outer dimensions
  while (true) {
    int64_t src_offset = 0;
    int64_t dst_offset = 0;
    for (int d = 0; d < rank; ++d) {
      src_offset += (index[d] - s.start(d)) * src_stride[d];
      dst_offset += (index[d] - t.start(d)) * dst_stride[d];
    }
    std::memcpy(dst + dst_offset * element_size, src + src_offset * element_size, run_bytes);
    int d = last - 1;
    while (d >= 0 && ++index[d] == hi[d]) {
      index[d] = lo[d];
      --d;
    }
    if (d < 0) break;
  }
}

}  // namespace checkpoint
}  // namespace tessera
