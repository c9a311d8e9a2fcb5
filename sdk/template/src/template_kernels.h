// The kernels this plugin runs on TEMPLATE devices: its own TemplateScale, and AddV2 (an op the
// host defines) so that the graph around TemplateScale can stay on the device.
#ifndef TEMPLATE_PLUGIN_TEMPLATE_KERNELS_H_
#define TEMPLATE_PLUGIN_TEMPLATE_KERNELS_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace template_plugin {

// Registers every kernel. Call during TSR_Plugin_Init, after RegisterOps.
tessera::sdk::Status RegisterKernels(TSR_Registrar* registrar);

}  // namespace template_plugin

#endif  // TEMPLATE_PLUGIN_TEMPLATE_KERNELS_H_
