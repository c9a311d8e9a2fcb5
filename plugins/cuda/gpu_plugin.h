// What the GPU plugin registers, apart from its entry point (plugin.cc), so that tests can
// register it in-process on a machine without a GPU and check every registration.
#ifndef TESSERA_PLUGINS_CUDA_GPU_PLUGIN_H_
#define TESSERA_PLUGINS_CUDA_GPU_PLUGIN_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::gpu {

// The plugin's name in its manifest and TSR_PluginInfo.
#if defined(TESSERA_GPU_HIP)
inline constexpr char kPluginName[] = "rocm";
#else
inline constexpr char kPluginName[] = "cuda";
#endif

// The GPU device type and every GPU kernel.
sdk::Status RegisterGpuPlugin(TSR_Registrar* registrar);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_GPU_PLUGIN_H_
