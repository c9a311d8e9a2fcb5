// A small synchronous device for the kit's fakes: host memory behind the copy slots, a 64 MiB
// budget, allocation tracking and statistics. Each fake plugin registers it with one defect.
#ifndef TESSERA_KIT_FAKES_FAKE_DEVICE_H_
#define TESSERA_KIT_FAKES_FAKE_DEVICE_H_

#include <cstdint>

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::kit_fakes {

enum class Defect {
  kNone,
  // Memcpy_DeviceToHost leaves out the last byte of copies over 64 bytes.
  kDropsBytes,
  // Memory_Free answers OK but keeps the memory: bytes_in_use never goes down.
  kLeaks,
  // Out of memory is answered OK with a NULL pointer instead of RESOURCE_EXHAUSTED.
  kNullOnExhaustion,
};

inline constexpr int64_t kFakeMemoryBytes = int64_t{64} << 20;

// Registers `device_type` (one device by default, two when asked) with `defect`.
// `host_memory`: the memory may be read by the host directly (TSR_DEVICE_FLAG_HOST_MEMORY).
sdk::Status RegisterFakeDevice(TSR_Registrar* registrar, const char* device_type, Defect defect,
                               bool host_memory = false);

}  // namespace tessera::kit_fakes

#endif  // TESSERA_KIT_FAKES_FAKE_DEVICE_H_
