// ReductionPlan: validates the axes like TensorFlow's ReductionHelper and coalesces dimensions.
#include "plugins/cpu/kernels/reduction.h"

#include "tessera/sdk/status.h"

namespace tessera::cpu {

bool ReductionPlan::Init(const sdk::Shape& input, const std::vector<int64_t>& axes, bool keep_dims,
                         std::string* error) {
  const int rank = input.rank();
  for (int d = 0; d < sdk::Shape::kMaxRank; ++d) reduced_[d] = false;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      *error = sdk::StrCat("Invalid reduction dimension (", axis, " for input with ", rank,
                           " dimension(s)");
      return false;
    }
    const int64_t index = axis < 0 ? axis + rank : axis;
    if (reduced_[index]) {
      *error =
          sdk::StrCat("Invalid reduction arguments: Axes contains duplicate dimension: ", index);
      return false;
    }
    reduced_[index] = true;
  }

  output_shape_ = sdk::Shape();
  reduced_count_ = 1;
  is_identity_ = true;
  group_sizes_.clear();
  group_reduced_.clear();
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.dim(d);
    if (reduced_[d]) {
      reduced_count_ *= size;
      if (keep_dims) output_shape_.AddDim(1);
      if (size != 1) is_identity_ = false;
    } else {
      output_shape_.AddDim(size);
    }
    if (size == 1) continue;
    if (!group_sizes_.empty() && group_reduced_.back() == reduced_[d]) {
      group_sizes_.back() *= size;
    } else {
      group_sizes_.push_back(size);
      group_reduced_.push_back(reduced_[d]);
    }
  }
  return true;
}

}  // namespace tessera::cpu
