// BoolBinaryKernel: an element-wise binary op with a bool result (comparisons, LogicalAnd,
// LogicalOr) and TensorFlow broadcasting, as plain loops over the coalesced index space of
// broadcast.h in ParallelFor shards.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_BOOL_BINARY_OP_H_
#define TESSERA_PLUGINS_CPU_KERNELS_BOOL_BINARY_OP_H_

#include <vector>

#include "plugins/cpu/kernels/broadcast.h"
#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

// The attr with which Equal and NotEqual turn a shape mismatch into a scalar result.
inline constexpr char kIncompatibleShapeErrorAttr[] = "incompatible_shape_error";

// Fn is a functor with `template <typename T> bool operator()(T x, T y) const` and
// `static constexpr bool kIncompatibleShapesResult`: the scalar result when the op has
// incompatible_shape_error = false and the shapes do not broadcast (TensorFlow: false for Equal,
// true for NotEqual; never read for ops without the attr). Ts are the input dtypes registered.
template <typename Fn, typename... Ts>
class BoolBinaryKernel : public sdk::Kernel {
 public:
  explicit BoolBinaryKernel(KernelConstruction& ctx) {
    // Only Equal and NotEqual have the attr; TensorFlow's kernels treat a missing one as true.
    if (ctx.HasAttr(kIncompatibleShapeErrorAttr)) {
      ctx.SetStatus(ctx.GetAttr(kIncompatibleShapeErrorAttr, &incompatible_shape_error_));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView y;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &y));
    if (x.dtype() != y.dtype()) {
      return sdk::InvalidArgument("node '", ctx.node_name(), "' has inputs of different dtypes: ",
                                  sdk::DataTypeName(x.dtype()), " vs. ",
                                  sdk::DataTypeName(y.dtype()));
    }
    return DispatchTypes<Ts...>(ctx, x.dtype(),
                                [&](auto tag) { return ComputeTyped<decltype(tag)>(ctx, x, y); });
  }

 private:
  template <typename T>
  Status ComputeTyped(KernelContext& ctx, const TensorView& x, const TensorView& y) const {
    const Shape x_shape = x.shape();
    const Shape y_shape = y.shape();
    const T* xp = x.data<const T>();
    const T* yp = y.data<const T>();
    TensorView out;
    // The host forwards an input only when its dtype is the output's (bool), so only logical
    // ops and bool comparisons reuse a buffer; each element is read before it is written.
    if (x_shape == y_shape) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0, 1}, 0, x_shape, &out));
      bool* op = out.data<bool>();
      const Fn fn{};
      ctx.ParallelFor(out.num_elements(), 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) op[i] = fn(xp[i], yp[i]);
      });
      return OkStatus();
    }
    BroadcastPlan plan;
    if (!plan.Init(x_shape, y_shape)) {
      if (incompatible_shape_error_) {
        return sdk::InvalidArgument("Incompatible shapes: ", x_shape.DebugString(), " vs. ",
                                    y_shape.DebugString());
      }
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape(), &out));
      *out.data<bool>() = Fn::kIncompatibleShapesResult;
      return OkStatus();
    }
    // An input with the output's element count has the output's shape (up to leading 1s), so it
    // is read at the output's own index and may be forwarded.
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0, 1}, 0, plan.output_shape(), &out));
    bool* op = out.data<bool>();
    ctx.ParallelFor(out.num_elements(), 2, [&](int64_t begin, int64_t end) {
      BroadcastLoop(plan, xp, yp, op, begin, end, Fn());
    });
    return OkStatus();
  }

  bool incompatible_shape_error_ = true;
};

// Registers BoolBinaryKernel<Fn, Ts...> for `op_name`: with T in `dtypes`, or with no type
// constraint when `dtypes` is empty (LogicalAnd and LogicalOr have no type attr).
template <typename Fn, typename... Ts>
Status RegisterBoolBinaryKernel(TSR_Registrar* registrar, const char* op_name,
                                const std::vector<TSR_DataType>& dtypes) {
  std::vector<sdk::TypeConstraint> constraints;
  if (!dtypes.empty()) constraints.push_back({"T", dtypes});
  return sdk::RegisterKernel<BoolBinaryKernel<Fn, Ts...>>(registrar, op_name, kCpu, constraints,
                                                          TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_BOOL_BINARY_OP_H_
