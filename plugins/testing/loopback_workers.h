// Workers: the loopback transport's threads, process-wide: a few workers that run every host
// callback of the transport, and timers (deadlines) that run on them.
#ifndef TESSERA_PLUGINS_TESTING_LOOPBACK_WORKERS_H_
#define TESSERA_PLUGINS_TESTING_LOOPBACK_WORKERS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace tessera::loopback {

// The process-wide worker threads. Thread-safe. When the last user goes on a worker (a channel
// destroyed from its own callback), the threads are not joined: they stay, idle, on state that is
// never freed, until the next user comes and goes or the process exits.
class Workers {
 public:
  static constexpr int kThreads = 4;

  static Workers& Get();  // never destroyed

  // A server or channel starts (threads start if none run) or goes (the last one stops the
  // threads, after they ran every queued task, and joins them, unless called on a worker).
  void Acquire();
  void Release();

  // Runs `task` on a worker, never on the calling thread.
  void Post(std::function<void()> task);
  // Runs `task` on a worker once `delay` has passed unless cancelled first (or the workers stop
  // first); `id` comes from NewTimerId.
  uint64_t NewTimerId();
  void PostAfter(uint64_t id, std::chrono::milliseconds delay, std::function<void()> task);
  // Drops the timer's task if it has not run (no effect otherwise).
  void CancelTimer(uint64_t id);

 private:
  class Pool;
  Workers() = default;
  std::shared_ptr<Pool> CurrentPool();

  std::atomic<uint64_t> next_timer_id_{1};
  std::mutex mutex_;
  int users_ = 0;
  std::shared_ptr<Pool> pool_;
};

}  // namespace tessera::loopback

#endif  // TESSERA_PLUGINS_TESTING_LOOPBACK_WORKERS_H_
