// Range (a sequence of numbers) and Where (the coordinates of the true or non-zero elements) on
// CPU.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Range computes half and bfloat16 in float; everything else in its own type.
template <typename T>
using RangeMath =
    std::conditional_t<std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>, float,
                       T>;

// How a value prints in an error: integers as numbers (never as characters), the rest as double.
template <typename T>
auto Printable(T value) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<int64_t>(value);
  } else {
    return static_cast<double>(value);
  }
}

template <typename T>
Status RangeOf(KernelContext& ctx, const TensorView views[3]) {
  using M = RangeMath<T>;
  const M start = static_cast<M>(views[0].data<const T>()[0]);
  const M limit = static_cast<M>(views[1].data<const T>()[0]);
  const M delta = static_cast<M>(views[2].data<const T>()[0]);
  if (delta == M(0)) return sdk::InvalidArgument("Requires delta != 0: ", Printable(delta));
  if (delta > M(0)) {
    if (start > limit) {
      return sdk::InvalidArgument("Requires start <= limit when delta > 0: ", Printable(start), "/",
                                  Printable(limit));
    }
  } else if (start < limit) {
    return sdk::InvalidArgument("Requires start >= limit when delta < 0: ", Printable(start), "/",
                                Printable(limit));
  }
  int64_t size;
  if constexpr (std::is_integral_v<M>) {
    // |limit - start| and |delta| in 64 unsigned bits: neither can overflow there.
    const auto distance = [](int64_t a, int64_t b) {
      return a >= b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                    : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
    };
    const uint64_t span = distance(static_cast<int64_t>(limit), static_cast<int64_t>(start));
    const uint64_t step = distance(static_cast<int64_t>(delta), 0);
    const uint64_t count = span / step + (span % step != 0 ? 1 : 0);
    if (count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return sdk::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                  std::numeric_limits<int64_t>::max());
    }
    size = static_cast<int64_t>(count);
  } else {
    // In the op's type, as TensorFlow does: Range(0, 1.2f, 0.4f) has 3 elements, though the
    // quotient of the same floats in double is 3.0000001.
    const double length = static_cast<double>(std::ceil(std::abs((limit - start) / delta)));
    if (!(length <= static_cast<double>(std::numeric_limits<int64_t>::max()))) {
      return sdk::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                  std::numeric_limits<int64_t>::max());
    }
    size = static_cast<int64_t>(length);
  }
  TensorView out;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{size}, &out));
  T* data = out.data<T>();
  ctx.ParallelFor(size, 2, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      data[i] = static_cast<T>(static_cast<M>(start + static_cast<M>(i) * delta));
    }
  });
  return OkStatus();
}

class RangeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    static const char* const kNames[3] = {"start", "limit", "delta"};
    TensorView views[3];
    for (int i = 0; i < 3; ++i) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &views[i]));
      // A one-element vector is accepted as a scalar, as TensorFlow still does.
      const bool scalar = views[i].rank() == 0 || (views[i].rank() == 1 && views[i].dim(0) == 1);
      if (!scalar) {
        return sdk::InvalidArgument(kNames[i], " must be a scalar, not shape ",
                                    views[i].shape().DebugString());
      }
    }
    switch (views[0].dtype()) {
      case TSR_DTYPE_HALF:
        return RangeOf<Eigen::half>(ctx, views);
      case TSR_DTYPE_BFLOAT16:
        return RangeOf<Eigen::bfloat16>(ctx, views);
      default:
        return DispatchTypes<float, double, int8_t, int16_t, int32_t, int64_t, uint16_t, uint32_t>(
            ctx, views[0].dtype(), [&](auto t) { return RangeOf<decltype(t)>(ctx, views); });
    }
  }
};

// True for the elements Where reports: Word is the unsigned integer of one component (a complex
// number has two); floating-point components ignore the sign bit, so -0.0 is false and NaN true.
template <typename Word, int kComponents, bool kFloating>
bool NonZero(const char* element) {
  constexpr Word kAll = std::numeric_limits<Word>::max();
  constexpr Word kMask = kFloating ? static_cast<Word>(kAll >> 1) : kAll;
  for (int c = 0; c < kComponents; ++c) {
    Word bits;
    std::memcpy(&bits, element + c * sizeof(Word), sizeof(Word));
    if ((bits & kMask) != 0) return true;
  }
  return false;
}

constexpr int64_t kWhereBlock = 1 << 14;

template <typename Word, int kComponents, bool kFloating>
Status WhereOf(KernelContext& ctx, const TensorView& input) {
  constexpr int64_t kSize = sizeof(Word) * kComponents;
  const char* data = static_cast<const char*>(input.raw_data());
  const int64_t n = input.num_elements();
  const int64_t blocks = (n + kWhereBlock - 1) / kWhereBlock;
  std::vector<int64_t> counts(static_cast<size_t>(blocks), 0);
  ctx.ParallelFor(blocks, kWhereBlock, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      int64_t count = 0;
      for (int64_t i = b * kWhereBlock; i < std::min(n, (b + 1) * kWhereBlock); ++i) {
        count += NonZero<Word, kComponents, kFloating>(data + i * kSize);
      }
      counts[b] = count;
    }
  });
  std::vector<int64_t> first(static_cast<size_t>(blocks) + 1, 0);
  for (int64_t b = 0; b < blocks; ++b) first[b + 1] = first[b] + counts[b];
  const int rank = input.rank();
  TensorView out;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{first[blocks], rank}, &out));
  if (first[blocks] == 0 || rank == 0) return OkStatus();
  const std::vector<int64_t> strides = RowMajorStrides(input.shape());
  int64_t* coordinates = out.data<int64_t>();
  ctx.ParallelFor(blocks, kWhereBlock, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      int64_t* row = coordinates + first[b] * rank;
      for (int64_t i = b * kWhereBlock; i < std::min(n, (b + 1) * kWhereBlock); ++i) {
        if (!NonZero<Word, kComponents, kFloating>(data + i * kSize)) continue;
        int64_t rest = i;
        for (int d = 0; d < rank; ++d, ++row) {
          *row = rest / strides[d];
          rest %= strides[d];
        }
      }
    }
  });
  return OkStatus();
}

class WhereKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    switch (input.dtype()) {
      case TSR_DTYPE_FLOAT:
        return WhereOf<uint32_t, 1, true>(ctx, input);
      case TSR_DTYPE_DOUBLE:
        return WhereOf<uint64_t, 1, true>(ctx, input);
      case TSR_DTYPE_HALF:
      case TSR_DTYPE_BFLOAT16:
        return WhereOf<uint16_t, 1, true>(ctx, input);
      case TSR_DTYPE_COMPLEX64:
        return WhereOf<uint32_t, 2, true>(ctx, input);
      case TSR_DTYPE_COMPLEX128:
        return WhereOf<uint64_t, 2, true>(ctx, input);
      default:
        break;
    }
    switch (sdk::DataTypeSize(input.dtype())) {
      case 1:
        return WhereOf<uint8_t, 1, false>(ctx, input);
      case 2:
        return WhereOf<uint16_t, 1, false>(ctx, input);
      case 4:
        return WhereOf<uint32_t, 1, false>(ctx, input);
      case 8:
        return WhereOf<uint64_t, 1, false>(ctx, input);
      default:
        return UnsupportedType(ctx, input.dtype());
    }
  }
};

const std::vector<TSR_DataType>& RangeTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_BFLOAT16, TSR_DTYPE_HALF,  TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT8,
      TSR_DTYPE_INT16,    TSR_DTYPE_INT32, TSR_DTYPE_INT64, TSR_DTYPE_UINT16, TSR_DTYPE_UINT32};
  return *types;
}

}  // namespace

Status RegisterSequenceKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<RangeKernel>(registrar, "Range", kCpu, {{"Tidx", RangeTypes()}},
                                       TSR_KERNEL_FLAG_CHEAP, 0, {"start", "limit", "delta"}));
  return sdk::RegisterKernel<WhereKernel>(registrar, "Where", kCpu, {{"T", AllTypes()}});
}

}  // namespace tessera::cpu
