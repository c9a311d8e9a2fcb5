// Device creation from the plugins' device types.
#include "host/runtime/device_manager.h"

#include "absl/strings/str_cat.h"
#include "registry/device_handle.h"
#include "registry/status_macros.h"

namespace tessera {

absl::StatusOr<std::unique_ptr<DeviceManager>> DeviceManager::Create(
    const std::vector<DeviceTypeSpec>& device_types, const DeviceManagerOptions& options) {
  auto manager = std::make_unique<DeviceManager>();
  for (const DeviceTypeSpec& spec : device_types) {
    if (!spec.active) continue;
    absl::StatusOr<int> count = spec.DeviceCount();
    if (!count.ok()) {
      manager->skipped_.push_back(absl::StrCat("device type ", spec.device_type, " from plugin '",
                                               spec.origin.plugin_name,
                                               "': ", count.status().message()));
      continue;
    }
    for (int ordinal = 0; ordinal < *count; ++ordinal) {
      absl::StatusOr<std::unique_ptr<PluginDevice>> plugin_device =
          spec.CreateDevice(ordinal, options.device_options);
      if (!plugin_device.ok()) {
        manager->skipped_.push_back(absl::StrCat(spec.device_type, ":", ordinal, " from plugin '",
                                                 spec.origin.plugin_name,
                                                 "': ", plugin_device.status().message()));
        continue;
      }
      std::string name = FullDeviceName(options.job, options.replica, options.task,
                                        spec.device_type, ordinal);
      manager->devices_.push_back(std::make_unique<Device>(
          name, spec.device_type, spec.priority, spec.flags, spec.origin.plugin_name,
          std::move(*plugin_device)));
      manager->device_ptrs_.push_back(manager->devices_.back().get());
    }
  }
  return manager;
}

Device* DeviceManager::FindDevice(absl::string_view name) const {
  for (Device* d : device_ptrs_) {
    if (d->name() == name) return d;
  }
  absl::StatusOr<ParsedDeviceName> spec = ParseDeviceName(name);
  if (!spec.ok()) return nullptr;
  Device* found = nullptr;
  for (Device* d : device_ptrs_) {
    if (DeviceNameMatches(*spec, d->parsed_name())) {
      if (found != nullptr) return nullptr;  // ambiguous
      found = d;
    }
  }
  return found;
}

Device* DeviceManager::client_device() const {
  for (Device* d : device_ptrs_) {
    if (d->device_type() == "CPU") return d;
  }
  return device_ptrs_.empty() ? nullptr : device_ptrs_.front();
}

}  // namespace tessera
