// The "CPU" device type: one device whose memory is 64-byte-aligned host memory.
#ifndef TESSERA_PLUGINS_CPU_CPU_DEVICE_H_
#define TESSERA_PLUGINS_CPU_CPU_DEVICE_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::cpu {

inline constexpr char kDeviceType[] = "CPU";
// TensorFlow's ThreadPool CPU device priority.
inline constexpr int kDevicePriority = 60;
// Alignment of every Memory_Allocate result (the host's tensor alignment).
inline constexpr size_t kMemoryAlignment = 64;

// Registers the CPU device type with the host.
sdk::Status RegisterCpuDevice(TSR_Registrar* registrar);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_CPU_DEVICE_H_
