// TopKV2 on CPU (the real types; k and indices int16/int32/int64): the k largest entries of each
// row of the last dimension, largest first, the lower index first among equal values (as
// TensorFlow's). NaN ranks above every number. sorted=false returns the same order, one that
// TensorFlow allows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// True when a ranks before b: larger, or NaN against a number.
template <typename T>
bool RanksBefore(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

template <typename T, typename Index>
void TopKRows(const KernelContext& ctx, const T* in, int64_t rows, int64_t cols, int64_t k,
              T* values, Index* indices) {
  ctx.ParallelFor(rows, cols * 8 + 1, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> order(static_cast<size_t>(cols));
    for (int64_t r = begin; r < end; ++r) {
      const T* row = in + r * cols;
      for (int64_t c = 0; c < cols; ++c) order[c] = c;
      auto before = [row](int64_t a, int64_t b) {
        if (RanksBefore(row[a], row[b])) return true;
        if (RanksBefore(row[b], row[a])) return false;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        values[r * k + j] = row[order[j]];
        indices[r * k + j] = static_cast<Index>(order[j]);
      }
    }
  });
}

class TopKV2Kernel : public sdk::Kernel {
 public:
  explicit TopKV2Kernel(KernelConstruction& ctx) : index_type_(ctx.output_type(1)) {}

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView k_input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &k_input));
    if (k_input.rank() != 0) {
      return sdk::InvalidArgument("k must be scalar, got shape ", k_input.shape().DebugString());
    }
    const int64_t k = IntegerAt(k_input, 0);
    if (k < 0) return sdk::InvalidArgument("Need k >= 0, got ", k);
    if (input.rank() < 1) {
      return sdk::InvalidArgument("input must be >= 1-D, got shape ", input.shape().DebugString());
    }
    const int64_t cols = input.dim(input.rank() - 1);
    if (cols < k) {
      return sdk::InvalidArgument("input must have at least k columns. Had ", cols, ", needed ",
                                  k);
    }
    if (index_type_ == TSR_DTYPE_INT16 && cols - 1 > std::numeric_limits<int16_t>::max()) {
      return sdk::InvalidArgument("input has ", cols,
                                  " columns, more than int16 indices can number");
    }
    Shape out_shape = input.shape();
    out_shape.set_dim(input.rank() - 1, k);
    TensorView values;
    TensorView indices;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &values));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(1, out_shape, &indices));
    if (values.num_elements() == 0) return OkStatus();
    const int64_t rows = input.num_elements() / cols;
    return DispatchTypes<float, double, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t,
                         int64_t, uint64_t>(ctx, input.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* in = input.data<const T>();
      T* out = values.data<T>();
      switch (index_type_) {
        case TSR_DTYPE_INT16:
          TopKRows(ctx, in, rows, cols, k, out, indices.data<int16_t>());
          return OkStatus();
        case TSR_DTYPE_INT32:
          TopKRows(ctx, in, rows, cols, k, out, indices.data<int32_t>());
          return OkStatus();
        case TSR_DTYPE_INT64:
          TopKRows(ctx, in, rows, cols, k, out, indices.data<int64_t>());
          return OkStatus();
        default:
          return UnsupportedType(ctx, index_type_);
      }
    });
  }

 private:
  TSR_DataType index_type_;
};

}  // namespace

Status RegisterTopKKernels(TSR_Registrar* registrar) {
  const std::vector<TSR_DataType> index_types = {TSR_DTYPE_INT16, TSR_DTYPE_INT32,
                                                 TSR_DTYPE_INT64};
  return sdk::RegisterKernel<TopKV2Kernel>(
      registrar, "TopKV2", kCpu,
      {{"T",
        {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT8, TSR_DTYPE_UINT8, TSR_DTYPE_INT16,
         TSR_DTYPE_UINT16, TSR_DTYPE_INT32, TSR_DTYPE_UINT32, TSR_DTYPE_INT64, TSR_DTYPE_UINT64}},
       {"Tk", index_types},
       {"index_type", index_types}},
      0, 0, {"k"});
}

}  // namespace tessera::cpu
