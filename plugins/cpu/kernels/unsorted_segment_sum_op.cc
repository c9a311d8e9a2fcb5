// UnsortedSegmentSum on CPU (float, double, int32, int64): output[segment_ids[i], ...] sums the
// rows data[i, ...]; negative ids drop their row, as in TensorFlow.
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

bool StartsWith(const Shape& shape, const Shape& prefix) {
  if (prefix.rank() > shape.rank()) return false;
  for (int d = 0; d < prefix.rank(); ++d) {
    if (shape.dim(d) != prefix.dim(d)) return false;
  }
  return true;
}

// Adds row i of `data` (rows of `row_length`) to row ids[i] of `out`, columns [begin, end) only.
template <typename T>
void SumColumns(const T* data, const std::vector<int64_t>& ids, int64_t row_length, T* out,
                int64_t begin, int64_t end) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) continue;
    const T* src = data + static_cast<int64_t>(i) * row_length;
    T* dst = out + ids[i] * row_length;
    for (int64_t c = begin; c < end; ++c) dst[c] = WrappingAdd(dst[c], src[c]);
  }
}

class UnsortedSegmentSumKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView data;
    TensorView segment_ids;
    TensorView num_segments;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &data));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &segment_ids));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &num_segments));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, segment_ids, "segment_ids"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, num_segments, "num_segments"));
    if (num_segments.rank() != 0) {
      return sdk::InvalidArgument("num_segments should be a scalar, not shape ",
                                  num_segments.shape().DebugString());
    }
    if (!StartsWith(data.shape(), segment_ids.shape())) {
      return sdk::InvalidArgument(
          "data.shape = ", data.shape().DebugString(),
          " does not start with segment_ids.shape = ", segment_ids.shape().DebugString());
    }
    const int64_t rows = IndexAt(num_segments, 0);
    if (rows < 0) {
      return sdk::InvalidArgument("Input num_segments == ", rows, " must not be negative.");
    }
    Shape out_shape;
    out_shape.AddDim(rows);
    for (int d = segment_ids.rank(); d < data.rank(); ++d) out_shape.AddDim(data.dim(d));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    const int64_t row_length = rows == 0 ? 0 : out.num_elements() / rows;
    std::vector<int64_t> ids;
    if (data.num_elements() > 0) {
      ids = IntegersOf(segment_ids);
      for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= rows) {
          return sdk::InvalidArgument("segment_ids",
                                      SliceIndexString(segment_ids.shape(), static_cast<int64_t>(i)),
                                      " = ", ids[i], " is out of range [0, ", rows, ")");
        }
      }
    }
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, data.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* dst = out.data<T>();
      for (int64_t i = 0; i < out.num_elements(); ++i) dst[i] = T(0);
      if (ids.empty()) return OkStatus();
      const T* src = data.data<const T>();
      // Shards split the columns, so that no two threads add to one output element.
      const int64_t cost = static_cast<int64_t>(ids.size()) + 1;
      ctx.ParallelFor(row_length, cost, [&](int64_t begin, int64_t end) {
        SumColumns(src, ids, row_length, dst, begin, end);
      });
      return OkStatus();
    });
  }
};

}  // namespace

Status RegisterUnsortedSegmentSumKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<UnsortedSegmentSumKernel>(
      registrar, "UnsortedSegmentSum", kCpu,
      {{"T", RealNumberTypes()}, {"Tindices", IndexTypes()}, {"Tnumsegments", IndexTypes()}}, 0, 0,
      {"num_segments"});
}

}  // namespace tessera::cpu
