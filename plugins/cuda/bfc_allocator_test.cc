#include "plugins/cuda/bfc_allocator.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cuda/test_host_api.h"

namespace tessera::gpu {
namespace {

using ::testing::HasSubstr;

// Regions from the host heap, with a capacity the test sets (a device's free memory) and a log.
class FakeRegions : public RegionAllocator {
 public:
  struct Log {
    size_t capacity = size_t{1} << 30;
    size_t live_bytes = 0;
    std::vector<size_t> allocated;
    std::vector<size_t> freed;
    int refusals = 0;
  };
  explicit FakeRegions(Log* log) : log_(log) {}
  void* AllocateRegion(size_t bytes) override {
    if (log_->live_bytes + bytes > log_->capacity) {
      ++log_->refusals;
      return nullptr;
    }
    void* ptr = std::aligned_alloc(BfcAllocator::kAlignment, bytes);
    log_->live_bytes += bytes;
    log_->allocated.push_back(bytes);
    return ptr;
  }
  void FreeRegion(void* ptr, size_t bytes) override {
    log_->live_bytes -= bytes;
    log_->freed.push_back(bytes);
    std::free(ptr);
  }

 private:
  Log* log_;
};

constexpr size_t kMiB = size_t{1} << 20;

std::unique_ptr<BfcAllocator> MakeAllocator(FakeRegions::Log* log, size_t limit,
                                            size_t initial = kMiB) {
  return std::make_unique<BfcAllocator>("GPU:0 device memory", std::make_unique<FakeRegions>(log),
                                        limit, initial);
}

void* MustAllocate(BfcAllocator& allocator, size_t size) {
  void* ptr = nullptr;
  sdk::Status status = allocator.Allocate(size, 64, &ptr);
  EXPECT_TRUE(status.ok()) << status.message();
  return ptr;
}

TEST(BfcAllocatorTest, ReusesFreedChunksWithoutNewRegions) {
  FakeRegions::Log log;
  auto allocator = MakeAllocator(&log, 64 * kMiB);
  void* a = MustAllocate(*allocator, 1000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % BfcAllocator::kAlignment, 0u);
  ASSERT_TRUE(allocator->Free(a, 1000).ok());
  // A steady state: the same sizes again and again come from the one region.
  for (int step = 0; step < 100; ++step) {
    void* x = MustAllocate(*allocator, 4096);
    void* y = MustAllocate(*allocator, 100000);
    ASSERT_TRUE(allocator->Free(x, 4096).ok());
    ASSERT_TRUE(allocator->Free(y, 100000).ok());
  }
  EXPECT_EQ(log.allocated.size(), 1u);
  const BfcAllocator::Stats stats = allocator->stats();
  EXPECT_EQ(stats.num_allocations, 201);
  EXPECT_EQ(stats.num_region_allocations, 1);
  EXPECT_EQ(stats.bytes_in_use, 0);
  EXPECT_EQ(stats.bytes_reserved, static_cast<int64_t>(kMiB));
  EXPECT_EQ(stats.peak_bytes_in_use, 4096 + 100096);
  EXPECT_EQ(stats.largest_free_chunk, static_cast<int64_t>(kMiB));
}

TEST(BfcAllocatorTest, BestFitPicksTheSmallestFreeChunkThatFits) {
  FakeRegions::Log log;
  auto allocator = MakeAllocator(&log, 64 * kMiB);
  void* a = MustAllocate(*allocator, 8192);
  void* sep1 = MustAllocate(*allocator, 256);
  void* b = MustAllocate(*allocator, 2048);
  void* sep2 = MustAllocate(*allocator, 256);
  ASSERT_TRUE(allocator->Free(a, 8192).ok());
  ASSERT_TRUE(allocator->Free(b, 2048).ok());
  // 2048 fits both holes (and the region's tail); best fit takes b's.
  EXPECT_EQ(MustAllocate(*allocator, 2000), b);
  EXPECT_EQ(MustAllocate(*allocator, 8000), a);
  (void)sep1;
  (void)sep2;
}

TEST(BfcAllocatorTest, FreeCoalescesNeighboursSoALargeRequestFits) {
  FakeRegions::Log log;
  auto allocator = MakeAllocator(&log, kMiB, kMiB);  // exactly one region of 1 MiB
  std::vector<void*> quarters;
  for (int i = 0; i < 4; ++i) quarters.push_back(MustAllocate(*allocator, kMiB / 4));
  void* none = nullptr;
  EXPECT_EQ(allocator->Allocate(kMiB / 2, 64, &none).code(), TSR_CODE_RESOURCE_EXHAUSTED);
  // Free the middle two in an order that needs both a right and a left merge.
  ASSERT_TRUE(allocator->Free(quarters[2], kMiB / 4).ok());
  ASSERT_TRUE(allocator->Free(quarters[1], kMiB / 4).ok());
  EXPECT_EQ(allocator->stats().largest_free_chunk, static_cast<int64_t>(kMiB / 2));
  EXPECT_EQ(MustAllocate(*allocator, kMiB / 2), quarters[1]);
  EXPECT_EQ(log.allocated.size(), 1u);
}

TEST(BfcAllocatorTest, RegionsGrowGeometricallyUpToTheLimit) {
  FakeRegions::Log log;
  auto allocator = MakeAllocator(&log, 16 * kMiB, kMiB);
  std::vector<void*> blocks;
  for (int i = 0; i < 7; ++i) blocks.push_back(MustAllocate(*allocator, kMiB));
  // 1, 2, 4 MiB regions hold seven 1 MiB chunks.
  EXPECT_EQ(log.allocated, (std::vector<size_t>{kMiB, 2 * kMiB, 4 * kMiB}));
  blocks.push_back(MustAllocate(*allocator, kMiB));
  // The next (8 MiB) region is what the limit leaves: 9 MiB remain, so 8 MiB.
  EXPECT_EQ(log.allocated.back(), 8 * kMiB);
}

TEST(BfcAllocatorTest, ExhaustionReleasesTheCacheAndRetriesOnce) {
  FakeRegions::Log log;
  log.capacity = 3 * kMiB + kMiB / 2;  // the device's memory, less than the allocator's limit
  auto allocator = MakeAllocator(&log, 64 * kMiB, kMiB);
  void* a = MustAllocate(*allocator, kMiB);      // region 1 (1 MiB)
  void* b = MustAllocate(*allocator, 2 * kMiB);  // region 2 (2 MiB)
  ASSERT_TRUE(allocator->Free(a, kMiB).ok());
  ASSERT_TRUE(allocator->Free(b, 2 * kMiB).ok());
  // 3 MiB fits no free chunk; a new region needs 3 MiB but only 0.5 MiB of the device is left:
  // the two cached regions go back and the retry gets a 3 MiB region (4 MiB, the next geometric
  // size, does not fit the device).
  void* c = MustAllocate(*allocator, 3 * kMiB);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(log.freed.size(), 2u);
  const BfcAllocator::Stats stats = allocator->stats();
  EXPECT_EQ(stats.num_cache_releases, 1);
  EXPECT_EQ(stats.bytes_reserved, static_cast<int64_t>(3 * kMiB));
  EXPECT_EQ(stats.bytes_in_use, static_cast<int64_t>(3 * kMiB));
}

TEST(BfcAllocatorTest, ExhaustionIsResourceExhaustedNamingTheRequestAndUse) {
  FakeRegions::Log log;
  log.capacity = 2 * kMiB;
  auto allocator = MakeAllocator(&log, 64 * kMiB, kMiB);
  void* a = MustAllocate(*allocator, 1536 * 1024);
  ASSERT_NE(a, nullptr);
  void* ptr = reinterpret_cast<void*>(1);
  sdk::Status status = allocator->Allocate(kMiB, 64, &ptr);
  EXPECT_EQ(status.code(), TSR_CODE_RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.message(),
              HasSubstr("GPU:0 device memory is out of memory allocating 1.0 MiB (1048576 bytes): "
                        "1.5 MiB (1572864 bytes) in use, 1.5 MiB reserved of a 64.0 MiB limit"));
  EXPECT_EQ(ptr, nullptr);
  // Nothing was cached to release: the allocator did not hand back the region in use.
  EXPECT_TRUE(log.freed.empty());
  // Larger than the limit itself: refused before any region is tried.
  status = allocator->Allocate(65 * kMiB, 64, &ptr);
  EXPECT_EQ(status.code(), TSR_CODE_RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.message(), HasSubstr("more than its limit of 64.0 MiB"));
}

TEST(BfcAllocatorTest, BadFreesAndAlignmentsAreInvalidArgument) {
  FakeRegions::Log log;
  auto allocator = MakeAllocator(&log, 64 * kMiB);
  void* a = MustAllocate(*allocator, 1000);
  sdk::Status status = allocator->Free(a, 999);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("with size 999, but it was allocated with size 1000"));
  ASSERT_TRUE(allocator->Free(a, 1000).ok());
  status = allocator->Free(a, 1000);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("which is already free"));
  int on_stack = 0;
  status = allocator->Free(&on_stack, 4);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("which it did not allocate"));
  void* ptr = nullptr;
  status = allocator->Allocate(16, 3, &ptr);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("alignment 3 is not a power of two of at most 256"));
  status = allocator->Allocate(16, 4096, &ptr);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_TRUE(allocator->Free(nullptr, 0).ok());
  EXPECT_TRUE(allocator->Allocate(0, 64, &ptr).ok());
  EXPECT_EQ(ptr, nullptr);
}

TEST(BfcAllocatorTest, FragmentationFromInterleavedFreesHealsWhenAllAreFreed) {
  FakeRegions::Log log;
  auto allocator = MakeAllocator(&log, 64 * kMiB, 4 * kMiB);
  std::map<void*, size_t> live;
  unsigned seed = 7;
  for (int i = 0; i < 2000; ++i) {
    seed = seed * 1103515245u + 12345u;
    if (live.size() > 40 || (!live.empty() && seed % 3 == 0)) {
      auto it = live.begin();
      std::advance(it, (seed >> 8) % live.size());
      ASSERT_TRUE(allocator->Free(it->first, it->second).ok());
      live.erase(it);
    } else {
      const size_t size = 1 + (seed >> 4) % 60000;
      void* ptr = MustAllocate(*allocator, size);
      ASSERT_TRUE(live.emplace(ptr, size).second) << "a live chunk was handed out twice";
    }
  }
  for (auto& [ptr, size] : live) ASSERT_TRUE(allocator->Free(ptr, size).ok());
  const BfcAllocator::Stats stats = allocator->stats();
  EXPECT_EQ(stats.bytes_in_use, 0);
  // Everything merged back: each region is one free chunk again and can be handed back.
  EXPECT_EQ(allocator->ReleaseCache(), static_cast<size_t>(stats.bytes_reserved));
  EXPECT_EQ(log.live_bytes, 0u);
  EXPECT_EQ(allocator->stats().bytes_reserved, 0);
}

TEST(BfcAllocatorTest, HumanBytes) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(int64_t{80} << 30), "80.0 GiB");
}

}  // namespace
}  // namespace tessera::gpu
