// InProcessChannel: calls to a service of this process (a master's calls to its own task's
// worker) made the way a transport channel makes them (the same request and answer bytes, the
// same deadlines, a reply that reports cancelled once the caller stops waiting) without a socket,
// a transport thread or a copy through the transport plugin. TensorFlow's master reaches its own
// worker the same way (the worker cache hands out the local worker for the local task).
#ifndef TESSERA_HOST_DISTRIBUTED_IN_PROCESS_CHANNEL_H_
#define TESSERA_HOST_DISTRIBUTED_IN_PROCESS_CHANNEL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/string_view.h"
#include "registry/transport_handle.h"

namespace tessera {

class InProcessChannel {
 public:
  // `handler` (the task's worker) must outlive the channel and every reply it was given; `name`
  // names the service in messages ("/job:worker/replica:0/task:0").
  InProcessChannel(std::string name, TransportHandler* handler);
  // Fails the calls still unanswered with CANCELLED (their replies report cancelled, a later
  // answer is dropped) and stops the deadline thread.
  ~InProcessChannel();
  InProcessChannel(const InProcessChannel&) = delete;
  InProcessChannel& operator=(const InProcessChannel&) = delete;

  const std::string& name() const { return name_; }

  // As TransportChannel::Call. The handler's HandleCall runs on the calling thread with a reply
  // that forwards to `done`; `done` runs once, on the thread that answers (possibly before Call
  // returns), or with DEADLINE_EXCEEDED on the deadline thread once `deadline_ms` passed (<= 0:
  // no deadline). From then on the reply reports cancelled and its answer is dropped, as a
  // transport drops an answer after the caller's deadline.
  void Call(absl::string_view method, absl::string_view request, int64_t deadline_ms,
            TransportChannel::CallDone done);

  // Calls made through this channel so far (for tests and monitoring).
  int64_t calls() const { return calls_.load(std::memory_order_relaxed); }

 private:
  struct PendingCall;
  struct Core;
  class Reply;

  void DeadlineLoop();

  const std::string name_;
  TransportHandler* const handler_;
  std::shared_ptr<Core> core_;  // shared with the replies, which may outlive the channel
  std::atomic<int64_t> calls_{0};
  std::thread deadline_thread_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_IN_PROCESS_CHANNEL_H_
