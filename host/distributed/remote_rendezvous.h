// RemoteRendezvous: a worker's rendezvous for one step. Values sent here stay here until their
// receiver takes them (a local _Recv, or another task's pull through the transport); a _Recv
// whose sender is another task pulls the value from that task by rendezvous key (receiver-pull).
#ifndef TESSERA_HOST_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
#define TESSERA_HOST_DISTRIBUTED_REMOTE_RENDEZVOUS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "host/rendezvous/rendezvous.h"

namespace tessera {

class InProcessChannel;
class TransportChannel;

// Where a task's values come from: resolves a task name to the channel to it.
class TaskChannels {
 public:
  virtual ~TaskChannels() = default;
  // The channel to `task_name` ("/job:ps/replica:0/task:0"); INVALID_ARGUMENT for a task that is
  // not in the cluster.
  virtual absl::StatusOr<TransportChannel*> ChannelTo(const std::string& task_name) = 0;
  // The in-process channel to `task_name`'s worker when that worker lives in this process (a
  // server's own task), which control calls use instead of the transport; null otherwise.
  virtual InProcessChannel* InProcessChannelTo(const std::string& task_name) {
    (void)task_name;
    return nullptr;
  }
};

class RemoteRendezvous final : public Rendezvous,
                               public std::enable_shared_from_this<RemoteRendezvous> {
 public:
  // `local_task`: "/job:worker/replica:0/task:0"; keys whose source device is not in it are
  // pulled through `channels` (which must outlive the rendezvous' pulls).
  RemoteRendezvous(uint64_t step_id, std::string local_task, TaskChannels* channels);
  ~RemoteRendezvous() override;

  // Deadline of each pull from another task.
  void set_pull_timeout_ms(int64_t timeout_ms) { pull_timeout_ms_.store(timeout_ms); }

  absl::Status Send(absl::string_view key, const Tensor& value, bool is_dead) override;
  // Local sender: waits in this rendezvous. Remote sender: pulls from its task; an abort fails
  // the waiting receiver at once (a late answer is dropped).
  void RecvAsync(absl::string_view key, DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;
  absl::Status status() const override { return local_.status(); }

  // Receives from this task's own table only: how another task's pull is served.
  void RecvLocal(absl::string_view key, DoneCallback done) {
    local_.RecvAsync(key, std::move(done));
  }

 private:
  void PullFromTask(const std::string& task, absl::string_view key, DoneCallback done);
  void FinishPull(uint64_t id, const absl::Status& status, const Tensor& value, bool is_dead);

  const uint64_t step_id_;
  const std::string local_task_;
  TaskChannels* channels_;
  std::atomic<int64_t> pull_timeout_ms_{0};
  LocalRendezvous local_;

  std::mutex mu_;
  absl::Status abort_status_;
  uint64_t next_pull_id_ = 0;
  std::map<uint64_t, DoneCallback> pulls_;  // receivers waiting on another task
};

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
