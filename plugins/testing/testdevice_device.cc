// The TESTDEV device type's C slots: counts, creation, scrambled memory and the three copies.
#include "plugins/testing/testdevice_device.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "tessera/sdk/host_api.h"

namespace tessera::testdevice {
namespace {

TSR_Status* GetDeviceCount(void* /*user_data*/, int32_t* count) {
  *count = kDefaultDeviceCount;
  return nullptr;
}

// Like hardware with kMaxDeviceCount devices: a larger request gets what exists, and the host
// reports the shortfall.
TSR_Status* GetDeviceCountForConfig(void* /*user_data*/, int32_t requested, int32_t* count) {
  if (requested < -1) {
    return sdk::InvalidArgument("TESTDEV device count ", requested, " is negative").Release();
  }
  *count = requested == -1 ? kDefaultDeviceCount : std::min(requested, kMaxDeviceCount);
  return nullptr;
}

TSR_Status* CreateDevice(void* /*user_data*/, const TSR_Device_Create_Args* args,
                         TSR_Device** device) {
  *device = nullptr;
  if (args == nullptr || args->ordinal < 0 || args->ordinal >= kMaxDeviceCount) {
    return sdk::InvalidArgument("TESTDEV device ordinal ", args == nullptr ? -1 : args->ordinal,
                                " is out of range [0, ", kMaxDeviceCount, ")")
        .Release();
  }
  try {
    *device = new TSR_Device(args->ordinal, sdk::StrCat(kDeviceType, ":", args->ordinal));
  } catch (const std::bad_alloc&) {
    return sdk::ResourceExhausted("out of memory creating TESTDEV:", args->ordinal).Release();
  }
  return nullptr;
}

void DestroyDevice(TSR_Device* device) { delete device; }

TSR_Status* GetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = device->description.c_str();
  properties->memory_bytes = 0;
  properties->compute_units = 1;
  if (TSR_STRUCT_HAS_FIELD(properties, TSR_DeviceProperties, memory_alignment)) {
    properties->memory_alignment = kMemoryAlignment;
  }
  return nullptr;
}

TSR_Status* AllocateMemory(TSR_Device* device, size_t size, size_t alignment, void** ptr) {
  return device->memory.Allocate(size, alignment, ptr).Release();
}

// The slot cannot return a status: misuse is logged at ERROR, where tests look for it.
void FreeMemory(TSR_Device* device, void* ptr, size_t size) {
  sdk::Status status = device->memory.Free(ptr, size);
  if (!status.ok()) {
    sdk::HostApi()->Log(TSR_LOG_SEVERITY_ERROR, "testdevice", status.message().c_str());
  }
}

TSR_Status* HostToDevice(TSR_Device* device, TSR_Stream* /*stream*/, void* dst, const void* src,
                         size_t size) {
  sdk::Status status = device->memory.CheckRange("Memcpy_HostToDevice destination", dst, size);
  if (!status.ok()) return status.Release();
  ScrambleCopy(dst, src, size);
  return nullptr;
}

TSR_Status* DeviceToHost(TSR_Device* device, TSR_Stream* /*stream*/, void* dst, const void* src,
                         size_t size) {
  sdk::Status status = device->memory.CheckRange("Memcpy_DeviceToHost source", src, size);
  if (!status.ok()) return status.Release();
  ScrambleCopy(dst, src, size);
  return nullptr;
}

// Both ends are scrambled with the same key, so bytes move as they are. One end must be this
// device's; the other may be any TESTDEV device's.
TSR_Status* DeviceToDevice(TSR_Device* device, TSR_Stream* /*stream*/, void* dst, const void* src,
                           size_t size) {
  sdk::Status dst_here = device->memory.CheckRange("Memcpy_DeviceToDevice destination", dst, size);
  sdk::Status src_here = device->memory.CheckRange("Memcpy_DeviceToDevice source", src, size);
  if (!dst_here.ok() && !src_here.ok()) return dst_here.Release();
  if (!dst_here.ok()) {
    sdk::Status elsewhere =
        DeviceMemory::CheckRangeOnAnyDevice("Memcpy_DeviceToDevice destination", dst, size);
    if (!elsewhere.ok()) return elsewhere.Release();
  }
  if (!src_here.ok()) {
    sdk::Status elsewhere =
        DeviceMemory::CheckRangeOnAnyDevice("Memcpy_DeviceToDevice source", src, size);
    if (!elsewhere.ok()) return elsewhere.Release();
  }
  if (size != 0) std::memmove(dst, src, size);
  return nullptr;
}

}  // namespace

sdk::Status RegisterTestDevice(TSR_Registrar* registrar) {
  TSR_DeviceTypeRegistration registration{};
  registration.struct_size = sizeof(TSR_DeviceTypeRegistration);
  registration.device_type = kDeviceType;
  registration.priority = kDevicePriority;
  registration.flags = 0;  // not TSR_DEVICE_FLAG_HOST_MEMORY: only the copies reach the memory
  registration.GetDeviceCount = &GetDeviceCount;
  registration.GetDeviceCountForConfig = &GetDeviceCountForConfig;
  registration.Device_Create = &CreateDevice;
  registration.Device_Destroy = &DestroyDevice;
  registration.Device_GetProperties = &GetProperties;
  registration.Memory_Allocate = &AllocateMemory;
  registration.Memory_Free = &FreeMemory;
  registration.Memcpy_HostToDevice = &HostToDevice;
  registration.Memcpy_DeviceToHost = &DeviceToHost;
  registration.Memcpy_DeviceToDevice = &DeviceToDevice;
  return sdk::Status(sdk::HostApi()->Registrar_RegisterDeviceType(registrar, &registration));
}

}  // namespace tessera::testdevice
