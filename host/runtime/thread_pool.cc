// ThreadPool over Eigen's non-blocking thread pool.
#define EIGEN_USE_THREADS
#include "host/runtime/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "unsupported/Eigen/CXX11/ThreadPool"

namespace tessera {
namespace {

// Below this many estimated cycles a shard is not worth a thread hop.
constexpr int64_t kMinCyclesPerShard = 20000;

// How long a ParallelFor caller that has run its own shard spins for the others before it
// sleeps. The shards are sized alike, so the others usually end within microseconds, while waking
// a sleeping thread costs tens of microseconds (more in a virtual machine).
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(50);

// Counts down to zero; Wait spins briefly, then blocks until then. Shared with the shards, which
// may still be returning from DecrementCount when the waiter has seen zero.
class BlockingCounter {
 public:
  explicit BlockingCounter(int count) : count_(count) {}
  void DecrementCount() {
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      cv_.notify_all();
    }
  }
  void Wait() {
    const auto give_up = std::chrono::steady_clock::now() + kSpinBeforeSleep;
    for (int i = 0;; ++i) {
      if (count_.load(std::memory_order_acquire) == 0) return;
      if ((i & 63) == 63 && std::chrono::steady_clock::now() > give_up) break;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_; });
  }

 private:
  std::atomic<int> count_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
};

}  // namespace

int NumSchedulableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(std::string name, int num_threads, bool caller_works)
    : name_(std::move(name)),
      num_threads_(num_threads <= 0 ? NumSchedulableCores() : num_threads),
      caller_works_(caller_works) {
  pool_ = std::make_unique<Eigen::ThreadPool>(caller_works_ ? std::max(1, num_threads_ - 1)
                                                            : num_threads_);
}

ThreadPool::~ThreadPool() = default;

int ThreadPool::NumThreads() const { return num_threads_; }

int ThreadPool::CurrentThreadId() const { return pool_->CurrentThreadId(); }

void ThreadPool::Schedule(std::function<void()> fn) { pool_->Schedule(std::move(fn)); }

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  int64_t max_shards = caller_works_ ? num_threads_ : num_threads_ + 1;
  int64_t cost = std::max<int64_t>(cost_per_unit, 1);
  int64_t by_cost = std::max<int64_t>(1, total * cost / kMinCyclesPerShard);
  int64_t shards = std::min({max_shards, by_cost, total});
  // Inside a pool thread a nested fan-out could starve the pool; run inline instead.
  if (shards <= 1 || CurrentThreadId() >= 0) {
    fn(0, total);
    return;
  }
  int64_t block = (total + shards - 1) / shards;
  shards = (total + block - 1) / block;
  auto counter = std::make_shared<BlockingCounter>(static_cast<int>(shards - 1));
  for (int64_t s = 1; s < shards; ++s) {
    int64_t begin = s * block;
    int64_t end = std::min(total, begin + block);
    pool_->Schedule([&fn, counter, begin, end] {
      fn(begin, end);
      counter->DecrementCount();
    });
  }
  fn(0, std::min(total, block));
  if (shards > 1) counter->Wait();
}

}  // namespace tessera
