// The worker's per-step rendezvous with remote pulls.
#include "host/distributed/remote_rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/distributed/cluster_spec.h"
#include "host/runtime/packed_strings.h"
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
  // A string tensor arrives packed into `packed` and is unpacked into `value` when it is done.
  auto value = std::make_shared<Tensor>();
  auto packed = std::make_shared<Tensor>();
  int64_t timeout_ms = pull_timeout_ms_.load();
  std::weak_ptr<RemoteRendezvous> self = weak_from_this();
  std::string where = absl::StrCat(task, " at ", (*channel)->address());
  (*channel)->RecvTensor(
      step_id_, key, timeout_ms,
      [value, packed, where, key = std::string(key)](
          TSR_DataType dtype, absl::Span<const int64_t> dims, size_t byte_size,
          TSR_TensorView* destination) -> absl::Status {
        const TensorShape shape(dims);
        void* data = nullptr;
        if (dtype == TSR_DTYPE_STRING) {
          RETURN_IF_ERROR(CheckTensorSize(dtype, dims));
          if (byte_size < TSR_STRING_OFFSETS_SIZE(shape.num_elements()) ||
              byte_size > static_cast<size_t>(kMaxTensorBytes)) {
            return absl::DataLossError(absl::StrCat(
                where, " sent '", key, "', a string tensor of shape ", shape.DebugString(),
                ", in ", byte_size, " bytes, which cannot hold its offsets"));
          }
          ASSIGN_OR_RETURN(*packed, Tensor::Allocate(HostAllocator(), TSR_DTYPE_UINT8,
                                                     TensorShape{static_cast<int64_t>(byte_size)}));
          *value = Tensor(TSR_DTYPE_STRING, shape, nullptr);
          data = packed->data();
        } else {
          ASSIGN_OR_RETURN(*value, Tensor::Allocate(HostAllocator(), static_cast<DataType>(dtype),
                                                    shape));
          if (byte_size != value->TotalBytes()) {
            return absl::DataLossError(absl::StrCat(
                where, " sent '", key, "' as ", byte_size, " bytes, but a ",
                DataTypeString(static_cast<DataType>(dtype)), " tensor of shape ",
                shape.DebugString(), " has ", value->TotalBytes()));
          }
          data = value->data();
        }
        destination->struct_size = sizeof(TSR_TensorView);
        destination->dtype = dtype;
        destination->rank = value->shape().rank();
        destination->dims = value->shape().data();
        destination->data = data;
        destination->byte_size = byte_size;
        return absl::OkStatus();
      },
      [self, id, value, packed, where, timeout_ms, key = std::string(key)](
          const absl::Status& status, bool is_dead) {
        std::shared_ptr<RemoteRendezvous> rendezvous = self.lock();
        if (rendezvous == nullptr) return;
        absl::Status result = status;
        if (result.ok() && !is_dead && packed->IsInitialized()) {
          absl::StatusOr<Tensor> strings =
              UnpackStrings(value->shape(), packed->data(),
                            static_cast<size_t>(packed->NumElements()));
          if (strings.ok()) {
            *value = std::move(*strings);
          } else {
            result = absl::DataLossError(absl::StrCat(where, " sent '", key,
                                                      "' malformed: ", strings.status().message()));
          }
        }
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
