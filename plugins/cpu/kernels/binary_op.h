// BinaryKernel: an element-wise binary op with TensorFlow broadcasting. Same-shape and
// one-element operands run as Eigen expressions in shards on the host's pool, a row repeated over
// a matrix's rows as one long loop per group of rows; the general case runs the coalesced index
// loop of broadcast.h in ParallelFor shards.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_BINARY_OP_H_
#define TESSERA_PLUGINS_CPU_KERNELS_BINARY_OP_H_

#include "plugins/cpu/kernels/broadcast.h"
#include "plugins/cpu/kernels/eigen_util.h"
#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

// Op<T> is an Eigen binary functor (scalar_sum_op<T>, ...); Ts are the dtypes registered.
template <template <typename> class Op, typename... Ts>
class BinaryKernel : public sdk::Kernel {
 public:
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
  // Below this many elements the loop runs on the calling thread without Eigen's pool machinery.
  static constexpr int64_t kInlineElements = 4096;

  template <typename T>
  static Status ComputeTyped(KernelContext& ctx, const TensorView& x, const TensorView& y) {
    const sdk::Shape x_shape = x.shape();
    const sdk::Shape y_shape = y.shape();
    if (x_shape == y_shape) {
      // The common case: no broadcasting, no plan.
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0, 1}, 0, x_shape, &out));
      const int64_t n = out.num_elements();
      if (n <= kInlineElements) {
        const T* xp = x.data<const T>();
        const T* yp = y.data<const T>();
        T* op = out.data<T>();
        const Op<T> fn;
        for (int64_t i = 0; i < n; ++i) op[i] = fn(xp[i], yp[i]);
        return OkStatus();
      }
      const T* xp = x.data<const T>();
      const T* yp = y.data<const T>();
      EvaluateSharded(ctx, out.data<T>(), n, [&](int64_t begin, int64_t size) {
        return FlatRange(xp, begin, size).binaryExpr(FlatRange(yp, begin, size), Op<T>());
      });
      return OkStatus();
    }
    BroadcastPlan plan;
    if (!plan.Init(x_shape, y_shape)) {
      return sdk::InvalidArgument("Incompatible shapes: ", x_shape.DebugString(), " vs. ",
                                  y_shape.DebugString());
    }
    TensorView out;
    // Forwarding is safe even when broadcasting: an input with the output's size is read at the
    // output's own index.
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0, 1}, 0, plan.output_shape(), &out));
    const int64_t n = out.num_elements();
    if (n == 0) return OkStatus();
    const int64_t x_n = x.num_elements();
    const int64_t y_n = y.num_elements();
    const T* xp = x.data<const T>();
    const T* yp = y.data<const T>();
    T* op = out.data<T>();
    if (x_n == n && y_n == n) {
      EvaluateSharded(ctx, op, n, [&](int64_t begin, int64_t size) {
        return FlatRange(xp, begin, size).binaryExpr(FlatRange(yp, begin, size), Op<T>());
      });
    } else if (x_n == 1 && y_n == n) {
      EvaluateSharded(ctx, op, n, [&](int64_t begin, int64_t size) {
        return FlatRange(yp, begin, size).unaryExpr(Eigen::internal::bind1st_op<Op<T>>(*xp));
      });
    } else if (y_n == 1 && x_n == n) {
      EvaluateSharded(ctx, op, n, [&](int64_t begin, int64_t size) {
        return FlatRange(xp, begin, size).unaryExpr(Eigen::internal::bind2nd_op<Op<T>>(*yp));
      });
    } else if (plan.rank() == 2 && plan.x_stride(1) == 1 && plan.y_stride(1) == 1 &&
               (plan.x_stride(0) == 0) != (plan.y_stride(0) == 0)) {
      // One operand is a row repeated over the other's rows (a bias over the last axis).
      RowBroadcast<T>(ctx, plan.dim(0), plan.dim(1), xp, yp, plan.x_stride(0) == 0, op);
    } else {
      ctx.ParallelFor(n, 4, [&](int64_t begin, int64_t end) {
        BroadcastLoop(plan, xp, yp, op, begin, end, Op<T>());
      });
    }
    return OkStatus();
  }

  // out[r, c] = fn(x[r, c], y[c]), or fn(x[c], y[r, c]) when `x_is_row`, for `rows` x `cols`.
  template <typename T>
  static void RowBroadcast(KernelContext& ctx, int64_t rows, int64_t cols, const T* x,
                           const T* y, bool x_is_row, T* out) {
    const T* full = x_is_row ? y : x;
    ForRowRuns(ctx, x_is_row ? x : y, rows, cols, 2,
               [&](int64_t first, int64_t count, const T* row) {
                 const Op<T> fn;
                 const T* f = full + first;
                 T* o = out + first;
                 if (x_is_row) {
                   for (int64_t k = 0; k < count; ++k) o[k] = fn(row[k], f[k]);
                 } else {
                   for (int64_t k = 0; k < count; ++k) o[k] = fn(f[k], row[k]);
                 }
               });
  }
};

// Registers BinaryKernel<Op, Ts...> for `op_name` with T in `dtypes`.
template <template <typename> class Op, typename... Ts>
Status RegisterBinaryKernel(TSR_Registrar* registrar, const char* op_name,
                            const std::vector<TSR_DataType>& dtypes) {
  return sdk::RegisterKernel<BinaryKernel<Op, Ts...>>(registrar, op_name, kCpu, {{"T", dtypes}},
                                                      TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_BINARY_OP_H_
