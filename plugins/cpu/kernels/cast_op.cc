// Cast on CPU between float, double, bool and the 8- to 64-bit integer types (bool results are
// value != 0, as in TensorFlow), as a static_cast loop per dtype pair on the host's pool.
#include <cstring>
#include <type_traits>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename Src, typename Dst>
void CastElements(const KernelContext& ctx, const Src* in, Dst* out, int64_t n) {
  ctx.ParallelFor(n, 2, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_same_v<Dst, bool>) {
        out[i] = in[i] != Src(0);
      } else {
        out[i] = static_cast<Dst>(in[i]);
      }
    }
  });
}

class CastKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TSR_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TSR_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input.shape(), &out));
    const int64_t n = input.num_elements();
    if (n == 0) return OkStatus();
    if (input.dtype() == out.dtype()) {
      std::memcpy(out.raw_data(), input.raw_data(), out.byte_size());
      return OkStatus();
    }
    return DispatchCast(ctx, input, out, n);
  }

 private:
  template <typename Src>
  static Status CastFrom(const KernelContext& ctx, const TensorView& input, const TensorView& out,
                         int64_t n) {
    return DispatchTypes<float, double, int32_t, int64_t, bool, uint8_t, int8_t, int16_t, uint16_t,
                         uint32_t, uint64_t>(ctx, out.dtype(), [&](auto tag) {
      using Dst = decltype(tag);
      CastElements<Src, Dst>(ctx, input.data<const Src>(), out.data<Dst>(), n);
      return OkStatus();
    });
  }

  static Status DispatchCast(const KernelContext& ctx, const TensorView& input,
                             const TensorView& out, int64_t n) {
    return DispatchTypes<float, double, int32_t, int64_t, bool, uint8_t, int8_t, int16_t, uint16_t,
                         uint32_t, uint64_t>(
        ctx, input.dtype(), [&](auto tag) { return CastFrom<decltype(tag)>(ctx, input, out, n); });
  }
};

}  // namespace

Status RegisterCastKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<CastKernel>(registrar, "Cast", kCpu,
                                         {{"SrcT", CastTypes()}, {"DstT", CastTypes()}},
                                         TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
