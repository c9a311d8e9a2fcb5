// Engine: the rdma transport's one UCX context, one UCX worker and the thread that owns them.
//
// Every UCX call of the plugin runs on the engine thread, and every piece of the plugin's state
// that UCX objects touch (endpoints, listeners, pending exchanges) is read and written only there,
// so the worker runs in UCX's single-thread mode and the plugin holds no lock around UCX. Other
// threads hand work over with Post (or RunSync when they need the answer); UCX's callbacks, which
// run inside ucp_worker_progress, only record what happened and Defer the reaction, so no UCX call
// is ever made from inside a UCX callback.
//
// The thread spins on ucp_worker_progress for a short while after any activity (the next message
// of an exchange usually comes within tens of microseconds, about what a wake-up from sleep costs
// on its own), then arms the worker
// and sleeps in epoll on the worker's event descriptor, its own eventfd and the nearest timer.
// The engine is created on first use and lives as long as the process (the plugin is never
// unloaded), as gRPC's runtime does in the grpc transport.
#ifndef TESSERA_PLUGINS_RDMA_ENGINE_H_
#define TESSERA_PLUGINS_RDMA_ENGINE_H_

#include <ucp/api/ucp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "plugins/rdma/error.h"

namespace tessera::rdma {

using Clock = std::chrono::steady_clock;

class Engine {
 public:
  using Task = std::function<void()>;
  // Called on the engine thread inside ucp_worker_progress; see ucp_am_recv_callback_t.
  using AmHandler = ucs_status_t (*)(void* arg, const void* header, size_t header_length,
                                     void* data, size_t length, const ucp_am_recv_param_t* param);

  // The process's engine, started on first use. UNAVAILABLE when UCX cannot start (no usable
  // transport, no memory); every later call gives the same answer.
  static Error Get(Engine** engine);

  // Runs `task` on the engine thread, after the tasks posted before it. Any thread.
  void Post(Task task);
  // Runs `task` on the engine thread now: inline when called there, otherwise posted and waited
  // for.
  void RunSync(const Task& task);
  // Engine thread only: runs `task` once the current UCX progress call has returned.
  void Defer(Task task) { Post(std::move(task)); }
  bool OnEngineThread() const { return std::this_thread::get_id() == thread_id_.load(); }

  // Engine thread only, outside UCX callbacks: one round of UCX progress and of the tasks
  // posted so far (for a caller that must wait for UCX on the engine thread itself).
  void ProgressOnce();

  // Engine thread only: calls `fire` once at `when`, unless cancelled first. Ids are never 0.
  uint64_t AddTimer(Clock::time_point when, Task fire);
  void CancelTimer(uint64_t id);

  // Engine thread only (set once at start for each id).
  void SetAmHandler(unsigned id, AmHandler handler, void* arg);

  // At the process's exit (this library's destructors run before UCX's): stops the thread's
  // loop, so that it touches no UCX object while UCX's own destructors run. Waits at most a
  // second for a thread busy in a host callback.
  void StopAtExit();

  ucp_context_h context() const { return context_; }
  ucp_worker_h worker() const { return worker_; }
  // The largest Active Message header this worker sends.
  size_t max_am_header() const { return max_am_header_; }

 private:
  Engine() = default;
  Error Start();
  void Loop();
  void RunTasks();
  // Runs due timers; returns the milliseconds until the next one (-1: none).
  int FireTimers();
  void Wake();

  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  size_t max_am_header_ = 0;
  int epoll_fd_ = -1;
  int event_fd_ = -1;
  std::atomic<std::thread::id> thread_id_{};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};

  std::mutex mutex_;
  std::deque<Task> tasks_;  // guarded by mutex_
  bool sleeping_ = false;   // guarded by mutex_: the thread is (about to be) in epoll_wait

  // Engine thread only.
  std::multimap<Clock::time_point, uint64_t> timer_order_;
  std::map<uint64_t, std::pair<Clock::time_point, Task>> timers_;
  uint64_t next_timer_ = 1;
};

}  // namespace tessera::rdma

#endif  // TESSERA_PLUGINS_RDMA_ENGINE_H_
