// ReductionPlan: TensorFlow's reduction-axis checks (range, duplicates, negative axes) and the
// input's dimensions coalesced into alternating kept/reduced groups.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_REDUCTION_H_
#define TESSERA_PLUGINS_CPU_KERNELS_REDUCTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/sdk/shape.h"

namespace tessera::cpu {

class ReductionPlan {
 public:
  // False with TensorFlow's message in *error when an axis is out of range or repeated.
  bool Init(const sdk::Shape& input, const std::vector<int64_t>& axes, bool keep_dims,
            std::string* error);

  const sdk::Shape& output_shape() const { return output_shape_; }
  // Input elements folded into each output element.
  int64_t reduced_count() const { return reduced_count_; }
  // True when the output is the input reshaped (no dimension larger than 1 is reduced).
  bool is_identity() const { return is_identity_; }

  // The input as groups of adjacent dimensions, each wholly kept or wholly reduced, neighbours
  // alternating; dimensions of size 1 are dropped. Empty for a one-element input.
  int num_groups() const { return static_cast<int>(group_sizes_.size()); }
  int64_t group_size(int i) const { return group_sizes_[i]; }
  bool group_reduced(int i) const { return group_reduced_[i]; }

  // Per input dimension: reduced or not (after normalizing negative axes).
  bool axis_reduced(int d) const { return reduced_[d]; }

 private:
  sdk::Shape output_shape_;
  int64_t reduced_count_ = 1;
  bool is_identity_ = true;
  bool reduced_[sdk::Shape::kMaxRank] = {};
  std::vector<int64_t> group_sizes_;
  std::vector<bool> group_reduced_;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_REDUCTION_H_
