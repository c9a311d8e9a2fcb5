// Device creation from the plugins' device types.
#include "host/runtime/device_manager.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "registry/device_handle.h"

namespace tessera {
namespace {

// Every device_count entry must name a known type and a count >= 0.
absl::Status CheckDeviceCounts(const std::vector<DeviceTypeSpec>& device_types,
                               const std::map<std::string, int>& device_count) {
  std::set<std::string> known;
  for (const DeviceTypeSpec& spec : device_types) known.insert(spec.device_type);
  for (const auto& [type, count] : device_count) {
    if (known.count(type) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("device_count names device type '", type,
                       "', which no loaded plugin provides (known device types: ",
                       known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
    }
    if (count < 0) {
      return absl::InvalidArgumentError(absl::StrCat("device_count for device type '", type,
                                                     "' is ", count, "; expected a count >= 0"));
    }
  }
  return absl::OkStatus();
}

std::string TypeLabel(const DeviceTypeSpec& spec) {
  return absl::StrCat("device type ", spec.device_type, " from plugin '", spec.origin.plugin_name,
                      "'");
}

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceManager>> DeviceManager::Create(
    const std::vector<DeviceTypeSpec>& device_types, const DeviceManagerOptions& options) {
  RETURN_IF_ERROR(CheckDeviceCounts(device_types, options.device_count));
  for (const auto& entry : options.type_options) {
    const std::string& type = entry.first;
    const bool known = std::any_of(device_types.begin(), device_types.end(),
                                   [&](const DeviceTypeSpec& spec) { return spec.device_type == type; });
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device options name device type '", type, "', which no loaded plugin provides"));
    }
  }
  auto manager = std::make_unique<DeviceManager>();
  for (const DeviceTypeSpec& spec : device_types) {
    if (!spec.active) continue;
    auto requested_it = options.device_count.find(spec.device_type);
    const int requested = requested_it == options.device_count.end() ? -1 : requested_it->second;
    absl::StatusOr<int> count = spec.DeviceCountForConfig(requested);
    if (!count.ok()) {
      // A configuration that names the type cannot be honoured: say so instead of skipping.
      if (requested >= 0) {
        return WithContext(count.status(), absl::StrCat("device_count asks for ", requested, " ",
                                                        spec.device_type, " devices"));
      }
      manager->skipped_.push_back(absl::StrCat(TypeLabel(spec), ": ", count.status().message()));
      continue;
    }
    if (requested > 0 && *count < requested) {
      manager->skipped_.push_back(absl::StrCat(TypeLabel(spec), ": ", requested,
                                               " devices requested, ", *count,
                                               " available; created ", *count));
    }
    DeviceOptions device_options = options.device_options;
    auto type_options = options.type_options.find(spec.device_type);
    if (type_options != options.type_options.end()) {
      for (const auto& [key, value] : type_options->second) device_options[key] = value;
    }
    for (int ordinal = 0; ordinal < *count; ++ordinal) {
      absl::StatusOr<std::unique_ptr<PluginDevice>> plugin_device =
          spec.CreateDevice(ordinal, device_options, requested);
      if (!plugin_device.ok()) {
        // Options the configuration gave this type that the plugin refuses are the user's error.
        if (type_options != options.type_options.end() &&
            plugin_device.status().code() == absl::StatusCode::kInvalidArgument) {
          return WithContext(plugin_device.status(),
                             absl::StrCat("the device options of ", spec.device_type));
        }
        manager->skipped_.push_back(absl::StrCat(spec.device_type, ":", ordinal, " from plugin '",
                                                 spec.origin.plugin_name,
                                                 "': ", plugin_device.status().message()));
        continue;
      }
      std::string name =
          FullDeviceName(options.job, options.replica, options.task, spec.device_type, ordinal);
      auto device = std::make_unique<Device>(name, spec.device_type, spec.priority, spec.flags,
                                             spec.origin.plugin_name, std::move(*plugin_device));
      absl::Status streams = device->CreateStreams();
      if (!streams.ok()) {
        manager->skipped_.push_back(absl::StrCat(spec.device_type, ":", ordinal, " from plugin '",
                                                 spec.origin.plugin_name,
                                                 "': creating its streams: ", streams.message()));
        continue;
      }
      manager->devices_.push_back(std::move(device));
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
