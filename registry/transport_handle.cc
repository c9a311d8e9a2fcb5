// PluginTransport and its servers, channels and replies: the C trampolines between a transport
// plugin's callbacks and the host's std::functions.
//
// Each callback the host gives a plugin carries one heap object (the std::function and its
// context) that the trampoline frees when the plugin calls it; the plugin calls every completion
// exactly once, so each object is freed exactly once.
#include "registry/transport_handle.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "registry/abi_status.h"

namespace tessera {
namespace {

std::string SlotContext(const PluginTransport& transport, absl::string_view slot) {
  return absl::StrCat("transport '", transport.name(), "' from plugin '", transport.plugin_name(),
                      "' ", slot);
}

struct OptionArrays {
  explicit OptionArrays(const TransportOptions& options) {
    for (const auto& [key, value] : options) {
      keys.push_back(key.c_str());
      values.push_back(value.c_str());
    }
  }
  std::vector<const char*> keys;
  std::vector<const char*> values;
};

void ReleaseTrampoline(void* arg) {
  std::unique_ptr<std::function<void()>> release(static_cast<std::function<void()>*>(arg));
  if (*release) (*release)();
}

struct PendingCall {
  std::string context;
  TransportChannel::CallDone done;
};

void CallDoneTrampoline(void* arg, TSR_Status* status, const void* response, size_t response_size) {
  std::unique_ptr<PendingCall> call(static_cast<PendingCall*>(arg));
  const absl::Status converted = FromAbiStatus(status, call->context);
  const absl::string_view bytes =
      response == nullptr ? absl::string_view()
                          : absl::string_view(static_cast<const char*>(response), response_size);
  if (call->done) call->done(converted, bytes);
}

struct PendingPull {
  std::string context;
  TransportChannel::AllocateFn allocate;
  TransportChannel::RecvDone done;
};

TSR_Status* AllocateTrampoline(void* arg, TSR_DataType dtype, int32_t rank, const int64_t* dims,
                               size_t byte_size, TSR_TensorView* destination) {
  auto* pull = static_cast<PendingPull*>(arg);
  if (rank < 0 || rank > TSR_MAX_RANK || (rank > 0 && dims == nullptr) || destination == nullptr) {
    return ToAbiStatus(absl::InvalidArgumentError(
        absl::StrCat(pull->context, ": the transport asked to allocate a tensor of rank ", rank,
                     dims == nullptr ? " without dims" : "",
                     destination == nullptr ? " without a destination" : "")));
  }
  if (!pull->allocate) {
    return ToAbiStatus(absl::InternalError(absl::StrCat(pull->context, ": no allocate function")));
  }
  return ToAbiStatus(
      pull->allocate(dtype, absl::MakeConstSpan(dims, rank), byte_size, destination));
}

void RecvDoneTrampoline(void* arg, TSR_Status* status, bool is_dead) {
  std::unique_ptr<PendingPull> pull(static_cast<PendingPull*>(arg));
  const absl::Status converted = FromAbiStatus(status, pull->context);
  if (pull->done) pull->done(converted, is_dead);
}

}  // namespace

// ---- TransportReply --------------------------------------------------------------------------

TransportReply::TransportReply(std::shared_ptr<const PluginTransport> transport,
                               TSR_TransportReply* reply)
    : transport_(std::move(transport)), reply_(reply) {}

TransportReply::TransportReply(std::unique_ptr<InProcessReply> in_process)
    : in_process_(std::move(in_process)) {}

TransportReply::~TransportReply() {
  if (!answered()) {
    Send(absl::InternalError("the host dropped the call without an answer"), absl::string_view());
  }
}

TransportReply::TransportReply(TransportReply&& other) noexcept
    : transport_(std::move(other.transport_)),
      reply_(std::exchange(other.reply_, nullptr)),
      in_process_(std::move(other.in_process_)) {}

TransportReply& TransportReply::operator=(TransportReply&& other) noexcept {
  if (this != &other) {
    if (!answered()) {
      Send(absl::InternalError("the host dropped the call without an answer"), absl::string_view());
    }
    transport_ = std::move(other.transport_);
    reply_ = std::exchange(other.reply_, nullptr);
    in_process_ = std::move(other.in_process_);
  }
  return *this;
}

bool TransportReply::cancelled() const {
  if (in_process_ != nullptr) return in_process_->cancelled();
  if (reply_ == nullptr) return false;
  const TSR_TransportRegistration& table = transport_->table();
  return table.Reply_IsCancelled != nullptr && table.Reply_IsCancelled(reply_);
}

void TransportReply::Send(const absl::Status& status, absl::string_view response) {
  if (in_process_ != nullptr) {
    std::unique_ptr<InProcessReply> reply = std::move(in_process_);
    reply->Send(status, response);
    return;
  }
  if (reply_ == nullptr) return;  // answered already (or moved from)
  TSR_TransportReply* reply = std::exchange(reply_, nullptr);
  transport_->table().Reply_Send(reply, ToAbiStatus(status), response.data(), response.size());
}

void TransportReply::SendTensor(const absl::Status& status, const TSR_TensorView& tensor,
                                bool is_dead, std::function<void()> release) {
  if (in_process_ != nullptr) {
    std::unique_ptr<InProcessReply> reply = std::move(in_process_);
    reply->SendTensor(status, tensor, is_dead, std::move(release));
    return;
  }
  if (reply_ == nullptr) {  // answered already: the tensor is not needed
    if (release) release();
    return;
  }
  TSR_TransportReply* reply = std::exchange(reply_, nullptr);
  auto* release_arg = new std::function<void()>(std::move(release));
  transport_->table().Reply_SendTensor(reply, ToAbiStatus(status), &tensor, is_dead,
                                       &ReleaseTrampoline, release_arg);
}

// ---- TransportServer -------------------------------------------------------------------------

TransportServer::~TransportServer() { Stop(); }

void TransportServer::Stop() {
  if (server_ == nullptr) return;
  transport_->table().Server_Stop(std::exchange(server_, nullptr));
}

// ---- TransportChannel ------------------------------------------------------------------------

TransportChannel::~TransportChannel() {
  if (channel_ != nullptr) transport_->table().Channel_Destroy(channel_);
}

void TransportChannel::Call(absl::string_view method, absl::string_view request,
                            int64_t deadline_ms, CallDone done) {
  auto* call = new PendingCall{
      absl::StrCat(SlotContext(*transport_, "Channel_Call"), " '", method, "' to '", address_, "'"),
      std::move(done)};
  const std::string method_name(method);
  transport_->table().Channel_Call(channel_, method_name.c_str(), request.data(), request.size(),
                                   deadline_ms, &CallDoneTrampoline, call);
}

void TransportChannel::RecvTensor(uint64_t step_id, absl::string_view rendezvous_key,
                                  int64_t deadline_ms, AllocateFn allocate, RecvDone done) {
  auto* pull =
      new PendingPull{absl::StrCat(SlotContext(*transport_, "Channel_RecvTensor"), " '",
                                   rendezvous_key, "' (step ", step_id, ") from '", address_, "'"),
                      std::move(allocate), std::move(done)};
  const std::string key(rendezvous_key);
  TSR_Channel_RecvTensor_Args args{};
  args.struct_size = sizeof(args);
  args.step_id = step_id;
  args.rendezvous_key = key.c_str();
  args.deadline_ms = deadline_ms;
  args.allocate = &AllocateTrampoline;
  args.allocate_arg = pull;
  args.done = &RecvDoneTrampoline;
  args.done_arg = pull;
  transport_->table().Channel_RecvTensor(channel_, &args);
}

// ---- PluginTransport -------------------------------------------------------------------------

std::shared_ptr<PluginTransport> PluginTransport::Create(const TransportSpec& spec,
                                                         const TSR_HostApi* host_api) {
  return std::shared_ptr<PluginTransport>(new PluginTransport(spec, host_api));
}

absl::StatusOr<std::unique_ptr<TransportServer>> PluginTransport::Listen(
    const std::string& address, const TransportOptions& options, TransportHandler* handler) const {
  const std::string context =
      absl::StrCat(SlotContext(*this, "Server_Start"), " (address '", address, "')");
  if (handler == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": no handler"));
  }
  std::unique_ptr<TransportServer> server(new TransportServer);
  server->transport_ = shared_from_this();
  server->handler_ = handler;
  server->handlers_ = std::make_unique<TSR_TransportHandlers>();
  TSR_TransportHandlers& handlers = *server->handlers_;
  handlers.struct_size = sizeof(handlers);
  handlers.handler_arg = server.get();
  // Lambdas of a member function share its access to TransportServer (a friend's members).
  handlers.HandleCall = [](void* arg, const char* method, const void* request, size_t request_size,
                           TSR_TransportReply* reply) {
    auto* self = static_cast<TransportServer*>(arg);
    const absl::string_view bytes =
        request == nullptr ? absl::string_view()
                           : absl::string_view(static_cast<const char*>(request), request_size);
    self->handler_->HandleCall(method == nullptr ? "" : method, bytes,
                               TransportReply(self->transport_, reply));
  };
  handlers.HandleRecvTensor = [](void* arg, uint64_t step_id, const char* rendezvous_key,
                                 TSR_TransportReply* reply) {
    auto* self = static_cast<TransportServer*>(arg);
    self->handler_->HandleRecvTensor(step_id, rendezvous_key == nullptr ? "" : rendezvous_key,
                                     TransportReply(self->transport_, reply));
  };

  const OptionArrays arrays(options);
  TSR_Transport_Listen_Args args{};
  args.struct_size = sizeof(args);
  args.address = address.c_str();
  args.num_options = arrays.keys.size();
  args.option_keys = arrays.keys.data();
  args.option_values = arrays.values.data();
  args.handlers = server->handlers_.get();
  TSR_TransportServer* started = nullptr;
  absl::Status status = FromAbiStatus(
      spec_.registration.Server_Start(spec_.registration.user_data, &args, &started), context);
  if (!status.ok()) return status;
  if (started == nullptr) {
    return absl::InternalError(absl::StrCat(context, ": returned OK but no server"));
  }
  server->server_ = started;
  const char* bound = spec_.registration.Server_Address(started);
  server->address_ = bound == nullptr ? address : bound;
  return server;
}

absl::StatusOr<std::unique_ptr<TransportChannel>> PluginTransport::Connect(
    const std::string& address, const TransportOptions& options) const {
  const std::string context =
      absl::StrCat(SlotContext(*this, "Channel_Create"), " (address '", address, "')");
  const OptionArrays arrays(options);
  TSR_Transport_Connect_Args args{};
  args.struct_size = sizeof(args);
  args.address = address.c_str();
  args.num_options = arrays.keys.size();
  args.option_keys = arrays.keys.data();
  args.option_values = arrays.values.data();
  TSR_TransportChannel* created = nullptr;
  absl::Status status = FromAbiStatus(
      spec_.registration.Channel_Create(spec_.registration.user_data, &args, &created), context);
  if (!status.ok()) return status;
  if (created == nullptr) {
    return absl::InternalError(absl::StrCat(context, ": returned OK but no channel"));
  }
  std::unique_ptr<TransportChannel> channel(new TransportChannel);
  channel->transport_ = shared_from_this();
  channel->channel_ = created;
  channel->address_ = address;
  return channel;
}

MemoryRegistration::~MemoryRegistration() {
  if (region_ != nullptr) transport_->rma().Memory_Deregister(transport_->table().user_data, region_);
}

MemoryRegistration::MemoryRegistration(MemoryRegistration&& other) noexcept
    : transport_(std::move(other.transport_)), region_(std::exchange(other.region_, nullptr)) {}

MemoryRegistration& MemoryRegistration::operator=(MemoryRegistration&& other) noexcept {
  if (this != &other) {
    MemoryRegistration old(std::move(*this));
    transport_ = std::move(other.transport_);
    region_ = std::exchange(other.region_, nullptr);
  }
  return *this;
}

absl::StatusOr<MemoryRegistration> PluginTransport::RegisterMemory(void* ptr, size_t size,
                                                                   int32_t memory_kind) const {
  const std::string context =
      absl::StrCat(SlotContext(*this, "Memory_Register"), " (", size, " bytes)");
  if ((spec_.capabilities & TSR_TRANSPORT_CAPABILITY_RMA) == 0 ||
      spec_.rma.Memory_Register == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(context, ": the transport has no RMA capability"));
  }
  MemoryRegistration registration;
  absl::Status status = FromAbiStatus(
      spec_.rma.Memory_Register(spec_.registration.user_data, ptr, size, memory_kind,
                                &registration.region_),
      context);
  if (!status.ok()) return status;
  registration.transport_ = shared_from_this();
  return registration;
}

}  // namespace tessera
