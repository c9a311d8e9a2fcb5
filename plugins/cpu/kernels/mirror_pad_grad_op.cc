// MirrorPadGrad on CPU (float, double, int32, int64): folds a MirrorPad-ed gradient back onto the
// unpadded shape, one dimension at a time, adding each mirrored element to its source.
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// The source index (in [0, size)) of padded index `i` of a dimension padded by `before`.
int64_t MirrorSource(int64_t i, int64_t before, int64_t size, int64_t offset) {
  const int64_t j = i - before;
  if (j < 0) return -j - 1 + offset;
  if (j >= size) return 2 * size - j - 1 - offset;
  return j;
}

// Folds dimension `d` of `in` (shape `in_dims`) from in_dims[d] to `size` entries into `out`.
template <typename T>
void FoldDimension(const KernelContext& ctx, const T* in, const std::vector<int64_t>& in_dims,
                   int d, int64_t before, int64_t size, int64_t offset, T* out) {
  int64_t outer = 1;
  int64_t inner = 1;
  for (int k = 0; k < d; ++k) outer *= in_dims[k];
  for (size_t k = d + 1; k < in_dims.size(); ++k) inner *= in_dims[k];
  const int64_t padded = in_dims[d];
  ctx.ParallelFor(outer, padded * inner + 8, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      T* dst = out + o * size * inner;
      for (int64_t c = 0; c < size * inner; ++c) dst[c] = T(0);
      const T* src = in + o * padded * inner;
      for (int64_t i = 0; i < padded; ++i) {
        T* row = dst + MirrorSource(i, before, size, offset) * inner;
        for (int64_t c = 0; c < inner; ++c) row[c] = WrappingAdd(row[c], src[i * inner + c]);
      }
    }
  });
}

class MirrorPadGradKernel : public sdk::Kernel {
 public:
  explicit MirrorPadGradKernel(KernelConstruction& ctx) {
    std::string mode;
    ctx.SetStatus(ctx.GetAttr("mode", &mode));
    if (mode == "REFLECT") {
      offset_ = 1;
    } else if (mode == "SYMMETRIC") {
      offset_ = 0;
    } else if (ctx.ok()) {
      ctx.SetStatus(sdk::InvalidArgument("mode must be either REFLECT or SYMMETRIC."));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView paddings;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &paddings));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, paddings, "paddings"));
    if (paddings.rank() != 2 || paddings.dim(1) != 2) {
      return sdk::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                  paddings.shape().DebugString());
    }
    const int rank = input.rank();
    if (paddings.dim(0) != rank) {
      return sdk::InvalidArgument("The first dimension of paddings must be the rank of inputs",
                                  paddings.shape().DebugString(), " ", input.shape().DebugString());
    }
    const std::vector<int64_t> pads = IntegersOf(paddings);
    Shape out_shape;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = pads[2 * d];
      const int64_t after = pads[2 * d + 1];
      if (before < 0 || after < 0) {
        return sdk::InvalidArgument("Paddings must be non-negative: ", before, ", ", after);
      }
      const int64_t size = input.dim(d) - (before + after);
      if (offset_ == 0 && (before > size || after > size)) {
        return sdk::InvalidArgument("paddings must be no greater than the output dimension size: ",
                                    before, ", ", after, " greater than ", size);
      }
      if (offset_ == 1 && (before >= size || after >= size)) {
        return sdk::InvalidArgument("paddings must be less than the output dimension size: ",
                                    before, ", ", after, " not less than ", size);
      }
      out_shape.AddDim(size);
    }
    if (out_shape == input.shape()) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, input.dtype(), [&](auto zero) {
      using T = decltype(zero);
      return Fold<T>(ctx, input, pads, out);
    });
  }

 private:
  // Folds every padded dimension in turn, through two scratch buffers, the last into `out`.
  template <typename T>
  Status Fold(const KernelContext& ctx, const TensorView& input, const std::vector<int64_t>& pads,
              TensorView& out) const {
    std::vector<int> padded_dims;
    for (int d = 0; d < input.rank(); ++d) {
      if (pads[2 * d] != 0 || pads[2 * d + 1] != 0) padded_dims.push_back(d);
    }
    const Shape in_shape = input.shape();
    std::vector<int64_t> dims(in_shape.dims(), in_shape.dims() + in_shape.rank());
    std::vector<T> buffers[2];
    const T* current = input.data<const T>();
    for (size_t k = 0; k < padded_dims.size(); ++k) {
      const int d = padded_dims[k];
      const int64_t size = out.dim(d);
      const bool last = k + 1 == padded_dims.size();
      T* next = out.data<T>();
      if (!last) {
        int64_t count = size;
        for (int j = 0; j < input.rank(); ++j) count *= j == d ? 1 : dims[j];
        buffers[k % 2].resize(static_cast<size_t>(count));
        next = buffers[k % 2].data();
      }
      FoldDimension(ctx, current, dims, d, pads[2 * d], size, offset_, next);
      dims[d] = size;
      current = next;
    }
    return OkStatus();
  }

  int64_t offset_ = 0;  // 1 skips the edge element (REFLECT), 0 repeats it (SYMMETRIC)
};

}  // namespace

Status RegisterMirrorPadGradKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<MirrorPadGradKernel>(
      registrar, "MirrorPadGrad", kCpu, {{"T", RealNumberTypes()}, {"Tpaddings", IndexTypes()}}, 0,
      0, {"paddings"});
}

}  // namespace tessera::cpu
