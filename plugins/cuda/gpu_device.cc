// The GPU device type's C slots: the probe, counts, creation (properties, peer access, the two
// BFC allocators), memory, the three copies, streams and events, and device-side timing.
#include "plugins/cuda/gpu_device.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <utility>

#include "plugins/cuda/elementwise_kernels.h"
#include "tessera/sdk/host_api.h"

namespace tessera::gpu {
namespace {

// In a C slot: returns the status of a failed sdk::Status expression through the ABI.
#define RETURN_ABI_IF_ERROR(expr)                \
  do {                                           \
    ::tessera::sdk::Status status_ = (expr);     \
    if (!status_.ok()) return status_.Release(); \
  } while (0)

#if defined(TESSERA_GPU_HIP)
// The kernel driver's user-space side, which the HIP runtime (linked) loads.
constexpr char kDriverLibrary[] = "libhsa-runtime64.so.1";
constexpr char kNoDevice[] = "no HIP device";
constexpr char kNoDriver[] = "no HIP driver";
#else
constexpr char kDriverLibrary[] = "libcuda.so.1";
constexpr char kNoDevice[] = "no CUDA device";
constexpr char kNoDriver[] = "no CUDA driver";
#endif

// The share of a device's free memory (at creation) its allocator may reserve, unless the device
// option "memory_fraction" says otherwise; the rest stays for the BLAS library's workspaces and
// other processes.
constexpr double kDefaultMemoryFraction = 0.9;
// Pinned host memory a device may hold for staging and HOST_PINNED tensors.
constexpr size_t kPinnedLimitBytes = size_t{4} << 30;

class DeviceRegions : public RegionAllocator {
 public:
  explicit DeviceRegions(int32_t ordinal) : ordinal_(ordinal) {}
  void* AllocateRegion(size_t bytes) override {
    void* ptr = nullptr;
    if (gpuSetDevice(ordinal_) != gpuSuccess || gpuMalloc(&ptr, bytes) != gpuSuccess) {
      static_cast<void>(gpuGetLastError());  // an allocation failure is not sticky; clear it
      return nullptr;
    }
    return ptr;
  }
  void FreeRegion(void* ptr, size_t /*bytes*/) override {
    static_cast<void>(gpuSetDevice(ordinal_));
    static_cast<void>(gpuFree(ptr));
  }

 private:
  int32_t ordinal_;
};

class PinnedRegions : public RegionAllocator {
 public:
  void* AllocateRegion(size_t bytes) override {
    void* ptr = nullptr;
    if (gpuHostAlloc(&ptr, bytes, gpuHostAllocDefault) != gpuSuccess) {
      static_cast<void>(gpuGetLastError());
      return nullptr;
    }
    return ptr;
  }
  void FreeRegion(void* ptr, size_t /*bytes*/) override { static_cast<void>(gpuFreeHost(ptr)); }
};

TSR_Status* GetDeviceCount(void* /*user_data*/, int32_t* count) {
  UnavailableReason(count);
  return nullptr;
}

TSR_Status* GetDeviceCountForConfig(void* /*user_data*/, int32_t requested, int32_t* count) {
  int32_t available = 0;
  UnavailableReason(&available);
  if (requested < -1) {
    return sdk::InvalidArgument("GPU device count ", requested, " is negative").Release();
  }
  *count = requested == -1 ? available : std::min(requested, available);
  return nullptr;
}

sdk::Status ParseOptions(const TSR_Device_Create_Args& args, TSR_Device* device,
                         double* memory_fraction) {
  for (size_t i = 0; i < args.num_options; ++i) {
    const std::string key = args.option_keys[i];
    const std::string value = args.option_values[i];
    if (key == "allow_tf32") {
      if (value != "true" && value != "false") {
        return sdk::InvalidArgument("GPU option allow_tf32 '", value, "' is not true or false");
      }
      device->allow_tf32 = value == "true";
    } else if (key == "memory_fraction") {
      char* end = nullptr;
      const double fraction = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(fraction > 0 && fraction <= 1)) {
        return sdk::InvalidArgument("GPU option memory_fraction '", value,
                                    "' is not a number in (0, 1]");
      }
      *memory_fraction = fraction;
    } else {
      return sdk::InvalidArgument("GPU option '", key,
                                  "' is unknown (the options are allow_tf32 and memory_fraction)");
    }
  }
  return sdk::OkStatus();
}

sdk::Status Create(const TSR_Device_Create_Args& args, TSR_Device* device) {
  int32_t count = 0;
  UnavailableReason(&count);
  if (args.ordinal < 0 || args.ordinal >= count) {
    return sdk::InvalidArgument("GPU device ordinal ", args.ordinal, " is out of range [0, ", count,
                                ")");
  }
  device->ordinal = args.ordinal;
  device->name = sdk::StrCat(kDeviceType, ":", args.ordinal);
  double memory_fraction = kDefaultMemoryFraction;
  TESSERA_SDK_RETURN_IF_ERROR(ParseOptions(args, device, &memory_fraction));
  TESSERA_SDK_RETURN_IF_ERROR(MakeCurrent(device));
  gpuDeviceProp props{};
  TESSERA_SDK_RETURN_IF_ERROR(
      GpuStatus(gpuGetDeviceProperties(&props, args.ordinal), device->name, "GetDeviceProperties"));
  device->product = props.name;
  device->memory_bytes = static_cast<int64_t>(props.totalGlobalMem);
  device->multiprocessors = props.multiProcessorCount;
#if defined(TESSERA_GPU_HIP)
  // "gfx90a:sramecc+:xnack-": major 9, minor 0x0a (the ABI's 9.10).
  const std::string arch = props.gcnArchName;
  if (arch.size() >= 6 && arch.compare(0, 3, "gfx") == 0) {
    const std::string digits = arch.substr(3, arch.find(':') == std::string::npos
                                                  ? std::string::npos
                                                  : arch.find(':') - 3);
    if (digits.size() >= 3) {
      device->compute_capability_major =
          static_cast<int32_t>(std::strtol(digits.substr(0, digits.size() - 2).c_str(), nullptr, 10));
      device->compute_capability_minor =
          static_cast<int32_t>(std::strtol(digits.substr(digits.size() - 2).c_str(), nullptr, 16));
    }
  }
#else
  device->compute_capability_major = props.major;
  device->compute_capability_minor = props.minor;
#endif
  char bus_id[32] = {};
  if (gpuDeviceGetPCIBusId(bus_id, sizeof(bus_id), args.ordinal) == gpuSuccess) {
    device->bus_id = bus_id;
    std::transform(device->bus_id.begin(), device->bus_id.end(), device->bus_id.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  int driver = 0;
  if (gpuDriverGetVersion(&driver) == gpuSuccess) {
#if defined(TESSERA_GPU_HIP)
    device->driver_version = sdk::StrCat(driver);
#else
    device->driver_version = sdk::StrCat(driver / 1000, ".", (driver % 1000) / 10);
#endif
  }
  static_cast<void>(gpuGetLastError());
  // The kernels are built for some architectures only (TESSERA_CUDA_ARCHITECTURES,
  // TESSERA_HIP_ARCHITECTURES): a device none of them runs on is refused here, not at its first
  // kernel, so that its ops stay on the CPU.
  const gpuError_t image = ProbeKernelImage();
  if (image != gpuSuccess) {
    static_cast<void>(gpuGetLastError());
    return sdk::FailedPrecondition(
        device->name, " (", device->product, ", compute capability ",
        device->compute_capability_major, ".", device->compute_capability_minor,
        ") cannot run this plugin's kernels, which were built for other architectures: ",
        gpuGetErrorName(image), "; rebuild with its architecture in TESSERA_",
        TESSERA_GPU_PLATFORM, "_ARCHITECTURES");
  }
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  TESSERA_SDK_RETURN_IF_ERROR(
      GpuStatus(gpuMemGetInfo(&free_bytes, &total_bytes), device->name, "MemGetInfo"));
  const auto limit = static_cast<size_t>(static_cast<double>(free_bytes) * memory_fraction);
  device->description =
      sdk::StrCat(device->product, " (", HumanBytes(device->memory_bytes), ", ",
                  device->multiprocessors, " multiprocessors, compute capability ",
                  device->compute_capability_major, ".", device->compute_capability_minor, ", ",
                  TESSERA_GPU_PLATFORM, ")");
  device->memory =
      std::make_unique<BfcAllocator>(sdk::StrCat(device->name, " device memory"),
                                     std::make_unique<DeviceRegions>(args.ordinal), limit);
  device->pinned =
      std::make_unique<BfcAllocator>(sdk::StrCat(device->name, " pinned host memory"),
                                     std::make_unique<PinnedRegions>(), kPinnedLimitBytes);
  return sdk::OkStatus();
}

TSR_Status* CreateDevice(void* /*user_data*/, const TSR_Device_Create_Args* args,
                         TSR_Device** device) {
  *device = nullptr;
  if (args == nullptr) return sdk::InvalidArgument("GPU Device_Create without arguments").Release();
  try {
    auto created = std::make_unique<TSR_Device>();
    sdk::Status status = Create(*args, created.get());
    if (!status.ok()) return status.Release();
    *device = created.release();
    return nullptr;
  } catch (const std::bad_alloc&) {
    return sdk::ResourceExhausted("out of host memory creating GPU:", args->ordinal).Release();
  } catch (const std::exception& e) {
    return sdk::Internal("creating GPU:", args->ordinal, " threw: ", e.what()).Release();
  }
}

void DestroyDevice(TSR_Device* device) { delete device; }

TSR_Status* GetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = device->description.c_str();
  properties->memory_bytes = device->memory_bytes;
  properties->compute_units = device->multiprocessors;
  properties->memory_alignment = BfcAllocator::kAlignment;
  properties->name = device->product.c_str();
  properties->vendor = TESSERA_GPU_VENDOR;
  properties->compute_capability_major = device->compute_capability_major;
  properties->compute_capability_minor = device->compute_capability_minor;
  properties->bus_id = device->bus_id.empty() ? nullptr : device->bus_id.c_str();
  properties->memory_kinds = (1u << TSR_MEMORY_KIND_DEVICE) | (1u << TSR_MEMORY_KIND_HOST_PINNED);
  properties->driver_version =
      device->driver_version.empty() ? nullptr : device->driver_version.c_str();
  return nullptr;
}

BfcAllocator* AllocatorFor(TSR_Device* device, int32_t kind) {
  if (kind == TSR_MEMORY_KIND_DEVICE) return device->memory.get();
  if (kind == TSR_MEMORY_KIND_HOST_PINNED) return device->pinned.get();
  return nullptr;
}

// Freed memory is reusable at once: the compute stream is the only one that runs kernels, so
// work queued later on it runs after the work that still reads the memory, and the host makes a
// copy into new memory wait for the compute stream first (stream-ordered reuse, as TensorFlow).
TSR_Status* AllocateMemory(TSR_Device* device, TSR_Memory_Allocate_Args* args) {
  args->ptr = nullptr;
  BfcAllocator* allocator = AllocatorFor(device, args->kind);
  if (allocator == nullptr) {
    return sdk::InvalidArgument(device->name,
                                " allocates device and pinned host memory; memory "
                                "kind ",
                                args->kind, " was asked for")
        .Release();
  }
  try {
    return allocator->Allocate(args->size, args->alignment, &args->ptr).Release();
  } catch (const std::bad_alloc&) {
    return sdk::ResourceExhausted(device->name,
                                  ": out of host memory for the allocator's "
                                  "bookkeeping")
        .Release();
  }
}

TSR_Status* FreeMemory(TSR_Device* device, const TSR_Memory_Free_Args* args) {
  if (args->ptr == nullptr) return nullptr;
  BfcAllocator* allocator = AllocatorFor(device, args->kind);
  if (allocator == nullptr) {
    return sdk::InvalidArgument("Memory_Free on ", device->name, ": memory kind ", args->kind,
                                " is not one the device allocates")
        .Release();
  }
  return allocator->Free(args->ptr, args->size).Release();
}

TSR_Status* GetMemoryStats(TSR_Device* device, TSR_MemoryStats* stats) {
  const BfcAllocator::Stats memory = device->memory->stats();
  stats->bytes_in_use = memory.bytes_in_use;
  stats->peak_bytes_in_use = memory.peak_bytes_in_use;
  stats->bytes_limit = memory.bytes_limit;
  stats->bytes_reserved = memory.bytes_reserved;
  stats->num_allocations = memory.num_allocations;
  return nullptr;
}

// One copy: enqueued on `stream`, or completed before returning without one.
TSR_Status* Copy(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src, size_t size,
                 const char* call) {
  if (size == 0) return nullptr;
  sdk::Status status = MakeCurrent(device);
  if (!status.ok()) return status.Release();
  const gpuError_t error = stream == nullptr
                               ? gpuMemcpy(dst, src, size, gpuMemcpyDefault)
                               : gpuMemcpyAsync(dst, src, size, gpuMemcpyDefault, stream->stream);
  return GpuStatus(error, device->name, call).Release();
}

TSR_Status* HostToDevice(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
                         size_t size) {
  return Copy(device, stream, dst, src, size, "Memcpy_HostToDevice");
}

TSR_Status* DeviceToHost(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
                         size_t size) {
  return Copy(device, stream, dst, src, size, "Memcpy_DeviceToHost");
}

// The ordinal of the device whose memory `ptr` is, or -1.
int PointerDevice(const void* ptr) {
  gpuPointerAttributes attributes{};
  if (gpuPointerGetAttributes(&attributes, ptr) != gpuSuccess) {
    static_cast<void>(gpuGetLastError());
    return -1;
  }
  return attributes.device;
}

// Lets `from` reach `to`'s memory directly (NVLink, PCIe) when the hardware allows it, once per
// pair and only for pairs that copy: enabling it makes a context on `to`. Without it the runtime
// copies through the host, which is slower but right, so a refusal is not an error.
void EnablePeerAccess(int from, int to) {
  static std::mutex mu;
  static std::set<std::pair<int, int>>* tried = new std::set<std::pair<int, int>>();
  std::lock_guard<std::mutex> lock(mu);
  if (!tried->insert({from, to}).second) return;
  int can_access = 0;
  if (gpuDeviceCanAccessPeer(&can_access, from, to) == gpuSuccess && can_access != 0 &&
      gpuSetDevice(from) == gpuSuccess) {
    static_cast<void>(gpuDeviceEnablePeerAccess(to, 0));
  }
  static_cast<void>(gpuGetLastError());
}

// Unified addressing tells the runtime which device each end is on; the first copy between two
// devices enables peer access between them where the hardware has it.
TSR_Status* DeviceToDevice(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
                           size_t size) {
  if (size == 0) return nullptr;
  const int from = PointerDevice(src);
  const int to = PointerDevice(dst);
  if (from >= 0 && to >= 0 && from != to) {
    EnablePeerAccess(to, from);
    EnablePeerAccess(from, to);
  }
  return Copy(device, stream, dst, src, size, "Memcpy_DeviceToDevice");
}

// ---- Streams and events ---------------------------------------------------------------------

TSR_Status* CreateStream(TSR_Device* device, TSR_Stream_Create_Args* args) {
  args->stream = nullptr;
  RETURN_ABI_IF_ERROR(MakeCurrent(device));
  int least = 0;
  int greatest = 0;
  static_cast<void>(gpuDeviceGetStreamPriorityRange(&least, &greatest));
  auto* stream = new (std::nothrow) TSR_Stream();
  if (stream == nullptr) return sdk::ResourceExhausted("out of host memory").Release();
  const gpuError_t error = gpuStreamCreateWithPriority(&stream->stream, gpuStreamNonBlocking,
                                                       args->priority > 0 ? greatest : least);
  if (error != gpuSuccess) {
    delete stream;
    return GpuStatus(error, device->name, "StreamCreateWithPriority").Release();
  }
  args->stream = stream;
  return nullptr;
}

void DestroyStream(TSR_Device* device, TSR_Stream* stream) {
  if (stream == nullptr) return;
  static_cast<void>(gpuSetDevice(device->ordinal));
  static_cast<void>(gpuStreamDestroy(stream->stream));
  delete stream;
}

TSR_Status* SynchronizeStream(TSR_Device* device, TSR_Stream* stream) {
  RETURN_ABI_IF_ERROR(MakeCurrent(device));
  return GpuStatus(gpuStreamSynchronize(stream->stream), device->name, "StreamSynchronize")
      .Release();
}

TSR_Status* StreamWaitEvent(TSR_Device* device, TSR_Stream* stream, TSR_Event* event) {
  RETURN_ABI_IF_ERROR(MakeCurrent(device));
  return GpuStatus(gpuStreamWaitEvent(stream->stream, event->event, 0), device->name,
                   "StreamWaitEvent")
      .Release();
}

TSR_Status* CreateEvent(TSR_Device* device, TSR_Event** event) {
  *event = nullptr;
  RETURN_ABI_IF_ERROR(MakeCurrent(device));
  auto* created = new (std::nothrow) TSR_Event();
  if (created == nullptr) return sdk::ResourceExhausted("out of host memory").Release();
  const gpuError_t error = gpuEventCreateWithFlags(&created->event, gpuEventDefault);
  if (error != gpuSuccess) {
    delete created;
    return GpuStatus(error, device->name, "EventCreateWithFlags").Release();
  }
  *event = created;
  return nullptr;
}

// The runtime keeps an event that queued work still records or waits on until that work is done.
void DestroyEvent(TSR_Device* device, TSR_Event* event) {
  if (event == nullptr) return;
  static_cast<void>(gpuSetDevice(device->ordinal));
  static_cast<void>(gpuEventDestroy(event->event));
  delete event;
}

TSR_Status* RecordEvent(TSR_Device* device, TSR_Event* event, TSR_Stream* stream) {
  RETURN_ABI_IF_ERROR(MakeCurrent(device));
  return GpuStatus(gpuEventRecord(event->event, stream->stream), device->name, "EventRecord")
      .Release();
}

TSR_Status* QueryEvent(TSR_Device* device, TSR_Event* event, bool* complete) {
  const gpuError_t error = gpuEventQuery(event->event);
  *complete = error == gpuSuccess;
  if (error == gpuErrorNotReady) {
    static_cast<void>(gpuGetLastError());
    return nullptr;
  }
  return GpuStatus(error, device->name, "EventQuery").Release();
}

TSR_Status* SynchronizeEvent(TSR_Device* device, TSR_Event* event) {
  return GpuStatus(gpuEventSynchronize(event->event), device->name, "EventSynchronize").Release();
}

TSR_Status* ElapsedMicros(TSR_Device* device, TSR_Event* start, TSR_Event* end, double* micros) {
  float millis = 0;
  const gpuError_t error = gpuEventElapsedTime(&millis, start->event, end->event);
  if (error == gpuErrorNotReady) {
    static_cast<void>(gpuGetLastError());
    return sdk::FailedPrecondition(device->name, ": an event of the interval has not completed")
        .Release();
  }
  *micros = static_cast<double>(millis) * 1000.0;
  return GpuStatus(error, device->name, "EventElapsedTime").Release();
}

}  // namespace

sdk::Status GpuStatus(gpuError_t error, const std::string& where, const char* call) {
  if (error == gpuSuccess) return sdk::OkStatus();
  // Reported here: the thread's next launch must not see it as its own.
  static_cast<void>(gpuGetLastError());
  const TSR_Code code =
      error == gpuErrorMemoryAllocation ? TSR_CODE_RESOURCE_EXHAUSTED : TSR_CODE_INTERNAL;
  return sdk::MakeStatus(
      code, sdk::StrCat(where, ": ", TESSERA_GPU_PLATFORM, " ", call,
                        " failed: ", gpuGetErrorName(error), " (", gpuGetErrorString(error), ")"));
}

const std::string& UnavailableReason(int32_t* count) {
  static int32_t devices = 0;
  static const std::string* reason = [] {
    int n = 0;
    const gpuError_t error = gpuGetDeviceCount(&n);
    if (error == gpuSuccess && n > 0) {
      devices = n;
      return new std::string();
    }
    static_cast<void>(gpuGetLastError());
    if (error == gpuSuccess || error == gpuErrorNoDevice) return new std::string(kNoDevice);
    if (error == gpuErrorInsufficientDriver) {
      void* driver = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
      if (driver == nullptr) driver = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
      if (driver == nullptr) {
        return new std::string(sdk::StrCat(kNoDriver, " (", kDriverLibrary, " not found)"));
      }
      return new std::string(sdk::StrCat(kNoDriver, ": the installed driver is older than the ",
                                         TESSERA_GPU_PLATFORM,
                                         " runtime the plugin was built "
                                         "with"));
    }
    return new std::string(sdk::StrCat(kNoDevice, ": ", TESSERA_GPU_PLATFORM,
                                       " GetDeviceCount failed: ", gpuGetErrorName(error), " (",
                                       gpuGetErrorString(error), ")"));
  }();
  *count = devices;
  return *reason;
}

sdk::Status MakeCurrent(const TSR_Device* device) {
  return GpuStatus(gpuSetDevice(device->ordinal), device->name, "SetDevice");
}

sdk::Status RegisterGpuDevice(TSR_Registrar* registrar) {
  static TSR_DeviceProfilingExtension profiling = [] {
    TSR_DeviceProfilingExtension extension{};
    extension.base.struct_size = sizeof(TSR_DeviceProfilingExtension);
    extension.base.type = TSR_EXTENSION_TYPE_DEVICE_PROFILING;
    extension.Event_ElapsedMicros = &ElapsedMicros;
    return extension;
  }();
  TSR_DeviceTypeRegistration registration{};
  registration.struct_size = sizeof(TSR_DeviceTypeRegistration);
  registration.extension_start = &profiling.base;
  registration.device_type = kDeviceType;
  registration.priority = kDevicePriority;
  registration.flags = 0;  // device memory is reached only through the copies
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
  registration.Stream_Create = &CreateStream;
  registration.Stream_Destroy = &DestroyStream;
  registration.Stream_Synchronize = &SynchronizeStream;
  registration.Stream_WaitEvent = &StreamWaitEvent;
  registration.Event_Create = &CreateEvent;
  registration.Event_Destroy = &DestroyEvent;
  registration.Event_Record = &RecordEvent;
  registration.Event_Query = &QueryEvent;
  registration.Event_Synchronize = &SynchronizeEvent;
  return sdk::Status(sdk::HostApi()->Registrar_RegisterDeviceType(registrar, &registration));
}

}  // namespace tessera::gpu
