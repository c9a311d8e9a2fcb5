// Calls of the master and worker services over a transport channel: protobuf requests, answers
// wrapped in a CallResult, and transport failures turned into errors that name the peer task.
#ifndef TESSERA_HOST_DISTRIBUTED_RPC_H_
#define TESSERA_HOST_DISTRIBUTED_RPC_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "host/distributed/in_process_channel.h"
#include "host/distributed/remote_rendezvous.h"
#include "registry/transport_handle.h"

namespace tessera {

// How often a server looks for running steps whose requester is gone (a worker's master, a
// master's client). With the time a transport takes to notice a broken connection (at once for
// a process that died on a live host; the gRPC transport's keepalive, 15 s, for a vanished
// host), this bounds how long orphaned work runs on.
inline constexpr std::chrono::milliseconds kOrphanCheckPeriod{100};

// The longest timeout a step's request may carry (2^40 ms, about 35 years); larger values from
// the network are cut to it, so that deadline arithmetic never overflows.
inline constexpr int64_t kMaxTimeoutMs = int64_t{1} << 40;

// Method names ("Service/Method") of the control plane.
inline constexpr char kWorkerGetStatus[] = "Worker/GetStatus";
inline constexpr char kWorkerCreateWorkerSession[] = "Worker/CreateWorkerSession";
inline constexpr char kWorkerDeleteWorkerSession[] = "Worker/DeleteWorkerSession";
inline constexpr char kWorkerRegisterGraph[] = "Worker/RegisterGraph";
inline constexpr char kWorkerDeregisterGraph[] = "Worker/DeregisterGraph";
inline constexpr char kWorkerRunGraph[] = "Worker/RunGraph";
inline constexpr char kWorkerAbortStep[] = "Worker/AbortStep";
inline constexpr char kWorkerCleanupGraph[] = "Worker/CleanupGraph";
inline constexpr char kMasterCreateSession[] = "Master/CreateSession";
inline constexpr char kMasterRunStep[] = "Master/RunStep";
inline constexpr char kMasterCloseSession[] = "Master/CloseSession";
inline constexpr char kMasterListDevices[] = "Master/ListDevices";

// A peer: its name for messages ("/job:ps/replica:0/task:0" or "master grpc://localhost:2222")
// and the channel to it: a transport channel, or an in-process one when the peer's service lives
// in this process (then `channel` is unused).
struct Peer {
  std::string name;
  TransportChannel* channel = nullptr;
  InProcessChannel* in_process = nullptr;
};

// The peer for task `task_name`: in process when `channels` has its service here, else through
// the transport.
absl::StatusOr<Peer> PeerOfTask(TaskChannels* channels, const std::string& task_name);

// The error for a transport failure of `method` on `peer`: UNAVAILABLE "task X at ADDR is
// unavailable: ..." and DEADLINE_EXCEEDED "task X at ADDR did not answer M within N ms" keep their
// codes; other codes gain the context "calling M on X at ADDR" (for an in-process peer, "X (in
// this process)" instead of "X at ADDR").
absl::Status PeerError(const Peer& peer, absl::string_view method, int64_t deadline_ms,
                       const absl::Status& transport_status);

// Sends `request`; `done` gets the handler's status (its message unchanged) with `response`
// filled, or PeerError's error. `response` must stay alive until `done` runs.
void CallAsync(const Peer& peer, absl::string_view method, const google::protobuf::Message& request,
               int64_t deadline_ms, google::protobuf::Message* response,
               std::function<void(const absl::Status&)> done);
// CallAsync and wait.
absl::Status Call(const Peer& peer, absl::string_view method,
                  const google::protobuf::Message& request, int64_t deadline_ms,
                  google::protobuf::Message* response);

// Server side: parses a request (INVALID_ARGUMENT naming the method when the bytes are not one)
// and answers with a status and, when OK, a response.
absl::Status ParseRequest(absl::string_view method, absl::string_view bytes,
                          google::protobuf::Message* request);
void Answer(TransportReply reply, const absl::Status& status,
            const google::protobuf::Message* response);

// One channel per address, created on first use and kept as long as the cache. Thread-safe.
class ChannelCache {
 public:
  ChannelCache(std::shared_ptr<const PluginTransport> transport, TransportOptions options)
      : transport_(std::move(transport)), options_(std::move(options)) {}

  absl::StatusOr<TransportChannel*> Get(const std::string& address);
  const PluginTransport& transport() const { return *transport_; }

 private:
  std::shared_ptr<const PluginTransport> transport_;
  TransportOptions options_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<TransportChannel>> channels_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_RPC_H_
