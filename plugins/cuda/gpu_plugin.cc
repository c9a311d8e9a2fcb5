// Everything the GPU plugin registers (its entry point, plugin.cc, first checks for a device).
#include "plugins/cuda/gpu_plugin.h"

#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"

namespace tessera::gpu {

sdk::Status RegisterGpuPlugin(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterGpuDevice(registrar));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterElementwiseKernels(registrar));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterMatMulKernels(registrar));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReductionKernels(registrar));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterTrainingKernels(registrar));
  return RegisterArrayKernels(registrar);
}

}  // namespace tessera::gpu
