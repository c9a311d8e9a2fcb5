// The best-fit-with-coalescing allocator. Free chunks sit in one ordered set keyed by (size,
// address), so the best fit is one lower_bound; every chunk, free or in use, is in a map by
// address and linked to its neighbours in its region, so a free merges with free neighbours at
// once and a region whose single chunk is free can go back to the RegionAllocator.
#include "plugins/cuda/bfc_allocator.h"

#include <algorithm>
#include <cstdio>

namespace tessera::gpu {
namespace {

size_t RoundUp(size_t size) {
  return (size + BfcAllocator::kAlignment - 1) / BfcAllocator::kAlignment *
         BfcAllocator::kAlignment;
}

}  // namespace

std::string HumanBytes(int64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.1f %s", value, kUnits[unit]);
  return text;
}

BfcAllocator::BfcAllocator(std::string name, std::unique_ptr<RegionAllocator> regions, size_t limit,
                           size_t initial_region_bytes)
    : name_(std::move(name)),
      regions_(std::move(regions)),
      limit_(limit / kAlignment * kAlignment),
      next_region_bytes_(RoundUp(std::max<size_t>(initial_region_bytes, kAlignment))) {
  stats_.bytes_limit = static_cast<int64_t>(limit_);
}

BfcAllocator::~BfcAllocator() {
  for (Chunk* head : region_heads_) {
    regions_->FreeRegion(reinterpret_cast<void*>(head->address), head->region_bytes);
  }
  for (auto& [address, chunk] : chunks_) delete chunk;
}

BfcAllocator::Chunk* BfcAllocator::FindFit(size_t rounded) {
  auto it = free_.lower_bound({rounded, 0});
  if (it == free_.end()) return nullptr;
  Chunk* chunk = chunks_.at(it->second);
  free_.erase(it);
  if (chunk->size - rounded >= kAlignment) {
    // Split: the remainder stays free, right after the chunk.
    auto* rest = new Chunk();
    rest->address = chunk->address + rounded;
    rest->size = chunk->size - rounded;
    rest->prev = chunk;
    rest->next = chunk->next;
    if (chunk->next != nullptr) chunk->next->prev = rest;
    chunk->next = rest;
    chunk->size = rounded;
    chunks_[rest->address] = rest;
    InsertFree(rest);
  }
  return chunk;
}

bool BfcAllocator::AddRegion(size_t rounded) {
  const size_t reserved = static_cast<size_t>(stats_.bytes_reserved);
  if (reserved >= limit_ || limit_ - reserved < rounded) return false;
  const size_t room = limit_ - reserved;
  // The geometric size when it fits, else what is left; on a refusal, just the request.
  size_t bytes = std::min(std::max(next_region_bytes_, rounded), room);
  void* base = regions_->AllocateRegion(bytes);
  if (base == nullptr && bytes > rounded) {
    bytes = rounded;
    base = regions_->AllocateRegion(bytes);
  }
  if (base == nullptr) return false;
  auto* chunk = new Chunk();
  chunk->address = reinterpret_cast<uintptr_t>(base);
  chunk->size = bytes;
  chunk->region_bytes = bytes;
  chunks_[chunk->address] = chunk;
  region_heads_.push_back(chunk);
  InsertFree(chunk);
  stats_.bytes_reserved += static_cast<int64_t>(bytes);
  ++stats_.num_region_allocations;
  if (bytes >= next_region_bytes_ && next_region_bytes_ <= limit_ / 2) next_region_bytes_ *= 2;
  return true;
}

sdk::Status BfcAllocator::Allocate(size_t size, size_t alignment, void** ptr) {
  *ptr = nullptr;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > kAlignment) {
    return sdk::InvalidArgument(name_, ": alignment ", alignment,
                                " is not a power of two of at most ", kAlignment);
  }
  if (size == 0) return sdk::OkStatus();
  if (size > limit_) {
    return sdk::ResourceExhausted(name_, " cannot allocate ", HumanBytes(size), " (", size,
                                  " bytes): more than its limit of ", HumanBytes(limit_));
  }
  const size_t rounded = RoundUp(size);
  std::lock_guard<std::mutex> lock(mu_);
  Chunk* chunk = FindFit(rounded);
  if (chunk == nullptr && AddRegion(rounded)) chunk = FindFit(rounded);
  if (chunk == nullptr && ReleaseCacheLocked() > 0 && AddRegion(rounded)) chunk = FindFit(rounded);
  if (chunk == nullptr) {
    return sdk::ResourceExhausted(
        name_, " is out of memory allocating ", HumanBytes(rounded), " (", size,
        " bytes): ", HumanBytes(stats_.bytes_in_use), " (", stats_.bytes_in_use, " bytes) in use, ",
        HumanBytes(stats_.bytes_reserved), " reserved of a ", HumanBytes(limit_),
        " limit, largest free chunk ",
        HumanBytes(free_.empty() ? 0 : static_cast<int64_t>(free_.rbegin()->first)));
  }
  chunk->in_use = true;
  chunk->requested = size;
  stats_.bytes_in_use += static_cast<int64_t>(chunk->size);
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  ++stats_.num_allocations;
  *ptr = reinterpret_cast<void*>(chunk->address);
  return sdk::OkStatus();
}

sdk::Status BfcAllocator::Free(void* ptr, size_t size) {
  if (ptr == nullptr) return sdk::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chunks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == chunks_.end() || !it->second->in_use) {
    return sdk::InvalidArgument(name_, ": free of ", ptr, ", which ",
                                it == chunks_.end() ? "it did not allocate" : "is already free");
  }
  Chunk* chunk = it->second;
  if (chunk->requested != size) {
    return sdk::InvalidArgument(name_, ": free of ", ptr, " with size ", size,
                                ", but it was allocated with size ", chunk->requested);
  }
  stats_.bytes_in_use -= static_cast<int64_t>(chunk->size);
  chunk->in_use = false;
  chunk->requested = 0;
  // Merge with a free right neighbour, then into a free left one.
  if (chunk->next != nullptr && !chunk->next->in_use) {
    Chunk* next = chunk->next;
    EraseFree(next);
    chunk->size += next->size;
    chunk->next = next->next;
    if (next->next != nullptr) next->next->prev = chunk;
    chunks_.erase(next->address);
    delete next;
  }
  if (chunk->prev != nullptr && !chunk->prev->in_use) {
    Chunk* prev = chunk->prev;
    EraseFree(prev);
    prev->size += chunk->size;
    prev->next = chunk->next;
    if (chunk->next != nullptr) chunk->next->prev = prev;
    chunks_.erase(chunk->address);
    delete chunk;
    chunk = prev;
  }
  InsertFree(chunk);
  return sdk::OkStatus();
}

size_t BfcAllocator::ReleaseCache() {
  std::lock_guard<std::mutex> lock(mu_);
  return ReleaseCacheLocked();
}

size_t BfcAllocator::ReleaseCacheLocked() {
  size_t released = 0;
  std::vector<Chunk*> kept;
  for (Chunk* head : region_heads_) {
    // A region is unused when its first chunk is free and spans it whole.
    if (head->in_use || head->size != head->region_bytes) {
      kept.push_back(head);
      continue;
    }
    EraseFree(head);
    chunks_.erase(head->address);
    regions_->FreeRegion(reinterpret_cast<void*>(head->address), head->region_bytes);
    released += head->region_bytes;
    stats_.bytes_reserved -= static_cast<int64_t>(head->region_bytes);
    delete head;
  }
  region_heads_ = std::move(kept);
  if (released > 0) ++stats_.num_cache_releases;
  return released;
}

BfcAllocator::Stats BfcAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats stats = stats_;
  stats.largest_free_chunk = free_.empty() ? 0 : static_cast<int64_t>(free_.rbegin()->first);
  return stats;
}

}  // namespace tessera::gpu
