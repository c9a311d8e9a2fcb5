// The TEMPLATE device type: devices whose memory is ordinary host memory (the host reads and
// writes it directly, TSR_DEVICE_FLAG_HOST_MEMORY) and whose work runs synchronously (no
// streams). Replace the memory and copy functions with your hardware's.
#ifndef TEMPLATE_PLUGIN_TEMPLATE_DEVICE_H_
#define TEMPLATE_PLUGIN_TEMPLATE_DEVICE_H_

#include <cstddef>
#include <cstdint>

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace template_plugin {

inline constexpr char kDeviceType[] = "TEMPLATE";
// Below CPU's 60: the placer puts a node here only when it is pinned to TEMPLATE or only TEMPLATE
// has a kernel for it (TemplateScale).
inline constexpr int32_t kDevicePriority = 50;
inline constexpr int32_t kDeviceCount = 1;
// Every allocation is aligned to at least this (what Eigen and SIMD loads want).
inline constexpr size_t kMemoryAlignment = 64;

// Registers the TEMPLATE device type. Call during TSR_Plugin_Init.
tessera::sdk::Status RegisterDevice(TSR_Registrar* registrar);

}  // namespace template_plugin

#endif  // TEMPLATE_PLUGIN_TEMPLATE_DEVICE_H_
