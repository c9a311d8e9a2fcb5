// The worker's per-step rendezvous with remote pulls.
#include "host/distributed/remote_rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/distributed/cluster_spec.h"
#include "registry/transport_handle.h"

namespace tessera {

RemoteRendezvous::RemoteRendezvous(uint64_t step_id, std::string local_task, TaskChannels* channels)
    : step_id_(step_id), local_task_(std::move(local_task)), channels_(channels) {}

RemoteRendezvous::~RemoteRendezvous() = default;

absl::Status RemoteRendezvous::Send(absl::string_view key, const Tensor& value, bool is_dead) {
  return local_.Send(key, value, is_dead);
}

void RemoteRendezvous::RecvAsync(absl::string_view key, DoneCallback done) {
  absl::StatusOr<ParsedRendezvousKey> parsed = ParseRendezvousKey(key);
  if (!parsed.ok()) {
    done(parsed.status(), Tensor(), false);
    return;
  }
  absl::StatusOr<std::string> task = TaskNameOf(parsed->src_device);
  if (!task.ok()) {
    done(WithContext(task.status(), absl::StrCat("while receiving '", key, "'")), Tensor(), false);
    return;
  }
  if (*task == local_task_) {
    local_.RecvAsync(key, std::move(done));
    return;
  }
  PullFromTask(*task, key, std::move(done));
}

void RemoteRendezvous::PullFromTask(const std::string& task, absl::string_view key,
                                    DoneCallback done) {
  absl::StatusOr<TransportChannel*> channel = channels_->ChannelTo(task);
  if (!channel.ok()) {
    done(WithContext(channel.status(), absl::StrCat("while receiving '", key, "'")), Tensor(),
         false);
    return;
  }
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) {
      absl::Status status = abort_status_;
      done(status, Tensor(), false);
      return;
    }
    id = next_pull_id_++;
    pulls_.emplace(id, std::move(done));
  }
  // The destination lives here until the pull ends (the transport writes into it).
  auto value = std::make_shared<Tensor>();
  int64_t timeout_ms = pull_timeout_ms_.load();
  std::weak_ptr<RemoteRendezvous> self = weak_from_this();
  std::string where = absl::StrCat(task, " at ", (*channel)->address());
  (*channel)->RecvTensor(
      step_id_, key, timeout_ms,
      [value](TSR_DataType dtype, absl::Span<const int64_t> dims,
              TSR_TensorView* destination) -> absl::Status {
        ASSIGN_OR_RETURN(*value, Tensor::Allocate(HostAllocator(), static_cast<DataType>(dtype),
                                                  TensorShape(dims)));
        destination->struct_size = sizeof(TSR_TensorView);
        destination->dtype = dtype;
        destination->rank = value->shape().rank();
        destination->dims = value->shape().data();
        destination->data = value->data();
        destination->byte_size = value->TotalBytes();
        return absl::OkStatus();
      },
      [self, id, value, where, timeout_ms, key = std::string(key)](const absl::Status& status,
                                                                   bool is_dead) {
        std::shared_ptr<RemoteRendezvous> rendezvous = self.lock();
        if (rendezvous == nullptr) return;
        absl::Status result = status;
        if (status.code() == absl::StatusCode::kUnavailable) {
          result =
              absl::UnavailableError(absl::StrCat(where, " is unavailable: ", status.message()));
        } else if (status.code() == absl::StatusCode::kDeadlineExceeded) {
          result = absl::DeadlineExceededError(absl::StrCat(
              where, " did not send '", key, "' within ", timeout_ms, " ms: ", status.message()));
        }
        rendezvous->FinishPull(id, result, *value, is_dead);
      });
}

void RemoteRendezvous::FinishPull(uint64_t id, const absl::Status& status, const Tensor& value,
                                  bool is_dead) {
  DoneCallback done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pulls_.find(id);
    if (it == pulls_.end()) return;  // failed by an abort already
    done = std::move(it->second);
    pulls_.erase(it);
  }
  done(status, status.ok() ? value : Tensor(), status.ok() && is_dead);
}

void RemoteRendezvous::StartAbort(const absl::Status& status) {
  std::vector<DoneCallback> waiting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (abort_status_.ok()) abort_status_ = status;
    for (auto& [id, done] : pulls_) waiting.push_back(std::move(done));
    pulls_.clear();
  }
  local_.StartAbort(status);
  absl::Status first = local_.status();
  for (DoneCallback& done : waiting) done(first, Tensor(), false);
}

}  // namespace tessera
