// Tile and BroadcastTo on CPU (every fixed-size dtype): both read the input again and again
// through zero strides; Tile describes its output as [multiple, size] pairs per dimension.
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class TileKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView multiples;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &multiples));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, multiples, "multiples"));
    if (multiples.rank() != 1) {
      return sdk::InvalidArgument("Expected multiples to be 1-D, but got shape ",
                                  multiples.shape().DebugString());
    }
    const int rank = input.rank();
    if (multiples.num_elements() != rank) {
      return sdk::InvalidArgument("Expected multiples argument to be a vector of length ", rank,
                                  " but got length ", multiples.dim(0));
    }
    if (rank == 0) return ctx.SetOutputFromInput(0, 0);
    Shape out_shape;
    for (int d = 0; d < rank; ++d) {
      const int64_t multiple = IndexAt(multiples, d);
      if (multiple < 0) {
        return sdk::InvalidArgument("Expected multiples[", d, "] >= 0, but got ", multiple);
      }
      int64_t size;
      if (__builtin_mul_overflow(input.dim(d), multiple, &size)) {
        return sdk::InvalidArgument("Tile: output dimension ", d, " = ", input.dim(d), " * ",
                                    multiple, " does not fit in int64");
      }
      out_shape.AddDim(size);
    }
    if (out_shape == input.shape()) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    std::vector<CopyDim> dims(static_cast<size_t>(2 * rank));
    for (int d = 0; d < rank; ++d) {
      dims[2 * d].size = IndexAt(multiples, d);  // stride 0: the whole block again
      dims[2 * d + 1].size = input.dim(d);
      dims[2 * d + 1].stride = strides[d];
    }
    const StridedCopy copy(sdk::DataTypeSize(input.dtype()), 0, std::move(dims));
    RunStridedCopy(ctx, copy, input.raw_data(), out.raw_data());
    return OkStatus();
  }
};

class BroadcastToKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView shape_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &shape_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, shape_view, "shape"));
    if (shape_view.rank() != 1) {
      return sdk::InvalidArgument("shape must be a vector of {int32,int64}, got shape ",
                                  shape_view.shape().DebugString());
    }
    if (shape_view.dim(0) > Shape::kMaxRank) return RankAboveMaximum(ctx, shape_view.dim(0));
    Shape out_shape;
    for (int d = 0; d < shape_view.dim(0); ++d) {
      const int64_t size = IndexAt(shape_view, d);
      if (size < 0) return sdk::InvalidArgument("Dimension ", size, " must be >= 0");
      out_shape.AddDim(size);
    }
    if (out_shape == input.shape()) return ctx.SetOutputFromInput(0, 0);
    const int in_rank = input.rank();
    const int out_rank = out_shape.rank();
    if (in_rank > out_rank) {
      return sdk::InvalidArgument("Rank of input (", in_rank,
                                  ") must be no greater than rank of output shape (", out_rank,
                                  ").");
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    // numpy's rules run both ways; only results equal to the requested shape are accepted.
    bool compatible = true;
    bool reaches_shape = true;
    for (int i = 0; i < in_rank; ++i) {
      const int64_t in_dim = input.dim(in_rank - 1 - i);
      const int64_t out_dim = out_shape.dim(out_rank - 1 - i);
      if (in_dim == out_dim || out_dim == 1 || in_dim == 1) {
        reaches_shape &= in_dim == out_dim || in_dim == 1;
      } else {
        compatible = false;
      }
    }
    if (!compatible) {
      return sdk::InvalidArgument("Incompatible shapes: ", input.shape().DebugString(), " vs. ",
                                  out_shape.DebugString());
    }
    if (!reaches_shape) {
      return sdk::InvalidArgument("Unable to broadcast tensor of shape ",
                                  input.shape().DebugString(), " to tensor of shape ",
                                  out_shape.DebugString());
    }
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    std::vector<CopyDim> dims(static_cast<size_t>(out_rank));
    for (int d = 0; d < out_rank; ++d) {
      dims[d].size = out_shape.dim(d);
      const int in_d = d - (out_rank - in_rank);
      if (in_d >= 0 && input.dim(in_d) != 1) dims[d].stride = strides[in_d];
    }
    const StridedCopy copy(sdk::DataTypeSize(input.dtype()), 0, std::move(dims));
    RunStridedCopy(ctx, copy, input.raw_data(), out.raw_data());
    return OkStatus();
  }
};

}  // namespace

Status RegisterTileKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<TileKernel>(
      registrar, "Tile", kCpu, {{"T", AllTypes()}, {"Tmultiples", IndexTypes()}}, 0, 0,
      {"multiples"}));
  return sdk::RegisterKernel<BroadcastToKernel>(
      registrar, "BroadcastTo", kCpu, {{"T", AllTypes()}, {"Tidx", IndexTypes()}}, 0, 0, {"shape"});
}

}  // namespace tessera::cpu
