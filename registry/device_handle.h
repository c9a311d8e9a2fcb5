// PluginDevice: the RAII wrapper over a plugin's TSR_Device and the only way the host calls a
// device plugin's table.
#ifndef TESSERA_REGISTRY_DEVICE_HANDLE_H_
#define TESSERA_REGISTRY_DEVICE_HANDLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/specs.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

struct DeviceProperties {
  std::string description;
  int64_t memory_bytes = 0;   // 0 when unknown
  int32_t compute_units = 0;  // 0 when unknown
  size_t memory_alignment = 0;
  std::string name;    // "" when unknown
  std::string vendor;  // "" when unknown
  int32_t compute_capability_major = -1;  // -1 when unknown
  int32_t compute_capability_minor = -1;
  std::string bus_id;  // "" when not on a bus
  int32_t numa_node = -1;
  uint32_t memory_kinds = 1u << TSR_MEMORY_KIND_DEVICE;  // bit (1u << TSR_MemoryKind)
  std::string driver_version;
};

// Memory_GetStats; -1 where the plugin does not know.
struct DeviceMemoryStats {
  int64_t bytes_in_use = -1;
  int64_t peak_bytes_in_use = -1;
  int64_t bytes_limit = -1;
  int64_t bytes_reserved = -1;
  int64_t num_allocations = -1;
};

// One device of a plugin's device type. Created by DeviceTypeSpec::CreateDevice; the destructor
// calls Device_Destroy. Keeps the plugin's library alive. Thread-safe as the plugin's contract
// says; when the type sets TSR_DEVICE_FLAG_SERIALIZE_CALLS every call takes the type's mutex.
// Errors carry the context "device 'FAKE:0' from plugin 'fake' <Slot>".
class PluginDevice {
 public:
  ~PluginDevice();
  PluginDevice(const PluginDevice&) = delete;
  PluginDevice& operator=(const PluginDevice&) = delete;

  const std::string& device_type() const { return device_type_; }
  int ordinal() const { return ordinal_; }
  const std::string& plugin_name() const { return origin_.plugin_name; }
  uint32_t flags() const { return table_.flags; }
  // True when device memory is host memory (TSR_DEVICE_FLAG_HOST_MEMORY).
  bool host_memory() const { return (table_.flags & TSR_DEVICE_FLAG_HOST_MEMORY) != 0; }
  // "FAKE:0".
  std::string name() const;

  // The plugin's handle, for ABI calls that take one (kernel contexts). Owned by this object.
  TSR_Device* abi_handle() const { return device_; }

  // Memory_Allocate; RESOURCE_EXHAUSTED (from the plugin) when out of memory. INTERNAL when the
  // plugin answers OK with a NULL pointer for a nonzero size or a misaligned pointer.
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment,
                                 TSR_MemoryKind kind = TSR_MEMORY_KIND_DEVICE);
  // Memory_Free; NULL is a no-op. The plugin's error (a pointer it did not allocate) is returned.
  absl::Status Free(void* ptr, size_t size, TSR_MemoryKind kind = TSR_MEMORY_KIND_DEVICE);
  // Memory_GetStats; UNIMPLEMENTED when the plugin has no such slot.
  absl::StatusOr<DeviceMemoryStats> MemoryStats();

  // Copies; a NULL stream means the copy has completed when the call returns.
  absl::Status MemcpyHostToDevice(void* dst, const void* src, size_t size,
                                  TSR_Stream* stream = nullptr);
  absl::Status MemcpyDeviceToHost(void* dst, const void* src, size_t size,
                                  TSR_Stream* stream = nullptr);
  absl::Status MemcpyDeviceToDevice(void* dst, const void* src, size_t size,
                                    TSR_Stream* stream = nullptr);

  // Device_GetProperties; a plugin without the slot gets defaults (description "FAKE:0").
  absl::StatusOr<DeviceProperties> Properties();

  // True when the plugin implements streams and events (otherwise every call is synchronous).
  bool has_streams() const { return table_.Stream_Create != nullptr; }
  // Stream_Create / Stream_Destroy (UNIMPLEMENTED without streams). INTERNAL when the plugin
  // answers OK without a stream.
  absl::StatusOr<TSR_Stream*> CreateStream(TSR_StreamKind kind = TSR_STREAM_KIND_COMPUTE,
                                           int32_t priority = 0);
  void DestroyStream(TSR_Stream* stream);
  // Stream_Synchronize; OK at once for a synchronous device or a NULL stream.
  absl::Status StreamSynchronize(TSR_Stream* stream);
  // Stream_WaitEvent; OK at once for a synchronous device or a NULL stream or event.
  absl::Status StreamWaitEvent(TSR_Stream* stream, TSR_Event* event);
  // Event_Create / Event_Destroy (UNIMPLEMENTED without streams).
  absl::StatusOr<TSR_Event*> CreateEvent();
  void DestroyEvent(TSR_Event* event);
  // Event_Record on `stream`; OK at once for a synchronous device.
  absl::Status RecordEvent(TSR_Event* event, TSR_Stream* stream);
  // Event_Query: true once the recorded point has passed (always true when synchronous).
  absl::StatusOr<bool> QueryEvent(TSR_Event* event);
  // Event_Synchronize; OK at once for a synchronous device or a NULL event.
  absl::Status SynchronizeEvent(TSR_Event* event);

  // The TSR_EXTENSION_TYPE_DEVICE_PROFILING extension's Event_ElapsedMicros; UNIMPLEMENTED
  // without the extension.
  bool has_profiling() const { return profiling_.Event_ElapsedMicros != nullptr; }
  absl::StatusOr<double> ElapsedMicros(TSR_Event* start, TSR_Event* end);

 private:
  friend struct DeviceTypeSpec;
  PluginDevice(const DeviceTypeSpec& spec, int ordinal, TSR_Device* device);

  std::unique_lock<std::mutex> Lock();
  absl::Status Convert(TSR_Status* status, const char* slot) const;

  std::string device_type_;
  int ordinal_;
  TSR_DeviceTypeRegistration table_;
  TSR_DeviceProfilingExtension profiling_;
  PluginOrigin origin_;
  std::shared_ptr<std::mutex> call_mutex_;
  TSR_Device* device_;
};

}  // namespace tessera

#endif  // TESSERA_REGISTRY_DEVICE_HANDLE_H_
