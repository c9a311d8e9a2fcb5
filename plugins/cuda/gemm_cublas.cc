// Gemm through cuBLAS (float32 with TF32 tensor cores unless the device option allow_tf32 is
// false, as TensorFlow; float16 and bfloat16 accumulating in float32). Row-major products are
// column-major ones with the operands swapped: C = A B is C^T = B^T A^T.
#include <cublas_v2.h>

#include <memory>
#include <mutex>

#include "plugins/cuda/gemm.h"
#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"

namespace tessera::gpu {
namespace {

using sdk::KernelContext;
using sdk::Status;

Status BlasStatus(cublasStatus_t status, KernelContext& ctx, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return sdk::OkStatus();
  const TSR_Code code =
      status == CUBLAS_STATUS_ALLOC_FAILED ? TSR_CODE_RESOURCE_EXHAUSTED : TSR_CODE_INTERNAL;
  return sdk::MakeStatus(code, sdk::StrCat("node '", ctx.node_name(), "': cuBLAS ", call,
                                           " failed: ", cublasGetStatusName(status), " (",
                                           cublasGetStatusString(status), ")"));
}

// The device's handle, made on first use.
Status Handle(TSR_Device* device, KernelContext& ctx, cublasHandle_t* handle) {
  if (!device->blas) {
    cublasHandle_t created = nullptr;
    TESSERA_SDK_RETURN_IF_ERROR(BlasStatus(cublasCreate(&created), ctx, "Create"));
    const int ordinal = device->ordinal;
    device->blas = std::shared_ptr<void>(created, [ordinal](void* h) {
      cudaSetDevice(ordinal);
      cublasDestroy(static_cast<cublasHandle_t>(h));
    });
  }
  *handle = static_cast<cublasHandle_t>(device->blas.get());
  return sdk::OkStatus();
}

}  // namespace

Status Gemm(KernelContext& ctx, TSR_DataType dtype, const GemmProduct& p, const void* x,
            const void* y, void* out) {
  TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
  TSR_Device* device = ctx.device();
  cudaDataType_t type = CUDA_R_32F;
  cublasComputeType_t compute =
      device->allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  if (dtype == TSR_DTYPE_HALF) {
    type = CUDA_R_16F;
    compute = CUBLAS_COMPUTE_32F;
  } else if (dtype == TSR_DTYPE_BFLOAT16) {
    type = CUDA_R_16BF;
    compute = CUBLAS_COMPUTE_32F;
  }
  const float one = 1.0f;
  const float zero = 0.0f;
  std::lock_guard<std::mutex> lock(device->blas_mu);
  cublasHandle_t handle = nullptr;
  TESSERA_SDK_RETURN_IF_ERROR(Handle(device, ctx, &handle));
  TESSERA_SDK_RETURN_IF_ERROR(
      BlasStatus(cublasSetStream(handle, NativeStream(ctx.stream())), ctx, "SetStream"));
  // Column-major: (n x m) = op(y)^T-as-stored (n x k) times op(x)^T-as-stored (k x m).
  return BlasStatus(
      cublasGemmStridedBatchedEx(
          handle, p.transpose_y ? CUBLAS_OP_T : CUBLAS_OP_N,
          p.transpose_x ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(p.n), static_cast<int>(p.m),
          static_cast<int>(p.k), &one, y, type, static_cast<int>(p.y_cols), p.y_stride, x, type,
          static_cast<int>(p.x_cols), p.x_stride, &zero, out, type, static_cast<int>(p.n),
          p.m * p.n, static_cast<int>(p.batch), compute, CUBLAS_GEMM_DEFAULT),
      ctx, "GemmStridedBatchedEx");
}

}  // namespace tessera::gpu
