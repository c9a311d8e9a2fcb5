// DeviceManager: creates the devices of every active device type the plugins provide and names
// them "/job:J/replica:R/task:T/device:TYPE:N".
#ifndef TESSERA_HOST_RUNTIME_DEVICE_MANAGER_H_
#define TESSERA_HOST_RUNTIME_DEVICE_MANAGER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/runtime/device.h"
#include "registry/specs.h"

namespace tessera {

struct DeviceManagerOptions {
  std::string job = "localhost";
  int replica = 0;
  int task = 0;
  // Options passed to every Device_Create, and those for the devices of one type only (which
  // win over the former); a type in type_options that no plugin provides is INVALID_ARGUMENT.
  DeviceOptions device_options;
  std::map<std::string, DeviceOptions> type_options;
  // How many devices to create per device type ({"CPU": 2} gives CPU:0 and CPU:1). A type not
  // listed gets its plugin's default; 0 creates none of that type.
  std::map<std::string, int> device_count;
};

class DeviceManager {
 public:
  // A device type whose devices cannot be created is skipped with its reason in `skipped()`;
  // other device types still come up. So is a shortfall: a type asked for more devices than it
  // has gets what exists, and skipped() says how many were requested and created.
  // Errors (INVALID_ARGUMENT): a device_count entry that names a type no plugin provides (the
  // message lists the known types) or that is negative; a count the type's plugin refuses (its
  // own error, with the plugin named). Any other error of an explicitly counted type is returned
  // too, since the configuration cannot be honoured.
  static absl::StatusOr<std::unique_ptr<DeviceManager>> Create(
      const std::vector<DeviceTypeSpec>& device_types, const DeviceManagerOptions& options);

  const std::vector<Device*>& devices() const { return device_ptrs_; }
  // By full name, or by any unambiguous spec ("/device:CPU:0", "CPU:0").
  Device* FindDevice(absl::string_view name) const;
  // Where feeds and fetches live: the first CPU device, else the first device.
  Device* client_device() const;
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_ptrs_;
  std::vector<std::string> skipped_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_DEVICE_MANAGER_H_
