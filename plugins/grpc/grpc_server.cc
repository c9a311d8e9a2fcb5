// The gRPC transport's server: a CallbackGenericService whose reactors hand each incoming call to
// the host's handlers and answer it when the host's reply arrives.
//
// Every call has a ServerCall, shared by its reactor, the server's table of unanswered calls and
// the host's TSR_TransportReply. Whoever first claims the ServerCall (the reply, a cancellation,
// Stop, a failed read) finishes the gRPC call; everyone after drops their answer. The reactor
// lives until gRPC's OnDone, which comes only after that finish, so the claimer may use it.
#include "plugins/grpc/grpc_server.h"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugins/grpc/wire_format.h"
#include "tessera/sdk/status.h"

namespace tessera::grpc_plugin {
class ServerCall;
}  // namespace tessera::grpc_plugin

// The host's handle on one incoming call. Freed by Reply_Send / Reply_SendTensor.
struct TSR_TransportReply {
  std::shared_ptr<tessera::grpc_plugin::ServerCall> call;
};

namespace tessera::grpc_plugin {

enum class CallKind { kCall, kRecvTensor };

class CallReactor;

class ServerCall {
 public:
  ServerCall(CallKind kind, CallReactor* reactor) : kind_(kind), reactor_(reactor) {}

  CallKind kind() const { return kind_; }
  // The reactor for the one caller that may finish the call; NULL for everyone after it.
  CallReactor* Claim() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(reactor_, nullptr);
  }
  bool claimed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return reactor_ == nullptr;
  }

 private:
  const CallKind kind_;
  mutable std::mutex mutex_;
  CallReactor* reactor_;
};

// What a server's reactors share with it; outlives the grpc::Server while replies hold calls.
class ServerCore {
 public:
  explicit ServerCore(const TSR_TransportHandlers& handlers) : handlers_(handlers) {}

  const TSR_TransportHandlers& handlers() const { return handlers_; }

  void set_address(std::string address) {
    std::lock_guard<std::mutex> lock(mutex_);
    address_ = std::move(address);
  }
  std::string address() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return address_;
  }

  // Adds an unanswered call; false once the server stops.
  bool Register(const std::shared_ptr<ServerCall>& call) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    calls_.emplace(call.get(), call);
    return true;
  }
  void Forget(ServerCall* call) {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.erase(call);
  }

  // Bracket a handler call; BeginHandler is false once the server stops, so that no handler
  // starts after Stop returns.
  bool BeginHandler() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    ++running_handlers_;
    return true;
  }
  void EndHandler() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--running_handlers_ == 0) handlers_idle_.notify_all();
  }

  // Marks the server stopping and returns the calls not yet finished.
  std::vector<std::shared_ptr<ServerCall>> BeginStop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    std::vector<std::shared_ptr<ServerCall>> calls;
    calls.reserve(calls_.size());
    for (auto& [raw, call] : calls_) calls.push_back(call);
    return calls;
  }
  void WaitForHandlers() {
    std::unique_lock<std::mutex> lock(mutex_);
    handlers_idle_.wait(lock, [this] { return running_handlers_ == 0; });
  }

 private:
  const TSR_TransportHandlers handlers_;
  mutable std::mutex mutex_;
  std::condition_variable handlers_idle_;
  std::string address_;
  bool stopping_ = false;
  int running_handlers_ = 0;
  std::unordered_map<ServerCall*, std::shared_ptr<ServerCall>> calls_;
};

// One incoming call: reads the request, calls the host's handler, writes the answer.
class CallReactor : public grpc::ServerGenericBidiReactor {
 public:
  CallReactor(std::shared_ptr<ServerCore> core, CallKind kind)
      : core_(std::move(core)), call_(std::make_shared<ServerCall>(kind, this)) {}

  void Start() {
    if (!core_->Register(call_)) {
      if (call_->Claim() != nullptr) {
        Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            sdk::StrCat("server at '", core_->address(), "' is stopping")));
      }
      return;
    }
    StartRead(&request_);
  }

  // Only for the caller that claimed the call: writes `responses` in order (one for a call; a
  // tensor's header and chunks for a pull), then finishes.
  void Answer(std::vector<grpc::ByteBuffer> responses) {
    responses_ = std::move(responses);
    next_ = 0;
    WriteNext();
  }
  void Fail(const grpc::Status& status) { Finish(status); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      if (call_->Claim() != nullptr) {
        Finish(
            grpc::Status(grpc::StatusCode::CANCELLED, "the call ended before its request arrived"));
      }
      return;
    }
    if (call_->claimed()) return;  // cancelled or stopped meanwhile
    // The handler may answer at once, after which OnDone may delete this reactor: nothing after
    // the handler call touches members.
    std::shared_ptr<ServerCore> core = core_;
    std::shared_ptr<ServerCall> call = call_;
    SliceReader reader(request_);
    std::string storage;
    if (call->kind() == CallKind::kCall) {
      std::string method;
      std::string_view request;
      Error error = DecodeCallRequest(&reader, &method, &storage, &request);
      if (!error.ok()) return Reject(error);
      if (!core->BeginHandler()) return;  // Stop answers the call
      core->handlers().HandleCall(core->handlers().handler_arg, method.c_str(), request.data(),
                                  request.size(), new TSR_TransportReply{call});
    } else {
      uint64_t step_id = 0;
      std::string key;
      Error error = DecodeRecvTensorRequest(&reader, &step_id, &key);
      if (!error.ok()) return Reject(error);
      if (!core->BeginHandler()) return;
      core->handlers().HandleRecvTensor(core->handlers().handler_arg, step_id, key.c_str(),
                                        new TSR_TransportReply{call});
    }
    core->EndHandler();
  }

  void OnWriteDone(bool ok) override {
    responses_[next_].Clear();  // drop this chunk's reference to the sender's buffer now
    if (!ok) {  // the call broke (cancelled, peer gone): gRPC still needs Finish to end it
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the response could not be written"));
      return;
    }
    ++next_;
    WriteNext();
  }

  void OnCancel() override {
    if (call_->Claim() != nullptr) Finish(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    core_->Forget(call_.get());
    delete this;
  }

 private:
  void WriteNext() {
    if (next_ + 1 == responses_.size()) {
      StartWriteAndFinish(&responses_[next_], grpc::WriteOptions(), grpc::Status::OK);
    } else {
      StartWrite(&responses_[next_]);
    }
  }

  void Reject(const Error& error) {
    if (call_->Claim() != nullptr) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error.message));
    }
  }

  std::shared_ptr<ServerCore> core_;
  std::shared_ptr<ServerCall> call_;
  grpc::ByteBuffer request_;
  std::vector<grpc::ByteBuffer> responses_;  // never empty once answered
  size_t next_ = 0;
};

// Finishes a call to a method this transport does not have.
class RejectReactor : public grpc::ServerGenericBidiReactor {
 public:
  explicit RejectReactor(const std::string& method) {
    Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        sdk::StrCat("the Tessera gRPC transport has no method '", method, "'")));
  }
  void OnDone() override { delete this; }
};

class TransportService : public grpc::CallbackGenericService {
 public:
  explicit TransportService(std::shared_ptr<ServerCore> core) : core_(std::move(core)) {}

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    CallKind kind;
    if (context->method() == kCallMethod) {
      kind = CallKind::kCall;
    } else if (context->method() == kRecvTensorMethod) {
      kind = CallKind::kRecvTensor;
    } else {
      return new RejectReactor(context->method());
    }
    auto* reactor = new CallReactor(core_, kind);
    reactor->Start();
    return reactor;
  }

 private:
  std::shared_ptr<ServerCore> core_;
};

// ---- GrpcServer ------------------------------------------------------------------------------

Error GrpcServer::Start(const std::string& address, const TransportOptions& options,
                        const TSR_TransportHandlers& handlers,
                        std::unique_ptr<GrpcServer>* server) {
  std::string host;
  int port = 0;
  Error error = SplitAddress(address, &host, &port);
  if (!error.ok()) return error;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  error = MakeServerCredentials(options, &credentials);
  if (!error.ok()) return error;

  std::unique_ptr<GrpcServer> started(new GrpcServer);
  started->core_ = std::make_shared<ServerCore>(handlers);
  started->service_ = std::make_unique<TransportService>(started->core_);
  grpc::ServerBuilder builder;
  ApplyServerSettings(&builder);
  int bound_port = 0;
  builder.AddListeningPort(address, credentials, &bound_port);
  builder.RegisterCallbackGenericService(started->service_.get());
  started->server_ = builder.BuildAndStart();
  if (started->server_ == nullptr || bound_port == 0) {
    if (started->server_ != nullptr) started->server_->Shutdown();
    return DescribeBindFailure(host, port);
  }
  const bool v6 = host.find(':') != std::string::npos;
  started->core_->set_address(sdk::StrCat(v6 ? "[" : "", host, v6 ? "]" : "", ":", bound_port));
  started->address_ = started->core_->address();
  *server = std::move(started);
  return OkError();
}

GrpcServer::~GrpcServer() { Stop(); }

const std::string& GrpcServer::address() const { return address_; }

void GrpcServer::Stop() {
  if (server_ == nullptr) return;
  std::vector<std::shared_ptr<ServerCall>> unanswered = core_->BeginStop();
  const grpc::Status stopped(grpc::StatusCode::UNAVAILABLE,
                             sdk::StrCat("server at '", address_, "' stopped before answering"));
  for (const std::shared_ptr<ServerCall>& call : unanswered) {
    if (CallReactor* reactor = call->Claim()) reactor->Fail(stopped);
  }
  unanswered.clear();
  core_->WaitForHandlers();
  // Every call is finished or writing its answer, so this returns once their last bytes are
  // out; the deadline only bounds a peer that stopped reading (its call is then cancelled).
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server_.reset();
  service_.reset();
}

// ---- Replies ---------------------------------------------------------------------------------

namespace {

// Answers with `responses` unless the call was already finished (then they are dropped,
// releasing whatever they hold).
void Deliver(ServerCall* call, std::vector<grpc::ByteBuffer> responses) {
  if (CallReactor* reactor = call->Claim()) reactor->Answer(std::move(responses));
}

void Deliver(ServerCall* call, grpc::ByteBuffer response) {
  std::vector<grpc::ByteBuffer> responses;
  responses.push_back(std::move(response));
  Deliver(call, std::move(responses));
}

}  // namespace

bool ReplyIsCancelled(const TSR_TransportReply* reply) {
  // Until the host answers, only OnCancel, a broken read or write, or Stop claim the call.
  return reply != nullptr && reply->call->claimed();
}

void ReplySend(TSR_TransportReply* reply, TSR_Status* status, const void* response,
               size_t response_size) {
  std::unique_ptr<TSR_TransportReply> owned(reply);
  const sdk::Status answer(status);
  if (owned == nullptr) return;
  if (owned->call->kind() == CallKind::kCall) {
    Deliver(owned->call.get(),
            EncodeCallResponse(answer.code(), answer.message(), response, response_size));
    return;
  }
  if (answer.ok()) {
    Deliver(owned->call.get(),
            EncodeTensorErrorResponse(TSR_CODE_INTERNAL,
                                      "the sender answered a tensor pull without a tensor"));
    return;
  }
  Deliver(owned->call.get(), EncodeTensorErrorResponse(answer.code(), answer.message()));
}

void ReplySendTensor(TSR_TransportReply* reply, TSR_Status* status, const TSR_TensorView* tensor,
                     bool is_dead, TSR_ReleaseFn release, void* release_arg) {
  std::unique_ptr<TSR_TransportReply> owned(reply);
  const sdk::Status answer(status);
  const auto release_now = [&] {
    if (release != nullptr) release(release_arg);
  };
  if (owned == nullptr) return release_now();
  if (owned->call->kind() == CallKind::kCall) {
    release_now();
    Deliver(owned->call.get(),
            answer.ok() ? EncodeCallResponse(TSR_CODE_INTERNAL,
                                             "the server answered a call with a tensor", nullptr, 0)
                        : EncodeCallResponse(answer.code(), answer.message(), nullptr, 0));
    return;
  }
  if (!answer.ok() || tensor == nullptr) {
    release_now();
    Deliver(owned->call.get(),
            answer.ok() ? EncodeTensorErrorResponse(TSR_CODE_INTERNAL,
                                                    "the sender answered with a NULL tensor")
                        : EncodeTensorErrorResponse(answer.code(), answer.message()));
    return;
  }
  std::vector<grpc::ByteBuffer> responses;
  Error error = EncodeTensorResponse(*tensor, is_dead, release, release_arg, &responses);
  if (!error.ok()) {
    Deliver(owned->call.get(),
            EncodeTensorErrorResponse(
                error.code, sdk::StrCat("the sender cannot send its tensor: ", error.message)));
    return;
  }
  Deliver(owned->call.get(), std::move(responses));
}

}  // namespace tessera::grpc_plugin
