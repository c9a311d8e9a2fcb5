#include "plugins/cpu/host_memory.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

// A request the system cannot satisfy must come back as nullptr, also under AddressSanitizer and
// ThreadSanitizer (whose allocators abort on it by default).
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
extern "C" const char* __tsan_default_options() { return "allocator_may_return_null=1"; }

namespace tessera::cpu {
namespace {

constexpr size_t kLarge = HostMemory::kMinCachedBytes;

bool AlignedTo(const void* ptr, size_t alignment) {
  return reinterpret_cast<uintptr_t>(ptr) % alignment == 0;
}

TEST(HostMemoryTest, HonoursAlignmentAndGivesUniqueBlocksForZeroBytes) {
  HostMemory memory(size_t{64} << 20);
  for (size_t alignment : {size_t{1}, size_t{64}, size_t{4096}, size_t{1} << 16}) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{100}, kLarge, kLarge + 3}) {
      void* ptr = memory.Allocate(size, alignment);
      ASSERT_NE(ptr, nullptr);
      EXPECT_TRUE(AlignedTo(ptr, alignment)) << size << " bytes aligned to " << alignment;
      std::memset(ptr, 0xab, size);
      memory.Free(ptr, size);
    }
  }
  void* a = memory.Allocate(0, 64);
  void* b = memory.Allocate(0, 64);
  EXPECT_NE(a, b);
  memory.Free(a, 0);
  memory.Free(b, 0);
}

TEST(HostMemoryTest, ReusesAFreedLargeBlockOfTheSameRoundedSize) {
  HostMemory memory(size_t{64} << 20);
  void* first = memory.Allocate(kLarge + 10, 64);
  ASSERT_NE(first, nullptr);
  memory.Free(first, kLarge + 10);
  EXPECT_EQ(memory.cached_blocks(), 1u);
  EXPECT_EQ(memory.cached_bytes(), kLarge + HostMemory::kPageBytes);
  // A size that rounds to the same pages takes the block back.
  void* again = memory.Allocate(kLarge + 100, 64);
  EXPECT_EQ(again, first);
  EXPECT_EQ(memory.cached_bytes(), 0u);
  // Another rounded size does not.
  memory.Free(again, kLarge + 100);
  void* other = memory.Allocate(kLarge, 64);
  EXPECT_NE(other, first);
  EXPECT_EQ(memory.cached_blocks(), 1u);
  memory.Free(other, kLarge);
  EXPECT_EQ(memory.cached_blocks(), 2u);
}

TEST(HostMemoryTest, SmallBlocksAreNotKept) {
  HostMemory memory(size_t{64} << 20);
  void* ptr = memory.Allocate(kLarge - 1, 64);
  memory.Free(ptr, kLarge - 1);
  EXPECT_EQ(memory.cached_blocks(), 0u);
}

TEST(HostMemoryTest, KeepingABlockPastCapacityFreesTheLeastRecentlyFreed) {
  HostMemory memory(2 * kLarge);
  void* a = memory.Allocate(kLarge, 64);
  void* b = memory.Allocate(kLarge, 64);
  void* c = memory.Allocate(kLarge, 64);
  memory.Free(a, kLarge);
  memory.Free(b, kLarge);
  memory.Free(c, kLarge);  // a goes
  EXPECT_EQ(memory.cached_blocks(), 2u);
  EXPECT_EQ(memory.cached_bytes(), 2 * kLarge);
  // The most recently freed comes back first.
  void* first = memory.Allocate(kLarge, 64);
  void* second = memory.Allocate(kLarge, 64);
  EXPECT_EQ(first, c);
  EXPECT_EQ(second, b);
  EXPECT_EQ(memory.cached_blocks(), 0u);
  memory.Free(first, kLarge);
  memory.Free(second, kLarge);
}

TEST(HostMemoryTest, EvictionAcrossSizesKeepsTheIndexRight) {
  HostMemory memory(3 * kLarge);
  void* small = memory.Allocate(kLarge, 64);
  void* big = memory.Allocate(2 * kLarge, 64);
  memory.Free(small, kLarge);
  memory.Free(big, 2 * kLarge);  // full: small, big
  EXPECT_EQ(memory.Allocate(2 * kLarge, 64), big);
  void* other = memory.Allocate(2 * kLarge, 64);
  memory.Free(big, 2 * kLarge);    // full again: small, big
  memory.Free(other, 2 * kLarge);  // room only once both are gone
  EXPECT_EQ(memory.cached_blocks(), 1u);
  EXPECT_EQ(memory.cached_bytes(), 2 * kLarge);
  EXPECT_EQ(memory.Allocate(2 * kLarge, 64), other);
  // Nothing of the evicted sizes is left behind.
  void* fresh = memory.Allocate(kLarge, 64);
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(memory.cached_blocks(), 0u);
  EXPECT_EQ(memory.cached_bytes(), 0u);
  memory.Free(fresh, kLarge);
  memory.Free(other, 2 * kLarge);
}

TEST(HostMemoryTest, BlocksLargerThanTheCapacityOrOveralignedAreNotKept) {
  HostMemory memory(kLarge);
  void* huge = memory.Allocate(2 * kLarge, 64);
  memory.Free(huge, 2 * kLarge);
  EXPECT_EQ(memory.cached_blocks(), 0u);
  void* overaligned = memory.Allocate(kLarge, size_t{1} << 16);
  ASSERT_NE(overaligned, nullptr);
  memory.Free(overaligned, kLarge);
  EXPECT_EQ(memory.cached_blocks(), 0u);
  // A page-aligned request is served from the cache.
  void* block = memory.Allocate(kLarge, 64);
  memory.Free(block, kLarge);
  EXPECT_EQ(memory.Allocate(kLarge, 4096), block);
  memory.Free(block, kLarge);
}

TEST(HostMemoryTest, ReleaseCacheFreesEveryKeptBlock) {
  HostMemory memory(size_t{64} << 20);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(memory.Allocate(kLarge * (i + 1), 64));
  for (int i = 0; i < 4; ++i) memory.Free(blocks[i], kLarge * (i + 1));
  EXPECT_EQ(memory.cached_blocks(), 4u);
  memory.ReleaseCache();
  EXPECT_EQ(memory.cached_blocks(), 0u);
  EXPECT_EQ(memory.cached_bytes(), 0u);
}

TEST(HostMemoryTest, FailedAllocationReleasesTheCacheAndReturnsNull) {
  HostMemory memory(size_t{64} << 20);
  void* block = memory.Allocate(kLarge, 64);
  memory.Free(block, kLarge);
  ASSERT_EQ(memory.cached_blocks(), 1u);
  EXPECT_EQ(memory.Allocate(SIZE_MAX / 2, 64), nullptr);
  EXPECT_EQ(memory.cached_blocks(), 0u);
  EXPECT_EQ(memory.Allocate(SIZE_MAX - 10, 64), nullptr);  // too large to round up
  EXPECT_EQ(memory.Allocate(SIZE_MAX / 2, size_t{1} << 16), nullptr);
}

TEST(HostMemoryTest, ThreadsShareTheCache) {
  HostMemory memory(8 * kLarge);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&memory, t] {
      for (int i = 0; i < 200; ++i) {
        const size_t size = kLarge * (1 + (i + t) % 3);
        auto* ptr = static_cast<unsigned char*>(memory.Allocate(size, 64));
        ASSERT_NE(ptr, nullptr);
        ptr[0] = static_cast<unsigned char>(t);
        ptr[size - 1] = static_cast<unsigned char>(i);
        EXPECT_EQ(ptr[0], t);
        memory.Free(ptr, size);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(memory.cached_bytes(), memory.capacity_bytes());
}

}  // namespace
}  // namespace tessera::cpu
