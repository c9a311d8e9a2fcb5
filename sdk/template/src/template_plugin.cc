// The template plugin's entry point, the one symbol the library exports: checks the host's ABI,
// then registers the TEMPLATE device type, the TemplateScale op and the kernels.
#include <exception>

#include "tessera/sdk/plugin.h"
#include "template_device.h"
#include "template_kernels.h"
#include "template_ops.h"

namespace {

// Must equal tessera_add_plugin's NAME (the manifest's "name"): the host refuses a library that
// reports another name than its manifest.
constexpr char kPluginName[] = "template";

}  // namespace

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  // The version is the project's (CMakeLists.txt). Minimum host minor 0: the plugin calls no
  // slot added after ABI 1.0.
  const tessera::sdk::PluginInitResult init = tessera::sdk::InitializePlugin(
      args, {kPluginName, TEMPLATE_PLUGIN_VERSION, /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  // Nothing may throw across the C boundary.
  try {
    tessera::sdk::Status status = template_plugin::RegisterDevice(args->registrar);
    if (status.ok()) status = template_plugin::RegisterOps(args->registrar);
    if (status.ok()) status = template_plugin::RegisterKernels(args->registrar);
    return status.Release();
  } catch (const std::exception& e) {
    return tessera::sdk::Internal(kPluginName, " plugin initialization threw: ", e.what())
        .Release();
  } catch (...) {
    return tessera::sdk::Internal(kPluginName, " plugin initialization threw an unknown exception")
        .Release();
  }
}
