// HostMemory: aligned host memory with a cache of freed large blocks.
#include "plugins/cpu/host_memory.h"

#include <algorithm>
#include <cstdlib>

namespace tessera::cpu {
namespace {

size_t RoundUp(size_t size, size_t alignment) {
  return (size + alignment - 1) / alignment * alignment;
}

void* AlignedAlloc(size_t size, size_t alignment) {
  void* ptr = nullptr;
  if (posix_memalign(&ptr, alignment, size) != 0) return nullptr;
  return ptr;
}

}  // namespace

HostMemory::HostMemory(size_t capacity_bytes) : capacity_(capacity_bytes) {}

HostMemory::~HostMemory() { ReleaseCache(); }

void* HostMemory::Allocate(size_t size, size_t alignment) {
  alignment = std::max(alignment, sizeof(void*));
  // A zero-byte request still gets a unique pointer: NULL is reserved for "no buffer".
  if (size == 0) size = 1;
  const bool large = size >= kMinCachedBytes;
  const bool cacheable = large && alignment <= kPageBytes;
  // Rounding cannot overflow below this; larger requests fail in posix_memalign.
  const bool roundable = size <= SIZE_MAX - std::max(alignment, kPageBytes);
  if (cacheable && roundable) {
    const size_t bytes = RoundUp(size, kPageBytes);
    if (void* ptr = Reuse(bytes)) return ptr;
    void* ptr = AlignedAlloc(bytes, kPageBytes);
    if (ptr == nullptr) {
      ReleaseCache();
      ptr = AlignedAlloc(bytes, kPageBytes);
    }
    return ptr;
  }
  void* ptr = AlignedAlloc(size, alignment);
  if (ptr == nullptr && cached_bytes() > 0) {
    ReleaseCache();
    ptr = AlignedAlloc(size, alignment);
  }
  if (ptr != nullptr && large) {
    std::lock_guard<std::mutex> lock(mu_);
    overaligned_.insert(ptr);
  }
  return ptr;
}

void HostMemory::Free(void* ptr, size_t size) {
  if (ptr == nullptr) return;
  if (size < kMinCachedBytes) {
    std::free(ptr);
    return;
  }
  const size_t bytes = RoundUp(size, kPageBytes);
  std::vector<void*> evicted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (overaligned_.erase(ptr) == 0 && bytes <= capacity_) {
      while (cached_bytes_ + bytes > capacity_) {
        evicted.push_back(lru_.front().ptr);
        EvictOldestLocked();
      }
      lru_.push_back(Block{ptr, bytes});
      by_size_[bytes].push_back(std::prev(lru_.end()));
      cached_bytes_ += bytes;
      ptr = nullptr;
    }
  }
  // Outside the lock: giving pages back to the kernel takes a while.
  for (void* old : evicted) std::free(old);
  std::free(ptr);
}

void* HostMemory::Reuse(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_size_.find(bytes);
  if (it == by_size_.end()) return nullptr;
  const Lru::iterator block = it->second.back();
  it->second.pop_back();
  if (it->second.empty()) by_size_.erase(it);
  void* ptr = block->ptr;
  cached_bytes_ -= bytes;
  lru_.erase(block);
  return ptr;
}

void HostMemory::EvictOldestLocked() {
  const Block oldest = lru_.front();
  std::vector<Lru::iterator>& same = by_size_[oldest.bytes];
  // The oldest block of its size is the first of its list.
  same.erase(same.begin());
  if (same.empty()) by_size_.erase(oldest.bytes);
  cached_bytes_ -= oldest.bytes;
  lru_.pop_front();
}

size_t HostMemory::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_bytes_;
}

size_t HostMemory::cached_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
}

void HostMemory::ReleaseCache() {
  std::vector<void*> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Block& block : lru_) blocks.push_back(block.ptr);
    lru_.clear();
    by_size_.clear();
    cached_bytes_ = 0;
  }
  for (void* ptr : blocks) std::free(ptr);
}

}  // namespace tessera::cpu
