// A CPU emulation of the kernel language, so that the shared kernel sources are tested on machines
// without a GPU (gpu_runtime.h includes it when TESSERA_GPU_EMULATE is defined; the sources are
// then compiled as C++). A launch runs its blocks one after another; each thread of a block is a
// host thread, __syncthreads() a barrier of the block's threads, and __shared__ a function-static
// variable, which is shared by the threads of a block because one block runs at a time (so one
// launch at a time per process). 16-bit floats convert in software, rounding to nearest even.
// Only for tests: a launch of N threads starts N host threads.
#ifndef TESSERA_PLUGINS_CUDA_GPU_EMULATION_H_
#define TESSERA_PLUGINS_CUDA_GPU_EMULATION_H_

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define TESSERA_GPU_UNROLL

#define TESSERA_GPU_PLATFORM "emulated GPU"
#define TESSERA_GPU_VENDOR "Tessera tests"

struct dim3 {
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  unsigned x;
  unsigned y;
  unsigned z;
};

using gpuError_t = int;
using gpuStream_t = void*;
inline constexpr gpuError_t gpuSuccess = 0;
inline constexpr gpuError_t gpuErrorInvalidValue = 1;
inline gpuError_t gpuGetLastError() { return gpuSuccess; }

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

namespace tessera::gpu::emulation {

inline uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}
inline float BitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// One barrier per running block.
class Barrier {
 public:
  explicit Barrier(unsigned count) : count_(count) {}
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    const unsigned generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation != generation_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  const unsigned count_;
  unsigned arrived_ = 0;
  unsigned generation_ = 0;
};

struct ThreadState {
  dim3 thread_idx;
  dim3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  Barrier* barrier = nullptr;
};
inline thread_local ThreadState t_state;

// Runs kernel(args...) for every thread of every block.
template <typename... Params, typename... Args>
gpuError_t Launch(void (*kernel)(Params...), dim3 grid, dim3 block, gpuStream_t /*stream*/,
                  Args&&... args) {
  const unsigned threads = block.x * block.y * block.z;
  if (threads == 0 || threads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0) {
    return gpuErrorInvalidValue;
  }
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        Barrier barrier(threads);
        std::vector<std::thread> pool;
        pool.reserve(threads);
        for (unsigned t = 0; t < threads; ++t) {
          pool.emplace_back([&, t] {
            t_state.thread_idx =
                dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
            t_state.block_idx = dim3(bx, by, bz);
            t_state.block_dim = block;
            t_state.grid_dim = grid;
            t_state.barrier = &barrier;
            kernel(static_cast<Params>(args)...);
          });
        }
        for (std::thread& thread : pool) thread.join();
      }
    }
  }
  return gpuSuccess;
}

}  // namespace tessera::gpu::emulation

#define threadIdx (::tessera::gpu::emulation::t_state.thread_idx)
#define blockIdx (::tessera::gpu::emulation::t_state.block_idx)
#define blockDim (::tessera::gpu::emulation::t_state.block_dim)
#define gridDim (::tessera::gpu::emulation::t_state.grid_dim)
inline void __syncthreads() { ::tessera::gpu::emulation::t_state.barrier->Wait(); }

// binary16, as the device's __half.
struct __half {
  uint16_t bits = 0;
};
inline float __half2float(__half h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1Fu;
  uint32_t mantissa = h.bits & 0x3FFu;
  if (exponent == 0x1F) {
    return ::tessera::gpu::emulation::BitsFloat(sign | 0x7F800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24.
    const float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -value : value;
  }
  return ::tessera::gpu::emulation::BitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
inline __half __float2half_rn(float f) {
  __half h;
  const uint32_t bits = ::tessera::gpu::emulation::FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const float magnitude = std::fabs(f);
  if (std::isnan(f)) {
    h.bits = static_cast<uint16_t>(sign | 0x7E00u);
  } else if (magnitude >= 65520.0f) {  // rounds to infinity
    h.bits = static_cast<uint16_t>(sign | 0x7C00u);
  } else if (magnitude < 6.103515625e-05f) {  // subnormal (or zero): a multiple of 2^-24
    h.bits = static_cast<uint16_t>(sign |
                                   static_cast<uint16_t>(std::nearbyint(magnitude * 16777216.0f)));
  } else {
    const uint32_t mbits = bits & 0x7FFFFFFFu;
    // Round the 23-bit mantissa to 10 bits, to nearest even; a carry moves into the exponent.
    const uint32_t rounded = mbits + 0xFFFu + ((mbits >> 13) & 1u);
    h.bits = static_cast<uint16_t>(sign | (((rounded >> 13) - (112u << 10)) & 0x7FFFu));
  }
  return h;
}

// bfloat16: the upper half of a float, rounded to nearest even.
struct gpu_bfloat16 {
  gpu_bfloat16() = default;
  explicit gpu_bfloat16(float f) {
    const uint32_t b = ::tessera::gpu::emulation::FloatBits(f);
    bits = std::isnan(f) ? static_cast<uint16_t>((b >> 16) | 0x40u)
                         : static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
  }
  explicit operator float() const {
    return ::tessera::gpu::emulation::BitsFloat(static_cast<uint32_t>(bits) << 16);
  }
  uint16_t bits = 0;
};

#endif  // TESSERA_PLUGINS_CUDA_GPU_EMULATION_H_
