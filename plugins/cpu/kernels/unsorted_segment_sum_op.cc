// UnsortedSegmentSum on CPU (float, double, int32, int64): output[segment_ids[i], ...] sums the
// rows data[i, ...]; negative ids drop their row, as in TensorFlow.
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/unsorted_segments.h"

namespace tessera::cpu {
namespace {

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
    UnsortedSegments segments;
    TESSERA_SDK_RETURN_IF_ERROR(PrepareUnsortedSegments(ctx, &segments));
    const TensorView& data = segments.data;
    const TensorView& out = segments.out;
    const std::vector<int64_t>& ids = segments.ids;
    const int64_t row_length = segments.row_length;
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
