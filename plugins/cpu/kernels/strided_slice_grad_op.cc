// StridedSliceGrad on CPU (every fixed-size dtype): zeros of the sliced input's shape with dy
// scattered back to the elements StridedSlice read, under the same index rules.
#include <cstring>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/strided_slice_spec.h"

namespace tessera::cpu {
namespace {

// Where dy's rows go: row r of dy (the innermost processing dimension) starts at output element
// base + sum over d of index_d(r) * steps[d], and its elements are steps.back() apart.
struct Scatter {
  size_t element_size;
  int64_t base;
  std::vector<int64_t> sizes;  // the processing shape
  std::vector<int64_t> steps;  // output elements between consecutive indices, per dimension

  template <size_t kSize>
  void Rows(const char* src, char* dst, int64_t begin, int64_t end) const {
    const int rank = static_cast<int>(sizes.size());
    const int64_t length = sizes.back();
    const int64_t step = steps.back();
    const size_t size = kSize == 0 ? element_size : kSize;
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = base;
      int64_t rest = row;
      for (int d = rank - 2; d >= 0; --d) {
        offset += (rest % sizes[d]) * steps[d];
        rest /= sizes[d];
      }
      const char* from = src + row * length * static_cast<int64_t>(size);
      for (int64_t i = 0; i < length; ++i) {
        std::memcpy(dst + (offset + i * step) * static_cast<int64_t>(size), from + i * size, size);
      }
    }
  }

  void Run(const KernelContext& ctx, const void* src_data, void* dst_data) const {
    const char* src = static_cast<const char*>(src_data);
    char* dst = static_cast<char*>(dst_data);
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < sizes.size(); ++d) rows *= sizes[d];
    ctx.ParallelFor(rows, sizes.back() + 8, [&](int64_t begin, int64_t end) {
      switch (element_size) {
        case 1:
          return Rows<1>(src, dst, begin, end);
        case 2:
          return Rows<2>(src, dst, begin, end);
        case 4:
          return Rows<4>(src, dst, begin, end);
        case 8:
          return Rows<8>(src, dst, begin, end);
        case 16:
          return Rows<16>(src, dst, begin, end);
        default:
          return Rows<0>(src, dst, begin, end);
      }
    });
  }
};

class StridedSliceGradKernel : public sdk::Kernel {
 public:
  explicit StridedSliceGradKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("begin_mask", &masks_.begin));
    ctx.SetStatus(ctx.GetAttr("end_mask", &masks_.end));
    ctx.SetStatus(ctx.GetAttr("ellipsis_mask", &masks_.ellipsis));
    ctx.SetStatus(ctx.GetAttr("new_axis_mask", &masks_.new_axis));
    ctx.SetStatus(ctx.GetAttr("shrink_axis_mask", &masks_.shrink_axis));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView index_views[4];
    for (int i = 0; i < 4; ++i) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &index_views[i]));
      TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, index_views[i], "shape, begin, end and strides"));
    }
    TensorView dy;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(4, &dy));
    const TensorView& shape_view = index_views[0];
    if (shape_view.rank() != 1) {
      return sdk::InvalidArgument("shape must be 1-D, got shape.shape = ",
                                  shape_view.shape().DebugString());
    }
    if (shape_view.num_elements() > Shape::kMaxRank) {
      return RankAboveMaximum(ctx, shape_view.num_elements());
    }
    Shape input_shape;
    for (int64_t dim : IntegersOf(shape_view)) {
      if (dim < 0) return sdk::InvalidArgument("Dimension ", dim, " must be >= 0");
      input_shape.AddDim(dim);
    }
    const TensorView& begin_view = index_views[1];
    const TensorView& end_view = index_views[2];
    const TensorView& strides_view = index_views[3];
    const int64_t n = strides_view.num_elements();
    if (begin_view.rank() != 1 || end_view.rank() != 1 || strides_view.rank() != 1 ||
        begin_view.num_elements() != n || end_view.num_elements() != n || n >= 32) {
      return sdk::InvalidArgument(
          "Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
          begin_view.shape().DebugString(), ", ", end_view.shape().DebugString(), ", and ",
          strides_view.shape().DebugString(), " instead.");
    }
    StridedSlicePlan plan;
    TESSERA_SDK_RETURN_IF_ERROR(PlanStridedSlice(input_shape, IntegersOf(begin_view),
                                             IntegersOf(end_view), IntegersOf(strides_view), masks_,
                                             &plan));
    // As StridedSlice itself, a slice whose result would exceed the maximum rank is an error.
    const int final_rank = static_cast<int>(plan.final_shape.size());
    if (final_rank > Shape::kMaxRank) return RankAboveMaximum(ctx, final_rank);
    const Shape final_shape(final_rank, plan.final_shape.data());
    if (dy.shape() != final_shape) {
      return sdk::InvalidArgument("shape of dy was ", dy.shape().DebugString(), " instead of ",
                                  final_shape.DebugString());
    }
    if (plan.is_identity) return ctx.SetOutputFromInput(0, 4, input_shape);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input_shape, &out));
    const size_t element_size = sdk::DataTypeSize(dy.dtype());
    // An empty output has no buffer, and memset needs one even for zero bytes.
    if (out.num_elements() == 0) return OkStatus();
    std::memset(out.raw_data(), 0, static_cast<size_t>(out.num_elements()) * element_size);
    if (dy.num_elements() == 0) return OkStatus();
    if (input_shape.rank() == 0) {
      std::memcpy(out.raw_data(), dy.raw_data(), element_size);
      return OkStatus();
    }
    const std::vector<int64_t> strides = RowMajorStrides(input_shape);
    Scatter scatter{element_size, 0, plan.processing_shape, {}};
    for (int d = 0; d < input_shape.rank(); ++d) {
      scatter.base += plan.begin[d] * strides[d];
      scatter.steps.push_back(plan.strides[d] * strides[d]);
    }
    scatter.Run(ctx, dy.raw_data(), out.raw_data());
    return OkStatus();
  }

 private:
  StridedSliceMasks masks_;
};

}  // namespace

Status RegisterStridedSliceGradKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<StridedSliceGradKernel>(registrar, "StridedSliceGrad", kCpu,
                                                     {{"T", AllTypes()}, {"Index", IndexTypes()}},
                                                     0, 0, {"shape", "begin", "end", "strides"});
}

}  // namespace tessera::cpu
