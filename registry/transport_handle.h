// PluginTransport: the RAII wrappers over a transport plugin's table (servers, channels, replies)
// and the only way the host calls a transport. Everything above it speaks absl::Status and bytes.
#ifndef TESSERA_REGISTRY_TRANSPORT_HANDLE_H_
#define TESSERA_REGISTRY_TRANSPORT_HANDLE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "registry/specs.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

class PluginTransport;

// Transport options ("tls_cert_file" -> "/etc/tessera/server.pem", ...), passed to the plugin.
using TransportOptions = std::map<std::string, std::string>;

// Where the answer of a call that crossed no transport goes (a task calling its own service in
// process): the host's stand-in for a plugin's TSR_TransportReply. TransportReply calls Send or
// SendTensor at most once, and `cancelled` never concurrently with them.
class InProcessReply {
 public:
  virtual ~InProcessReply() = default;
  // True once the caller no longer waits (its deadline passed, it gave up).
  virtual bool cancelled() const = 0;
  virtual void Send(const absl::Status& status, absl::string_view response) = 0;
  virtual void SendTensor(const absl::Status& status, const TSR_TensorView& tensor, bool is_dead,
                          std::function<void()> release) = 0;
};

// One incoming call, answered exactly once. Move-only. Destroying an unanswered reply answers it
// with INTERNAL ("the host dropped the call without an answer"), so a peer never waits forever.
// May be answered from any thread, also after the server was stopped (the answer is then
// dropped by the transport). Made by a transport server from a plugin's reply, or from an
// InProcessReply for a call made inside the process; the handler cannot tell them apart.
class TransportReply {
 public:
  TransportReply() = default;
  TransportReply(std::shared_ptr<const PluginTransport> transport, TSR_TransportReply* reply);
  explicit TransportReply(std::unique_ptr<InProcessReply> in_process);
  ~TransportReply();
  TransportReply(TransportReply&& other) noexcept;
  TransportReply& operator=(TransportReply&& other) noexcept;
  TransportReply(const TransportReply&) = delete;
  TransportReply& operator=(const TransportReply&) = delete;

  bool answered() const { return reply_ == nullptr && in_process_ == nullptr; }
  // True once the caller no longer waits for the answer (its deadline passed, it cancelled, its
  // connection broke, the server stopped); false when answered or when the transport cannot
  // tell (Reply_IsCancelled is NULL). Not safe concurrently with Send or SendTensor.
  bool cancelled() const;
  // Answers a control-plane call; `response` is copied.
  void Send(const absl::Status& status, absl::string_view response);
  // Answers a tensor pull without copying: `tensor` (host memory, its dims included) must stay
  // valid until `release` runs, which the transport calls once it is done reading (possibly
  // before SendTensor returns). A non-OK status sends no tensor; `release` still runs.
  void SendTensor(const absl::Status& status, const TSR_TensorView& tensor, bool is_dead,
                  std::function<void()> release);

 private:
  std::shared_ptr<const PluginTransport> transport_;
  TSR_TransportReply* reply_ = nullptr;
  std::unique_ptr<InProcessReply> in_process_;  // set instead of reply_ for an in-process call
};

// What a server calls for each incoming call, on the transport's threads. Implementations must
// not block those threads for long: answer later from another thread when work is needed.
class TransportHandler {
 public:
  virtual ~TransportHandler() = default;
  virtual void HandleCall(absl::string_view method, absl::string_view request,
                          TransportReply reply) = 0;
  virtual void HandleRecvTensor(uint64_t step_id, absl::string_view rendezvous_key,
                                TransportReply reply) = 0;
};

// A listening server. Stop (or the destructor) stops accepting and fails pending calls toward
// their peers with UNAVAILABLE; after it returns no handler call starts.
class TransportServer {
 public:
  ~TransportServer();
  TransportServer(const TransportServer&) = delete;
  TransportServer& operator=(const TransportServer&) = delete;

  // The bound "host:port" (the real port when 0 was asked for).
  const std::string& address() const { return address_; }
  void Stop();

 private:
  friend class PluginTransport;
  TransportServer() = default;

  std::shared_ptr<const PluginTransport> transport_;
  TSR_TransportServer* server_ = nullptr;
  std::unique_ptr<TSR_TransportHandlers> handlers_;
  TransportHandler* handler_ = nullptr;
  std::string address_;
};

// A connection to one peer ("host:port"). Thread-safe. Connection failures surface as
// UNAVAILABLE on calls, never at creation. The destructor cancels calls still in flight (their
// callbacks run, with CANCELLED or UNAVAILABLE, before it returns).
class TransportChannel {
 public:
  ~TransportChannel();
  TransportChannel(const TransportChannel&) = delete;
  TransportChannel& operator=(const TransportChannel&) = delete;

  const std::string& address() const { return address_; }

  // `done` gets the peer handler's status and response bytes (borrowed for the call), or the
  // transport's own error: UNAVAILABLE when the peer cannot be reached or went away,
  // DEADLINE_EXCEEDED after `deadline_ms` (<= 0: the transport's default). May run on any thread,
  // also before Call returns.
  using CallDone = std::function<void(const absl::Status& status, absl::string_view response)>;
  void Call(absl::string_view method, absl::string_view request, int64_t deadline_ms,
            CallDone done);

  // Pulls the tensor stored under `rendezvous_key` in step `step_id` at the peer. `allocate` is
  // called once dtype, shape and the sender's byte size are known and fills `destination` (host
  // memory of that byte size) that the bytes land in; its error fails the pull. `done` runs
  // exactly once.
  using AllocateFn =
      std::function<absl::Status(TSR_DataType dtype, absl::Span<const int64_t> dims,
                                 size_t byte_size, TSR_TensorView* destination)>;
  using RecvDone = std::function<void(const absl::Status& status, bool is_dead)>;
  void RecvTensor(uint64_t step_id, absl::string_view rendezvous_key, int64_t deadline_ms,
                  AllocateFn allocate, RecvDone done);

 private:
  friend class PluginTransport;
  TransportChannel() = default;

  std::shared_ptr<const PluginTransport> transport_;
  TSR_TransportChannel* channel_ = nullptr;
  std::string address_;
};

// Memory registered with a transport for one-sided transfers (the RMA extension); deregistered
// when destroyed. Move-only; keeps the plugin's library alive.
class MemoryRegistration {
 public:
  MemoryRegistration() = default;
  ~MemoryRegistration();
  MemoryRegistration(MemoryRegistration&& other) noexcept;
  MemoryRegistration& operator=(MemoryRegistration&& other) noexcept;
  MemoryRegistration(const MemoryRegistration&) = delete;
  MemoryRegistration& operator=(const MemoryRegistration&) = delete;

  // The plugin's handle (a registration cache may hand out one handle for the same range).
  const TSR_MemoryRegion* region() const { return region_; }

 private:
  friend class PluginTransport;
  std::shared_ptr<const PluginTransport> transport_;
  TSR_MemoryRegion* region_ = nullptr;
};

// A transport a plugin registered. Keeps the plugin's library alive, as do its servers,
// channels and replies. Errors carry the context "transport 'grpc' from plugin 'grpc' <Slot>".
class PluginTransport : public std::enable_shared_from_this<PluginTransport> {
 public:
  static std::shared_ptr<PluginTransport> Create(const TransportSpec& spec,
                                                 const TSR_HostApi* host_api);

  const std::string& name() const { return spec_.name; }
  uint32_t capabilities() const { return spec_.capabilities; }
  const std::string& plugin_name() const { return spec_.origin.plugin_name; }

  // Server_Start; `handler` must outlive the server. The plugin's error (bad address, port in
  // use, unreadable certificate) keeps its code with context added.
  absl::StatusOr<std::unique_ptr<TransportServer>> Listen(const std::string& address,
                                                          const TransportOptions& options,
                                                          TransportHandler* handler) const;
  // Channel_Create.
  absl::StatusOr<std::unique_ptr<TransportChannel>> Connect(const std::string& address,
                                                            const TransportOptions& options) const;

  // Memory_Register of the RMA extension: [ptr, ptr + size) of `memory_kind` (a TSR_MemoryKind)
  // for remote access until the registration is destroyed. UNIMPLEMENTED when the transport has
  // no TSR_TRANSPORT_CAPABILITY_RMA; the plugin's errors (INVALID_ARGUMENT, RESOURCE_EXHAUSTED)
  // keep their code with context added.
  absl::StatusOr<MemoryRegistration> RegisterMemory(void* ptr, size_t size,
                                                    int32_t memory_kind) const;

  const TSR_TransportRegistration& table() const { return spec_.registration; }
  const TSR_TransportRmaExtension& rma() const { return spec_.rma; }
  const TSR_HostApi* host_api() const { return host_api_; }

 private:
  PluginTransport(const TransportSpec& spec, const TSR_HostApi* host_api)
      : spec_(spec), host_api_(host_api) {}

  TransportSpec spec_;
  const TSR_HostApi* host_api_;
};

}  // namespace tessera

#endif  // TESSERA_REGISTRY_TRANSPORT_HANDLE_H_
