// The loopback transport ("loopback"): servers and channels of one process joined through a
// process-wide table of listening addresses, with no sockets and no uninstrumented library, so
// that ThreadSanitizer sees every hand-off of the distributed runtime's transport traffic.
//
// Contract (docs/transports.md states the transport contract; this is how loopback meets it):
// - Addresses are "host:port" strings ("[v6]:port"), matched after normalizing the port; nothing
//   is resolved. Port 0 picks a port from 40000 up that no loopback server uses.
// - Requests and responses are copied; a lent tensor is read (one copy into the receiver's
//   destination) until its release runs, once.
// - Every host callback (handlers, allocate, completions) runs on a worker of the plugin's small
//   pool, never on the thread that made the call and never under a plugin lock. The only
//   exceptions: Channel_Destroy completes the calls it cancels on its own thread, a release of a
//   tensor that is not needed any more (answer dropped, error) runs inside Reply_SendTensor, and
//   a call or pull on a NULL channel fails on the calling thread.
// - A deadline fails the exchange with DEADLINE_EXCEEDED; Server_Stop fails unanswered ones with
//   UNAVAILABLE and waits for the server's running handlers (except one on its own thread);
//   Channel_Destroy fails the channel's with CANCELLED and waits for every completion (except
//   one on its own thread). A later answer is dropped; replies stay valid after Server_Stop.
// - The workers start with the first server or channel and are joined when the last one goes;
//   when that happens on a worker (a channel destroyed from its own callback) they stay, idle,
//   on state that is never freed, until the next server or channel or the end of the process.
#ifndef TESSERA_PLUGINS_TESTING_LOOPBACK_TRANSPORT_H_
#define TESSERA_PLUGINS_TESTING_LOOPBACK_TRANSPORT_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "plugins/testing/loopback_workers.h"
#include "tessera/plugin_api/plugin.h"
#include "tessera/plugin_api/transport.h"
#include "tessera/sdk/status.h"

namespace tessera::loopback {

// ---- Exchanges -------------------------------------------------------------------------------

class ChannelCore;

enum class ExchangeKind { kCall, kRecvTensor };

// One call or tensor pull, shared by its channel, the server's unanswered calls, the host's
// TSR_TransportReply and the deadline timer. Whoever first claims it (an answer, the deadline,
// Server_Stop, Channel_Destroy, a missing server) completes it, once; later answers are dropped.
// The request fields are set before the exchange is shared and never change.
class Exchange {
 public:
  Exchange(ExchangeKind kind, std::shared_ptr<ChannelCore> channel);

  // True for the first caller only.
  bool Claim() { return !claimed_.exchange(true, std::memory_order_acq_rel); }
  bool claimed() const { return claimed_.load(std::memory_order_acquire); }

  const ExchangeKind kind;
  const std::shared_ptr<ChannelCore> channel;
  std::string address;          // as the channel was given it, for messages
  uint64_t deadline_timer = 0;  // 0: no deadline
  // kCall
  std::string method;
  std::string request;
  TSR_CallDoneFn call_done = nullptr;
  void* call_done_arg = nullptr;
  // kRecvTensor
  uint64_t step_id = 0;
  std::string rendezvous_key;
  TSR_AllocateTensorFn allocate = nullptr;
  void* allocate_arg = nullptr;
  TSR_RecvTensorDoneFn recv_done = nullptr;
  void* recv_done_arg = nullptr;

 private:
  std::atomic<bool> claimed_{false};
};

// How a claimed exchange ends: the handler's status (or the transport's error), and the response
// bytes of a call or the sender's lent tensor of a pull. Runs the tensor's release, once, at the
// latest when destroyed.
struct Answer {
  Answer() = default;
  Answer(const Answer&) = delete;
  Answer& operator=(const Answer&) = delete;
  ~Answer() { ReleaseTensor(); }

  void ReleaseTensor() {
    TSR_ReleaseFn release_now = release;
    release = nullptr;
    if (release_now != nullptr) release_now(release_arg);
  }

  sdk::Status status;
  std::string response;
  bool has_tensor = false;  // a live or dead tensor follows (status OK)
  bool is_dead = false;
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  std::vector<int64_t> dims;
  const void* data = nullptr;  // the sender's, until release
  size_t byte_size = 0;
  TSR_ReleaseFn release = nullptr;
  void* release_arg = nullptr;
};

// Runs the caller's completion with `answer` (a pull: allocate, copy, release, then done) and
// tells the channel. Only the claimer calls it, once.
void Complete(const std::shared_ptr<Exchange>& exchange, Answer& answer);

// Claims and completes with an error; false when someone else had claimed it.
bool Fail(const std::shared_ptr<Exchange>& exchange, TSR_Code code, const std::string& message);

// ---- Channels --------------------------------------------------------------------------------

// The exchanges in flight of one channel; shared with them so that a completion may outlive the
// channel's handle (a channel destroyed from its own callback).
class ChannelCore {
 public:
  ChannelCore(std::string address, std::string key, int64_t default_deadline_ms)
      : address_(std::move(address)),
        key_(std::move(key)),
        default_deadline_ms_(default_deadline_ms) {}

  const std::string& address() const { return address_; }
  const std::string& key() const { return key_; }  // the normalized "host:port"
  int64_t default_deadline_ms() const { return default_deadline_ms_; }

  void Add(const std::shared_ptr<Exchange>& exchange);
  // After the exchange's completion has run.
  void Finished(Exchange* exchange);
  // Returns the exchanges in flight (the caller claims and cancels them).
  std::vector<std::shared_ptr<Exchange>> BeginDestroy();
  // Waits until every completion has run, except those running on this thread.
  void WaitIdle();

 private:
  const std::string address_;
  const std::string key_;
  const int64_t default_deadline_ms_;
  std::mutex mutex_;
  std::condition_variable idle_;
  int in_flight_ = 0;
  std::unordered_map<Exchange*, std::shared_ptr<Exchange>> live_;
};

// ---- Servers ---------------------------------------------------------------------------------

// One listening server: the host's handlers and its unanswered exchanges. Shared by the table,
// the server's handle and every TSR_TransportReply, so replies outlive the server.
class ServerCore {
 public:
  ServerCore(std::string address, const TSR_TransportHandlers& handlers)
      : address_(std::move(address)), handlers_(handlers) {}

  const std::string& address() const { return address_; }

  // Calls the host's handler for `exchange` with a new reply; false (nothing called) once the
  // server stops. `self` is this server.
  bool Handle(const std::shared_ptr<Exchange>& exchange, const std::shared_ptr<ServerCore>& self);
  // The host answered `exchange`.
  void Answered(Exchange* exchange);
  // No handler starts after this; unanswered exchanges fail with UNAVAILABLE; waits for the
  // handlers that run (except one on this thread).
  void Stop();

 private:
  const std::string address_;
  const TSR_TransportHandlers handlers_;
  std::mutex mutex_;
  std::condition_variable idle_;
  bool stopping_ = false;
  int running_handlers_ = 0;
  std::unordered_map<Exchange*, std::shared_ptr<Exchange>> unanswered_;
};

// The listening servers of the process, by normalized "host:port". Thread-safe.
class ServerTable {
 public:
  static constexpr int kFirstPort = 40000;

  static ServerTable& Get();  // never destroyed

  // Adds a server at `host`:`port` (0: a free port); ALREADY_EXISTS naming the address when one
  // listens there.
  sdk::Status Add(const std::string& host, int port, const TSR_TransportHandlers& handlers,
                  std::shared_ptr<ServerCore>* server);
  std::shared_ptr<ServerCore> Find(const std::string& key);
  void Remove(const std::string& key);

 private:
  ServerTable() = default;

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<ServerCore>> servers_;
  std::multiset<int> ports_;
  int next_port_ = kFirstPort;
};

// ---- Addresses and options -------------------------------------------------------------------

// Splits "host:port" ("[v6]:port"); INVALID_ARGUMENT naming the address otherwise.
sdk::Status SplitAddress(const std::string& address, std::string* host, int* port);
// "host:port", with brackets around an IPv6 host.
std::string JoinAddress(const std::string& host, int port);

// Accepts "default_deadline_ms" (a positive integer) only: there is no TLS. Anything else is
// INVALID_ARGUMENT naming the key.
sdk::Status ParseOptions(size_t num_options, const char* const* keys, const char* const* values,
                         int64_t* default_deadline_ms);

// Registers the "loopback" transport.
TSR_Status* RegisterLoopbackTransport(TSR_Registrar* registrar);

}  // namespace tessera::loopback

#endif  // TESSERA_PLUGINS_TESTING_LOOPBACK_TRANSPORT_H_
