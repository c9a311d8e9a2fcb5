// The loopback transport's workers: generations of threads with a task queue and timers, started
// by the first user and joined after the last.
#include "plugins/testing/loopback_workers.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessera::loopback {

// One generation of worker threads with their queue and timers.
class Workers::Pool {
 public:
  Pool() {
    try {
      threads_.reserve(kThreads);
      for (int i = 0; i < kThreads; ++i) threads_.emplace_back([this] { Run(); });
    } catch (...) {  // out of threads: the ones started must end before the pool goes
      StopAndJoin();
      throw;
    }
  }

  bool OnWorker() const { return current_ == this; }

  // False once the pool stops (the caller then posts to the next pool).
  bool Post(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    queue_.push_back(std::move(task));
    wake_.notify_one();
    return true;
  }
  bool PostAt(std::chrono::steady_clock::time_point when, uint64_t id, std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    timer_index_.emplace(id, timers_.emplace(when, Timer{id, std::move(task)}));
    wake_.notify_one();
    return true;
  }
  void Cancel(uint64_t id) {
    std::function<void()> dropped;  // freed outside the lock
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = timer_index_.find(id);
    if (found == timer_index_.end()) return;
    dropped = std::move(found->second->second.task);
    timers_.erase(found->second);
    timer_index_.erase(found);
  }

  // Runs what is queued, drops the timers, and joins the threads.
  void StopAndJoin() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      wake_.notify_all();
    }
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
    Timers dropped;  // freed outside the lock
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(timers_);
    timer_index_.clear();
  }

 private:
  void Run() {
    current_ = this;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      const auto now = std::chrono::steady_clock::now();
      while (!stopping_ && !timers_.empty() && timers_.begin()->first <= now) {
        queue_.push_back(std::move(timers_.begin()->second.task));
        timer_index_.erase(timers_.begin()->second.id);
        timers_.erase(timers_.begin());
      }
      if (!queue_.empty()) {
        std::function<void()> task = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        task();
        task = nullptr;  // what it holds goes outside the lock too
        lock.lock();
        continue;
      }
      if (stopping_) break;
      if (timers_.empty()) {
        wake_.wait(lock);
      } else {
        // A copy: the timer may be cancelled (its node freed) while this thread waits.
        const std::chrono::steady_clock::time_point next = timers_.begin()->first;
        wake_.wait_until(lock, next);
      }
    }
    current_ = nullptr;
  }

  struct Timer {
    uint64_t id;
    std::function<void()> task;
  };
  using Timers = std::multimap<std::chrono::steady_clock::time_point, Timer>;

  static thread_local const Pool* current_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::deque<std::function<void()>> queue_;
  Timers timers_;
  std::unordered_map<uint64_t, Timers::iterator> timer_index_;
  std::vector<std::thread> threads_;
};

thread_local const Workers::Pool* Workers::Pool::current_ = nullptr;

Workers& Workers::Get() {
  static Workers* workers = new Workers;
  return *workers;
}

void Workers::Acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pool_ == nullptr) pool_ = std::make_shared<Pool>();
  ++users_;
}

void Workers::Release() {
  std::shared_ptr<Pool> stopping;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--users_ > 0 || pool_ == nullptr || pool_->OnWorker()) return;
    stopping = std::move(pool_);
  }
  stopping->StopAndJoin();
}

std::shared_ptr<Workers::Pool> Workers::CurrentPool() {
  std::lock_guard<std::mutex> lock(mutex_);
  // Only a late post with no server or channel left gets here without a pool; its pool lasts
  // until the next Release that leaves no user.
  if (pool_ == nullptr) pool_ = std::make_shared<Pool>();
  return pool_;
}

void Workers::Post(std::function<void()> task) {
  while (!CurrentPool()->Post(task)) {
  }
}

uint64_t Workers::NewTimerId() { return next_timer_id_.fetch_add(1, std::memory_order_relaxed); }

void Workers::PostAfter(uint64_t id, std::chrono::milliseconds delay, std::function<void()> task) {
  const auto when = std::chrono::steady_clock::now() + delay;
  while (!CurrentPool()->PostAt(when, id, task)) {
  }
}

void Workers::CancelTimer(uint64_t id) {
  std::shared_ptr<Pool> pool;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pool = pool_;
  }
  if (pool != nullptr) pool->Cancel(id);
}

}  // namespace tessera::loopback
