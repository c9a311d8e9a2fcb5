// CheckedBinaryKernel: a BinaryKernel whose right operand is validated first, so that integer
// division by zero and negative integer exponents fail with TensorFlow's errors before any output
// is written; plus the functor base that Eigen's bind1st_op/bind2nd_op need.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_CHECKED_BINARY_OP_H_
#define TESSERA_PLUGINS_CPU_KERNELS_CHECKED_BINARY_OP_H_

#include <type_traits>

#include "plugins/cpu/kernels/binary_op.h"

namespace tessera::cpu {

// Base of the plain scalar functors used with BinaryKernel (Eigen reads these typedefs).
template <typename T>
struct ScalarBinaryFn {
  using first_argument_type = T;
  using second_argument_type = T;
  using result_type = T;
};

// -x with two's-complement wrap-around (the lowest value maps to itself), as TensorFlow's kernels
// produce for lowest / -1.
template <typename T>
T WrappingNegate(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(x));
}

// Check::Run<T>(ctx, y) returns a non-OK status to reject the right operand `y`.
template <template <typename> class Op, typename Check, typename... Ts>
class CheckedBinaryKernel : public BinaryKernel<Op, Ts...> {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView y;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &y));
    // An empty operand makes the output empty: nothing is computed, so nothing can fail. Shapes
    // that do not broadcast are the base's error, reported first as in TensorFlow.
    if (x.dtype() == y.dtype() && x.num_elements() > 0 && y.num_elements() > 0) {
      BroadcastPlan plan;
      if (plan.Init(x.shape(), y.shape())) {
        TESSERA_SDK_RETURN_IF_ERROR(DispatchTypes<Ts...>(
            ctx, y.dtype(), [&](auto tag) { return Check::template Run<decltype(tag)>(ctx, y); }));
      }
    }
    return BinaryKernel<Op, Ts...>::Compute(ctx);
  }
};

template <template <typename> class Op, typename Check, typename... Ts>
Status RegisterCheckedBinaryKernel(TSR_Registrar* registrar, const char* op_name,
                                   const std::vector<TSR_DataType>& dtypes) {
  return sdk::RegisterKernel<CheckedBinaryKernel<Op, Check, Ts...>>(
      registrar, op_name, kCpu, {{"T", dtypes}}, TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_CHECKED_BINARY_OP_H_
