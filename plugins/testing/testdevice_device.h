// The TESTDEV device type: devices whose memory the host can reach only through the plugin's copy
// functions (no TSR_DEVICE_FLAG_HOST_MEMORY), for testing cross-device transfers.
#ifndef TESSERA_PLUGINS_TESTING_TESTDEVICE_DEVICE_H_
#define TESSERA_PLUGINS_TESTING_TESTDEVICE_DEVICE_H_

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "plugins/testing/testdevice_memory.h"
#include "plugins/testing/testdevice_stream.h"
#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

// The plugin's definition of the ABI's opaque device handle.
struct TSR_Device {
  TSR_Device(int32_t device_ordinal, const std::string& device_name)
      : ordinal(device_ordinal),
        name(device_name),
        description(device_name + " (scrambled host memory, test only)"),
        memory(device_name) {}

  int32_t ordinal;
  std::string name;  // "TESTDEV:1"
  std::string description;
  tessera::testdevice::DeviceMemory memory;
  // From the device option "stream_delay_us": how long each stream item waits before it runs.
  std::chrono::microseconds stream_delay{0};
  // The first COMPUTE stream the host created (NULL before and after): frees wait for it.
  std::mutex stream_mu;
  TSR_Stream* compute_stream = nullptr;
};

namespace tessera::testdevice {

inline constexpr char kDeviceType[] = "TESTDEV";
// Below CPU's 60: nothing lands on TESTDEV unless it is pinned there.
inline constexpr int32_t kDevicePriority = 40;
// Devices when the configuration says nothing, and the most there are (a request for more gets
// kMaxDeviceCount).
inline constexpr int32_t kDefaultDeviceCount = 2;
inline constexpr int32_t kMaxDeviceCount = 8;

// Registers the TESTDEV device type.
sdk::Status RegisterTestDevice(TSR_Registrar* registrar);

}  // namespace tessera::testdevice

#endif  // TESSERA_PLUGINS_TESTING_TESTDEVICE_DEVICE_H_
