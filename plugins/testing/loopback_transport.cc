// The loopback transport: its exchanges, servers and channels, and the C table (a test-only
// plugin; see loopback_transport.h for the contract, loopback_plugin.cc for its entry point).
#include "plugins/testing/loopback_transport.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

#include "tessera/sdk/transport.h"

struct TSR_TransportServer {
  std::shared_ptr<tessera::loopback::ServerCore> core;
};

struct TSR_TransportChannel {
  std::shared_ptr<tessera::loopback::ChannelCore> core;
};

// The host's handle on one incoming exchange. Freed by Reply_Send / Reply_SendTensor.
struct TSR_TransportReply {
  std::shared_ptr<tessera::loopback::Exchange> exchange;
  std::shared_ptr<tessera::loopback::ServerCore> server;
};

namespace tessera::loopback {
namespace {

// The channels whose completions run on this thread now, and the servers whose handlers do, so
// that a channel destroyed from its own callback (or a server stopped from its own handler) does
// not wait for itself.
thread_local std::vector<const ChannelCore*> t_completing;
thread_local std::vector<const ServerCore*> t_handling;

template <typename... Args>
sdk::Status Error(TSR_Code code, const Args&... args) {
  return sdk::MakeStatus(code, sdk::StrCat(args...));
}

}  // namespace

// ---- Exchanges -------------------------------------------------------------------------------

Exchange::Exchange(ExchangeKind kind, std::shared_ptr<ChannelCore> channel)
    : kind(kind), channel(std::move(channel)) {}

namespace {

// The receiver's side of a tensor answer: allocate, copy, release. Sets `is_dead`.
sdk::Status ReceiveTensor(const Exchange& exchange, Answer& answer, bool* is_dead) {
  if (!answer.status.ok()) {
    answer.ReleaseTensor();
    return std::move(answer.status);
  }
  if (!answer.has_tensor) {
    return Error(TSR_CODE_INTERNAL, "the sender answered a tensor pull without a tensor");
  }
  if (answer.is_dead) {
    answer.ReleaseTensor();
    *is_dead = true;
    return sdk::OkStatus();
  }
  TSR_TensorView destination{};
  destination.struct_size = sizeof(destination);
  sdk::Status allocated(exchange.allocate(exchange.allocate_arg, answer.dtype,
                                          static_cast<int32_t>(answer.dims.size()),
                                          answer.dims.data(), answer.byte_size, &destination));
  if (!allocated.ok()) {
    answer.ReleaseTensor();
    return allocated;
  }
  if (destination.byte_size != answer.byte_size) {
    answer.ReleaseTensor();
    return Error(TSR_CODE_INTERNAL, "the destination holds ", destination.byte_size,
                 " bytes but the tensor has ", answer.byte_size);
  }
  if (answer.byte_size > 0 && destination.data == nullptr) {
    answer.ReleaseTensor();
    return Error(TSR_CODE_INTERNAL, "the destination of ", answer.byte_size, " bytes has no data");
  }
  if (answer.byte_size > 0) std::memcpy(destination.data, answer.data, answer.byte_size);
  answer.ReleaseTensor();
  return sdk::OkStatus();
}

}  // namespace

void Complete(const std::shared_ptr<Exchange>& exchange, Answer& answer) {
  if (exchange->deadline_timer != 0) Workers::Get().CancelTimer(exchange->deadline_timer);
  t_completing.push_back(exchange->channel.get());
  if (exchange->kind == ExchangeKind::kCall) {
    answer.ReleaseTensor();
    exchange->call_done(exchange->call_done_arg, answer.status.Release(), answer.response.data(),
                        answer.response.size());
  } else {
    bool is_dead = false;
    sdk::Status status = ReceiveTensor(*exchange, answer, &is_dead);
    exchange->recv_done(exchange->recv_done_arg, status.Release(), is_dead);
  }
  t_completing.pop_back();
  exchange->channel->Finished(exchange.get());
}

bool Fail(const std::shared_ptr<Exchange>& exchange, TSR_Code code, const std::string& message) {
  Answer answer;
  answer.status = sdk::MakeStatus(code, message);
  if (!exchange->Claim()) return false;
  Complete(exchange, answer);
  return true;
}

namespace {

// Completes a claimed exchange on a worker (on this thread if the task cannot be queued, so that
// it completes even then).
void CompleteLater(const std::shared_ptr<Exchange>& exchange,
                   const std::shared_ptr<Answer>& answer) {
  try {
    Workers::Get().Post([exchange, answer] { Complete(exchange, *answer); });
  } catch (...) {
    Complete(exchange, *answer);
  }
}

// On a worker: hands a new exchange to its server's handler, or fails it.
void Deliver(const std::shared_ptr<Exchange>& exchange) {
  if (exchange->claimed()) return;  // cancelled or past its deadline already
  std::shared_ptr<ServerCore> server = ServerTable::Get().Find(exchange->channel->key());
  if (server == nullptr) {
    Fail(exchange, TSR_CODE_UNAVAILABLE,
         sdk::StrCat("no loopback server listens on '", exchange->address, "'"));
    return;
  }
  if (!server->Handle(exchange, server)) {
    Fail(exchange, TSR_CODE_UNAVAILABLE,
         sdk::StrCat("the loopback server at '", exchange->address, "' is stopping"));
  }
}

// Starts a new exchange of `channel`: its deadline, then its delivery.
void Start(ChannelCore& channel, const std::shared_ptr<Exchange>& exchange, int64_t deadline_ms) {
  const int64_t deadline = deadline_ms > 0 ? deadline_ms : channel.default_deadline_ms();
  if (deadline > 0) exchange->deadline_timer = Workers::Get().NewTimerId();
  channel.Add(exchange);
  try {
    // The timer holds the exchange (no weak_ptr: with __SANITIZE_THREAD__ undefined, libstdc++'s
    // shared_ptr release takes a path TSan misreads once weak counts change on other threads);
    // completion cancels it.
    if (deadline > 0) {
      Workers::Get().PostAfter(exchange->deadline_timer, std::chrono::milliseconds(deadline),
                               [exchange, deadline] {
                                 Fail(exchange, TSR_CODE_DEADLINE_EXCEEDED,
                                      sdk::StrCat("deadline of ", deadline,
                                                  " ms exceeded before the loopback server at '",
                                                  exchange->address, "' answered"));
                               });
    }
    Workers::Get().Post([exchange] { Deliver(exchange); });
  } catch (const std::exception& e) {
    Fail(exchange, TSR_CODE_INTERNAL, sdk::StrCat("cannot start the loopback call: ", e.what()));
  }
}

}  // namespace

// ---- Channels --------------------------------------------------------------------------------

void ChannelCore::Add(const std::shared_ptr<Exchange>& exchange) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_.emplace(exchange.get(), exchange);
  ++in_flight_;
}

void ChannelCore::Finished(Exchange* exchange) {
  std::shared_ptr<Exchange> finished;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = live_.find(exchange);
  if (found != live_.end()) {
    finished = std::move(found->second);
    live_.erase(found);
  }
  --in_flight_;
  idle_.notify_all();
}

std::vector<std::shared_ptr<Exchange>> ChannelCore::BeginDestroy() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<Exchange>> live;
  live.reserve(live_.size());
  for (auto& [raw, exchange] : live_) live.push_back(exchange);
  return live;
}

void ChannelCore::WaitIdle() {
  const int own = static_cast<int>(std::count(t_completing.begin(), t_completing.end(), this));
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return in_flight_ <= own; });
}

// ---- Servers ---------------------------------------------------------------------------------

bool ServerCore::Handle(const std::shared_ptr<Exchange>& exchange,
                        const std::shared_ptr<ServerCore>& self) {
  auto reply = std::make_unique<TSR_TransportReply>(TSR_TransportReply{exchange, self});
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    ++running_handlers_;
    unanswered_.emplace(exchange.get(), exchange);
  }
  t_handling.push_back(this);
  if (exchange->kind == ExchangeKind::kCall) {
    handlers_.HandleCall(handlers_.handler_arg, exchange->method.c_str(), exchange->request.data(),
                         exchange->request.size(), reply.release());
  } else {
    handlers_.HandleRecvTensor(handlers_.handler_arg, exchange->step_id,
                               exchange->rendezvous_key.c_str(), reply.release());
  }
  t_handling.pop_back();
  std::lock_guard<std::mutex> lock(mutex_);
  if (--running_handlers_ == 0) idle_.notify_all();
  return true;
}

void ServerCore::Answered(Exchange* exchange) {
  std::shared_ptr<Exchange> answered;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = unanswered_.find(exchange);
  if (found == unanswered_.end()) return;
  answered = std::move(found->second);
  unanswered_.erase(found);
}

void ServerCore::Stop() {
  std::vector<std::shared_ptr<Exchange>> unanswered;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    for (auto& [raw, exchange] : unanswered_) unanswered.push_back(std::move(exchange));
    unanswered_.clear();
  }
  for (const std::shared_ptr<Exchange>& exchange : unanswered) {
    auto answer = std::make_shared<Answer>();
    answer->status = Error(TSR_CODE_UNAVAILABLE, "the loopback server at '", address_,
                           "' stopped before answering");
    if (exchange->Claim()) CompleteLater(exchange, answer);
  }
  unanswered.clear();
  const int own = static_cast<int>(std::count(t_handling.begin(), t_handling.end(), this));
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return running_handlers_ <= own; });
}

ServerTable& ServerTable::Get() {
  static ServerTable* table = new ServerTable;
  return *table;
}

sdk::Status ServerTable::Add(const std::string& host, int port,
                             const TSR_TransportHandlers& handlers,
                             std::shared_ptr<ServerCore>* server) {
  const bool any_port = port == 0;
  std::string key;
  {
    // The statuses are made after unlocking: making one calls the host.
    std::lock_guard<std::mutex> lock(mutex_);
    for (int tries = 0; any_port && tries <= 65535 - kFirstPort && port == 0; ++tries) {
      const int candidate = next_port_;
      next_port_ = next_port_ == 65535 ? kFirstPort : next_port_ + 1;
      if (ports_.count(candidate) == 0) port = candidate;
    }
    if (port != 0) {
      key = JoinAddress(host, port);
      if (servers_.count(key) == 0) {
        auto created = std::make_shared<ServerCore>(key, handlers);
        servers_.emplace(key, created);
        ports_.insert(port);
        *server = std::move(created);
        return sdk::OkStatus();
      }
    }
  }
  if (port == 0) {
    return Error(TSR_CODE_RESOURCE_EXHAUSTED, "cannot listen on '", JoinAddress(host, 0),
                 "': every loopback port from ", kFirstPort, " to 65535 is in use");
  }
  return Error(TSR_CODE_ALREADY_EXISTS, "cannot listen on '", key,
               "': a loopback server already listens there (port ", port, " is in use)");
}

std::shared_ptr<ServerCore> ServerTable::Find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = servers_.find(key);
  return found == servers_.end() ? nullptr : found->second;
}

void ServerTable::Remove(const std::string& key) {
  std::shared_ptr<ServerCore> removed;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = servers_.find(key);
  if (found == servers_.end()) return;
  removed = std::move(found->second);
  servers_.erase(found);
  const size_t colon = key.rfind(':');
  auto port = ports_.find(std::atoi(key.c_str() + colon + 1));
  if (port != ports_.end()) ports_.erase(port);
}

// ---- Addresses and options -------------------------------------------------------------------

sdk::Status SplitAddress(const std::string& address, std::string* host, int* port) {
  if (const char* why = sdk::SplitHostPort(address, host, port)) {
    return Error(TSR_CODE_INVALID_ARGUMENT, "address '", address, "' ", why, " ",
                 sdk::kHostPortForm);
  }
  return sdk::OkStatus();
}

std::string JoinAddress(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return sdk::StrCat(v6 ? "[" : "", host, v6 ? "]" : "", ":", port);
}

sdk::Status ParseOptions(size_t num_options, const char* const* keys, const char* const* values,
                         int64_t* default_deadline_ms) {
  for (size_t i = 0; i < num_options; ++i) {
    if (keys == nullptr || values == nullptr || keys[i] == nullptr || values[i] == nullptr) {
      return Error(TSR_CODE_INVALID_ARGUMENT, "option ", i, " has a NULL key or value");
    }
    const std::string key = keys[i];
    const std::string value = values[i];
    if (key != "default_deadline_ms") {
      return Error(TSR_CODE_INVALID_ARGUMENT, "unknown option '", key,
                   "' (the loopback transport knows only default_deadline_ms; it has no TLS)");
    }
    char* end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || end == nullptr || *end != '\0' || errno != 0 || parsed <= 0) {
      return Error(TSR_CODE_INVALID_ARGUMENT, "option 'default_deadline_ms': '", value,
                   "' is not a positive number of milliseconds");
    }
    *default_deadline_ms = parsed;
  }
  return sdk::OkStatus();
}

// ---- The C table -----------------------------------------------------------------------------

namespace {

// Runs `body` (returning TSR_Status*), turning any exception into INTERNAL.
template <typename Body>
TSR_Status* Guarded(const char* slot, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return sdk::Internal("loopback transport ", slot, " threw: ", e.what()).Release();
  } catch (...) {
    return sdk::Internal("loopback transport ", slot, " threw an unknown exception").Release();
  }
}

TSR_Status* ServerStart(void* /*user_data*/, const TSR_Transport_Listen_Args* args,
                        TSR_TransportServer** server) {
  return Guarded("Server_Start", [&]() -> TSR_Status* {
    TSR_TransportHandlers handlers;
    sdk::Status checked = sdk::CheckListenArgs(args, server, &handlers);
    if (!checked.ok()) return checked.Release();
    std::string host;
    int port = 0;
    int64_t unused_deadline_ms = 0;  // a channel option; accepted because hosts pass one set
    sdk::Status status = SplitAddress(args->address, &host, &port);
    if (status.ok()) {
      status = ParseOptions(args->num_options, args->option_keys, args->option_values,
                            &unused_deadline_ms);
    }
    if (!status.ok()) return status.Release();
    auto started = std::make_unique<TSR_TransportServer>();
    Workers::Get().Acquire();  // first: once in the table, the server gets calls
    try {
      status = ServerTable::Get().Add(host, port, handlers, &started->core);
    } catch (...) {
      Workers::Get().Release();
      throw;
    }
    if (!status.ok()) {
      Workers::Get().Release();
      return status.Release();
    }
    *server = started.release();
    return nullptr;
  });
}

const char* ServerAddress(TSR_TransportServer* server) {
  return server == nullptr ? "" : server->core->address().c_str();
}

void ServerStop(TSR_TransportServer* server) {
  if (server == nullptr) return;
  std::unique_ptr<TSR_TransportServer> owned(server);
  ServerTable::Get().Remove(owned->core->address());
  owned->core->Stop();
  owned.reset();
  Workers::Get().Release();
}

TSR_Status* ChannelCreate(void* /*user_data*/, const TSR_Transport_Connect_Args* args,
                          TSR_TransportChannel** channel) {
  return Guarded("Channel_Create", [&]() -> TSR_Status* {
    sdk::Status checked = sdk::CheckConnectArgs(args, channel);
    if (!checked.ok()) return checked.Release();
    std::string host;
    int port = 0;
    int64_t default_deadline_ms = 0;
    sdk::Status status = SplitAddress(args->address, &host, &port);
    if (status.ok() && port == 0) {
      status = Error(TSR_CODE_INVALID_ARGUMENT, "address '", args->address,
                     "' has port 0 (a channel needs the server's port)");
    }
    if (status.ok()) {
      status = ParseOptions(args->num_options, args->option_keys, args->option_values,
                            &default_deadline_ms);
    }
    if (!status.ok()) return status.Release();
    auto created =
        std::make_unique<TSR_TransportChannel>(TSR_TransportChannel{std::make_shared<ChannelCore>(
            args->address, JoinAddress(host, port), default_deadline_ms)});
    Workers::Get().Acquire();
    *channel = created.release();
    return nullptr;
  });
}

void ChannelDestroy(TSR_TransportChannel* channel) {
  if (channel == nullptr) return;
  std::unique_ptr<TSR_TransportChannel> owned(channel);
  std::vector<std::shared_ptr<Exchange>> live = owned->core->BeginDestroy();
  for (const std::shared_ptr<Exchange>& exchange : live) {
    Fail(exchange, TSR_CODE_CANCELLED, "the channel was destroyed while the call was in flight");
  }
  live.clear();
  owned->core->WaitIdle();
  owned.reset();
  Workers::Get().Release();
}

void ChannelCall(TSR_TransportChannel* channel, const char* method, const void* request,
                 size_t request_size, int64_t deadline_ms, TSR_CallDoneFn done, void* done_arg) {
  if (done == nullptr) return;  // nobody to tell
  if (channel == nullptr) {
    done(done_arg, sdk::InvalidArgument("Channel_Call on a NULL channel").Release(), nullptr, 0);
    return;
  }
  std::shared_ptr<Exchange> exchange;
  // Everything that can throw happens before the exchange starts, so `done` runs once either way.
  TSR_Status* failure = Guarded("Channel_Call", [&]() -> TSR_Status* {
    exchange = std::make_shared<Exchange>(ExchangeKind::kCall, channel->core);
    exchange->address = channel->core->address();
    exchange->method = method == nullptr ? "" : method;
    if (request != nullptr) {
      exchange->request.assign(static_cast<const char*>(request), request_size);
    }
    exchange->call_done = done;
    exchange->call_done_arg = done_arg;
    return nullptr;
  });
  if (failure != nullptr) return done(done_arg, failure, nullptr, 0);
  Start(*channel->core, exchange, deadline_ms);
}

void ChannelRecvTensor(TSR_TransportChannel* channel, const TSR_Channel_RecvTensor_Args* args) {
  if (!sdk::CheckRecvTensorArgs(channel, args)) return;
  std::shared_ptr<Exchange> exchange;
  TSR_Status* failure = Guarded("Channel_RecvTensor", [&]() -> TSR_Status* {
    exchange = std::make_shared<Exchange>(ExchangeKind::kRecvTensor, channel->core);
    exchange->address = channel->core->address();
    exchange->step_id = args->step_id;
    exchange->rendezvous_key = args->rendezvous_key == nullptr ? "" : args->rendezvous_key;
    exchange->allocate = args->allocate;
    exchange->allocate_arg = args->allocate_arg;
    exchange->recv_done = args->done;
    exchange->recv_done_arg = args->done_arg;
    return nullptr;
  });
  if (failure != nullptr) return args->done(args->done_arg, failure, false);
  Start(*channel->core, exchange, args->deadline_ms);
}

// Completes the reply's exchange with `answer` unless someone claimed it first (then `answer`,
// and the tensor it holds, is dropped here).
void DeliverAnswer(std::unique_ptr<TSR_TransportReply> reply, std::shared_ptr<Answer> answer) {
  reply->server->Answered(reply->exchange.get());
  if (reply->exchange->Claim()) CompleteLater(reply->exchange, answer);
}

void ReplySend(TSR_TransportReply* reply, TSR_Status* status, const void* response,
               size_t response_size) {
  std::unique_ptr<TSR_TransportReply> owned(reply);
  sdk::Status given(status);
  if (owned == nullptr) return;
  try {
    auto answer = std::make_shared<Answer>();
    if (owned->exchange->kind == ExchangeKind::kCall) {
      answer->status = std::move(given);
      if (response != nullptr) {
        answer->response.assign(static_cast<const char*>(response), response_size);
      }
    } else {
      answer->status = given.ok() ? Error(TSR_CODE_INTERNAL,
                                          "the sender answered a tensor pull without a tensor")
                                  : std::move(given);
    }
    DeliverAnswer(std::move(owned), std::move(answer));
  } catch (...) {
    // Out of memory copying the response: the call stays unanswered until its deadline, Stop or
    // Channel_Destroy.
  }
}

// Checks a lent tensor as the gRPC transport's encoder does.
sdk::Status CheckTensor(const TSR_TensorView& tensor, bool is_dead) {
  if (is_dead) return sdk::OkStatus();
  if (tensor.rank < 0 || tensor.rank > TSR_MAX_RANK) {
    return Error(TSR_CODE_INVALID_ARGUMENT, "tensor rank ", tensor.rank, " is outside [0, ",
                 TSR_MAX_RANK, "]");
  }
  if (tensor.rank > 0 && tensor.dims == nullptr) {
    return Error(TSR_CODE_INVALID_ARGUMENT, "tensor of rank ", tensor.rank, " has no dims");
  }
  if (tensor.byte_size > 0 && tensor.data == nullptr) {
    return Error(TSR_CODE_INVALID_ARGUMENT, "tensor of ", tensor.byte_size, " bytes has no data");
  }
  for (int32_t i = 0; i < tensor.rank; ++i) {
    if (tensor.dims[i] < 0) {
      return Error(TSR_CODE_INVALID_ARGUMENT, "tensor dimension ", i, " is negative (",
                   tensor.dims[i], ")");
    }
  }
  return sdk::OkStatus();
}

// Before the host answers, only the deadline, Channel_Destroy or Server_Stop claim an exchange:
// each means the caller no longer waits.
bool ReplyIsCancelled(const TSR_TransportReply* reply) {
  return reply != nullptr && reply->exchange->claimed();
}

void ReplySendTensor(TSR_TransportReply* reply, TSR_Status* status, const TSR_TensorView* tensor,
                     bool is_dead, TSR_ReleaseFn release, void* release_arg) {
  std::unique_ptr<TSR_TransportReply> owned(reply);
  sdk::Status given(status);
  std::shared_ptr<Answer> answer;
  try {
    answer = std::make_shared<Answer>();
  } catch (...) {
    if (release != nullptr) release(release_arg);
    return;  // the call stays unanswered until its deadline, Stop or Channel_Destroy
  }
  answer->release = release;  // from here the answer runs it, once
  answer->release_arg = release_arg;
  if (owned == nullptr) return;
  try {
    if (owned->exchange->kind == ExchangeKind::kCall) {
      answer->ReleaseTensor();
      answer->status = given.ok()
                           ? Error(TSR_CODE_INTERNAL, "the server answered a call with a tensor")
                           : std::move(given);
    } else if (!given.ok() || tensor == nullptr) {
      answer->ReleaseTensor();
      answer->status = given.ok()
                           ? Error(TSR_CODE_INTERNAL, "the sender answered with a NULL tensor")
                           : std::move(given);
    } else if (sdk::Status invalid = CheckTensor(*tensor, is_dead); !invalid.ok()) {
      answer->ReleaseTensor();
      answer->status =
          Error(invalid.code(), "the sender cannot send its tensor: ", invalid.message());
    } else {
      answer->has_tensor = true;
      answer->is_dead = is_dead;
      if (!is_dead) {
        answer->dtype = tensor->dtype;
        if (tensor->rank > 0) answer->dims.assign(tensor->dims, tensor->dims + tensor->rank);
        answer->data = tensor->data;
        answer->byte_size = tensor->byte_size;
      }
    }
    DeliverAnswer(std::move(owned), std::move(answer));
  } catch (...) {
    // As in ReplySend; the answer's destructor has run the release.
  }
}

}  // namespace

TSR_Status* RegisterLoopbackTransport(TSR_Registrar* registrar) {
  TSR_TransportRegistration registration{};
  registration.struct_size = sizeof(registration);
  registration.name = "loopback";
  registration.capabilities = 0;
  registration.Server_Start = &ServerStart;
  registration.Server_Address = &ServerAddress;
  registration.Server_Stop = &ServerStop;
  registration.Channel_Create = &ChannelCreate;
  registration.Channel_Destroy = &ChannelDestroy;
  registration.Channel_Call = &ChannelCall;
  registration.Channel_RecvTensor = &ChannelRecvTensor;
  registration.Reply_Send = &ReplySend;
  registration.Reply_SendTensor = &ReplySendTensor;
  registration.Reply_IsCancelled = &ReplyIsCancelled;
  return sdk::HostApi()->Registrar_RegisterTransport(registrar, &registration);
}

}  // namespace tessera::loopback
