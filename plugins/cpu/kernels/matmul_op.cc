// MatMul and _FusedMatMul (a bias and an activation after the product) on CPU: float and double
// through the GEMM layer (oneDNN / OpenBLAS blocks on the host's pool), int32 and int64 (MatMul
// only) through IntegerGemm over rows on the pool, the transposes chosen at run time.
#include <type_traits>

#include "plugins/cpu/kernels/fused_epilogue.h"
#include "plugins/cpu/kernels/gemm/gemm.h"
#include "plugins/cpu/kernels/gemm/gemm_kernel.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// MatMul, or _FusedMatMul (`kFused`): the product followed by a bias over its columns and maybe
// an activation (FusedEpilogue), applied to the product's rows on the pool.
template <bool kFused>
class MatMulKernel : public sdk::Kernel {
 public:
  explicit MatMulKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("transpose_a", &transpose_a_));
    ctx.SetStatus(ctx.GetAttr("transpose_b", &transpose_b_));
    if (kFused && ctx.ok()) ctx.SetStatus(epilogue_.Parse(ctx, "_FusedMatMul"));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView a;
    TensorView b;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &a));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &b));
    if (a.rank() != 2) {
      return sdk::InvalidArgument("In[0] is not a matrix. Instead it has shape ",
                                  a.shape().DebugString());
    }
    if (b.rank() != 2) {
      return sdk::InvalidArgument("In[1] is not a matrix. Instead it has shape ",
                                  b.shape().DebugString());
    }
    const int a_inner = transpose_a_ ? 0 : 1;
    const int b_inner = transpose_b_ ? 1 : 0;
    if (a.dim(a_inner) != b.dim(b_inner)) {
      return sdk::InvalidArgument("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                  ", In[1]: ", b.shape().DebugString());
    }
    const Shape out_shape{a.dim(1 - a_inner), b.dim(1 - b_inner)};
    if constexpr (kFused) {
      TensorView bias;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &bias));
      if (bias.rank() != 1 || bias.dim(0) != out_shape.dim(1)) {
        return sdk::InvalidArgument("_FusedMatMul's bias must be a vector of the product's ",
                                    out_shape.dim(1), " columns, got ",
                                    bias.shape().DebugString());
      }
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
      return DispatchTypes<float, double>(ctx, a.dtype(), [&](auto tag) {
        using T = decltype(tag);
        TESSERA_SDK_RETURN_IF_ERROR(Multiply<T>(ctx, a, b, a_inner, b_inner, out));
        if (out.num_elements() == 0) return OkStatus();
        epilogue_.Apply(ctx, bias.data<const T>(), out.data<T>(), out.dim(0), out.dim(1));
        return OkStatus();
      });
    } else {
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
      return DispatchTypes<float, double, int32_t, int64_t>(ctx, a.dtype(), [&](auto tag) {
        using T = decltype(tag);
        return Multiply<T>(ctx, a, b, a_inner, b_inner, out);
      });
    }
  }

 private:
  template <typename T>
  static Status Multiply(KernelContext& ctx, const TensorView& a, const TensorView& b, int a_inner,
                         int b_inner, const TensorView& out) {
    if (out.num_elements() == 0) return OkStatus();
    // Row-major A is m x k (k x m when transposed), B is k x n (n x k when transposed).
    GemmArgs<T> args;
    args.transpose_a = a_inner == 0;
    args.transpose_b = b_inner == 1;
    args.m = out.dim(0);
    args.n = out.dim(1);
    args.k = a.dim(a_inner);
    args.a = a.data<const T>();
    args.lda = a.dim(1);
    args.b = b.data<const T>();
    args.ldb = b.dim(1);
    args.c = out.data<T>();
    args.ldc = out.dim(1);
    if constexpr (std::is_floating_point_v<T>) {
      if (!Gemm(args, ctx.thread_pool(), Cancellation(ctx))) return StoppedStatus(ctx);
    } else {
      // Rows of C in parallel; an empty inner dimension sums nothing, so C is zeros.
      const double row_cost = static_cast<double>(args.n) * static_cast<double>(args.k) + 1;
      ctx.ParallelFor(args.m, CostPerUnit(row_cost), [&](int64_t begin, int64_t end) {
        GemmArgs<T> rows = args;
        rows.m = end - begin;
        rows.a = args.transpose_a ? args.a + begin : args.a + begin * args.lda;
        rows.c = args.c + begin * args.ldc;
        IntegerGemm(rows);
      });
    }
    return OkStatus();
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
  FusedEpilogue epilogue_;
};

}  // namespace

Status RegisterMatMulKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<MatMulKernel<false>>(
      registrar, "MatMul", kCpu, {{"T", RealNumberTypes()}}));
  return sdk::RegisterKernel<MatMulKernel<true>>(registrar, "_FusedMatMul", kCpu,
                                                 {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
