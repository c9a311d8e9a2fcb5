// The loopback plugin's entry point: registers the "loopback" transport. The transport itself
// (loopback_transport.cc) has no entry point, so that test plugins may reuse it under their own.
#include <exception>

#include "plugins/testing/loopback_transport.h"
#include "tessera/sdk/plugin.h"

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  const tessera::sdk::PluginInitResult init =
      tessera::sdk::InitializePlugin(args, {"loopback", "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  try {
    return tessera::loopback::RegisterLoopbackTransport(args->registrar);
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("loopback plugin initialization threw: ", e.what()).Release();
  } catch (...) {
    return tessera::sdk::Internal("loopback plugin initialization threw an unknown exception")
        .Release();
  }
}
