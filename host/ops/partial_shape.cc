// PartialShape: merging, broadcasting, conversions and printing.
#include "host/ops/partial_shape.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera {

PartialShape PartialShape::UnknownOfRank(int rank) {
  PartialShape shape = Scalar();
  shape.dims_.assign(rank, kUnknownDim);
  return shape;
}

PartialShape PartialShape::FromTensorShape(const TensorShape& shape) {
  return PartialShape(shape.dims());
}

absl::StatusOr<PartialShape> PartialShape::FromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape has unknown_rank set and ", proto.dim_size(), " dimensions, expected none"));
    }
    return Unknown();
  }
  if (proto.dim_size() > TSR_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat("shape has rank ", proto.dim_size(),
                                                   ", above the maximum ", TSR_MAX_RANK));
  }
  PartialShape shape = Scalar();
  for (const tensorflow::TensorShapeProto::Dim& dim : proto.dim()) {
    if (dim.size() < kUnknownDim) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape has dimension ", dim.size(), ", expected a size >= 0 or -1 for unknown"));
    }
    shape.dims_.push_back(dim.size());
  }
  return shape;
}

void PartialShape::ToProto(tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  if (!known_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

bool PartialShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  return std::none_of(dims_.begin(), dims_.end(), [](int64_t d) { return d < 0; });
}

int64_t PartialShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

absl::StatusOr<TensorShape> PartialShape::ToTensorShape() const {
  if (!IsFullyDefined()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", ToString(), " is not fully defined"));
  }
  return TensorShape(absl::Span<const int64_t>(dims_));
}

bool PartialShape::MergeDim(int64_t a, int64_t b, int64_t* out) {
  if (a >= 0 && b >= 0 && a != b) return false;
  *out = a >= 0 ? a : b;
  return true;
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  return Merge(*this, other).ok();
}

PartialShape PartialShape::Subshape(int begin, int end) const {
  if (!known_rank_) return Unknown();
  const int r = rank();
  if (begin < 0) begin += r;
  if (end < 0) end += r;
  begin = std::clamp(begin, 0, r);
  end = std::clamp(end, begin, r);
  return PartialShape(absl::Span<const int64_t>(dims_.data() + begin, end - begin));
}

PartialShape PartialShape::Concatenate(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_) return Unknown();
  PartialShape result = *this;
  for (int64_t d : other.dims_) result.dims_.push_back(d);
  return result;
}

absl::StatusOr<PartialShape> PartialShape::Merge(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank_) return b;
  if (!b.known_rank_) return a;
  if (a.rank() != b.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("shapes must be equal rank, but are ",
                                                   a.rank(), " and ", b.rank(), " (shapes ",
                                                   a.ToString(), " and ", b.ToString(), ")"));
  }
  PartialShape result = a;
  for (int i = 0; i < a.rank(); ++i) {
    if (!MergeDim(a.dims_[i], b.dims_[i], &result.dims_[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", i, " in both shapes must be equal, but are ", a.dims_[i], " and ",
          b.dims_[i], " (shapes ", a.ToString(), " and ", b.ToString(), ")"));
    }
  }
  return result;
}

absl::StatusOr<PartialShape> PartialShape::Broadcast(const PartialShape& a,
                                                     const PartialShape& b) {
  if (!a.known_rank_ || !b.known_rank_) return Unknown();
  const int rank_a = a.rank();
  const int rank_b = b.rank();
  const int rank_out = std::max(rank_a, rank_b);
  PartialShape result = UnknownOfRank(rank_out);
  for (int i = 0; i < rank_out; ++i) {
    const bool a_padded = i < rank_out - rank_a;
    const bool b_padded = i < rank_out - rank_b;
    const int64_t da = a_padded ? 1 : a.dims_[i - (rank_out - rank_a)];
    const int64_t db = b_padded ? 1 : b.dims_[i - (rank_out - rank_b)];
    int64_t out;
    if (da < 0 || db < 0) {
      // With an unknown dimension, a known one above 1 wins (the program is assumed correct);
      // a known 1 yields the other dimension.
      if (da > 1) {
        out = da;
      } else if (db > 1) {
        out = db;
      } else if (da == 1) {
        out = db;
      } else if (db == 1) {
        out = da;
      } else {
        out = kUnknownDim;
      }
    } else if (da == 1) {
      out = db;
    } else if (db == 1) {
      out = da;
    } else if (da == db) {
      out = da;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "incompatible shapes for broadcasting: ", a.ToString(), " and ", b.ToString(),
          " (dimensions ", da, " and ", db, ")"));
    }
    result.dims_[i] = out;
  }
  return result;
}

std::string PartialShape::ToString() const {
  if (!known_rank_) return "<unknown>";
  return absl::StrCat("[",
                      absl::StrJoin(dims_, ",",
                                    [](std::string* out, int64_t d) {
                                      if (d < 0) {
                                        out->append("?");
                                      } else {
                                        absl::StrAppend(out, d);
                                      }
                                    }),
                      "]");
}

}  // namespace tessera
