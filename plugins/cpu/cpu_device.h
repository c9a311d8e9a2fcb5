// The "CPU" device type: devices (one by default, up to 256 on request) whose memory is
// 64-byte-aligned host memory.
#ifndef TESSERA_PLUGINS_CPU_CPU_DEVICE_H_
#define TESSERA_PLUGINS_CPU_CPU_DEVICE_H_

#include <cstddef>
#include <cstdint>

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::cpu {

inline constexpr char kDeviceType[] = "CPU";
// TensorFlow's ThreadPool CPU device priority.
inline constexpr int kDevicePriority = 60;
// Alignment of every Memory_Allocate result (the host's tensor alignment).
inline constexpr size_t kMemoryAlignment = 64;
// Freed blocks of 256 KiB and more that the devices keep for reuse, at most (host_memory.h).
// None under AddressSanitizer, so that a kernel that touches a freed tensor is still caught.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr size_t kMemoryCacheBytes = 0;
#else
inline constexpr size_t kMemoryCacheBytes = size_t{256} << 20;
#endif
// Devices when the configuration says nothing, and the most it may ask for (CPU:0 .. CPU:255).
inline constexpr int32_t kDefaultDeviceCount = 1;
inline constexpr int32_t kMaxDeviceCount = 256;

// Registers the CPU device type with the host.
sdk::Status RegisterCpuDevice(TSR_Registrar* registrar);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_CPU_DEVICE_H_
