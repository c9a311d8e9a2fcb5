// testdevice: a test-only plugin providing the TESTDEV device type, whose memory the host can only
// reach through the plugin's copy functions (bytes are stored scrambled), and a few kernels on it,
// so that cross-device placement and transfers are tested without GPU hardware.
#include <exception>

#include "plugins/testing/testdevice_device.h"
#include "plugins/testing/testdevice_kernels.h"
#include "tessera/sdk/plugin.h"

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  const tessera::sdk::PluginInitResult init = tessera::sdk::InitializePlugin(
      args, {"testdevice", "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  try {
    tessera::sdk::Status status = tessera::testdevice::RegisterTestDevice(args->registrar);
    if (!status.ok()) return status.Release();
    return tessera::testdevice::RegisterTestDeviceKernels(args->registrar).Release();
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("testdevice plugin initialization threw: ", e.what()).Release();
  } catch (...) {
    return tessera::sdk::Internal("testdevice plugin initialization threw an unknown exception")
        .Release();
  }
}
