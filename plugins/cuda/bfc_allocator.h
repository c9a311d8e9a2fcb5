// A best-fit allocator with coalescing over large regions of device memory, as TensorFlow's BFC
// allocator: steady-state allocations never reach the driver. Regions come from a
// RegionAllocator (cudaMalloc, hipMalloc, pinned host memory; a test double in tests), grow
// geometrically up to a limit, and are handed back only by ReleaseCache. Plain C++ (no GPU
// headers), so that it is tested on any machine.
#ifndef TESSERA_PLUGINS_CUDA_BFC_ALLOCATOR_H_
#define TESSERA_PLUGINS_CUDA_BFC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/sdk/status.h"

namespace tessera::gpu {

// Where the allocator's regions come from.
class RegionAllocator {
 public:
  virtual ~RegionAllocator() = default;
  // `bytes` of memory aligned to at least BfcAllocator::kAlignment, or nullptr when there is no
  // room (never throws).
  virtual void* AllocateRegion(size_t bytes) = 0;
  virtual void FreeRegion(void* ptr, size_t bytes) = 0;
};

class BfcAllocator {
 public:
  // Every chunk's size and address is a multiple of this.
  static constexpr size_t kAlignment = 256;
  // The first region's size; each further region doubles it (bounded by what is left).
  static constexpr size_t kDefaultInitialRegionBytes = size_t{2} << 20;

  struct Stats {
    int64_t bytes_in_use = 0;  // sum of the live chunks' sizes
    int64_t peak_bytes_in_use = 0;
    int64_t bytes_reserved = 0;  // sum of the regions' sizes
    int64_t bytes_limit = 0;
    int64_t num_allocations = 0;         // successful Allocate calls with a non-zero size
    int64_t num_region_allocations = 0;  // regions taken from the RegionAllocator
    int64_t num_cache_releases = 0;      // ReleaseCache calls that handed regions back
    int64_t largest_free_chunk = 0;
  };

  // `name` appears in errors ("GPU:0 device memory"); `limit` bounds the bytes reserved.
  BfcAllocator(std::string name, std::unique_ptr<RegionAllocator> regions, size_t limit,
               size_t initial_region_bytes = kDefaultInitialRegionBytes);
  // Hands every region back (chunks still in use are the host's leak; they go too).
  ~BfcAllocator();
  BfcAllocator(const BfcAllocator&) = delete;
  BfcAllocator& operator=(const BfcAllocator&) = delete;

  // A chunk of at least `size` bytes aligned to `alignment` (a power of two, at most
  // kAlignment); size 0 gives nullptr. When nothing fits and no region can be added, the cache is
  // released and the allocation tried once more; then RESOURCE_EXHAUSTED naming the allocator, the
  // request and the bytes in use.
  sdk::Status Allocate(size_t size, size_t alignment, void** ptr);
  // `size` must be what Allocate was given for `ptr`; nullptr is a no-op. A pointer not allocated
  // here (or already freed) or a differing size is INVALID_ARGUMENT.
  sdk::Status Free(void* ptr, size_t size);
  // Hands back every region with nothing in use; returns the bytes released.
  size_t ReleaseCache();
  Stats stats() const;
  const std::string& name() const { return name_; }

 private:
  struct Chunk {
    uintptr_t address = 0;
    size_t size = 0;
    size_t requested = 0;  // what Allocate was asked for; 0 when free
    bool in_use = false;
    Chunk* prev = nullptr;  // neighbours within the chunk's region
    Chunk* next = nullptr;
    size_t region_bytes = 0;  // for a region's first chunk: the region's size; 0 otherwise
  };
  using FreeKey = std::pair<size_t, uintptr_t>;  // (size, address): best fit, lowest address

  Chunk* FindFit(size_t rounded);
  bool AddRegion(size_t rounded);
  size_t ReleaseCacheLocked();
  void InsertFree(Chunk* chunk) { free_.insert({chunk->size, chunk->address}); }
  void EraseFree(Chunk* chunk) { free_.erase({chunk->size, chunk->address}); }

  const std::string name_;
  const std::unique_ptr<RegionAllocator> regions_;
  const size_t limit_;
  mutable std::mutex mu_;
  size_t next_region_bytes_;
  std::set<FreeKey> free_;
  std::unordered_map<uintptr_t, Chunk*> chunks_;  // every chunk, free or not, by address
  std::vector<Chunk*> region_heads_;
  Stats stats_;
};

// "1.5 GiB" style sizes for messages.
std::string HumanBytes(int64_t bytes);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_BFC_ALLOCATOR_H_
