// HostMemory: the CPU devices' memory. Aligned host memory whose large blocks are kept after they
// are freed and handed out again, so that a step which allocates the same large tensors every
// time (MatMul and Conv2D outputs, activations, gradients) reuses pages instead of faulting fresh
// ones in.
//
// Without it, the C library hands a large freed block's pages back to the kernel (glibc maps
// blocks of 128 KiB to 32 MiB and more with mmap), and the next step takes one page fault per
// 4 KiB it writes: 16,384 faults, and as many zeroed pages, for a 64 MiB tensor.
#ifndef TESSERA_PLUGINS_CPU_HOST_MEMORY_H_
#define TESSERA_PLUGINS_CPU_HOST_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tessera::cpu {

// Blocks of kMinCachedBytes and more are rounded up to whole pages and, when freed, kept by
// rounded size, the most recently freed last; a request of the same rounded size takes the most
// recently freed one back. Keeping a block that would take the cache past its capacity first
// frees the least recently freed ones. A failed allocation releases the cache and tries again.
// Thread-safe.
class HostMemory {
 public:
  static constexpr size_t kMinCachedBytes = size_t{256} << 10;
  static constexpr size_t kPageBytes = 4096;

  explicit HostMemory(size_t capacity_bytes);
  ~HostMemory();  // frees the cached blocks
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  // `size` bytes (a unique block even for 0) aligned to `alignment`, a power of two; nullptr
  // when the system has no memory left.
  void* Allocate(size_t size, size_t alignment);
  // Gives back a block from Allocate, with the size it was asked for.
  void Free(void* ptr, size_t size);

  // Bytes and blocks held for reuse now.
  size_t cached_bytes() const;
  size_t cached_blocks() const;
  size_t capacity_bytes() const { return capacity_; }
  // Frees every block held for reuse.
  void ReleaseCache();

 private:
  struct Block {
    void* ptr;
    size_t bytes;  // rounded
  };
  using Lru = std::list<Block>;

  void* Reuse(size_t bytes);
  void EvictOldestLocked();

  const size_t capacity_;
  mutable std::mutex mu_;
  Lru lru_;  // least recently freed first
  std::unordered_map<size_t, std::vector<Lru::iterator>> by_size_;
  // Large blocks allocated with more than page alignment: never cached (a later request of the
  // same size may want less), freed at once.
  std::unordered_set<void*> overaligned_;
  size_t cached_bytes_ = 0;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_HOST_MEMORY_H_
