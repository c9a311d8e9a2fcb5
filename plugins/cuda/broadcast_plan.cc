// Broadcast plans and element types: host-only helpers of the GPU kernels, tested without a GPU.
#include <algorithm>

#include "plugins/cuda/gpu_kernels.h"
#include "tessera/sdk/types.h"

namespace tessera::gpu {

sdk::Status ElementTypeOf(TSR_DataType dtype, const char* what, ElementType* type) {
  switch (dtype) {
    case TSR_DTYPE_FLOAT:
      *type = ElementType::kFloat;
      return sdk::OkStatus();
    case TSR_DTYPE_HALF:
      *type = ElementType::kHalf;
      return sdk::OkStatus();
    case TSR_DTYPE_BFLOAT16:
      *type = ElementType::kBFloat16;
      return sdk::OkStatus();
    case TSR_DTYPE_INT32:
      *type = ElementType::kInt32;
      return sdk::OkStatus();
    case TSR_DTYPE_INT64:
      *type = ElementType::kInt64;
      return sdk::OkStatus();
    case TSR_DTYPE_BOOL:
      *type = ElementType::kBool;
      return sdk::OkStatus();
    default:
      return sdk::InvalidArgument(what, " has type ", sdk::DataTypeName(dtype),
                                  ", which the GPU kernels do not have");
  }
}

sdk::Status MakeBroadcastPlan(const sdk::Shape& x, const sdk::Shape& y, sdk::Shape* out,
                              BroadcastPlan* plan) {
  *plan = BroadcastPlan();
  *out = sdk::Shape();
  const int rank = std::max(x.rank(), y.rank());
  // Per output dimension (dimensions of size 1 dropped): its size and which input repeats.
  int64_t dims[BroadcastPlan::kMaxRank];
  bool x_repeats[BroadcastPlan::kMaxRank];
  bool y_repeats[BroadcastPlan::kMaxRank];
  int kept = 0;
  for (int d = 0; d < rank; ++d) {
    const int xd = d - (rank - x.rank());
    const int yd = d - (rank - y.rank());
    const int64_t xs = xd < 0 ? 1 : x.dim(xd);
    const int64_t ys = yd < 0 ? 1 : y.dim(yd);
    if (xs != ys && xs != 1 && ys != 1) {
      return sdk::InvalidArgument("Incompatible shapes: ", x.DebugString(), " vs. ",
                                  y.DebugString());
    }
    const int64_t size = xs == 1 ? ys : xs;
    out->AddDim(size);
    if (size == 1) continue;
    const bool xr = xs == 1;
    const bool yr = ys == 1;
    // Adjacent dimensions that repeat alike are one dimension to the kernel.
    if (kept > 0 && x_repeats[kept - 1] == xr && y_repeats[kept - 1] == yr) {
      dims[kept - 1] *= size;
      continue;
    }
    dims[kept] = size;
    x_repeats[kept] = xr;
    y_repeats[kept] = yr;
    ++kept;
  }
  const bool x_all = std::all_of(x_repeats, x_repeats + kept, [](bool r) { return r; });
  const bool y_all = std::all_of(y_repeats, y_repeats + kept, [](bool r) { return r; });
  const bool x_none = std::none_of(x_repeats, x_repeats + kept, [](bool r) { return r; });
  const bool y_none = std::none_of(y_repeats, y_repeats + kept, [](bool r) { return r; });
  if (x_none && y_none) {
    plan->mode = BroadcastPlan::kSame;
  } else if (x_all && y_none) {
    plan->mode = BroadcastPlan::kXScalar;
  } else if (y_all && x_none) {
    plan->mode = BroadcastPlan::kYScalar;
  } else {
    plan->mode = BroadcastPlan::kGeneral;
    plan->rank = kept;
    int64_t x_stride = 1;
    int64_t y_stride = 1;
    for (int d = kept - 1; d >= 0; --d) {
      plan->dims[d] = dims[d];
      plan->x_strides[d] = x_repeats[d] ? 0 : x_stride;
      plan->y_strides[d] = y_repeats[d] ? 0 : y_stride;
      if (!x_repeats[d]) x_stride *= dims[d];
      if (!y_repeats[d]) y_stride *= dims[d];
    }
  }
  return sdk::OkStatus();
}

}  // namespace tessera::gpu
