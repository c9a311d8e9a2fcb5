// The ops this plugin defines (ops the host already knows, such as AddV2, need no definition).
#ifndef TEMPLATE_PLUGIN_TEMPLATE_OPS_H_
#define TEMPLATE_PLUGIN_TEMPLATE_OPS_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace template_plugin {

// TemplateScale(x: T, scale: float = 1.0) -> y: T, T in {float, double}: y = x * scale, with y
// shaped like x.
inline constexpr char kScaleOp[] = "TemplateScale";

// Registers every op above. Call during TSR_Plugin_Init, before the kernels.
tessera::sdk::Status RegisterOps(TSR_Registrar* registrar);

}  // namespace template_plugin

#endif  // TEMPLATE_PLUGIN_TEMPLATE_OPS_H_
