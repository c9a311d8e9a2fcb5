// The TEMPLATE device type's slots: one device, host memory with an allocation table (so that a
// bad free is refused rather than corrupting the heap), memcpy for every copy, no streams.
#include "template_device.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "tessera/sdk/host_api.h"

// The plugin's definition of the ABI's opaque device handle. The host only passes it back.
struct TSR_Device {
  int32_t ordinal = 0;
  std::string description;
};

namespace template_plugin {
namespace {

using tessera::sdk::InvalidArgument;
using tessera::sdk::ResourceExhausted;

// Host memory handed out by Memory_Allocate, shared by every TEMPLATE device. Thread-safe: the
// host calls the memory slots concurrently from any thread.
class DeviceMemory {
 public:
  TSR_Status* Allocate(const TSR_Device& device, TSR_Memory_Allocate_Args* args) {
    args->ptr = nullptr;
    if (args->kind != TSR_MEMORY_KIND_DEVICE) {
      return InvalidArgument("memory kind ", args->kind, " requested on ", device.description,
                             " is not one it allocates (only TSR_MEMORY_KIND_DEVICE, 0)")
          .Release();
    }
    if (args->alignment != 0 && (args->alignment & (args->alignment - 1)) != 0) {
      return InvalidArgument("alignment ", args->alignment, " requested on ", device.description,
                             " is not a power of two")
          .Release();
    }
    if (args->size == 0) return nullptr;  // the ABI allows NULL for zero bytes
    const size_t alignment = args->alignment > kMemoryAlignment ? args->alignment : kMemoryAlignment;
    // aligned_alloc wants a multiple of the alignment.
    if (args->size > SIZE_MAX - alignment) return OutOfMemory(device, args->size, alignment);
    const size_t rounded = (args->size + alignment - 1) / alignment * alignment;
    void* ptr = std::aligned_alloc(alignment, rounded);
    if (ptr == nullptr) return OutOfMemory(device, args->size, alignment);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      allocations_[ptr] = args->size;
      bytes_in_use_ += static_cast<int64_t>(args->size);
      if (bytes_in_use_ > peak_bytes_in_use_) peak_bytes_in_use_ = bytes_in_use_;
      ++num_allocations_;
    }
    args->ptr = ptr;
    return nullptr;
  }

  TSR_Status* Free(const TSR_Device& device, const TSR_Memory_Free_Args* args) {
    if (args->ptr == nullptr) return nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = allocations_.find(args->ptr);
      if (it == allocations_.end()) {
        return InvalidArgument("Memory_Free on ", device.description, ": pointer ", args->ptr,
                               " was not allocated by a TEMPLATE device (or was freed already)")
            .Release();
      }
      if (it->second != args->size || args->kind != TSR_MEMORY_KIND_DEVICE) {
        return InvalidArgument("Memory_Free on ", device.description, ": pointer ", args->ptr,
                               " was allocated with ", it->second, " bytes of kind 0; freed with ",
                               args->size, " bytes of kind ", args->kind)
            .Release();
      }
      bytes_in_use_ -= static_cast<int64_t>(it->second);
      allocations_.erase(it);
    }
    std::free(args->ptr);
    return nullptr;
  }

  void GetStats(TSR_MemoryStats* stats) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats->bytes_in_use = bytes_in_use_;
    stats->peak_bytes_in_use = peak_bytes_in_use_;
    stats->bytes_limit = -1;  // no fixed limit: the host's memory
    stats->bytes_reserved = bytes_in_use_;
    stats->num_allocations = num_allocations_;
  }

 private:
  static TSR_Status* OutOfMemory(const TSR_Device& device, size_t size, size_t alignment) {
    return ResourceExhausted("out of memory allocating ", size, " bytes (alignment ", alignment,
                             ") on ", device.description)
        .Release();
  }

  std::mutex mutex_;
  std::unordered_map<void*, size_t> allocations_;  // pointer -> size requested
  int64_t bytes_in_use_ = 0;
  int64_t peak_bytes_in_use_ = 0;
  int64_t num_allocations_ = 0;
};

// Never destroyed: the host may free tensors while static objects are destroyed at exit, and a
// plugin is never unloaded.
DeviceMemory& Memory() {
  static DeviceMemory* memory = new DeviceMemory();
  return *memory;
}

TSR_Status* GetDeviceCount(void* /*user_data*/, int32_t* count) {
  *count = kDeviceCount;
  return nullptr;
}

TSR_Status* CreateDevice(void* /*user_data*/, const TSR_Device_Create_Args* args,
                         TSR_Device** device) {
  *device = nullptr;
  const int32_t ordinal = args == nullptr ? -1 : args->ordinal;
  if (ordinal < 0 || ordinal >= kDeviceCount) {
    return InvalidArgument(kDeviceType, " device ordinal ", ordinal, " is out of range [0, ",
                           kDeviceCount, ")")
        .Release();
  }
  auto* created = new (std::nothrow) TSR_Device;
  if (created == nullptr) {
    return ResourceExhausted("out of memory creating ", kDeviceType, ":", ordinal).Release();
  }
  created->ordinal = ordinal;
  created->description = tessera::sdk::StrCat(kDeviceType, ":", ordinal);
  *device = created;
  return nullptr;
}

void DestroyDevice(TSR_Device* device) { delete device; }

// Every field below exists in ABI 1.0, the oldest host this plugin accepts. A field added in a
// later minor needs TSR_STRUCT_HAS_FIELD(properties, TSR_DeviceProperties, field) first.
TSR_Status* GetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = device->description.c_str();
  properties->memory_bytes = 0;  // unknown: it is the host's memory
  properties->compute_units = 1;
  properties->memory_alignment = kMemoryAlignment;
  properties->name = "Template device";
  properties->vendor = "Example Corp";
  properties->memory_kinds = 1u << TSR_MEMORY_KIND_DEVICE;
  return nullptr;
}

TSR_Status* AllocateMemory(TSR_Device* device, TSR_Memory_Allocate_Args* args) {
  return Memory().Allocate(*device, args);
}

TSR_Status* FreeMemory(TSR_Device* device, const TSR_Memory_Free_Args* args) {
  return Memory().Free(*device, args);
}

TSR_Status* GetMemoryStats(TSR_Device* /*device*/, TSR_MemoryStats* stats) {
  Memory().GetStats(stats);
  return nullptr;
}

// Host memory on both ends, so one function serves the three directions. Without streams the
// stream is NULL and the copy completes before it returns.
TSR_Status* Copy(TSR_Device* /*device*/, TSR_Stream* /*stream*/, void* dst, const void* src,
                 size_t size) {
  if (size != 0) std::memcpy(dst, src, size);
  return nullptr;
}

}  // namespace

tessera::sdk::Status RegisterDevice(TSR_Registrar* registrar) {
  TSR_DeviceTypeRegistration registration{};
  registration.struct_size = sizeof(TSR_DeviceTypeRegistration);
  registration.device_type = kDeviceType;
  registration.priority = kDevicePriority;
  registration.flags = TSR_DEVICE_FLAG_HOST_MEMORY;
  registration.GetDeviceCount = &GetDeviceCount;
  registration.Device_Create = &CreateDevice;
  registration.Device_Destroy = &DestroyDevice;
  registration.Device_GetProperties = &GetProperties;
  registration.Memory_Allocate = &AllocateMemory;
  registration.Memory_Free = &FreeMemory;
  registration.Memory_GetStats = &GetMemoryStats;
  registration.Memcpy_HostToDevice = &Copy;
  registration.Memcpy_DeviceToHost = &Copy;
  registration.Memcpy_DeviceToDevice = &Copy;
  // GetDeviceCountForConfig, streams and events stay NULL: the host creates
  // min(requested, kDeviceCount) devices and runs every call synchronously.
  return tessera::sdk::Status(
      tessera::sdk::HostApi()->Registrar_RegisterDeviceType(registrar, &registration));
}

}  // namespace template_plugin
