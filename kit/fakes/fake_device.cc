// The fakes' device: correct unless its Defect says otherwise, so that each fake fails the device
// suite for exactly one reason.
#include "kit/fakes/fake_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/sdk/host_api.h"

namespace tessera::kit_fakes {
namespace {

constexpr int32_t kMaxDevices = 2;
constexpr size_t kAlignment = 64;

struct TypeState {
  std::string device_type;
  Defect defect = Defect::kNone;
};

}  // namespace
}  // namespace tessera::kit_fakes

// The plugin's definition of the ABI's opaque device handle.
struct TSR_Device {
  const tessera::kit_fakes::TypeState* type = nullptr;
  int32_t ordinal = 0;
  std::string description;
  std::mutex mutex;
  std::unordered_map<void*, size_t> allocations;  // pointer -> size
  int64_t bytes_in_use = 0;
  int64_t peak = 0;
  int64_t num_allocations = 0;
};

namespace tessera::kit_fakes {
namespace {

TSR_Status* GetDeviceCount(void* /*user_data*/, int32_t* count) {
  *count = 1;
  return nullptr;
}

TSR_Status* GetDeviceCountForConfig(void* /*user_data*/, int32_t requested, int32_t* count) {
  *count = requested == -1 ? 1 : std::min(requested, kMaxDevices);
  return nullptr;
}

TSR_Status* CreateDevice(void* user_data, const TSR_Device_Create_Args* args,
                         TSR_Device** device) {
  const auto* type = static_cast<const TypeState*>(user_data);
  *device = nullptr;
  if (args->ordinal < 0 || args->ordinal >= kMaxDevices) {
    return sdk::InvalidArgument(type->device_type, " ordinal ", args->ordinal,
                                " is out of range [0, ", kMaxDevices, ")")
        .Release();
  }
  auto* created = new TSR_Device;
  created->type = type;
  created->ordinal = args->ordinal;
  created->description = sdk::StrCat(type->device_type, ":", args->ordinal, " (kit fake)");
  *device = created;
  return nullptr;
}

void DestroyDevice(TSR_Device* device) {
  for (const auto& [ptr, size] : device->allocations) std::free(ptr);
  delete device;
}

TSR_Status* GetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = device->description.c_str();
  properties->memory_bytes = kFakeMemoryBytes;
  properties->compute_units = 1;
  properties->memory_alignment = kAlignment;
  properties->name = "kit fake device";
  properties->vendor = "Tessera tests";
  properties->memory_kinds = 1u << TSR_MEMORY_KIND_DEVICE;
  return nullptr;
}

TSR_Status* Allocate(TSR_Device* device, TSR_Memory_Allocate_Args* args) {
  args->ptr = nullptr;
  const size_t alignment = args->alignment;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return sdk::InvalidArgument("alignment ", alignment, " is not a power of two").Release();
  }
  if (args->kind != TSR_MEMORY_KIND_DEVICE) {
    return sdk::InvalidArgument("memory kind ", args->kind, " is not offered").Release();
  }
  if (args->size == 0) return nullptr;  // NULL for 0 bytes
  std::lock_guard<std::mutex> lock(device->mutex);
  if (args->size > static_cast<uint64_t>(kFakeMemoryBytes - device->bytes_in_use)) {
    if (device->type->defect == Defect::kNullOnExhaustion) return nullptr;  // the defect
    return sdk::ResourceExhausted("out of memory allocating ", args->size, " bytes on ",
                                  device->description, " (", device->bytes_in_use, " of ",
                                  kFakeMemoryBytes, " in use)")
        .Release();
  }
  void* ptr = nullptr;
  if (posix_memalign(&ptr, std::max(alignment, kAlignment), args->size) != 0) {
    return sdk::ResourceExhausted("out of host memory allocating ", args->size, " bytes").Release();
  }
  device->allocations[ptr] = args->size;
  device->bytes_in_use += static_cast<int64_t>(args->size);
  device->peak = std::max(device->peak, device->bytes_in_use);
  ++device->num_allocations;
  args->ptr = ptr;
  return nullptr;
}

TSR_Status* Free(TSR_Device* device, const TSR_Memory_Free_Args* args) {
  if (args->ptr == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(device->mutex);
  auto it = device->allocations.find(args->ptr);
  if (it == device->allocations.end() || it->second != args->size) {
    return sdk::InvalidArgument("pointer ", args->ptr, " (", args->size,
                                " bytes) was not allocated by ", device->description)
        .Release();
  }
  if (device->type->defect == Defect::kLeaks) {
    // Forgotten, never released, still counted: the defect. Kept in a process-wide list so that
    // LeakSanitizer does not report the fake's intended leak as the host's.
    static std::mutex* leaked_mutex = new std::mutex;
    static auto* leaked = new std::vector<void*>;
    {
      std::lock_guard<std::mutex> leaked_lock(*leaked_mutex);
      leaked->push_back(it->first);
    }
    device->allocations.erase(it);
    return nullptr;
  }
  std::free(it->first);
  device->bytes_in_use -= static_cast<int64_t>(it->second);
  device->allocations.erase(it);
  return nullptr;
}

TSR_Status* GetStats(TSR_Device* device, TSR_MemoryStats* stats) {
  std::lock_guard<std::mutex> lock(device->mutex);
  stats->bytes_in_use = device->bytes_in_use;
  stats->peak_bytes_in_use = device->peak;
  stats->bytes_limit = kFakeMemoryBytes;
  stats->bytes_reserved = device->bytes_in_use;
  stats->num_allocations = device->num_allocations;
  return nullptr;
}

TSR_Status* Copy(TSR_Device* /*device*/, TSR_Stream* /*stream*/, void* dst, const void* src,
                 size_t size) {
  if (size != 0) std::memmove(dst, src, size);
  return nullptr;
}

TSR_Status* CopyToHost(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
                       size_t size) {
  if (device->type->defect == Defect::kDropsBytes && size > 64) --size;  // the defect
  return Copy(device, stream, dst, src, size);
}

}  // namespace

sdk::Status RegisterFakeDevice(TSR_Registrar* registrar, const char* device_type, Defect defect,
                               bool host_memory) {
  // Lives until the process exits: the host keeps user_data as long as the plugin is loaded. One
  // per (type, defect): Init runs again for every registry the process creates.
  static std::mutex* states_mutex = new std::mutex;
  static auto* states = new std::vector<std::unique_ptr<TypeState>>;
  TypeState* state = nullptr;
  {
    std::lock_guard<std::mutex> states_lock(*states_mutex);
    for (const auto& existing : *states) {
      if (existing->defect == defect && std::string(existing->device_type) == device_type) {
        state = existing.get();
      }
    }
    if (state == nullptr) {
      states->push_back(std::make_unique<TypeState>(TypeState{device_type, defect}));
      state = states->back().get();
    }
  }
  TSR_DeviceTypeRegistration registration{};
  registration.struct_size = sizeof(registration);
  registration.device_type = device_type;
  registration.priority = 1;
  registration.flags = host_memory ? TSR_DEVICE_FLAG_HOST_MEMORY : 0;
  registration.user_data = state;
  registration.GetDeviceCount = &GetDeviceCount;
  registration.GetDeviceCountForConfig = &GetDeviceCountForConfig;
  registration.Device_Create = &CreateDevice;
  registration.Device_Destroy = &DestroyDevice;
  registration.Device_GetProperties = &GetProperties;
  registration.Memory_Allocate = &Allocate;
  registration.Memory_Free = &Free;
  registration.Memory_GetStats = &GetStats;
  registration.Memcpy_HostToDevice = &Copy;
  registration.Memcpy_DeviceToHost = &CopyToHost;
  registration.Memcpy_DeviceToDevice = &Copy;
  return sdk::Status(sdk::HostApi()->Registrar_RegisterDeviceType(registrar, &registration));
}

}  // namespace tessera::kit_fakes
