// UnaryKernel: an element-wise unary op evaluated as an Eigen expression in shards on the host's
// pool, writing in place when the host can forward the input.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_UNARY_OP_H_
#define TESSERA_PLUGINS_CPU_KERNELS_UNARY_OP_H_

#include "plugins/cpu/kernels/eigen_util.h"
#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

// Expr::Apply<T>(in) builds the Eigen expression of the op over the flat input `in`.
template <typename Expr, typename... Ts>
class UnaryKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    return DispatchTypes<Ts...>(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &out));
      if (out.num_elements() == 0) return OkStatus();
      const T* in = x.data<const T>();
      EvaluateSharded(ctx, out.data<T>(), out.num_elements(), [&](int64_t begin, int64_t size) {
        return Expr::template Apply<T>(FlatRange(in, begin, size));
      });
      return OkStatus();
    });
  }
};

template <typename Expr, typename... Ts>
Status RegisterUnaryKernel(TSR_Registrar* registrar, const char* op_name,
                           const std::vector<TSR_DataType>& dtypes) {
  return sdk::RegisterKernel<UnaryKernel<Expr, Ts...>>(registrar, op_name, kCpu, {{"T", dtypes}},
                                                       TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_UNARY_OP_H_
