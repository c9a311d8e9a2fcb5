// The GPU device type: one TSR_Device per CUDA (or HIP) device, its memory behind a BFC allocator,
// its streams and events the runtime's own, and copies enqueued on the stream the host gives.
#ifndef TESSERA_PLUGINS_CUDA_GPU_DEVICE_H_
#define TESSERA_PLUGINS_CUDA_GPU_DEVICE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "plugins/cuda/bfc_allocator.h"
#include "plugins/cuda/gpu_runtime.h"
#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

// The plugin's definitions of the ABI's opaque handles.
struct TSR_Device {
  int32_t ordinal = 0;
  std::string name;  // "GPU:0"
  std::string product;
  std::string description;
  std::string bus_id;
  std::string driver_version;
  int64_t memory_bytes = 0;
  int32_t multiprocessors = 0;
  int32_t compute_capability_major = -1;
  int32_t compute_capability_minor = -1;
  // From the device option "allow_tf32" (default true, as TensorFlow): float32 matrix products may
  // use TF32 tensor cores.
  bool allow_tf32 = true;
  std::unique_ptr<tessera::gpu::BfcAllocator> memory;  // TSR_MEMORY_KIND_DEVICE
  std::unique_ptr<tessera::gpu::BfcAllocator> pinned;  // TSR_MEMORY_KIND_HOST_PINNED
  // The BLAS library's handle, made on the first matrix product (gpu_blas.cc); calls on it are
  // serialized by blas_mu.
  std::mutex blas_mu;
  std::shared_ptr<void> blas;
};

struct TSR_Stream {
  gpuStream_t stream = nullptr;
};

struct TSR_Event {
  gpuEvent_t event = nullptr;
};

namespace tessera::gpu {

inline constexpr char kDeviceType[] = "GPU";
// Above the CPU's 60: an op with a GPU kernel runs on the GPU, as in TensorFlow.
inline constexpr int32_t kDevicePriority = 120;

// OK, or an error naming the device and the runtime call that failed. Out of memory is
// RESOURCE_EXHAUSTED; everything else INTERNAL.
sdk::Status GpuStatus(gpuError_t error, const std::string& where, const char* call);

// Why this process cannot use the GPU runtime (empty when it can, with *count devices): "no CUDA
// driver ...", "no CUDA device". Probed once.
const std::string& UnavailableReason(int32_t* count);

// Makes `device` current on the calling thread (every runtime call that acts on a device does this
// first, since host threads serve several devices).
sdk::Status MakeCurrent(const TSR_Device* device);

// Registers the GPU device type (with the stream, event and profiling slots).
sdk::Status RegisterGpuDevice(TSR_Registrar* registrar);

// The stream of a kernel context as the runtime's stream (nullptr is the legacy default stream,
// which the host never hands a GPU kernel).
inline gpuStream_t NativeStream(TSR_Stream* stream) {
  return stream == nullptr ? nullptr : stream->stream;
}

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_GPU_DEVICE_H_
