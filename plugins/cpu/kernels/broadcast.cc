// BroadcastPlan: output shape, then size-1 dimensions dropped and neighbours with the same
// broadcast pattern merged, so that most loops run over one or two dimensions.
#include "plugins/cpu/kernels/broadcast.h"

namespace tessera::cpu {

bool BroadcastPlan::Init(const sdk::Shape& x, const sdk::Shape& y) {
  const int rank = std::max(x.rank(), y.rank());
  int64_t x_dims[sdk::Shape::kMaxRank];
  int64_t y_dims[sdk::Shape::kMaxRank];
  output_shape_ = sdk::Shape();
  for (int d = 0; d < rank; ++d) {
    const int xd = d - (rank - x.rank());
    const int yd = d - (rank - y.rank());
    x_dims[d] = xd >= 0 ? x.dim(xd) : 1;
    y_dims[d] = yd >= 0 ? y.dim(yd) : 1;
    if (x_dims[d] != y_dims[d] && x_dims[d] != 1 && y_dims[d] != 1) return false;
    output_shape_.AddDim(x_dims[d] == 1 ? y_dims[d] : x_dims[d]);
  }

  // Coalesce: keep dimensions of size > 1; merge a dimension into the previous one when x and
  // y are broadcast (or not) the same way in both.
  rank_ = 0;
  bool x_broadcast[sdk::Shape::kMaxRank];
  bool y_broadcast[sdk::Shape::kMaxRank];
  for (int d = 0; d < rank; ++d) {
    const int64_t size = output_shape_.dim(d);
    if (size == 1) continue;
    const bool xb = x_dims[d] == 1;
    const bool yb = y_dims[d] == 1;
    if (rank_ > 0 && x_broadcast[rank_ - 1] == xb && y_broadcast[rank_ - 1] == yb) {
      dims_[rank_ - 1] *= size;
      continue;
    }
    dims_[rank_] = size;
    x_broadcast[rank_] = xb;
    y_broadcast[rank_] = yb;
    ++rank_;
  }
  if (rank_ == 0) {
    // Every dimension is 1 (or both are scalars): one element.
    rank_ = 1;
    dims_[0] = 1;
    x_broadcast[0] = false;
    y_broadcast[0] = false;
  }
  int64_t x_stride = 1;
  int64_t y_stride = 1;
  for (int d = rank_ - 1; d >= 0; --d) {
    x_strides_[d] = x_broadcast[d] ? 0 : x_stride;
    y_strides_[d] = y_broadcast[d] ? 0 : y_stride;
    if (!x_broadcast[d]) x_stride *= dims_[d];
    if (!y_broadcast[d]) y_stride *= dims_[d];
  }
  return true;
}

}  // namespace tessera::cpu
