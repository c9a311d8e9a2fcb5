// SpaceToBatchND, BatchToSpaceND and their first versions SpaceToBatch and BatchToSpace on CPU
// (the real number types TensorFlow registers; block_shape, paddings and crops int32/int64 in host
// memory). Output batch entry (o * batch + n), o the flat offset inside a block, holds the
// elements of input batch entry n at block offset o; padding reads as zero.
#include <cstdint>
#include <cstring>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

const std::vector<TSR_DataType>& SpaceToBatchTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_HALF,   TSR_DTYPE_BFLOAT16,
      TSR_DTYPE_INT8,  TSR_DTYPE_INT16,  TSR_DTYPE_INT32,  TSR_DTYPE_INT64,
      TSR_DTYPE_UINT8, TSR_DTYPE_UINT16, TSR_DTYPE_UINT32, TSR_DTYPE_UINT64};
  return *types;
}

// Checks the arguments and moves the elements of `input` between space and batch. `amounts` is
// paddings (to_batch) or crops, flattened [M, 2].
Status SpaceBatchCompute(KernelContext& ctx, const TensorView& input,
                         const std::vector<int64_t>& block, const std::vector<int64_t>& amounts,
                         bool to_batch) {
  const int m = static_cast<int>(block.size());
  if (input.rank() < 1 + m) {
    return sdk::InvalidArgument("input rank should be >= ", 1 + m, " instead of ", input.rank());
  }
  int64_t product = 1;
  for (int i = 0; i < m; ++i) {
    if (block[i] < 1) {
      return sdk::InvalidArgument("All values in block_shape must be positive, got value, ",
                                  block[i], " at index ", i, ".");
    }
    product *= block[i];
  }
  Shape out_shape = input.shape();
  const int64_t batch = input.dim(0);
  if (to_batch) {
    out_shape.set_dim(0, batch * product);
  } else {
    if (batch % product != 0) {
      return sdk::InvalidArgument("Input batch dimension (", batch,
                                  ") is not divisible by product of block sizes (", product, ")");
    }
    out_shape.set_dim(0, batch / product);
  }
  for (int i = 0; i < m; ++i) {
    const int64_t start = amounts[2 * i];
    const int64_t end = amounts[2 * i + 1];
    if (start < 0 || end < 0) {
      return to_batch ? sdk::InvalidArgument("Paddings must be non-negative")
                      : sdk::InvalidArgument("Crops must be non-negative");
    }
    const int64_t size = input.dim(i + 1);
    if (to_batch) {
      const int64_t padded = size + start + end;
      if (padded % block[i] != 0) {
        return sdk::InvalidArgument("padded_shape[", i, "]=", padded,
                                    " is not divisible by block_shape[", i, "]=", block[i]);
      }
      out_shape.set_dim(i + 1, padded / block[i]);
    } else {
      const int64_t cropped = size * block[i] - start - end;
      if (cropped < 0) {
        return sdk::InvalidArgument("cropped_shape[", i, "]=", cropped, " must be non-negative");
      }
      out_shape.set_dim(i + 1, cropped);
    }
  }
  TensorView out;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
  if (out.num_elements() == 0) return OkStatus();
  // Each output row (batch entry and spatial position) is `depth` contiguous elements, read from
  // one input row or zero.
  int64_t depth = static_cast<int64_t>(sdk::DataTypeSize(input.dtype()));
  for (int d = m + 1; d < input.rank(); ++d) depth *= input.dim(d);
  int64_t out_rows = 1;
  for (int d = 0; d <= m; ++d) out_rows *= out_shape.dim(d);
  const Shape& space = to_batch ? input.shape() : out_shape;  // the spatial side
  const Shape& batched = to_batch ? out_shape : input.shape();
  const int64_t space_batch = space.dim(0);
  const char* src = static_cast<const char*>(input.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  ctx.ParallelFor(out_rows, depth / 4 + 2 * m + 4, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> coords(static_cast<size_t>(m + 1));
    std::vector<int64_t> block_offsets(static_cast<size_t>(m));
    for (int64_t row = begin; row < end; ++row) {
      // The coordinates of `row` in the output's first m+1 dimensions.
      int64_t rest = row;
      for (int d = m; d >= 0; --d) {
        coords[d] = rest % out_shape.dim(d);
        rest /= out_shape.dim(d);
      }
      // Pair a batched row (batch entry b, position s) with a spatial row (entry n, position p):
      // b = o * space_batch + n and p[i] = s[i] * block[i] + o[i] - start[i].
      const int64_t n = to_batch ? coords[0] % space_batch : coords[0];
      int64_t offset = to_batch ? coords[0] / space_batch : 0;
      int64_t other_row = to_batch ? n : 0;  // the input row's flat index, built up below
      bool inside = true;
      for (int i = m - 1; i >= 0 && to_batch; --i) {
        block_offsets[i] = offset % block[i];
        offset /= block[i];
      }
      int64_t flat_offset = 0;
      for (int i = 0; i < m; ++i) {
        if (to_batch) {
          const int64_t p = coords[i + 1] * block[i] + block_offsets[i] - amounts[2 * i];
          if (p < 0 || p >= space.dim(i + 1)) inside = false;
          other_row = other_row * space.dim(i + 1) + p;
        } else {
          const int64_t uncropped = coords[i + 1] + amounts[2 * i];
          flat_offset = flat_offset * block[i] + uncropped % block[i];
          coords[i + 1] = uncropped / block[i];
        }
      }
      if (!to_batch) {
        other_row = flat_offset * space_batch + n;
        for (int i = 0; i < m; ++i) other_row = other_row * batched.dim(i + 1) + coords[i + 1];
      }
      char* to = dst + row * depth;
      if (inside) {
        std::memcpy(to, src + other_row * depth, static_cast<size_t>(depth));
      } else {
        std::memset(to, 0, static_cast<size_t>(depth));
      }
    }
  });
  return OkStatus();
}

// The values of a [M, 2] paddings or crops tensor, checked against M.
Status ReadAmounts(const KernelContext& ctx, const TensorView& view, int64_t m, const char* name,
                   std::vector<int64_t>* values) {
  TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, view, name));
  if (view.rank() != 2 || view.dim(0) != m || view.dim(1) != 2) {
    return sdk::InvalidArgument(name, " should have shape [", m, ", 2] instead of ",
                                view.shape().DebugString());
  }
  *values = IntegersOf(view);
  return OkStatus();
}

template <bool kToBatch>
class SpaceBatchNdKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView block_view;
    TensorView amounts_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &block_view));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &amounts_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, block_view, "block_shape"));
    if (block_view.rank() != 1) {
      return sdk::InvalidArgument("block_shape rank should be 1 instead of ", block_view.rank());
    }
    const int64_t m = block_view.dim(0);
    if (input.rank() < 1 + m) {
      return sdk::InvalidArgument("input rank should be >= ", 1 + m, " instead of ", input.rank());
    }
    std::vector<int64_t> amounts;
    TESSERA_SDK_RETURN_IF_ERROR(
        ReadAmounts(ctx, amounts_view, m, kToBatch ? "paddings" : "crops", &amounts));
    return SpaceBatchCompute(ctx, input, IntegersOf(block_view), amounts, kToBatch);
  }
};

// SpaceToBatch and BatchToSpace: a 4-D input and block_size for both spatial dimensions.
template <bool kToBatch>
class SpaceBatchV1Kernel : public sdk::Kernel {
 public:
  explicit SpaceBatchV1Kernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("block_size", &block_size_));
    if (ctx.ok() && block_size_ <= 1) {
      ctx.SetStatus(sdk::InvalidArgument("Block size should be > 1: ", block_size_));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView amounts_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &amounts_view));
    if (input.rank() != 4) {
      return sdk::InvalidArgument("Input rank should be: 4 instead of: ", input.rank());
    }
    std::vector<int64_t> amounts;
    TESSERA_SDK_RETURN_IF_ERROR(
        ReadAmounts(ctx, amounts_view, 2, kToBatch ? "paddings" : "crops", &amounts));
    return SpaceBatchCompute(ctx, input, {block_size_, block_size_}, amounts, kToBatch);
  }

 private:
  int64_t block_size_ = 0;
};

}  // namespace

Status RegisterSpaceToBatchKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SpaceBatchNdKernel<true>>(
      registrar, "SpaceToBatchND", kCpu,
      {{"T", SpaceToBatchTypes()}, {"Tblock_shape", IndexTypes()}, {"Tpaddings", IndexTypes()}}, 0,
      0, {"block_shape", "paddings"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SpaceBatchNdKernel<false>>(
      registrar, "BatchToSpaceND", kCpu,
      {{"T", SpaceToBatchTypes()}, {"Tblock_shape", IndexTypes()}, {"Tcrops", IndexTypes()}}, 0, 0,
      {"block_shape", "crops"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SpaceBatchV1Kernel<true>>(
      registrar, "SpaceToBatch", kCpu, {{"T", SpaceToBatchTypes()}, {"Tpaddings", IndexTypes()}}, 0,
      0, {"paddings"}));
  return sdk::RegisterKernel<SpaceBatchV1Kernel<false>>(
      registrar, "BatchToSpace", kCpu, {{"T", SpaceToBatchTypes()}, {"Tidx", IndexTypes()}}, 0, 0,
      {"crops"});
}

}  // namespace tessera::cpu
