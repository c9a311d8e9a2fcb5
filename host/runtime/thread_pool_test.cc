#include "host/runtime/thread_pool.h"

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

}  // namespace
}  // namespace tessera
