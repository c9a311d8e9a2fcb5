// MatMul and BatchMatMulV2 on the GPU: shapes checked and broadcast here, each product enqueued by
// Gemm (gemm.h: cuBLAS for CUDA, the shared tiled kernel for HIP).
#include <vector>

#include "plugins/cuda/gemm.h"
#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/types.h"

namespace tessera::gpu {
namespace {

using sdk::KernelConstruction;
using sdk::KernelContext;
using sdk::Shape;
using sdk::Status;
using sdk::TensorView;

// The BLAS libraries and the tiled kernel take int dimensions.
Status CheckDims(const GemmProduct& p) {
  for (int64_t d : {p.m, p.n, p.k, p.x_cols, p.y_cols, p.batch}) {
    if (d > INT32_MAX) {
      return sdk::InvalidArgument("a matrix dimension of ", d,
                                  " is past the GPU matrix product's limit of ", INT32_MAX);
    }
  }
  return sdk::OkStatus();
}

class MatMulKernel : public sdk::Kernel {
 public:
  explicit MatMulKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("transpose_a", &transpose_a_));
    ctx.SetStatus(ctx.GetAttr("transpose_b", &transpose_b_));
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
    GemmProduct p;
    p.transpose_x = transpose_a_;
    p.transpose_y = transpose_b_;
    p.m = a.dim(transpose_a_ ? 1 : 0);
    p.k = a.dim(transpose_a_ ? 0 : 1);
    p.n = b.dim(transpose_b_ ? 0 : 1);
    if (p.k != b.dim(transpose_b_ ? 1 : 0)) {
      return sdk::InvalidArgument("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                  ", In[1]: ", b.shape().DebugString());
    }
    p.x_cols = a.dim(1);
    p.y_cols = b.dim(1);
    TESSERA_SDK_RETURN_IF_ERROR(CheckDims(p));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{p.m, p.n}, &out));
    if (out.num_elements() == 0) return sdk::OkStatus();
    if (p.k == 0) return ZeroFill(ctx, out);
    return Gemm(ctx, a.dtype(), p, a.raw_data(), b.raw_data(), out.raw_data());
  }

  // An empty inner dimension: every output element is an empty sum.
  static Status ZeroFill(KernelContext& ctx, const TensorView& out) {
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return GpuStatus(gpuMemsetAsync(out.raw_data(), 0, out.byte_size(), NativeStream(ctx.stream())),
                     sdk::StrCat("node '", ctx.node_name(), "'"), "MemsetAsync");
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

class BatchMatMulKernel : public sdk::Kernel {
 public:
  explicit BatchMatMulKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("adj_x", &adj_x_));
    ctx.SetStatus(ctx.GetAttr("adj_y", &adj_y_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView y;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &y));
    if (x.rank() < 2) return sdk::InvalidArgument("In[0] ndims must be >= 2: ", x.rank());
    if (y.rank() < 2) return sdk::InvalidArgument("In[1] ndims must be >= 2: ", y.rank());
    // The batch dimensions broadcast; per output batch, the x and y matrices it multiplies.
    Shape x_batch;
    Shape y_batch;
    for (int d = 0; d < x.rank() - 2; ++d) x_batch.AddDim(x.dim(d));
    for (int d = 0; d < y.rank() - 2; ++d) y_batch.AddDim(y.dim(d));
    Shape batch;
    BroadcastPlan plan;
    if (!MakeBroadcastPlan(x_batch, y_batch, &batch, &plan).ok()) {
      return sdk::InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ",
                                  x.shape().DebugString(), " vs. ", y.shape().DebugString());
    }
    const int64_t x_rows = x.dim(x.rank() - 2);
    const int64_t y_rows = y.dim(y.rank() - 2);
    GemmProduct p;
    p.transpose_x = adj_x_;
    p.transpose_y = adj_y_;
    p.x_cols = x.dim(x.rank() - 1);
    p.y_cols = y.dim(y.rank() - 1);
    p.m = adj_x_ ? p.x_cols : x_rows;
    p.k = adj_x_ ? x_rows : p.x_cols;
    p.n = adj_y_ ? y_rows : p.y_cols;
    if (p.k != (adj_y_ ? p.y_cols : y_rows)) {
      return sdk::InvalidArgument("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                                  ", In[1]: ", y.shape().DebugString());
    }
    Shape out_shape = batch;
    out_shape.AddDim(p.m);
    out_shape.AddDim(p.n);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return sdk::OkStatus();
    if (p.k == 0) return MatMulKernel::ZeroFill(ctx, out);
    const int64_t x_matrix = x_rows * p.x_cols;
    const int64_t y_matrix = y_rows * p.y_cols;
    const size_t element = sdk::DataTypeSize(x.dtype());
    const int64_t count = batch.num_elements();
    if (plan.mode != BroadcastPlan::kGeneral) {
      // One strided call: each side either walks its matrices or repeats its only one.
      p.batch = count;
      p.x_stride = plan.mode == BroadcastPlan::kXScalar ? 0 : x_matrix;
      p.y_stride = plan.mode == BroadcastPlan::kYScalar ? 0 : y_matrix;
      TESSERA_SDK_RETURN_IF_ERROR(CheckDims(p));
      return Gemm(ctx, x.dtype(), p, x.raw_data(), y.raw_data(), out.raw_data());
    }
    // Mixed broadcasting: one call per output matrix.
    TESSERA_SDK_RETURN_IF_ERROR(CheckDims(p));
    for (int64_t i = 0; i < count; ++i) {
      int64_t xi = 0;
      int64_t yi = 0;
      int64_t rest = i;
      for (int d = plan.rank - 1; d >= 0; --d) {
        const int64_t coordinate = rest % plan.dims[d];
        rest /= plan.dims[d];
        xi += coordinate * plan.x_strides[d];
        yi += coordinate * plan.y_strides[d];
      }
      TESSERA_SDK_RETURN_IF_ERROR(
          Gemm(ctx, x.dtype(), p, static_cast<const char*>(x.raw_data()) + xi * x_matrix * element,
               static_cast<const char*>(y.raw_data()) + yi * y_matrix * element,
               static_cast<char*>(out.raw_data()) + i * p.m * p.n * element));
    }
    return sdk::OkStatus();
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

}  // namespace

Status RegisterMatMulKernels(TSR_Registrar* registrar) {
    TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<MatMulKernel>(registrar, "MatMul", kDeviceType, {{"T", FloatingTypes()}}));
  return sdk::RegisterKernel<BatchMatMulKernel>(registrar, "BatchMatMulV2", kDeviceType,
                                                {{"T", FloatingTypes()}});
}

}  // namespace tessera::gpu
