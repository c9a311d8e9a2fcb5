// The CPU plugin's entry point: the CPU device type and the standard kernel library.
#include "tessera/sdk/plugin.h"

#include "plugins/cpu/cpu_device.h"
#include "plugins/cpu/kernels/register_kernels.h"

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  using tessera::sdk::Status;
  const tessera::sdk::PluginInitResult init =
      tessera::sdk::InitializePlugin(args, {"cpu", "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  try {
    Status status = tessera::cpu::RegisterCpuDevice(args->registrar);
    if (!status.ok()) return status.Release();
    return tessera::cpu::RegisterAllKernels(args->registrar).Release();
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("cpu plugin initialization threw: ", e.what()).Release();
  } catch (...) {
    return tessera::sdk::Internal("cpu plugin initialization threw an unknown exception").Release();
  }
}
