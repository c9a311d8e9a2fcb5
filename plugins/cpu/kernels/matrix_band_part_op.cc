// MatrixBandPart on CPU (every fixed-size dtype; num_lower and num_upper int32/int64 in host
// memory): each innermost matrix keeps element (m, n) where (num_lower < 0 || m - n <= num_lower)
// and (num_upper < 0 || n - m <= num_upper), and zeros the rest.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class MatrixBandPartKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView lower_view;
    TensorView upper_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &lower_view));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &upper_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, lower_view, "num_lower"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, upper_view, "num_upper"));
    if (input.rank() < 2) {
      return sdk::InvalidArgument("input must be at least 2-dim, received shape: ",
                                  input.shape().DebugString());
    }
    if (lower_view.rank() != 0) {
      return sdk::InvalidArgument("num_lower must be scalar, got shape ",
                                  lower_view.shape().DebugString());
    }
    if (upper_view.rank() != 0) {
      return sdk::InvalidArgument("num_upper must be scalar, got shape ",
                                  upper_view.shape().DebugString());
    }
    const int64_t rows = input.dim(input.rank() - 2);
    const int64_t cols = input.dim(input.rank() - 1);
    const int64_t lower = IndexAt(lower_view, 0);
    const int64_t upper = IndexAt(upper_view, 0);
    if (lower > rows) {
      return sdk::InvalidArgument(
          "num_lower must be negative or less or equal to number of rows (", rows, ") got: ",
          lower);
    }
    if (upper > cols) {
      return sdk::InvalidArgument(
          "num_upper must be negative or less or equal to number of columns (", cols, ") got: ",
          upper);
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, input.shape(), &out));
    const int64_t n = input.num_elements();
    if (n == 0) return OkStatus();
    const size_t size = sdk::DataTypeSize(input.dtype());
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    const int64_t matrices = n / (rows * cols);
    // One matrix row per unit: copy the band, zero the rest (in place when the input was handed
    // over, where the copy is a no-op).
    ctx.ParallelFor(matrices * rows, cols + 1, [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t m = unit % rows;
        const int64_t band_begin = lower < 0 ? 0 : std::max<int64_t>(0, m - lower);
        const int64_t band_end = upper < 0 ? cols : std::min<int64_t>(cols, m + upper + 1);
        char* row = dst + unit * cols * static_cast<int64_t>(size);
        const char* from = src + unit * cols * static_cast<int64_t>(size);
        if (band_begin >= band_end) {
          std::memset(row, 0, static_cast<size_t>(cols) * size);
          continue;
        }
        std::memset(row, 0, static_cast<size_t>(band_begin) * size);
        if (row != from) {
          std::memcpy(row + band_begin * static_cast<int64_t>(size),
                      from + band_begin * static_cast<int64_t>(size),
                      static_cast<size_t>(band_end - band_begin) * size);
        }
        std::memset(row + band_end * static_cast<int64_t>(size), 0,
                    static_cast<size_t>(cols - band_end) * size);
      }
    });
    return OkStatus();
  }
};

}  // namespace

Status RegisterMatrixBandPartKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<MatrixBandPartKernel>(
      registrar, "MatrixBandPart", kCpu, {{"T", AllTypes()}, {"Tindex", IndexTypes()}}, 0, 0,
      {"num_lower", "num_upper"});
}

}  // namespace tessera::cpu
