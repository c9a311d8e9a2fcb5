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
      profiling_(spec.profiling),
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

absl::StatusOr<void*> PluginDevice::Allocate(size_t size, size_t alignment,
                                             TSR_MemoryKind kind) {
  TSR_Memory_Allocate_Args args{};
  args.struct_size = sizeof(args);
  args.size = size;
  args.alignment = alignment;
  args.kind = kind;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Memory_Allocate(device_, &args);
  }
  absl::Status converted = Convert(status, "Memory_Allocate");
  if (!converted.ok()) return converted;
  if (args.ptr == nullptr && size != 0) {
    return absl::InternalError(
        absl::StrCat("device '", name(), "' from plugin '", origin_.plugin_name,
                     "' Memory_Allocate: returned OK but no memory for ", size, " bytes"));
  }
  if (alignment > 1 && reinterpret_cast<uintptr_t>(args.ptr) % alignment != 0) {
    return absl::InternalError(absl::StrCat(
        "device '", name(), "' from plugin '", origin_.plugin_name, "' Memory_Allocate: returned ",
        absl::Hex(reinterpret_cast<uintptr_t>(args.ptr)), " for ", size,
        " bytes, which is not aligned to the ", alignment, " bytes asked for"));
  }
  return args.ptr;
}

absl::Status PluginDevice::Free(void* ptr, size_t size, TSR_MemoryKind kind) {
  if (ptr == nullptr) return absl::OkStatus();
  TSR_Memory_Free_Args args{};
  args.struct_size = sizeof(args);
  args.ptr = ptr;
  args.size = size;
  args.kind = kind;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Memory_Free(device_, &args);
  }
  return Convert(status, "Memory_Free");
}

absl::StatusOr<DeviceMemoryStats> PluginDevice::MemoryStats() {
  if (table_.Memory_GetStats == nullptr) {
    return absl::UnimplementedError(absl::StrCat("device '", name(), "' from plugin '",
                                                 origin_.plugin_name,
                                                 "' reports no memory statistics"));
  }
  TSR_MemoryStats abi{};
  abi.struct_size = sizeof(abi);
  abi.bytes_in_use = abi.peak_bytes_in_use = abi.bytes_limit = abi.bytes_reserved = -1;
  abi.num_allocations = -1;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Memory_GetStats(device_, &abi);
  }
  absl::Status converted = Convert(status, "Memory_GetStats");
  if (!converted.ok()) return converted;
  DeviceMemoryStats stats;
  stats.bytes_in_use = abi.bytes_in_use;
  stats.peak_bytes_in_use = abi.peak_bytes_in_use;
  stats.bytes_limit = abi.bytes_limit;
  stats.bytes_reserved = abi.bytes_reserved;
  stats.num_allocations = abi.num_allocations;
  return stats;
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
  abi.compute_capability_major = -1;
  abi.compute_capability_minor = -1;
  abi.numa_node = -1;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Device_GetProperties(device_, &abi);
  }
  absl::Status converted = Convert(status, "Device_GetProperties");
  if (!converted.ok()) return converted;
  auto text = [](const char* value) { return value == nullptr ? std::string() : value; };
  properties.description = abi.description == nullptr ? name() : abi.description;
  properties.memory_bytes = abi.memory_bytes;
  properties.compute_units = abi.compute_units;
  properties.memory_alignment = abi.memory_alignment;
  properties.name = text(abi.name);
  properties.vendor = text(abi.vendor);
  properties.compute_capability_major = abi.compute_capability_major;
  properties.compute_capability_minor = abi.compute_capability_minor;
  properties.bus_id = text(abi.bus_id);
  properties.numa_node = abi.numa_node;
  properties.memory_kinds = abi.memory_kinds == 0 ? 1u << TSR_MEMORY_KIND_DEVICE : abi.memory_kinds;
  properties.driver_version = text(abi.driver_version);
  return properties;
}

absl::StatusOr<TSR_Stream*> PluginDevice::CreateStream(TSR_StreamKind kind, int32_t priority) {
  if (!has_streams()) {
    return absl::UnimplementedError(absl::StrCat("device '", name(), "' from plugin '",
                                                 origin_.plugin_name,
                                                 "' has no streams (it is synchronous)"));
  }
  TSR_Stream_Create_Args args{};
  args.struct_size = sizeof(args);
  args.kind = kind;
  args.priority = priority;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Stream_Create(device_, &args);
  }
  absl::Status converted = Convert(status, "Stream_Create");
  if (!converted.ok()) return converted;
  if (args.stream == nullptr) {
    return absl::InternalError(absl::StrCat("device '", name(), "' from plugin '",
                                            origin_.plugin_name,
                                            "' Stream_Create: returned OK but no stream"));
  }
  return args.stream;
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

absl::Status PluginDevice::StreamWaitEvent(TSR_Stream* stream, TSR_Event* event) {
  if (stream == nullptr || event == nullptr || !has_streams()) return absl::OkStatus();
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Stream_WaitEvent(device_, stream, event);
  }
  return Convert(status, "Stream_WaitEvent");
}

absl::StatusOr<TSR_Event*> PluginDevice::CreateEvent() {
  if (!has_streams()) {
    return absl::UnimplementedError(absl::StrCat("device '", name(), "' from plugin '",
                                                 origin_.plugin_name,
                                                 "' has no events (it is synchronous)"));
  }
  TSR_Event* event = nullptr;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Event_Create(device_, &event);
  }
  absl::Status converted = Convert(status, "Event_Create");
  if (!converted.ok()) return converted;
  if (event == nullptr) {
    return absl::InternalError(absl::StrCat("device '", name(), "' from plugin '",
                                            origin_.plugin_name,
                                            "' Event_Create: returned OK but no event"));
  }
  return event;
}

void PluginDevice::DestroyEvent(TSR_Event* event) {
  if (event == nullptr || !has_streams()) return;
  std::unique_lock<std::mutex> lock = Lock();
  table_.Event_Destroy(device_, event);
}

absl::Status PluginDevice::RecordEvent(TSR_Event* event, TSR_Stream* stream) {
  if (event == nullptr || !has_streams()) return absl::OkStatus();
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Event_Record(device_, event, stream);
  }
  return Convert(status, "Event_Record");
}

absl::StatusOr<bool> PluginDevice::QueryEvent(TSR_Event* event) {
  if (event == nullptr || !has_streams()) return true;
  bool complete = false;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Event_Query(device_, event, &complete);
  }
  absl::Status converted = Convert(status, "Event_Query");
  if (!converted.ok()) return converted;
  return complete;
}

absl::Status PluginDevice::SynchronizeEvent(TSR_Event* event) {
  if (event == nullptr || !has_streams()) return absl::OkStatus();
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = table_.Event_Synchronize(device_, event);
  }
  return Convert(status, "Event_Synchronize");
}

absl::StatusOr<double> PluginDevice::ElapsedMicros(TSR_Event* start, TSR_Event* end) {
  if (!has_profiling()) {
    return absl::UnimplementedError(absl::StrCat("device '", name(), "' from plugin '",
                                                 origin_.plugin_name,
                                                 "' has no device profiling extension"));
  }
  double micros = 0;
  TSR_Status* status;
  {
    std::unique_lock<std::mutex> lock = Lock();
    status = profiling_.Event_ElapsedMicros(device_, start, end, &micros);
  }
  absl::Status converted = Convert(status, "Event_ElapsedMicros");
  if (!converted.ok()) return converted;
  return micros;
}

}  // namespace tessera
