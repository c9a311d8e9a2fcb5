// InvertPermutation on CPU (int32, int64): y[x[i]] = i, with TensorFlow's checks that x is a
// permutation of 0..n-1.
#include <cstdint>
#include <limits>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename T>
Status Invert(const TensorView& x, TensorView& y) {
  const T* in = x.data<const T>();
  T* out = y.data<T>();
  const int64_t n = x.num_elements();
  for (int64_t i = 0; i < n; ++i) out[i] = -1;
  for (int64_t i = 0; i < n; ++i) {
    const T d = in[i];
    if (d < 0 || d >= n) return sdk::InvalidArgument(d, " is not between 0 and ", n);
    if (out[d] != -1) return sdk::InvalidArgument(d, " is duplicated in the input.");
    out[d] = static_cast<T>(i);
  }
  return OkStatus();
}

class InvertPermutationKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    if (x.rank() != 1) return sdk::InvalidArgument("invert_permutation expects a 1D vector.");
    if (x.num_elements() >= std::numeric_limits<int32_t>::max()) {
      return sdk::InvalidArgument(
          "permutation of nonnegative int32s must have <= int32 max elements");
    }
    TensorView y;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.shape(), &y));
    return DispatchTypes<int32_t, int64_t>(ctx, x.dtype(),
                                           [&](auto zero) { return Invert<decltype(zero)>(x, y); });
  }
};

}  // namespace

Status RegisterInvertPermutationKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<InvertPermutationKernel>(registrar, "InvertPermutation", kCpu,
                                                      {{"T", IndexTypes()}}, TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
