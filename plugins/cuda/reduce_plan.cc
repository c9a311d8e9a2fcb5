// Reduction plans: TensorFlow's axis checks, then the input's dimensions as merged kept and reduced
// groups with their strides. Host-only, tested without a GPU.
#include "plugins/cuda/gpu_kernels.h"

namespace tessera::gpu {

sdk::Status MakeReducePlan(const sdk::Shape& input, const std::vector<int64_t>& axes,
                           bool keep_dims, sdk::Shape* out, ReducePlan* plan) {
  *plan = ReducePlan();
  *out = sdk::Shape();
  const int rank = input.rank();
  bool reduced[sdk::Shape::kMaxRank] = {};
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return sdk::InvalidArgument("Invalid reduction dimension (", axis, " for input with ", rank,
                                  " dimension(s)");
    }
    const int64_t index = axis < 0 ? axis + rank : axis;
    if (reduced[index]) {
      return sdk::InvalidArgument(
          "Invalid reduction arguments: Axes contains duplicate dimension: ", index);
    }
    reduced[index] = true;
  }
  int64_t strides[sdk::Shape::kMaxRank] = {};
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= input.dim(d);
  }
  plan->outputs = 1;
  plan->reduced = 1;
  // Dimensions of a kind that follow each other (sizes of 1 between them do not count) are one
  // dimension: the inner one's stride, the product of the sizes.
  int last_kind = -1;  // 0 kept, 1 reduced
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.dim(d);
    if (reduced[d]) {
      plan->reduced *= size;
      if (keep_dims) out->AddDim(1);
    } else {
      plan->outputs *= size;
      out->AddDim(size);
    }
    if (size == 1) continue;
    const int kind = reduced[d] ? 1 : 0;
    int32_t& group_rank = kind == 1 ? plan->reduced_rank : plan->kept_rank;
    int64_t* dims = kind == 1 ? plan->reduced_dims : plan->kept_dims;
    int64_t* group_strides = kind == 1 ? plan->reduced_strides : plan->kept_strides;
    if (last_kind == kind) {
      dims[group_rank - 1] *= size;
      group_strides[group_rank - 1] = strides[d];
    } else {
      dims[group_rank] = size;
      group_strides[group_rank] = strides[d];
      ++group_rank;
    }
    last_kind = kind;
  }
  return sdk::OkStatus();
}

}  // namespace tessera::gpu
