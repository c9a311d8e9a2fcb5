// Everything the GPU plugin registers (its entry point, plugin.cc, first checks for a device).
#include "plugins/cuda/gpu_plugin.h"

#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"

namespace tessera::gpu {

sdk::Status RegisterGpuPlugin(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterGpuDevice(registrar));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterElementwiseKernels(registrar));
  return RegisterMatMulKernels(registrar);
}

}  // namespace tessera::gpu
