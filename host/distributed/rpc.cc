// Control-plane calls over a transport channel.
#include "host/distributed/rpc.h"

#include <condition_variable>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/distributed/proto/distributed.pb.h"

namespace tessera {

absl::StatusOr<Peer> PeerOfTask(TaskChannels* channels, const std::string& task_name) {
  if (InProcessChannel* in_process = channels->InProcessChannelTo(task_name)) {
    return Peer{task_name, nullptr, in_process};
  }
  ASSIGN_OR_RETURN(TransportChannel * channel, channels->ChannelTo(task_name));
  return Peer{task_name, channel, nullptr};
}

absl::Status PeerError(const Peer& peer, absl::string_view method, int64_t deadline_ms,
                       const absl::Status& transport_status) {
  std::string where = peer.in_process != nullptr ? absl::StrCat(peer.name, " (in this process)")
                      : peer.channel != nullptr
                          ? absl::StrCat(peer.name, " at ", peer.channel->address())
                          : peer.name;
  switch (transport_status.code()) {
    case absl::StatusCode::kUnavailable:
      return absl::UnavailableError(
          absl::StrCat(where, " is unavailable: ", transport_status.message()));
    case absl::StatusCode::kDeadlineExceeded:
      return absl::DeadlineExceededError(absl::StrCat(where, " did not answer ", method, " within ",
                                                      deadline_ms,
                                                      " ms: ", transport_status.message()));
    default:
      return WithContext(transport_status, absl::StrCat("calling ", method, " on ", where));
  }
}

void CallAsync(const Peer& peer, absl::string_view method, const google::protobuf::Message& request,
               int64_t deadline_ms, google::protobuf::Message* response,
               std::function<void(const absl::Status&)> done) {
  std::string bytes;
  if (!request.SerializeToString(&bytes)) {
    done(absl::InternalError(absl::StrCat("cannot serialize the request of ", method)));
    return;
  }
  auto finish = [peer, method = std::string(method), deadline_ms, response, done = std::move(done)](
                    const absl::Status& status, absl::string_view answer) {
    if (!status.ok()) {
      done(PeerError(peer, method, deadline_ms, status));
      return;
    }
    distributed::CallResult result;
    if (!result.ParseFromArray(answer.data(), static_cast<int>(answer.size()))) {
      done(absl::DataLossError(absl::StrCat("the answer of ", peer.name, " to ", method,
                                            " is not a CallResult (", answer.size(), " bytes)")));
      return;
    }
    if (result.code() != 0) {
      done(absl::Status(static_cast<absl::StatusCode>(result.code()), result.message()));
      return;
    }
    if (!response->ParseFromString(result.payload())) {
      done(absl::DataLossError(absl::StrCat("the answer of ", peer.name, " to ", method,
                                            " does not parse as ", response->GetTypeName())));
      return;
    }
    done(absl::OkStatus());
  };
  if (peer.in_process != nullptr) {
    peer.in_process->Call(method, bytes, deadline_ms, std::move(finish));
  } else {
    peer.channel->Call(method, bytes, deadline_ms, std::move(finish));
  }
}

absl::Status Call(const Peer& peer, absl::string_view method,
                  const google::protobuf::Message& request, int64_t deadline_ms,
                  google::protobuf::Message* response) {
  struct Wait {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    absl::Status status;
  };
  auto wait = std::make_shared<Wait>();
  CallAsync(peer, method, request, deadline_ms, response, [wait](const absl::Status& status) {
    std::lock_guard<std::mutex> lock(wait->mu);
    // An unshared copy: the caller's thread must not share the message's reference count with
    // the transport's thread (Debian's Abseil is not instrumented for ThreadSanitizer).
    wait->status = absl::Status(status.code(), status.message());
    wait->done = true;
    wait->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(wait->mu);
  wait->cv.wait(lock, [&] { return wait->done; });
  // Moved out, not copied: a copy would share the message's reference count with `wait`, which
  // the transport's thread may destroy later (Debian's Abseil is not instrumented for
  // ThreadSanitizer, so the count's atomics would not order the two threads for it).
  return std::move(wait->status);
}

absl::Status ParseRequest(absl::string_view method, absl::string_view bytes,
                          google::protobuf::Message* request) {
  if (!request->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(absl::StrCat("the request of ", method, " (", bytes.size(),
                                                   " bytes) does not parse as ",
                                                   request->GetTypeName()));
  }
  return absl::OkStatus();
}

void Answer(TransportReply reply, const absl::Status& status,
            const google::protobuf::Message* response) {
  distributed::CallResult result;
  result.set_code(static_cast<int>(status.code()));
  result.set_message(std::string(status.message()));
  if (status.ok() && response != nullptr) {
    if (!response->SerializeToString(result.mutable_payload())) {
      result.set_code(static_cast<int>(absl::StatusCode::kInternal));
      result.set_message(absl::StrCat("cannot serialize a ", response->GetTypeName()));
      result.clear_payload();
    }
  }
  std::string bytes;
  result.SerializeToString(&bytes);
  reply.Send(absl::OkStatus(), bytes);
}

absl::StatusOr<TransportChannel*> ChannelCache::Get(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = channels_.find(address);
  if (it != channels_.end()) return it->second.get();
  ASSIGN_OR_RETURN(std::unique_ptr<TransportChannel> channel,
                   transport_->Connect(address, options_));
  TransportChannel* result = channel.get();
  channels_.emplace(address, std::move(channel));
  return result;
}

}  // namespace tessera
