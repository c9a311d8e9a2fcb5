// The TESTDEV device type's C slots: counts, creation, scrambled memory, the three copies (queued
// on a stream when the host gives one) and, from testdevice_stream.cc, streams and events.
#include "plugins/testing/testdevice_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

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
  int64_t delay_us = 0;
  for (size_t i = 0; i < args->num_options; ++i) {
    if (std::string(args->option_keys[i]) != "stream_delay_us") continue;
    char* end = nullptr;
    delay_us = std::strtoll(args->option_values[i], &end, 10);
    if (end == args->option_values[i] || *end != '\0' || delay_us < 0 || delay_us > 1000000) {
      return sdk::InvalidArgument("TESTDEV option stream_delay_us '", args->option_values[i],
                                  "' is not a number of microseconds in [0, 1000000]")
          .Release();
    }
  }
  try {
    *device = new TSR_Device(args->ordinal, sdk::StrCat(kDeviceType, ":", args->ordinal));
  } catch (const std::bad_alloc&) {
    return sdk::ResourceExhausted("out of memory creating TESTDEV:", args->ordinal).Release();
  }
  (*device)->stream_delay = std::chrono::microseconds(delay_us);
  return nullptr;
}

void DestroyDevice(TSR_Device* device) { delete device; }

TSR_Status* GetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = device->description.c_str();
  properties->memory_bytes = static_cast<int64_t>(kMemoryLimitBytes);
  properties->compute_units = 1;
  properties->memory_alignment = kMemoryAlignment;
  properties->name = "Tessera test device";
  properties->vendor = "Tessera tests";
  properties->memory_kinds = 1u << TSR_MEMORY_KIND_DEVICE;
  return nullptr;
}

TSR_Status* AllocateMemory(TSR_Device* device, TSR_Memory_Allocate_Args* args) {
  args->ptr = nullptr;
  if (args->kind != TSR_MEMORY_KIND_DEVICE) {
    return sdk::InvalidArgument(device->name, " has only device memory; memory kind ", args->kind,
                                " was asked for")
        .Release();
  }
  return device->memory.Allocate(args->size, args->alignment, &args->ptr).Release();
}

// The block leaves the allocation table at once (a second free of it is refused here), and goes
// back to the system after the work already queued on the compute stream, which may still read it
// (the host frees a kernel's inputs once the kernel has returned).
TSR_Status* FreeMemory(TSR_Device* device, const TSR_Memory_Free_Args* args) {
  if (args->ptr == nullptr) return nullptr;
  if (args->kind != TSR_MEMORY_KIND_DEVICE) {
    return sdk::InvalidArgument("Memory_Free on ", device->name, ": memory kind ", args->kind,
                                ", but the device allocates only device memory (kind ",
                                TSR_MEMORY_KIND_DEVICE, ")")
        .Release();
  }
  sdk::Status released = device->memory.Release(args->ptr, args->size);
  if (!released.ok()) return released.Release();
  std::lock_guard<std::mutex> lock(device->stream_mu);
  void* ptr = args->ptr;
  return RunOn(device->compute_stream, [ptr] {
           DeviceMemory::ReturnBlock(ptr);
           return sdk::OkStatus();
         })
      .Release();
}

TSR_Status* GetMemoryStats(TSR_Device* device, TSR_MemoryStats* stats) {
  const DeviceMemory::Stats memory = device->memory.stats();
  stats->bytes_in_use = memory.bytes_in_use;
  stats->peak_bytes_in_use = memory.peak_bytes_in_use;
  stats->bytes_limit = static_cast<int64_t>(kMemoryLimitBytes);
  stats->bytes_reserved = memory.bytes_in_use;
  stats->num_allocations = memory.num_allocations;
  return nullptr;
}

TSR_Status* HostToDevice(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
                         size_t size) {
  sdk::Status status = device->memory.CheckRange("Memcpy_HostToDevice destination", dst, size);
  if (!status.ok()) return status.Release();
  return RunOn(stream, [dst, src, size] {
           ScrambleCopy(dst, src, size);
           return sdk::OkStatus();
         })
      .Release();
}

TSR_Status* DeviceToHost(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
                         size_t size) {
  sdk::Status status = device->memory.CheckRange("Memcpy_DeviceToHost source", src, size);
  if (!status.ok()) return status.Release();
  return RunOn(stream, [dst, src, size] {
           ScrambleCopy(dst, src, size);
           return sdk::OkStatus();
         })
      .Release();
}

// Both ends are scrambled with the same key, so bytes move as they are. One end must be this
// device's; the other may be any TESTDEV device's.
TSR_Status* DeviceToDevice(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
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
  return RunOn(stream, [dst, src, size] {
           if (size != 0) std::memmove(dst, src, size);
           return sdk::OkStatus();
         })
      .Release();
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
  registration.Memory_GetStats = &GetMemoryStats;
  registration.Memcpy_HostToDevice = &HostToDevice;
  registration.Memcpy_DeviceToHost = &DeviceToHost;
  registration.Memcpy_DeviceToDevice = &DeviceToDevice;
  AddStreamSlots(&registration);
  return sdk::Status(sdk::HostApi()->Registrar_RegisterDeviceType(registrar, &registration));
}

}  // namespace tessera::testdevice
