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

  // Memory_Allocate; RESOURCE_EXHAUSTED (from the plugin) when out of memory.
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment);
  // Memory_Free; NULL is a no-op.
  void Free(void* ptr, size_t size);

  // Copies; a NULL stream means the copy has completed when the call returns.
  absl::Status MemcpyHostToDevice(void* dst, const void* src, size_t size,
                                  TSR_Stream* stream = nullptr);
  absl::Status MemcpyDeviceToHost(void* dst, const void* src, size_t size,
                                  TSR_Stream* stream = nullptr);
  absl::Status MemcpyDeviceToDevice(void* dst, const void* src, size_t size,
                                    TSR_Stream* stream = nullptr);

  // Device_GetProperties; a plugin without the slot gets defaults (description "FAKE:0").
  absl::StatusOr<DeviceProperties> Properties();

  // True when the plugin implements streams (otherwise every call is synchronous).
  bool has_streams() const { return table_.Stream_Create != nullptr; }
  // Stream_Create / Stream_Destroy (UNIMPLEMENTED without streams).
  absl::StatusOr<TSR_Stream*> CreateStream();
  void DestroyStream(TSR_Stream* stream);
  // Stream_Synchronize; OK at once for a synchronous device or a NULL stream.
  absl::Status StreamSynchronize(TSR_Stream* stream);

 private:
  friend struct DeviceTypeSpec;
  PluginDevice(const DeviceTypeSpec& spec, int ordinal, TSR_Device* device);

  std::unique_lock<std::mutex> Lock();
  absl::Status Convert(TSR_Status* status, const char* slot) const;

  std::string device_type_;
  int ordinal_;
  TSR_DeviceTypeRegistration table_;
  PluginOrigin origin_;
  std::shared_ptr<std::mutex> call_mutex_;
  TSR_Device* device_;
};

}  // namespace tessera

#endif  // TESSERA_REGISTRY_DEVICE_HANDLE_H_
