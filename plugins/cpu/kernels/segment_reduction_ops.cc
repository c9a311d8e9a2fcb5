// The segment reductions on CPU other than UnsortedSegmentSum (float, double, int32, int64):
// SegmentSum, SegmentMean and SegmentMax over sorted segment_ids (empty segments give 0), and
// UnsortedSegmentMax, UnsortedSegmentMin and UnsortedSegmentProd (negative ids drop their row;
// empty segments give the lowest value, the highest value and 1, as TensorFlow's).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"
#include "plugins/cpu/kernels/unsorted_segments.h"

namespace tessera::cpu {
namespace {

enum class Reduce { kSum, kMean, kMax, kMin, kProd };

template <typename T>
T Identity(Reduce reduce) {
  switch (reduce) {
    case Reduce::kMax:
      return std::numeric_limits<T>::lowest();
    case Reduce::kMin:
      return std::numeric_limits<T>::max();
    case Reduce::kProd:
      return T(1);
    default:
      return T(0);
  }
}

template <typename T>
T Combine(Reduce reduce, T acc, T v) {
  switch (reduce) {
    case Reduce::kMax:
      return v > acc ? v : acc;
    case Reduce::kMin:
      return v < acc ? v : acc;
    case Reduce::kProd:
      return WrappingMultiply(acc, v);
    default:
      return WrappingAdd(acc, v);
  }
}

// SegmentSum, SegmentMean, SegmentMax(data, segment_ids): segment_ids is a sorted vector as long
// as data's first dimension; output row k reduces the rows whose id is k.
class SegmentKernel : public sdk::Kernel {
 public:
  explicit SegmentKernel(Reduce reduce) : reduce_(reduce) {}

  Status Compute(KernelContext& ctx) override {
    TensorView data;
    TensorView segment_ids;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &data));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &segment_ids));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, segment_ids, "segment_ids"));
    if (data.rank() < 1) return sdk::InvalidArgument("input must be at least rank 1");
    if (segment_ids.rank() != 1) return sdk::InvalidArgument("segment_ids should be a vector.");
    const int64_t n = segment_ids.num_elements();
    if (n != data.dim(0)) {
      return sdk::InvalidArgument(
          "segment_ids should be the same size as dimension 0 of input.");
    }
    const std::vector<int64_t> ids = IntegersOf(segment_ids);
    for (int64_t i = 0; i < n; ++i) {
      if (ids[i] < 0) return sdk::InvalidArgument("segment ids must be >= 0");
      if (i > 0 && ids[i] < ids[i - 1]) {
        return sdk::InvalidArgument("segment ids are not increasing");
      }
    }
    const int64_t rows = n == 0 ? 0 : ids[n - 1] + 1;
    Shape out_shape = data.shape();
    out_shape.set_dim(0, rows);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    const int64_t row_length = n == 0 ? 0 : data.num_elements() / n;
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, data.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* dst = out.data<T>();
      for (int64_t i = 0; i < out.num_elements(); ++i) dst[i] = T(0);
      const T* src = data.data<const T>();
      int64_t i = 0;
      while (i < n) {
        int64_t end = i;
        while (end < n && ids[end] == ids[i]) ++end;
        T* row = dst + ids[i] * row_length;
        for (int64_t c = 0; c < row_length; ++c) {
          T acc = Identity<T>(reduce_);
          for (int64_t r = i; r < end; ++r) acc = Combine(reduce_, acc, src[r * row_length + c]);
          if (reduce_ == Reduce::kMean) acc = acc / static_cast<T>(end - i);
          row[c] = acc;
        }
        i = end;
      }
      return OkStatus();
    });
  }

 private:
  Reduce reduce_;
};

template <Reduce kReduce>
class SegmentKernelOf : public SegmentKernel {
 public:
  SegmentKernelOf() : SegmentKernel(kReduce) {}
};

// UnsortedSegmentMax/Min/Prod(data, segment_ids, num_segments), with UnsortedSegmentSum's
// checks and messages.
template <Reduce kReduce>
class UnsortedSegmentKernel : public sdk::Kernel {
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
      for (int64_t i = 0; i < out.num_elements(); ++i) dst[i] = Identity<T>(kReduce);
      const T* src = data.data<const T>();
      // Shards split the columns, so that no two threads write one output element.
      ctx.ParallelFor(row_length, static_cast<int64_t>(ids.size()) + 1,
                      [&](int64_t begin, int64_t end) {
                        for (size_t i = 0; i < ids.size(); ++i) {
                          if (ids[i] < 0) continue;
                          const T* from = src + static_cast<int64_t>(i) * row_length;
                          T* to = dst + ids[i] * row_length;
                          for (int64_t c = begin; c < end; ++c) {
                            to[c] = Combine(kReduce, to[c], from[c]);
                          }
                        }
                      });
      return OkStatus();
    });
  }
};

}  // namespace

Status RegisterSegmentReductionKernels(TSR_Registrar* registrar) {
  const std::vector<sdk::TypeConstraint> sorted = {{"T", RealNumberTypes()},
                                                   {"Tindices", IndexTypes()}};
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<SegmentKernelOf<Reduce::kSum>>(registrar, "SegmentSum", kCpu, sorted));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<SegmentKernelOf<Reduce::kMean>>(registrar, "SegmentMean", kCpu, sorted));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<SegmentKernelOf<Reduce::kMax>>(registrar, "SegmentMax", kCpu, sorted));
  const std::vector<sdk::TypeConstraint> unsorted = {
      {"T", RealNumberTypes()}, {"Tindices", IndexTypes()}, {"Tnumsegments", IndexTypes()}};
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<UnsortedSegmentKernel<Reduce::kMax>>(
      registrar, "UnsortedSegmentMax", kCpu, unsorted, 0, 0, {"num_segments"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<UnsortedSegmentKernel<Reduce::kMin>>(
      registrar, "UnsortedSegmentMin", kCpu, unsorted, 0, 0, {"num_segments"}));
  return sdk::RegisterKernel<UnsortedSegmentKernel<Reduce::kProd>>(
      registrar, "UnsortedSegmentProd", kCpu, unsorted, 0, 0, {"num_segments"});
}

}  // namespace tessera::cpu
