// The engine thread: UCX's context and worker, the task queue, timers and the progress loop.
#include "plugins/rdma/engine.h"

#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <utility>

namespace tessera::rdma {
namespace {

// How long the thread keeps polling after the last activity before it sleeps.
// TESSERA_RDMA_POLL_US overrides it (0: sleep as soon as there is nothing to do, which costs a
// wake-up of tens of microseconds per message but no polling).
std::chrono::microseconds PollTime() {
  static const std::chrono::microseconds poll = [] {
    const char* value = std::getenv("TESSERA_RDMA_POLL_US");
    if (value == nullptr) return std::chrono::microseconds(100);
    char* end = nullptr;
    const long parsed = std::strtol(value, &end, 10);
    return std::chrono::microseconds(*end == '\0' && parsed >= 0 ? parsed : 100);
  }();
  return poll;
}
// A peer that vanishes without closing its connection (a dead host, a cut cable) is noticed by
// UCX's keepalive: the same bound as the grpc transport's pings unless UCX_KEEPALIVE_INTERVAL says
// otherwise.
constexpr char kKeepaliveInterval[] = "10s";

Error UcxError(const char* what, ucs_status_t status) {
  return MakeError(TSR_CODE_UNAVAILABLE, "rdma transport: ", what, " failed: ",
                   ucs_status_string(status));
}

}  // namespace

static Engine* g_started = nullptr;  // the engine whose thread runs, for the exit hook below

// Runs when this library's static objects are destroyed at exit, before UCX's (this library
// depends on UCX's, so the dynamic linker finalizes it first).
struct StopAtExitHook {
  ~StopAtExitHook() {
    if (g_started != nullptr) g_started->StopAtExit();
  }
} g_stop_at_exit;

Error Engine::Get(Engine** engine) {
  static Error* error = nullptr;
  static Engine* instance = [] {
    Engine* created = new Engine();
    Error started = created->Start();
    if (!started.ok()) {
      error = new Error(std::move(started));
      return static_cast<Engine*>(nullptr);  // the half-started engine is kept, never used
    }
    g_started = created;
    return created;
  }();
  if (instance == nullptr) return *error;
  *engine = instance;
  return Error();
}

Error Engine::Start() {
  // A restarted task binds its port again at once, as the grpc transport's servers do, even while
  // connections of its previous life linger in TIME_WAIT (a port another server listens on is
  // still refused). UCX reads this one only from the environment (ucp_config_modify does not
  // reach its connection managers), so it is set there, once, unless the user set it.
  setenv("UCX_CM_REUSEADDR", "y", /*overwrite=*/0);
  ucp_config_t* config = nullptr;
  ucs_status_t status = ucp_config_read(nullptr, nullptr, &config);
  if (status != UCS_OK) return UcxError("reading UCX's configuration", status);
  if (std::getenv("UCX_KEEPALIVE_INTERVAL") == nullptr) {
    ucp_config_modify(config, "KEEPALIVE_INTERVAL", kKeepaliveInterval);
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 0;
  status = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (status != UCS_OK) return UcxError("ucp_init", status);

  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
  status = ucp_worker_create(context_, &worker_params, &worker_);
  if (status != UCS_OK) return UcxError("ucp_worker_create", status);
  ucp_worker_attr_t attr{};
  attr.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  status = ucp_worker_query(worker_, &attr);
  if (status != UCS_OK) return UcxError("ucp_worker_query", status);
  max_am_header_ = attr.max_am_header;

  int worker_fd = -1;
  status = ucp_worker_get_efd(worker_, &worker_fd);
  if (status != UCS_OK) return UcxError("ucp_worker_get_efd", status);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || event_fd_ < 0) {
    return MakeError(TSR_CODE_UNAVAILABLE, "rdma transport: cannot create the engine's epoll or "
                                           "eventfd descriptors");
  }
  for (int fd : {worker_fd, event_fd_}) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
      return MakeError(TSR_CODE_UNAVAILABLE, "rdma transport: epoll_ctl failed");
    }
  }
  std::thread thread([this] { Loop(); });
  thread_id_.store(thread.get_id());
  thread.detach();  // lives with the process
  return Error();
}

void Engine::Post(Task task) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
    wake = sleeping_;
  }
  if (wake) Wake();
}

void Engine::RunSync(const Task& task) {
  if (OnEngineThread()) {
    task();
    return;
  }
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  Post([&] {
    task();
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    done_cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mutex);
  done_cv.wait(lock, [&] { return done; });
}

void Engine::Wake() {
  const uint64_t one = 1;
  ssize_t written = write(event_fd_, &one, sizeof(one));
  (void)written;  // a full counter already wakes the thread
}

uint64_t Engine::AddTimer(Clock::time_point when, Task fire) {
  const uint64_t id = next_timer_++;
  timer_order_.emplace(when, id);
  timers_.emplace(id, std::make_pair(when, std::move(fire)));
  return id;
}

void Engine::CancelTimer(uint64_t id) {
  auto found = timers_.find(id);
  if (found == timers_.end()) return;
  auto range = timer_order_.equal_range(found->second.first);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second == id) {
      timer_order_.erase(it);
      break;
    }
  }
  timers_.erase(found);
}

void Engine::SetAmHandler(unsigned id, AmHandler handler, void* arg) {
  ucp_am_handler_param_t param{};
  param.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                     UCP_AM_HANDLER_PARAM_FIELD_ARG;
  param.id = id;
  param.cb = handler;
  param.arg = arg;
  ucp_worker_set_am_recv_handler(worker_, &param);
}

void Engine::ProgressOnce() {
  ucp_worker_progress(worker_);
  RunTasks();
}

void Engine::RunTasks() {
  std::deque<Task> tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks.swap(tasks_);
  }
  for (Task& task : tasks) task();
}

int Engine::FireTimers() {
  for (;;) {
    if (timer_order_.empty()) return -1;
    const auto first = timer_order_.begin();
    const Clock::time_point now = Clock::now();
    if (first->first > now) {
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(first->first - now);
      // Far timers wake the thread once a minute, which then sleeps again.
      return static_cast<int>(std::min<int64_t>(wait.count() + 1, 60000));
    }
    const uint64_t id = first->second;
    timer_order_.erase(first);
    auto found = timers_.find(id);
    Task fire = std::move(found->second.second);
    timers_.erase(found);
    fire();
  }
}

void Engine::StopAtExit() {
  stopping_.store(true, std::memory_order_release);
  if (OnEngineThread()) return;  // exit() called from a callback on this very thread
  Wake();
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(1);
  while (!stopped_.load(std::memory_order_acquire) && Clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void Engine::Loop() {
  Clock::time_point spin_until = Clock::now() + PollTime();
  for (;;) {
    if (stopping_.load(std::memory_order_acquire)) {
      stopped_.store(true, std::memory_order_release);
      return;  // the process is exiting; UCX's objects are left to it
    }
    RunTasks();
    bool busy = false;
    while (ucp_worker_progress(worker_) != 0) busy = true;
    const int timeout_ms = FireTimers();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!tasks_.empty()) busy = true;
    }
    const Clock::time_point now = Clock::now();
    if (busy) {
      spin_until = now + PollTime();
      continue;
    }
    if (now < spin_until) {
      // Polling, but a thread this one just woke (the host's waiter of a completion) gets the
      // core first: on a machine with few cores, that thread is the next step of the exchange.
      sched_yield();
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!tasks_.empty()) continue;
      sleeping_ = true;
    }
    if (ucp_worker_arm(worker_) != UCS_ERR_BUSY) {
      epoll_event events[2];
      epoll_wait(epoll_fd_, events, 2, timeout_ms);
      uint64_t count;
      while (read(event_fd_, &count, sizeof(count)) > 0) {
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sleeping_ = false;
    }
    spin_until = Clock::now() + PollTime();
  }
}

}  // namespace tessera::rdma
