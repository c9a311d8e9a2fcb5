// Calls within one process, with a transport's deadlines and cancellation.
#include "host/distributed/in_process_channel.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tessera {

using Clock = std::chrono::steady_clock;

// One call until it is claimed: by its answer, its deadline or the channel's destruction,
// whichever comes first; the others find it claimed and do nothing.
struct InProcessChannel::PendingCall {
  std::atomic<bool> claimed{false};
  std::atomic<bool> cancelled{false};
  TransportChannel::CallDone done;  // touched by the claimer only
  bool has_deadline = false;
  std::multimap<Clock::time_point, std::shared_ptr<PendingCall>>::iterator deadline;  // core's mu

  bool Claim() { return !claimed.exchange(true, std::memory_order_acq_rel); }
  void Finish(const absl::Status& status, absl::string_view response) {
    TransportChannel::CallDone finish = std::move(done);
    finish(status, response);
  }
};

// The unanswered calls, by identity and by deadline.
struct InProcessChannel::Core {
  std::mutex mu;
  std::condition_variable wake;
  bool stopping = false;
  std::unordered_map<PendingCall*, std::shared_ptr<PendingCall>> live;
  std::multimap<Clock::time_point, std::shared_ptr<PendingCall>> deadlines;

  // `call` was claimed: it leaves the tables.
  void Forget(PendingCall* call) {
    std::lock_guard<std::mutex> lock(mu);
    if (live.erase(call) == 0) return;
    if (call->has_deadline) deadlines.erase(call->deadline);
  }
};

class InProcessChannel::Reply final : public InProcessReply {
 public:
  Reply(std::shared_ptr<Core> core, std::shared_ptr<PendingCall> call)
      : core_(std::move(core)), call_(std::move(call)) {}

  bool cancelled() const override { return call_->cancelled.load(std::memory_order_acquire); }

  void Send(const absl::Status& status, absl::string_view response) override {
    if (!call_->Claim()) return;  // past its deadline, or the channel is gone: nobody waits
    core_->Forget(call_.get());
    call_->Finish(status, response);
  }

  void SendTensor(const absl::Status& status, const TSR_TensorView& tensor, bool is_dead,
                  std::function<void()> release) override {
    (void)tensor;
    (void)is_dead;
    if (release) release();
    Send(status.ok() ? absl::InternalError("a call was answered with a tensor") : status,
         absl::string_view());
  }

 private:
  std::shared_ptr<Core> core_;
  std::shared_ptr<PendingCall> call_;
};

InProcessChannel::InProcessChannel(std::string name, TransportHandler* handler)
    : name_(std::move(name)), handler_(handler), core_(std::make_shared<Core>()) {
  deadline_thread_ = std::thread([this] { DeadlineLoop(); });
}

InProcessChannel::~InProcessChannel() {
  std::vector<std::shared_ptr<PendingCall>> unanswered;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    core_->stopping = true;
    for (auto& [call, shared] : core_->live) unanswered.push_back(std::move(shared));
    core_->live.clear();
    core_->deadlines.clear();
  }
  core_->wake.notify_all();
  deadline_thread_.join();
  for (const std::shared_ptr<PendingCall>& call : unanswered) {
    call->cancelled.store(true, std::memory_order_release);
    if (call->Claim()) {
      call->Finish(absl::CancelledError(absl::StrCat("the in-process channel to ", name_,
                                                     " was closed before the call was answered")),
                   absl::string_view());
    }
  }
}

void InProcessChannel::Call(absl::string_view method, absl::string_view request,
                            int64_t deadline_ms, TransportChannel::CallDone done) {
  calls_.fetch_add(1, std::memory_order_relaxed);
  auto call = std::make_shared<PendingCall>();
  call->done = std::move(done);
  bool closing = false;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    closing = core_->stopping;
    if (!closing) {
      core_->live.emplace(call.get(), call);
      if (deadline_ms > 0) {
        call->has_deadline = true;
        const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(deadline_ms);
        call->deadline = core_->deadlines.emplace(deadline, call);
        // The deadline thread sleeps until the earliest deadline: a new earliest one wakes it.
        if (call->deadline == core_->deadlines.begin()) core_->wake.notify_one();
      }
    }
  }
  if (closing) {
    call->Finish(
        absl::CancelledError(absl::StrCat("the in-process channel to ", name_, " is closing")),
        absl::string_view());
    return;
  }
  handler_->HandleCall(method, request, TransportReply(std::make_unique<Reply>(core_, call)));
}

void InProcessChannel::DeadlineLoop() {
  std::unique_lock<std::mutex> lock(core_->mu);
  while (!core_->stopping) {
    if (core_->deadlines.empty()) {
      core_->wake.wait(lock);
    } else {
      // A copy: wait_until reads its deadline again after each wake-up, by which time the
      // entry may be gone (its call answered).
      const Clock::time_point next = core_->deadlines.begin()->first;
      core_->wake.wait_until(lock, next);
    }
    const Clock::time_point now = Clock::now();
    std::vector<std::shared_ptr<PendingCall>> expired;
    while (!core_->deadlines.empty() && core_->deadlines.begin()->first <= now) {
      std::shared_ptr<PendingCall> call = std::move(core_->deadlines.begin()->second);
      core_->deadlines.erase(core_->deadlines.begin());
      call->has_deadline = false;
      core_->live.erase(call.get());
      expired.push_back(std::move(call));
    }
    if (expired.empty()) continue;
    lock.unlock();
    for (const std::shared_ptr<PendingCall>& call : expired) {
      // The handler sees its caller gone (as a transport's reply does after the deadline) and
      // its answer, if one still comes, is dropped.
      call->cancelled.store(true, std::memory_order_release);
      if (call->Claim()) {
        call->Finish(absl::DeadlineExceededError("the call's deadline passed before its answer"),
                     absl::string_view());
      }
    }
    lock.lock();
  }
}

}  // namespace tessera
