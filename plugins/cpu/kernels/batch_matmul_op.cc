// BatchMatMulV2 and BatchMatMulV3 on CPU: [..., r, c] matrices whose batch dimensions broadcast;
// BatchMatMul, whose operands have the same rank and batch dimensions. float and double go through
// the GEMM layer (whole products spread over the host's pool, or cut into blocks when there are
// fewer products than threads); int32 and int64 through plain loops per product.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/gemm/gemm.h"
#include "plugins/cpu/kernels/gemm/gemm_kernel.h"
#include "plugins/cpu/kernels/gemm/parallel.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// The broadcast batch shape of x and y and, for every output product, which x and y matrices
// it multiplies.
struct BatchPlan {
  Shape batch;
  std::vector<int64_t> x_index;
  std::vector<int64_t> y_index;
};

// False when the batch dimensions do not broadcast.
bool PlanBatch(const TensorView& x, const TensorView& y, BatchPlan* plan) {
  const int x_rank = x.rank() - 2;
  const int y_rank = y.rank() - 2;
  const int rank = std::max(x_rank, y_rank);
  plan->batch = Shape();
  for (int d = 0; d < rank; ++d) {
    const int xd = d - (rank - x_rank);
    const int yd = d - (rank - y_rank);
    const int64_t xs = xd >= 0 ? x.dim(xd) : 1;
    const int64_t ys = yd >= 0 ? y.dim(yd) : 1;
    if (xs != ys && xs != 1 && ys != 1) return false;
    plan->batch.AddDim(xs == 1 ? ys : xs);
  }
  const int64_t count = plan->batch.num_elements();
  plan->x_index.assign(static_cast<size_t>(count), 0);
  plan->y_index.assign(static_cast<size_t>(count), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i;
    int64_t x_stride = 1;
    int64_t y_stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % plan->batch.dim(d);
      rest /= plan->batch.dim(d);
      const int xd = d - (rank - x_rank);
      const int yd = d - (rank - y_rank);
      if (xd >= 0) {
        if (x.dim(xd) != 1) plan->x_index[i] += coordinate * x_stride;
        x_stride *= x.dim(xd);
      }
      if (yd >= 0) {
        if (y.dim(yd) != 1) plan->y_index[i] += coordinate * y_stride;
        y_stride *= y.dim(yd);
      }
    }
  }
  return true;
}

// TensorFlow's BatchMatMul (the first version) does not broadcast: the operands have one rank and
// the same batch dimensions.
Status CheckSameBatch(const TensorView& x, const TensorView& y) {
  if (x.rank() != y.rank()) {
    return sdk::InvalidArgument("In[0] and In[1] has different ndims: ", x.shape().DebugString(),
                                " vs. ", y.shape().DebugString());
  }
  if (x.rank() < 2) return sdk::InvalidArgument("In[0] and In[1] ndims must be >= 2: ", x.rank());
  for (int d = 0; d < x.rank() - 2; ++d) {
    if (x.dim(d) != y.dim(d)) {
      return sdk::InvalidArgument("In[0].dim(", d, ") and In[1].dim(", d,
                                  ") must be the same: ", x.shape().DebugString(), " vs ",
                                  y.shape().DebugString());
    }
  }
  return OkStatus();
}

enum class Version { kV1, kV2, kV3 };

template <Version kVersion>
class BatchMatMulKernel : public sdk::Kernel {
 public:
  explicit BatchMatMulKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("adj_x", &adj_x_));
    ctx.SetStatus(ctx.GetAttr("adj_y", &adj_y_));
    if constexpr (kVersion == Version::kV3) {
      // TensorFlow's CPU kernels of BatchMatMulV3 for these types multiply one type into itself.
      TSR_DataType ta = TSR_DTYPE_INVALID;
      TSR_DataType tb = TSR_DTYPE_INVALID;
      TSR_DataType tout = TSR_DTYPE_INVALID;
      ctx.SetStatus(ctx.GetAttr("Ta", &ta));
      ctx.SetStatus(ctx.GetAttr("Tb", &tb));
      ctx.SetStatus(ctx.GetAttr("Tout", &tout));
      if (ctx.ok() && (ta != tb || ta != tout)) {
        ctx.SetStatus(sdk::Unimplemented(
            "node '", ctx.node_name(), "' (BatchMatMulV3) has no CPU kernel for Ta=",
            sdk::DataTypeName(ta), ", Tb=", sdk::DataTypeName(tb),
            ", Tout=", sdk::DataTypeName(tout), ": the three types must be the same"));
      }
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView y;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &y));
    if constexpr (kVersion == Version::kV1) {
      TESSERA_SDK_RETURN_IF_ERROR(CheckSameBatch(x, y));
    }
    if (x.rank() < 2) return sdk::InvalidArgument("In[0] ndims must be >= 2: ", x.rank());
    if (y.rank() < 2) return sdk::InvalidArgument("In[1] ndims must be >= 2: ", y.rank());
    BatchPlan plan;
    if (!PlanBatch(x, y, &plan)) {
      return sdk::InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ",
                                  x.shape().DebugString(), " vs. ", y.shape().DebugString());
    }
    const int64_t x_rows = x.dim(x.rank() - 2);
    const int64_t x_cols = x.dim(x.rank() - 1);
    const int64_t y_rows = y.dim(y.rank() - 2);
    const int64_t y_cols = y.dim(y.rank() - 1);
    const int64_t m = adj_x_ ? x_cols : x_rows;
    const int64_t k = adj_x_ ? x_rows : x_cols;
    const int64_t n = adj_y_ ? y_rows : y_cols;
    if (k != (adj_y_ ? y_cols : y_rows)) {
      return sdk::InvalidArgument("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                                  ", In[1]: ", y.shape().DebugString());
    }
    Shape out_shape = plan.batch;
    out_shape.AddDim(m);
    out_shape.AddDim(n);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      GemmArgs<T> shape;
      shape.transpose_a = adj_x_;
      shape.transpose_b = adj_y_;
      shape.m = m;
      shape.n = n;
      shape.k = k;
      shape.lda = x_cols;
      shape.ldb = y_cols;
      shape.ldc = n;
      const int64_t count = plan.batch.num_elements();
      std::vector<const T*> a(static_cast<size_t>(count));
      std::vector<const T*> b(static_cast<size_t>(count));
      std::vector<T*> c(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        a[i] = x.data<const T>() + plan.x_index[i] * x_rows * x_cols;
        b[i] = y.data<const T>() + plan.y_index[i] * y_rows * y_cols;
        c[i] = out.data<T>() + i * m * n;
      }
      if constexpr (std::is_floating_point_v<T>) {
        if (!BatchGemm(shape, count, a.data(), b.data(), c.data(), ctx.thread_pool(),
                       Cancellation(ctx))) {
          return StoppedStatus(ctx);
        }
      } else {
        const double work = 2.0 * static_cast<double>(m * n * k);
        ParallelItems(ctx.thread_pool(), count, work, [&](int, int64_t i) {
          GemmArgs<T> one = shape;
          one.a = a[i];
          one.b = b[i];
          one.c = c[i];
          IntegerGemm(one);
        });
      }
      return OkStatus();
    });
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

}  // namespace

Status RegisterBatchMatMulKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BatchMatMulKernel<Version::kV1>>(
      registrar, "BatchMatMul", kCpu, {{"T", RealNumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BatchMatMulKernel<Version::kV2>>(
      registrar, "BatchMatMulV2", kCpu, {{"T", RealNumberTypes()}}));
  return sdk::RegisterKernel<BatchMatMulKernel<Version::kV3>>(
      registrar, "BatchMatMulV3", kCpu,
      {{"Ta", RealNumberTypes()}, {"Tb", RealNumberTypes()}, {"Tout", RealNumberTypes()}});
}

}  // namespace tessera::cpu
