// The gRPC transport's channel: unary calls on gRPC's generic stub, their completion callbacks,
// the receiver's side of tensor pulls (allocate, then one copy into the destination), and the
// cancellation of calls in flight when the channel is destroyed.
#include "plugins/grpc/grpc_channel.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugins/grpc/wire_format.h"
#include "tessera/sdk/status.h"

namespace tessera::grpc_plugin {
namespace {

const std::string& CallMethod() {
  static const auto* method = new std::string(kCallMethod);
  return *method;
}

const std::string& RecvTensorMethod() {
  static const auto* method = new std::string(kRecvTensorMethod);
  return *method;
}

const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "unknown code";
  }
}

// A gRPC-level failure (the peer's handler never answered) as the transport's error. Handler
// statuses travel in the response body, so every gRPC status here is the transport's own.
Error TransportError(const grpc::Status& status, bool channel_destroyed) {
  const std::string grpc_said =
      sdk::StrCat("gRPC ", GrpcCodeName(status.error_code()), ": ", status.error_message());
  switch (status.error_code()) {
    case grpc::StatusCode::CANCELLED:
      return channel_destroyed
                 ? MakeError(TSR_CODE_CANCELLED,
                             "the channel was destroyed while the call was in flight")
                 : MakeError(TSR_CODE_CANCELLED, "the call was cancelled (", grpc_said, ")");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return MakeError(TSR_CODE_DEADLINE_EXCEEDED, "deadline exceeded before the peer answered (",
                       grpc_said, ")");
    case grpc::StatusCode::UNIMPLEMENTED:
      return MakeError(TSR_CODE_UNIMPLEMENTED,
                       "the peer does not speak this transport's protocol (", grpc_said, ")");
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::INVALID_ARGUMENT:
      return MakeError(static_cast<TSR_Code>(status.error_code()), grpc_said);
    default:
      // Refused, reset, TLS handshake failures, server stopped: the peer is not reachable.
      return MakeError(TSR_CODE_UNAVAILABLE, "peer unreachable or gone (", grpc_said, ")");
  }
}

// The cores whose completions run on this thread now (nested when a callback starts a call that
// fails at once), so that a channel destroyed from its own callback does not wait for itself.
thread_local std::vector<const ChannelCore*> t_completing;

}  // namespace

// One call in flight. The channel's core holds it until its completion has run.
class ClientCall {
 public:
  virtual ~ClientCall() = default;
  virtual void Complete(const grpc::Status& status, bool channel_destroyed) = 0;

  grpc::ClientContext context;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
};

// The calls in flight of one channel; shared with their completions.
class ChannelCore {
 public:
  void Add(std::shared_ptr<ClientCall> call) {
    std::lock_guard<std::mutex> lock(mutex_);
    ClientCall* raw = call.get();
    live_.emplace(raw, std::move(call));
    ++in_flight_;
  }

  // gRPC's completion of `raw`: runs the host's callback, then forgets the call.
  void Complete(ClientCall* raw, const grpc::Status& status) {
    std::shared_ptr<ClientCall> call;
    bool destroyed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = live_.find(raw);
      if (found == live_.end()) return;  // cannot happen: every call is added before it starts
      call = found->second;
      destroyed = destroying_;
    }
    t_completing.push_back(this);
    call->Complete(status, destroyed);
    t_completing.pop_back();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      live_.erase(raw);
    }
    call.reset();  // the context goes before the channel may
    std::lock_guard<std::mutex> lock(mutex_);
    --in_flight_;
    idle_.notify_all();
  }

  // Cancels every call in flight and waits for their completions (but not for the ones running
  // on this thread).
  void CancelAllAndWait() {
    std::vector<std::shared_ptr<ClientCall>> calls;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      destroying_ = true;
      for (auto& [raw, call] : live_) calls.push_back(call);
    }
    // Outside the lock: a cancelled call may complete inline, on this thread.
    for (const std::shared_ptr<ClientCall>& call : calls) call->context.TryCancel();
    calls.clear();
    const int own = OwnCompletions();
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return in_flight_ <= own; });
  }

  // How many of this core's completions run on the calling thread now.
  int OwnCompletions() const {
    return static_cast<int>(std::count(t_completing.begin(), t_completing.end(), this));
  }

  // Waits until every completion has returned (never call it from one).
  void WaitUntilIdle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return in_flight_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable idle_;
  bool destroying_ = false;
  int in_flight_ = 0;
  std::unordered_map<ClientCall*, std::shared_ptr<ClientCall>> live_;
};

namespace {

class UnaryCall : public ClientCall {
 public:
  UnaryCall(TSR_CallDoneFn done, void* done_arg) : done_(done), done_arg_(done_arg) {}

  void Complete(const grpc::Status& status, bool channel_destroyed) override {
    if (!status.ok()) return Fail(TransportError(status, channel_destroyed));
    SliceReader reader(response);
    TSR_Code code = TSR_CODE_OK;
    std::string message;
    std::string storage;
    std::string_view body;
    Error error = DecodeCallResponse(&reader, &code, &message, &storage, &body);
    if (!error.ok()) return Fail(error);
    done_(done_arg_, sdk::MakeStatus(code, message).Release(), body.data(), body.size());
  }

 private:
  void Fail(const Error& error) { done_(done_arg_, error.ToAbi(), nullptr, 0); }

  TSR_CallDoneFn done_;
  void* done_arg_;
};

// A tensor pull: a stream whose first message is the header and whose bytes follow in any
// number of messages; each is copied into the destination as it arrives.
class TensorPull : public ClientCall,
                   public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  TensorPull(const TSR_Channel_RecvTensor_Args& args, std::shared_ptr<ChannelCore> core)
      : allocate_(args.allocate),
        allocate_arg_(args.allocate_arg),
        done_(args.done),
        done_arg_(args.done_arg),
        core_(std::move(core)) {}
  ~TensorPull() override {
    if (failure_ != nullptr) sdk::Status discard(failure_);
  }

  // After PrepareBidiStreamingCall: sends the request, half-closes and starts reading.
  void Begin() {
    context.set_initial_metadata_corked(true);  // metadata, request and half-close: one batch
    StartWriteLast(&request, grpc::WriteOptions());
    StartRead(&response);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // the stream ended; OnDone follows
    TSR_Status* failure = Consume();
    response.Clear();  // gRPC's buffers go back to the allocator before the next chunk
    if (failure != nullptr) {
      failure_ = failure;
      context.TryCancel();
      return;
    }
    // Once everything has come the sender sends only its status, which ends the call without
    // another read (one reaction less per pull, which small pulls notice).
    const bool complete = header_seen_ && (header_.code != TSR_CODE_OK || header_.is_dead ||
                                           received_ == header_.byte_size);
    if (!complete) StartRead(&response);
  }

  void OnDone(const grpc::Status& status) override {
    std::shared_ptr<ChannelCore> core = core_;  // Complete may free this pull
    core->Complete(this, status);
  }

  void Complete(const grpc::Status& status, bool channel_destroyed) override {
    if (failure_ != nullptr) return Finish(std::exchange(failure_, nullptr), false);
    if (!status.ok()) return Finish(TransportError(status, channel_destroyed).ToAbi(), false);
    if (!header_seen_) {
      return Finish(
          MakeError(TSR_CODE_INTERNAL, "the sender ended the pull without a tensor header").ToAbi(),
          false);
    }
    if (header_.code != TSR_CODE_OK) {
      return Finish(sdk::MakeStatus(header_.code, header_.message).Release(), false);
    }
    if (header_.is_dead) return Finish(nullptr, true);
    if (received_ != header_.byte_size) {
      return Finish(MakeError(TSR_CODE_INTERNAL, "the sender ended the pull after ", received_,
                              " of the tensor's ", header_.byte_size, " bytes")
                        .ToAbi(),
                    false);
    }
    Finish(nullptr, false);
  }

 private:
  // One received message: the header (then the destination is allocated) and/or tensor bytes.
  TSR_Status* Consume() {
    SliceReader reader(response);
    if (!header_seen_) {
      Error error = DecodeTensorHeader(&reader, &header_);
      if (!error.ok()) return error.ToAbi();
      header_seen_ = true;
      if (header_.code != TSR_CODE_OK || header_.is_dead) return nullptr;
      destination_.struct_size = sizeof(destination_);
      TSR_Status* allocated =
          allocate_(allocate_arg_, header_.dtype, static_cast<int32_t>(header_.dims.size()),
                    header_.dims.data(), static_cast<size_t>(header_.byte_size), &destination_);
      if (allocated != nullptr) return allocated;
      if (destination_.byte_size != header_.byte_size) {
        return MakeError(TSR_CODE_INTERNAL, "the destination holds ", destination_.byte_size,
                         " bytes but the tensor has ", header_.byte_size)
            .ToAbi();
      }
      if (header_.byte_size > 0 && destination_.data == nullptr) {
        return MakeError(TSR_CODE_INTERNAL, "the destination of ", header_.byte_size,
                         " bytes has no data")
            .ToAbi();
      }
    }
    const size_t size = reader.remaining();
    if (size == 0) return nullptr;
    if (header_.code != TSR_CODE_OK || header_.is_dead || size > header_.byte_size - received_) {
      return MakeError(TSR_CODE_INTERNAL, "the sender sent more than the tensor's ",
                       header_.byte_size, " bytes")
          .ToAbi();
    }
    reader.Read(static_cast<char*>(destination_.data) + received_, size);
    received_ += size;
    return nullptr;
  }

  void Finish(TSR_Status* status, bool is_dead) { done_(done_arg_, status, is_dead); }

  TSR_AllocateTensorFn allocate_;
  void* allocate_arg_;
  TSR_RecvTensorDoneFn done_;
  void* done_arg_;
  std::shared_ptr<ChannelCore> core_;
  // Touched only by gRPC's reactions, which never overlap for one call.
  bool header_seen_ = false;
  TensorHeader header_;
  TSR_TensorView destination_{};
  uint64_t received_ = 0;
  TSR_Status* failure_ = nullptr;  // owned: the pull's first error
};

}  // namespace

Error GrpcChannel::Create(const std::string& address, const TransportOptions& options,
                          std::unique_ptr<GrpcChannel>* channel) {
  std::string host;
  int port = 0;
  Error error = SplitAddress(address, &host, &port);
  if (!error.ok()) return error;
  if (port == 0) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "address '", address,
                     "' has port 0 (a channel needs the server's port)");
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  error = MakeChannelCredentials(options, &credentials);
  if (!error.ok()) return error;

  std::unique_ptr<GrpcChannel> created(new GrpcChannel);
  created->address_ = address;
  created->default_deadline_ms_ = options.default_deadline_ms;
  created->core_ = std::make_shared<ChannelCore>();
  created->channel_ =
      grpc::CreateCustomChannel(address, credentials, MakeChannelArguments(options));
  created->stub_ = std::make_unique<grpc::GenericStub>(created->channel_);
  *channel = std::move(created);
  return OkError();
}

GrpcChannel::~GrpcChannel() {
  core_->CancelAllAndWait();
  if (core_->OwnCompletions() > 0) {
    // Destroyed from one of its own callbacks, on a gRPC thread. gRPC's channel must not be
    // released there: releasing the process's last channel joins gRPC's callback threads, this
    // one included, and under load it corrupted gRPC's reference counts. A thread of its own
    // releases it once that callback has returned.
    std::thread([core = core_, stub = std::move(stub_), channel = std::move(channel_)]() mutable {
      core->WaitUntilIdle();
      stub.reset();
      channel.reset();
    }).detach();
    return;
  }
  stub_.reset();
  channel_.reset();
}

namespace {

void SetDeadline(grpc::ClientContext* context, int64_t deadline_ms) {
  if (deadline_ms > 0) {
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::milliseconds(deadline_ms));
  }
}

void Launch(const std::shared_ptr<ChannelCore>& core, grpc::GenericStub* stub,
            const std::string& method, int64_t deadline_ms, std::shared_ptr<ClientCall> call) {
  SetDeadline(&call->context, deadline_ms);
  ClientCall* raw = call.get();
  core->Add(std::move(call));
  stub->UnaryCall(&raw->context, method, grpc::StubOptions(), &raw->request, &raw->response,
                  [core, raw](grpc::Status status) { core->Complete(raw, status); });
}

}  // namespace

void GrpcChannel::Call(const char* method, const void* request, size_t request_size,
                       int64_t deadline_ms, TSR_CallDoneFn done, void* done_arg) {
  auto call = std::make_shared<UnaryCall>(done, done_arg);
  call->request = EncodeCallRequest(method == nullptr ? "" : method, request,
                                    request == nullptr ? 0 : request_size);
  Launch(core_, stub_.get(), CallMethod(), deadline_ms > 0 ? deadline_ms : default_deadline_ms_,
         std::move(call));
}

void GrpcChannel::RecvTensor(const TSR_Channel_RecvTensor_Args& args) {
  auto call = std::make_shared<TensorPull>(args, core_);
  call->request = EncodeRecvTensorRequest(
      args.step_id, args.rendezvous_key == nullptr ? "" : args.rendezvous_key);
  SetDeadline(&call->context, args.deadline_ms > 0 ? args.deadline_ms : default_deadline_ms_);
  TensorPull* raw = call.get();
  core_->Add(std::move(call));
  stub_->PrepareBidiStreamingCall(&raw->context, RecvTensorMethod(), grpc::StubOptions(), raw);
  raw->Begin();
}

}  // namespace tessera::grpc_plugin
