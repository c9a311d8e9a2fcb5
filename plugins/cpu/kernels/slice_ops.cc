// Slice and StridedSlice on CPU (every fixed-size dtype): TensorFlow's argument checks, then one
// strided copy from the first element read; a slice that takes everything shares the input.
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/strided_slice_spec.h"

namespace tessera::cpu {
namespace {

// Copies input[begin[d] + i * steps[d]] for i < sizes[d] in every dimension d into a new output
// of shape `out_shape` (the same element count as `sizes`).
Status CopyStridedRegion(KernelContext& ctx, const TensorView& input, const Shape& out_shape,
                         const std::vector<int64_t>& begin, const std::vector<int64_t>& steps,
                         const std::vector<int64_t>& sizes) {
  TensorView out;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
  if (out.num_elements() == 0) return OkStatus();
  const std::vector<int64_t> strides = RowMajorStrides(input.shape());
  std::vector<CopyDim> dims(sizes.size());
  int64_t base = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    base += begin[d] * strides[d];
    dims[d].size = sizes[d];
    dims[d].stride = steps[d] * strides[d];
  }
  const StridedCopy copy(sdk::DataTypeSize(input.dtype()), base, std::move(dims));
  RunStridedCopy(ctx, copy, input.raw_data(), out.raw_data());
  return OkStatus();
}

class SliceKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView begin_view;
    TensorView size_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &begin_view));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &size_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, begin_view, "begin"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, size_view, "size"));
    const int rank = input.rank();
    if (begin_view.rank() != 1 || size_view.rank() != 1 || begin_view.dim(0) != rank ||
        size_view.dim(0) != rank) {
      return sdk::InvalidArgument("Expected begin and size arguments to be 1-D tensors of size ",
                                  rank, ", but got shapes ", begin_view.shape().DebugString(),
                                  " and ", size_view.shape().DebugString(), " instead.");
    }
    std::vector<int64_t> begin = IntegersOf(begin_view);
    std::vector<int64_t> size = IntegersOf(size_view);
    Shape out_shape;
    bool is_identity = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = input.dim(i);
      const int64_t b = begin[i];
      // -1 takes every element from begin to the end of the dimension.
      if (size[i] == -1) size[i] = dim - b;
      const int64_t s = size[i];
      if (dim == 0) {
        if (b != 0 || s != 0) {
          return sdk::InvalidArgument("Expected begin[", i, "] == 0 (got ", b, ") and size[", i,
                                      "] == 0 (got ", s, ") when input.dim_size(", i, ") == 0");
        }
      } else {
        if (b < 0 || b > dim) {
          return sdk::InvalidArgument("Expected begin[", i, "] in [0, ", dim, "], but got ", b);
        }
        if (s < 0 || s > dim - b) {
          return sdk::InvalidArgument("Expected size[", i, "] in [0, ", dim - b, "], but got ", s);
        }
      }
      out_shape.AddDim(s);
      is_identity &= b == 0 && s == dim;
    }
    if (is_identity) return ctx.SetOutputFromInput(0, 0);
    return CopyStridedRegion(ctx, input, out_shape, begin, std::vector<int64_t>(rank, 1), size);
  }
};

class StridedSliceKernel : public sdk::Kernel {
 public:
  explicit StridedSliceKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("begin_mask", &masks_.begin));
    ctx.SetStatus(ctx.GetAttr("end_mask", &masks_.end));
    ctx.SetStatus(ctx.GetAttr("ellipsis_mask", &masks_.ellipsis));
    ctx.SetStatus(ctx.GetAttr("new_axis_mask", &masks_.new_axis));
    ctx.SetStatus(ctx.GetAttr("shrink_axis_mask", &masks_.shrink_axis));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView index_views[3];
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    for (int i = 0; i < 3; ++i) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i + 1, &index_views[i]));
      TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, index_views[i], "begin, end and strides"));
    }
    const TensorView& begin_view = index_views[0];
    const TensorView& end_view = index_views[1];
    const TensorView& strides_view = index_views[2];
    const int64_t n = strides_view.num_elements();
    if (begin_view.rank() != 1 || end_view.rank() != 1 || strides_view.rank() != 1 ||
        begin_view.num_elements() != n || end_view.num_elements() != n || n >= 32) {
      return sdk::InvalidArgument(
          "Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
          begin_view.shape().DebugString(), ", ", end_view.shape().DebugString(), ", and ",
          strides_view.shape().DebugString(), " instead.");
    }
    StridedSlicePlan plan;
    TESSERA_SDK_RETURN_IF_ERROR(PlanStridedSlice(input.shape(), IntegersOf(begin_view),
                                             IntegersOf(end_view), IntegersOf(strides_view), masks_,
                                             &plan));
    const int final_rank = static_cast<int>(plan.final_shape.size());
    if (final_rank > Shape::kMaxRank) return RankAboveMaximum(ctx, final_rank);
    const Shape final_shape(final_rank, plan.final_shape.data());
    if (plan.is_identity) return ctx.SetOutputFromInput(0, 0, final_shape);
    return CopyStridedRegion(ctx, input, final_shape, plan.begin, plan.strides,
                             plan.processing_shape);
  }

 private:
  StridedSliceMasks masks_;
};

}  // namespace

Status RegisterSliceKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SliceKernel>(
      registrar, "Slice", kCpu, {{"T", AllTypes()}, {"Index", IndexTypes()}}, 0, 0,
      {"begin", "size"}));
  return sdk::RegisterKernel<StridedSliceKernel>(registrar, "StridedSlice", kCpu,
                                                 {{"T", AllTypes()}, {"Index", IndexTypes()}}, 0, 0,
                                                 {"begin", "end", "strides"});
}

}  // namespace tessera::cpu
