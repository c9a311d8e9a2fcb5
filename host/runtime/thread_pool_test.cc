#include "host/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(ThreadPoolTest, ParallelForCoversEveryIndexOnce) {
  ThreadPool pool("test", 3);
  std::vector<std::atomic<int>> hits(10000);
  pool.ParallelFor(10000, 1000, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
  });
  for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ThreadPoolTest, CheapLoopsRunOnTheCaller) {
  ThreadPool pool("test", 2);
  std::atomic<int> shards{0};
  pool.ParallelFor(10, 1, [&](int64_t, int64_t) { shards.fetch_add(1); });
  EXPECT_EQ(shards.load(), 1);
  EXPECT_EQ(pool.CurrentThreadId(), -1);
}

TEST(ThreadPoolTest, ScheduleRunsClosures) {
  ThreadPool pool("test", 2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) pool.Schedule([&] { ran.fetch_add(1); });
  while (ran.load() < 100) {
  }
  EXPECT_EQ(ran.load(), 100);
  EXPECT_EQ(pool.NumThreads(), 2);
}

// The intra-op pool's caller is one of its threads: a ParallelFor over every thread keeps exactly
// NumThreads() of them busy (shards), the pool itself runs one thread fewer.
TEST(ThreadPoolTest, ACallerWorksPoolCountsTheCaller) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool("test", threads, /*caller_works=*/true);
    EXPECT_EQ(pool.NumThreads(), threads);
    std::atomic<int> shards{0};
    std::vector<std::atomic<int>> hits(1000);
    pool.ParallelFor(1000, 1000000, [&](int64_t begin, int64_t end) {
      shards.fetch_add(1);
      for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    });
    EXPECT_EQ(shards.load(), threads) << threads;
    for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
    // Schedule still has a thread to run on, whose index is below NumThreads().
    std::atomic<int> id{-2};
    pool.Schedule([&] { id.store(pool.CurrentThreadId()); });
    while (id.load() == -2) {
    }
    EXPECT_GE(id.load(), 0);
    EXPECT_LT(id.load(), std::max(1, threads - 1));
  }
}

// Other pools add the caller to their threads.
TEST(ThreadPoolTest, APlainPoolAddsTheCaller) {
  ThreadPool pool("test", 2);
  std::atomic<int> shards{0};
  pool.ParallelFor(1000, 1000000, [&](int64_t, int64_t) { shards.fetch_add(1); });
  EXPECT_EQ(shards.load(), 3);
}

}  // namespace
}  // namespace tessera
