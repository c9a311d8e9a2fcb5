// The GPU plugin's entry point: without a usable device (no driver, a driver older than the
// runtime, no GPU) Init refuses with the reason, which `tessera plugins` shows, and the host goes
// on without the plugin; otherwise it registers the GPU device type and its kernels.
#include "tessera/sdk/plugin.h"

#include <exception>

#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_plugin.h"

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  const tessera::sdk::PluginInitResult init = tessera::sdk::InitializePlugin(
      args, {tessera::gpu::kPluginName, "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  try {
    int32_t count = 0;
    const std::string& reason = tessera::gpu::UnavailableReason(&count);
    if (!reason.empty()) {
      return tessera::sdk::MakeStatus(TSR_CODE_UNAVAILABLE, reason).Release();
    }
    return tessera::gpu::RegisterGpuPlugin(args->registrar).Release();
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("GPU plugin initialization threw: ", e.what()).Release();
  } catch (...) {
    return tessera::sdk::Internal("GPU plugin initialization threw an unknown exception").Release();
  }
}
