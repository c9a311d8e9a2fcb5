// The CPU device type: synchronous, host memory, memcpy for every copy direction; one device by
// default, up to kMaxDeviceCount when the configuration asks. Statistics are process-wide: every
// CPU device shares the host's memory.
#include "plugins/cpu/cpu_device.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
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

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<int64_t>(pages) * page_size : 0;
}

TSR_Status* GetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = device->description.c_str();
  properties->memory_bytes = PhysicalMemoryBytes();
  properties->compute_units = static_cast<int32_t>(std::thread::hardware_concurrency());
  properties->memory_alignment = kMemoryAlignment;
  properties->name = "host CPU";
  properties->memory_kinds = 1u << TSR_MEMORY_KIND_DEVICE;
  return nullptr;
}

// Shared by every CPU device. Never destroyed: tensors may be freed by static objects at exit,
// and the plugin is never unloaded (the host loads plugins with RTLD_NODELETE).
HostMemory& Memory() {
  static HostMemory* memory = new HostMemory(kMemoryCacheBytes);
  return *memory;
}

// Statistics shared by every CPU device (they share one memory).
struct MemoryCounters {
  std::atomic<int64_t> in_use{0};
  std::atomic<int64_t> peak{0};
  std::atomic<int64_t> allocations{0};
};

MemoryCounters& Counters() {
  static MemoryCounters* counters = new MemoryCounters;
  return *counters;
}

// Every block starts with a header of HeaderBytes(alignment) bytes; its last 24 bytes, right
// before the pointer handed out, say which block this is, so that Memory_Free refuses a pointer
// the device did not hand out (or one freed already) instead of corrupting the heap.
struct BlockTag {
  uint64_t check;  // kTagMagic ^ the pointer handed out; 0 once freed
  uint64_t size;   // bytes asked for
  uint64_t header;
};
constexpr uint64_t kTagMagic = 0x7e55e4a0c9d1b2f3ull;

size_t HeaderBytes(size_t alignment) {
  return alignment > kMemoryAlignment ? alignment : kMemoryAlignment;
}

BlockTag* TagOf(void* ptr) {
  return reinterpret_cast<BlockTag*>(static_cast<unsigned char*>(ptr) - sizeof(BlockTag));
}

TSR_Status* AllocateMemory(TSR_Device* device, TSR_Memory_Allocate_Args* args) {
  args->ptr = nullptr;
  const size_t alignment = args->alignment;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
    return sdk::InvalidArgument("alignment ", alignment, " requested on CPU:", device->ordinal,
                                " is not a power of two")
        .Release();
  }
  if (args->kind != TSR_MEMORY_KIND_DEVICE) {
    return sdk::InvalidArgument("CPU:", device->ordinal, " has only device memory (kind ",
                                TSR_MEMORY_KIND_DEVICE, "); memory kind ", args->kind,
                                " was asked for")
        .Release();
  }
  const size_t header = HeaderBytes(alignment);
  if (args->size > SIZE_MAX - header) {
    return sdk::ResourceExhausted("out of memory allocating ", args->size, " bytes on CPU:",
                                  device->ordinal)
        .Release();
  }
  void* base = Memory().Allocate(args->size + header, header);
  if (base == nullptr) {
    return sdk::ResourceExhausted("out of memory allocating ", args->size, " bytes (alignment ",
                                  header, ") on CPU:", device->ordinal)
        .Release();
  }
  void* ptr = static_cast<unsigned char*>(base) + header;
  *TagOf(ptr) = BlockTag{kTagMagic ^ reinterpret_cast<uintptr_t>(ptr), args->size, header};
  MemoryCounters& counters = Counters();
  const int64_t in_use = counters.in_use.fetch_add(static_cast<int64_t>(args->size),
                                                   std::memory_order_relaxed) +
                         static_cast<int64_t>(args->size);
  int64_t peak = counters.peak.load(std::memory_order_relaxed);
  while (in_use > peak &&
         !counters.peak.compare_exchange_weak(peak, in_use, std::memory_order_relaxed)) {
  }
  counters.allocations.fetch_add(1, std::memory_order_relaxed);
  args->ptr = ptr;
  return nullptr;
}

TSR_Status* FreeMemory(TSR_Device* device, const TSR_Memory_Free_Args* args) {
  void* ptr = args->ptr;
  if (ptr == nullptr) return nullptr;
  if (args->kind != TSR_MEMORY_KIND_DEVICE) {
    return sdk::InvalidArgument("Memory_Free on CPU:", device->ordinal, ": memory kind ",
                                args->kind, ", but the CPU device allocates only device memory "
                                "(kind ", TSR_MEMORY_KIND_DEVICE, "); it was not freed")
        .Release();
  }
  BlockTag* tag = reinterpret_cast<uintptr_t>(ptr) % kMemoryAlignment == 0 ? TagOf(ptr) : nullptr;
  const uint64_t live = kTagMagic ^ reinterpret_cast<uintptr_t>(ptr);
  if (tag == nullptr || __atomic_load_n(&tag->check, __ATOMIC_ACQUIRE) != live) {
    return sdk::InvalidArgument("Memory_Free on CPU:", device->ordinal, ": ", ptr,
                                " is not memory the CPU device handed out (or it was freed "
                                "already)")
        .Release();
  }
  if (tag->size != args->size) {
    return sdk::InvalidArgument("Memory_Free on CPU:", device->ordinal, ": ", ptr, " holds ",
                                tag->size, " bytes but is freed as ", args->size,
                                " bytes; it was not freed")
        .Release();
  }
  const size_t header = tag->header;
  // Claims the block: of two frees racing for it, one wins and the other is refused.
  uint64_t expected = live;
  if (!__atomic_compare_exchange_n(&tag->check, &expected, 0, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    return sdk::InvalidArgument("Memory_Free on CPU:", device->ordinal, ": ", ptr,
                                " was freed already")
        .Release();
  }
  Counters().in_use.fetch_sub(static_cast<int64_t>(args->size), std::memory_order_relaxed);
  Memory().Free(static_cast<unsigned char*>(ptr) - header, args->size + header);
  return nullptr;
}

TSR_Status* GetMemoryStats(TSR_Device* /*device*/, TSR_MemoryStats* stats) {
  const MemoryCounters& counters = Counters();
  stats->bytes_in_use = counters.in_use.load(std::memory_order_relaxed);
  stats->peak_bytes_in_use = counters.peak.load(std::memory_order_relaxed);
  const int64_t physical = PhysicalMemoryBytes();
  stats->bytes_limit = physical > 0 ? physical : -1;
  stats->bytes_reserved = stats->bytes_in_use + static_cast<int64_t>(Memory().cached_bytes());
  stats->num_allocations = counters.allocations.load(std::memory_order_relaxed);
  return nullptr;
}

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
  registration.Memory_GetStats = &GetMemoryStats;
  registration.Memcpy_HostToDevice = &Memcpy;
  registration.Memcpy_DeviceToHost = &Memcpy;
  registration.Memcpy_DeviceToDevice = &Memcpy;
  return sdk::Status(sdk::HostApi()->Registrar_RegisterDeviceType(registrar, &registration));
}

}  // namespace tessera::cpu
