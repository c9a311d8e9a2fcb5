// PluginDevice and the device-type calls of DeviceTypeSpec (DeviceCount, DeviceCountForConfig,
// CreateDevice).
#include "registry/device_handle.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "registry/abi_status.h"

namespace tessera {
namespace {

std::unique_lock<std::mutex> LockIfSerialized(const DeviceTypeSpec& spec) {
  if ((spec.flags & TSR_DEVICE_FLAG_SERIALIZE_CALLS) == 0 || spec.call_mutex == nullptr) {
    return std::unique_lock<std::mutex>();
  }
  return std::unique_lock<std::mutex>(*spec.call_mutex);
}

std::string TypeContext(const DeviceTypeSpec& spec, const char* slot) {
  return absl::StrCat("device type '", spec.device_type, "' from plugin '", spec.origin.plugin_name,
                      "' ", slot);
}

}  // namespace

absl::StatusOr<int> DeviceTypeSpec::DeviceCount() const {
  int32_t count = 0;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = LockIfSerialized(*this);
    status = registration.GetDeviceCount(registration.user_data, &count);
  }
  absl::Status converted = FromAbiStatus(status, TypeContext(*this, "GetDeviceCount"));
  if (!converted.ok()) return converted;
  if (count < 0) {
    return absl::InternalError(
        absl::StrCat(TypeContext(*this, "GetDeviceCount"), ": returned negative count ", count));
  }
  return static_cast<int>(count);
}

absl::StatusOr<int> DeviceTypeSpec::DeviceCountForConfig(int requested) const {
  if (requested < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("device type '", device_type, "': requested device count ", requested,
                     " is negative (expected -1 for the default, or a count >= 0)"));
  }
  if (requested == 0) return 0;
  if (registration.GetDeviceCountForConfig == nullptr) {
    absl::StatusOr<int> available = DeviceCount();
    if (!available.ok() || requested < 0) return available;
    return std::min(*available, requested);
  }
  const std::string context = TypeContext(*this, "GetDeviceCountForConfig");
  int32_t count = 0;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = LockIfSerialized(*this);
    status = registration.GetDeviceCountForConfig(registration.user_data, requested, &count);
  }
  absl::Status converted =
      FromAbiStatus(status, absl::StrCat(context, " (requested ", requested, ")"));
  if (!converted.ok()) return converted;
  if (count < 0) {
    return absl::InternalError(
        absl::StrCat(context, ": returned negative count ", count, " for requested ", requested));
  }
  if (requested > 0 && count > requested) {
    return absl::InternalError(absl::StrCat(context, ": returned ", count,
                                            " devices, more than the ", requested, " requested"));
  }
  return static_cast<int>(count);
}

absl::StatusOr<std::unique_ptr<PluginDevice>> DeviceTypeSpec::CreateDevice(
    int ordinal, const DeviceOptions& options, int requested_count) const {
  const std::string context =
      absl::StrCat(TypeContext(*this, "Device_Create"), " (ordinal ", ordinal, ")");
  absl::StatusOr<int> count = DeviceCountForConfig(requested_count);
  if (!count.ok()) return count.status();
  if (ordinal < 0 || ordinal >= *count) {
    return absl::OutOfRangeError(
        absl::StrCat(context, ": ordinal ", ordinal, " is outside [0, ", *count, ")"));
  }
  std::vector<const char*> keys;
  std::vector<const char*> values;
  for (const auto& [key, value] : options) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  TSR_Device_Create_Args args{};
  args.struct_size = sizeof(args);
  args.ordinal = ordinal;
  args.num_options = keys.size();
  args.option_keys = keys.data();
  args.option_values = values.data();
  TSR_Device* device = nullptr;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = LockIfSerialized(*this);
    status = registration.Device_Create(registration.user_data, &args, &device);
  }
  absl::Status converted = FromAbiStatus(status, context);
  if (!converted.ok()) return converted;
  if (device == nullptr) {
    return absl::InternalError(absl::StrCat(context, ": returned OK but no device"));
  }
  return std::unique_ptr<PluginDevice>(new PluginDevice(*this, ordinal, device));
}

PluginDevice::PluginDevice(const DeviceTypeSpec& spec, int ordinal, TSR_Device* device)
    : device_type_(spec.device_type),
      ordinal_(ordinal),
      table_(spec.registration),
      origin_(spec.origin),
      call_mutex_((spec.flags & TSR_DEVICE_FLAG_SERIALIZE_CALLS) != 0 ? spec.call_mutex : nullptr),
      device_(device) {
  table_.flags = spec.flags;
}

PluginDevice::~PluginDevice() {
  std::unique_lock<std::mutex> lock = Lock();
  table_.Device_Destroy(device_);
}

std::string PluginDevice::name() const { return absl::StrCat(device_type_, ":", ordinal_); }

std::unique_lock<std::mutex> PluginDevice::Lock() {
  if (call_mutex_ == nullptr) return std::unique_lock<std::mutex>();
  return std::unique_lock<std::mutex>(*call_mutex_);
}

absl::Status PluginDevice::Convert(TSR_Status* status, const char* slot) const {
  if (status == nullptr) return absl::OkStatus();
  return FromAbiStatus(
      status, absl::StrCat("device '", name(), "' from plugin '", origin_.plugin_name, "' ", slot));
}

absl::StatusOr<void*> PluginDevice::Allocate(size_t size, size_t alignment) {
  void* ptr = nullptr;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Memory_Allocate(device_, size, alignment, &ptr);
  }
  absl::Status converted = Convert(status, "Memory_Allocate");
  if (!converted.ok()) return converted;
  if (ptr == nullptr && size != 0) {
    return absl::InternalError(
        absl::StrCat("device '", name(), "' from plugin '", origin_.plugin_name,
                     "' Memory_Allocate: returned OK but no memory for ", size, " bytes"));
  }
  return ptr;
}

void PluginDevice::Free(void* ptr, size_t size) {
  if (ptr == nullptr) return;
  std::unique_lock<std::mutex> lock = Lock();
  table_.Memory_Free(device_, ptr, size);
}

absl::Status PluginDevice::MemcpyHostToDevice(void* dst, const void* src, size_t size,
                                              TSR_Stream* stream) {
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Memcpy_HostToDevice(device_, stream, dst, src, size);
  }
  return Convert(status, "Memcpy_HostToDevice");
}

absl::Status PluginDevice::MemcpyDeviceToHost(void* dst, const void* src, size_t size,
                                              TSR_Stream* stream) {
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Memcpy_DeviceToHost(device_, stream, dst, src, size);
  }
  return Convert(status, "Memcpy_DeviceToHost");
}

absl::Status PluginDevice::MemcpyDeviceToDevice(void* dst, const void* src, size_t size,
                                                TSR_Stream* stream) {
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Memcpy_DeviceToDevice(device_, stream, dst, src, size);
  }
  return Convert(status, "Memcpy_DeviceToDevice");
}

absl::StatusOr<DeviceProperties> PluginDevice::Properties() {
  DeviceProperties properties;
  if (table_.Device_GetProperties == nullptr) {
    properties.description = name();
    return properties;
  }
  TSR_DeviceProperties abi{};
  abi.struct_size = sizeof(abi);
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Device_GetProperties(device_, &abi);
  }
  absl::Status converted = Convert(status, "Device_GetProperties");
  if (!converted.ok()) return converted;
  properties.description = abi.description == nullptr ? name() : abi.description;
  properties.memory_bytes = abi.memory_bytes;
  properties.compute_units = abi.compute_units;
  properties.memory_alignment = abi.memory_alignment;
  return properties;
}

absl::StatusOr<TSR_Stream*> PluginDevice::CreateStream() {
  if (!has_streams()) {
    return absl::UnimplementedError(absl::StrCat("device '", name(), "' from plugin '",
                                                 origin_.plugin_name,
                                                 "' has no streams (it is synchronous)"));
  }
  TSR_Stream* stream = nullptr;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Stream_Create(device_, &stream);
  }
  absl::Status converted = Convert(status, "Stream_Create");
  if (!converted.ok()) return converted;
  return stream;
}

void PluginDevice::DestroyStream(TSR_Stream* stream) {
  if (stream == nullptr || table_.Stream_Destroy == nullptr) return;
  std::unique_lock<std::mutex> lock = Lock();
  table_.Stream_Destroy(device_, stream);
}

absl::Status PluginDevice::StreamSynchronize(TSR_Stream* stream) {
  if (stream == nullptr || table_.Stream_Synchronize == nullptr) return absl::OkStatus();
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Stream_Synchronize(device_, stream);
  }
  return Convert(status, "Stream_Synchronize");
}

}  // namespace tessera
