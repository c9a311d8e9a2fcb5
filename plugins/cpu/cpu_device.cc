// The CPU device type: synchronous, host memory, memcpy for every copy direction; one device by
// default, up to kMaxDeviceCount when the configuration asks.
#include "plugins/cpu/cpu_device.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "plugins/cpu/host_memory.h"
#include "tessera/sdk/status.h"

// The plugin's definition of the ABI's opaque device handle.
struct TSR_Device {
  int32_t ordinal;
  std::string description;
};

namespace tessera::cpu {
namespace {

TSR_Status* GetDeviceCount(void* /*user_data*/, int32_t* count) {
  *count = kDefaultDeviceCount;
  return nullptr;
}

// Every CPU device shares the host's memory and the host's intra-op pool, so any count up to
// kMaxDeviceCount can be served; the devices differ only in their names (ordinals).
TSR_Status* GetDeviceCountForConfig(void* /*user_data*/, int32_t requested, int32_t* count) {
  if (requested == -1) {
    *count = kDefaultDeviceCount;
    return nullptr;
  }
  if (requested < 0 || requested > kMaxDeviceCount) {
    return sdk::InvalidArgument("CPU device count ", requested, " is outside [0, ", kMaxDeviceCount,
                                "]")
        .Release();
  }
  *count = requested;
  return nullptr;
}

TSR_Status* CreateDevice(void* /*user_data*/, const TSR_Device_Create_Args* args,
                         TSR_Device** device) {
  *device = nullptr;
  if (args == nullptr || args->ordinal < 0 || args->ordinal >= kMaxDeviceCount) {
    return sdk::InvalidArgument("CPU device ordinal ", args == nullptr ? -1 : args->ordinal,
                                " is out of range [0, ", kMaxDeviceCount, ")")
        .Release();
  }
  auto* created = new (std::nothrow) TSR_Device;
  if (created == nullptr) {
    return sdk::ResourceExhausted("out of memory creating CPU:", args->ordinal).Release();
  }
  created->ordinal = args->ordinal;
  created->description = sdk::StrCat("CPU:", args->ordinal, " (",
                                     std::thread::hardware_concurrency(), " hardware threads)");
  *device = created;
  return nullptr;
}

void DestroyDevice(TSR_Device* device) { delete device; }

TSR_Status* GetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = device->description.c_str();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  properties->memory_bytes =
      pages > 0 && page_size > 0 ? static_cast<int64_t>(pages) * page_size : 0;
  properties->compute_units = static_cast<int32_t>(std::thread::hardware_concurrency());
  if (TSR_STRUCT_HAS_FIELD(properties, TSR_DeviceProperties, memory_alignment)) {
    properties->memory_alignment = kMemoryAlignment;
  }
  return nullptr;
}

// Shared by every CPU device. Never destroyed: tensors may be freed by static objects at exit,
// and the plugin is never unloaded (the host loads plugins with RTLD_NODELETE).
HostMemory& Memory() {
  static HostMemory* memory = new HostMemory(kMemoryCacheBytes);
  return *memory;
}

TSR_Status* AllocateMemory(TSR_Device* device, size_t size, size_t alignment, void** ptr) {
  *ptr = nullptr;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
    return sdk::InvalidArgument("alignment ", alignment, " requested on CPU:", device->ordinal,
                                " is not a power of two")
        .Release();
  }
  const size_t effective = alignment > kMemoryAlignment ? alignment : kMemoryAlignment;
  *ptr = Memory().Allocate(size, effective);
  if (*ptr == nullptr) {
    return sdk::ResourceExhausted("out of memory allocating ", size, " bytes (alignment ",
                                  effective, ") on CPU:", device->ordinal)
        .Release();
  }
  return nullptr;
}

void FreeMemory(TSR_Device* /*device*/, void* ptr, size_t size) { Memory().Free(ptr, size); }

TSR_Status* Memcpy(TSR_Device* /*device*/, TSR_Stream* /*stream*/, void* dst, const void* src,
                   size_t size) {
  if (size != 0) std::memcpy(dst, src, size);
  return nullptr;
}

}  // namespace

sdk::Status RegisterCpuDevice(TSR_Registrar* registrar) {
  TSR_DeviceTypeRegistration registration{};
  registration.struct_size = sizeof(TSR_DeviceTypeRegistration);
  registration.device_type = kDeviceType;
  registration.priority = kDevicePriority;
  registration.flags = TSR_DEVICE_FLAG_HOST_MEMORY;
  registration.GetDeviceCount = &GetDeviceCount;
  registration.GetDeviceCountForConfig = &GetDeviceCountForConfig;
  registration.Device_Create = &CreateDevice;
  registration.Device_Destroy = &DestroyDevice;
  registration.Device_GetProperties = &GetProperties;
  registration.Memory_Allocate = &AllocateMemory;
  registration.Memory_Free = &FreeMemory;
  registration.Memcpy_HostToDevice = &Memcpy;
  registration.Memcpy_DeviceToHost = &Memcpy;
  registration.Memcpy_DeviceToDevice = &Memcpy;
  return sdk::Status(sdk::HostApi()->Registrar_RegisterDeviceType(registrar, &registration));
}

}  // namespace tessera::cpu
