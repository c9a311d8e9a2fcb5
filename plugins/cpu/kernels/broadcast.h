// BroadcastPlan: TensorFlow's binary broadcasting (numpy rules) reduced to a coalesced stride
// table, plus the index loop that evaluates a binary functor over it.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_BROADCAST_H_
#define TESSERA_PLUGINS_CPU_KERNELS_BROADCAST_H_

#include <algorithm>
#include <cstdint>

#include "tessera/sdk/shape.h"

namespace tessera::cpu {

class BroadcastPlan {
 public:
  // False when the shapes are incompatible (a dimension differs and neither is 1).
  bool Init(const sdk::Shape& x, const sdk::Shape& y);

  // The broadcast result shape (rank = max of the two ranks).
  const sdk::Shape& output_shape() const { return output_shape_; }

  // The coalesced iteration space: `rank()` >= 1 dimensions whose product is the output's
  // element count; per dimension the element stride of x and of y (0 where broadcast).
  int rank() const { return rank_; }
  int64_t dim(int i) const { return dims_[i]; }
  int64_t x_stride(int i) const { return x_strides_[i]; }
  int64_t y_stride(int i) const { return y_strides_[i]; }

 private:
  sdk::Shape output_shape_;
  int rank_ = 0;
  int64_t dims_[sdk::Shape::kMaxRank] = {};
  int64_t x_strides_[sdk::Shape::kMaxRank] = {};
  int64_t y_strides_[sdk::Shape::kMaxRank] = {};
};

// out[i] = fn(x[...], y[...]) for output elements [begin, end).
template <typename In, typename Out, typename Fn>
void BroadcastLoop(const BroadcastPlan& plan, const In* x, const In* y, Out* out, int64_t begin,
                   int64_t end, Fn fn) {
  const int rank = plan.rank();
  int64_t index[sdk::Shape::kMaxRank];
  int64_t x_offset = 0;
  int64_t y_offset = 0;
  int64_t remainder = begin;
  for (int d = rank - 1; d >= 0; --d) {
    index[d] = remainder % plan.dim(d);
    remainder /= plan.dim(d);
    x_offset += index[d] * plan.x_stride(d);
    y_offset += index[d] * plan.y_stride(d);
  }
  const int inner = rank - 1;
  const int64_t inner_size = plan.dim(inner);
  const int64_t xs = plan.x_stride(inner);
  const int64_t ys = plan.y_stride(inner);
  int64_t i = begin;
  while (i < end) {
    const int64_t n = std::min(inner_size - index[inner], end - i);
    const In* xp = x + x_offset;
    const In* yp = y + y_offset;
    Out* op = out + i;
    // The common inner patterns get their own loops so that the compiler vectorizes them.
    if (xs == 1 && ys == 1) {
      for (int64_t k = 0; k < n; ++k) op[k] = fn(xp[k], yp[k]);
    } else if (xs == 0 && ys == 1) {
      const In xv = *xp;
      for (int64_t k = 0; k < n; ++k) op[k] = fn(xv, yp[k]);
    } else if (xs == 1 && ys == 0) {
      const In yv = *yp;
      for (int64_t k = 0; k < n; ++k) op[k] = fn(xp[k], yv);
    } else {
      for (int64_t k = 0; k < n; ++k) op[k] = fn(xp[k * xs], yp[k * ys]);
    }
    i += n;
    index[inner] += n;
    x_offset += n * xs;
    y_offset += n * ys;
    if (index[inner] < inner_size) continue;
    // Carry into the outer dimensions.
    index[inner] = 0;
    x_offset -= inner_size * xs;
    y_offset -= inner_size * ys;
    for (int d = inner - 1; d >= 0; --d) {
      ++index[d];
      x_offset += plan.x_stride(d);
      y_offset += plan.y_stride(d);
      if (index[d] < plan.dim(d)) break;
      index[d] = 0;
      x_offset -= plan.dim(d) * plan.x_stride(d);
      y_offset -= plan.dim(d) * plan.y_stride(d);
    }
  }
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_BROADCAST_H_
