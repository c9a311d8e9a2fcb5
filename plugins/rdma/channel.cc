// The rdma transport's connecting side: channels, their endpoint, and the calls and pulls in
// flight with their deadlines.
#include <algorithm>
#include <atomic>
#include <map>
#include <unordered_map>
#include <utility>

#include "plugins/rdma/endpoints.h"
#include "plugins/rdma/transport.h"
#include "plugins/rdma/wire_format.h"
#include "tessera/sdk/status.h"
#include "tessera/sdk/transport.h"

namespace tessera::rdma {

// One call or pull. Whoever claims it first (its answer, its deadline, the connection's failure,
// Channel_Destroy) completes it, once.
struct Exchange {
  bool Claim() { return !claimed.exchange(true, std::memory_order_acq_rel); }

  uint64_t id = 0;
  bool pull = false;
  std::shared_ptr<ChannelCore> channel;
  std::atomic<bool> claimed{false};
  uint64_t timer = 0;
  int64_t deadline_ms = 0;
  // A call.
  std::string method;
  TSR_CallDoneFn call_done = nullptr;
  void* call_done_arg = nullptr;
  // A pull.
  uint64_t step_id = 0;
  std::string key;
  TSR_AllocateTensorFn allocate = nullptr;
  void* allocate_arg = nullptr;
  TSR_RecvTensorDoneFn recv_done = nullptr;
  void* recv_done_arg = nullptr;
  // Set while the answer's bytes land (claimed already); Channel_Destroy waits for them.
  bool landing = false;
};

class ChannelCore {
 public:
  std::string address;
  std::string host;
  int port = 0;
  TransportOptions options;
  // Engine thread only.
  bool destroyed = false;
  std::shared_ptr<Connection> connection;
  std::map<uint64_t, std::shared_ptr<Exchange>> exchanges;
};

namespace {

std::atomic<uint64_t> g_next_exchange{1};

// Exchanges waiting for an answer, by id (engine thread only).
std::unordered_map<uint64_t, std::shared_ptr<Exchange>>& Pending() {
  static auto* pending = new std::unordered_map<uint64_t, std::shared_ptr<Exchange>>();
  return *pending;
}

// Forgets a claimed exchange; its callback is the caller's to run.
void Forget(Exchange& exchange) {
  Pending().erase(exchange.id);
  exchange.channel->exchanges.erase(exchange.id);
  if (exchange.timer != 0) TheEngine().CancelTimer(exchange.timer);
  exchange.timer = 0;
}

void Complete(Exchange& exchange, const Error& error, const std::string& response = {},
              bool is_dead = false) {
  Forget(exchange);
  if (exchange.pull) {
    exchange.recv_done(exchange.recv_done_arg, error.ToAbi(), error.ok() && is_dead);
  } else {
    exchange.call_done(exchange.call_done_arg, error.ToAbi(),
                       error.ok() ? response.data() : nullptr, error.ok() ? response.size() : 0);
  }
}

std::string What(const Exchange& exchange) {
  return exchange.pull ? sdk::StrCat("pull of '", exchange.key, "' (step ", exchange.step_id, ")")
                       : sdk::StrCat("call '", exchange.method, "'");
}

// UNAVAILABLE for an exchange whose connection failed (refused, reset, the peer gone).
Error ConnectionBroke(const Exchange& exchange, ucs_status_t status) {
  const std::string& address = exchange.channel->address;
  return MakeError(TSR_CODE_UNAVAILABLE, "rdma transport: ", What(exchange), " to '", address,
                   "' failed: the connection to '", address, "' broke (",
                   ucs_status_string(status), ")");
}

// Fails every unclaimed exchange of `channel` with `error_for`.
template <typename MakeFailure>
void FailAll(ChannelCore& channel, MakeFailure make_failure) {
  std::map<uint64_t, std::shared_ptr<Exchange>> exchanges = channel.exchanges;
  for (auto& [id, exchange] : exchanges) {
    if (exchange->Claim()) Complete(*exchange, make_failure(*exchange));
  }
}

// The channel's endpoint, connected on first use and again after a failure.
Error EnsureConnected(const std::shared_ptr<ChannelCore>& channel) {
  if (channel->connection != nullptr && channel->connection->ep != nullptr) return Error();
  sockaddr_storage address;
  socklen_t length = 0;
  Error error =
      Resolve(channel->address, channel->host, channel->port, /*passive=*/false, &address, &length);
  if (!error.ok()) return MakeError(TSR_CODE_UNAVAILABLE, error.message);
  auto connection = std::make_shared<Connection>();
  connection->channel = channel;
  connection->peer = channel->address;
  error = ConnectEndpoint(address, length, connection);
  if (!error.ok()) return error;
  channel->connection = std::move(connection);
  return Error();
}

void Start(const std::shared_ptr<Exchange>& exchange, std::string header, std::string data) {
  ChannelCore& channel = *exchange->channel;
  if (channel.destroyed) {
    if (exchange->Claim()) Complete(*exchange, MakeError(TSR_CODE_CANCELLED, "the channel to '",
                                                         channel.address, "' was destroyed"));
    return;
  }
  Error error = EnsureConnected(exchange->channel);
  if (!error.ok()) {
    if (exchange->Claim()) Complete(*exchange, error);
    return;
  }
  Pending().emplace(exchange->id, exchange);
  channel.exchanges.emplace(exchange->id, exchange);
  if (exchange->deadline_ms > 0) {
    exchange->timer = TheEngine().AddTimer(
        Clock::now() + std::chrono::milliseconds(exchange->deadline_ms), [exchange] {
          exchange->timer = 0;
          if (!exchange->Claim()) return;
          Complete(*exchange, MakeError(TSR_CODE_DEADLINE_EXCEEDED, "rdma transport: ",
                                        What(*exchange), " to '", exchange->channel->address,
                                        "' passed its deadline of ", exchange->deadline_ms, " ms"));
        });
  }
  auto outgoing = std::make_unique<Outgoing>();
  outgoing->header = std::move(header);
  outgoing->owned_data = std::move(data);
  outgoing->data = outgoing->owned_data.data();
  outgoing->size = outgoing->owned_data.size();
  outgoing->reply_expected = true;
  outgoing->done = [exchange](ucs_status_t status) {
    if (status == UCS_OK || !exchange->Claim()) return;
    Complete(*exchange, ConnectionBroke(*exchange, status));
  };
  Send(channel.connection->ep, exchange->pull ? kPull : kCall, std::move(outgoing));
}

int64_t DeadlineOf(const ChannelCore& channel, int64_t deadline_ms) {
  return std::min(deadline_ms > 0 ? deadline_ms : channel.options.default_deadline_ms,
                  kMaxDeadlineMs);
}

// The exchange an answer is for, claimed; nullptr when it was completed already.
std::shared_ptr<Exchange> ClaimAnswered(uint64_t id, bool pull) {
  auto found = Pending().find(id);
  if (found == Pending().end() || found->second->pull != pull) return nullptr;
  std::shared_ptr<Exchange> exchange = found->second;
  if (!exchange->Claim()) return nullptr;
  if (exchange->timer != 0) TheEngine().CancelTimer(exchange->timer);
  exchange->timer = 0;
  return exchange;
}

ucs_status_t OnCallReply(void* /*arg*/, const void* header, size_t header_length, void* data,
                         size_t length, const ucp_am_recv_param_t* param) {
  CallReplyHeader decoded;
  if (!DecodeCallReplyHeader(header, header_length, &decoded)) return UCS_OK;
  auto incoming = std::make_shared<IncomingData>();
  const ucs_status_t kept = Capture(data, length, param, incoming.get());
  TheEngine().Defer([decoded, incoming] {
    std::shared_ptr<Exchange> exchange = ClaimAnswered(decoded.exchange, /*pull=*/false);
    if (exchange == nullptr) {
      Drop(*incoming);
      return;
    }
    exchange->landing = true;
    auto body = std::make_shared<std::string>(incoming->size, '\0');
    Receive(*incoming, body->data(), [exchange, decoded, body](ucs_status_t status) {
      exchange->landing = false;
      std::string message, response;
      if (status != UCS_OK) {
        Complete(*exchange, MakeError(TSR_CODE_UNAVAILABLE, "rdma transport: the answer to ",
                                      What(*exchange), " from '", exchange->channel->address,
                                      "' was lost: ", ucs_status_string(status)));
      } else if (!DecodeCallReplyData(*body, &message, &response) || decoded.code > 16) {
        Complete(*exchange, MakeError(TSR_CODE_INTERNAL, "rdma transport: a malformed answer to ",
                                      What(*exchange), " from '", exchange->channel->address, "'"));
      } else {
        Complete(*exchange, Error{static_cast<TSR_Code>(decoded.code), message}, response);
      }
    });
  });
  return kept;
}

void LandTensor(const std::shared_ptr<Exchange>& exchange, const TensorReplyHeader& header,
                IncomingData& incoming) {
  const std::string from = sdk::StrCat(" from '", exchange->channel->address, "'");
  if (header.code != TSR_CODE_OK) {
    auto message = std::make_shared<std::string>(incoming.size, '\0');
    exchange->landing = true;
    Receive(incoming, message->data(), [exchange, header, message](ucs_status_t status) {
      exchange->landing = false;
      Complete(*exchange, Error{header.code > 16 ? TSR_CODE_UNKNOWN
                                                 : static_cast<TSR_Code>(header.code),
                                status == UCS_OK ? *message : "(the message was lost)"});
    });
    return;
  }
  if (header.is_dead) {
    Drop(incoming);
    Complete(*exchange, Error(), {}, /*is_dead=*/true);
    return;
  }
  if (incoming.size != header.byte_size) {
    Drop(incoming);
    Complete(*exchange, MakeError(TSR_CODE_INTERNAL, "rdma transport: the answer to ",
                                  What(*exchange), from, " announced ", header.byte_size,
                                  " bytes and carried ", incoming.size));
    return;
  }
  TSR_TensorView destination{};
  destination.struct_size = sizeof(destination);
  sdk::Status allocated(exchange->allocate(
      exchange->allocate_arg, static_cast<TSR_DataType>(header.dtype),
      static_cast<int32_t>(header.dims.size()), header.dims.data(), header.byte_size,
      &destination));
  if (!allocated.ok()) {
    Drop(incoming);
    Complete(*exchange, Error{allocated.code(), allocated.message()});
    return;
  }
  if (destination.byte_size != header.byte_size ||
      (header.byte_size > 0 && destination.data == nullptr)) {
    Drop(incoming);
    Complete(*exchange, MakeError(TSR_CODE_INTERNAL, "rdma transport: the destination of ",
                                  What(*exchange), " holds ", destination.byte_size,
                                  " bytes; the tensor has ", header.byte_size));
    return;
  }
  exchange->landing = true;
  Receive(incoming, destination.data, [exchange, from](ucs_status_t status) {
    exchange->landing = false;
    if (status == UCS_OK) {
      Complete(*exchange, Error());
    } else {
      Complete(*exchange, MakeError(TSR_CODE_UNAVAILABLE, "rdma transport: the tensor of ",
                                    What(*exchange), from,
                                    " was lost: ", ucs_status_string(status)));
    }
  });
}

ucs_status_t OnTensorReply(void* /*arg*/, const void* header, size_t header_length, void* data,
                           size_t length, const ucp_am_recv_param_t* param) {
  TensorReplyHeader decoded;
  if (!DecodeTensorReplyHeader(header, header_length, &decoded)) return UCS_OK;
  auto incoming = std::make_shared<IncomingData>();
  const ucs_status_t kept = Capture(data, length, param, incoming.get());
  TheEngine().Defer([decoded, incoming] {
    std::shared_ptr<Exchange> exchange = ClaimAnswered(decoded.exchange, /*pull=*/true);
    if (exchange == nullptr) {
      Drop(*incoming);
      return;
    }
    LandTensor(exchange, decoded, *incoming);
  });
  return kept;
}

std::shared_ptr<Exchange> NewExchange(const std::shared_ptr<ChannelCore>& channel, bool pull) {
  auto exchange = std::make_shared<Exchange>();
  exchange->id = g_next_exchange.fetch_add(1, std::memory_order_relaxed);
  exchange->pull = pull;
  exchange->channel = channel;
  return exchange;
}

}  // namespace

void InstallChannelHandlers(Engine& engine) {
  engine.SetAmHandler(kCallReply, &OnCallReply, nullptr);
  engine.SetAmHandler(kTensorReply, &OnTensorReply, nullptr);
}

void OnChannelConnectionFailed(const std::shared_ptr<Connection>& connection,
                               ucs_status_t status) {
  std::shared_ptr<ChannelCore> channel = connection->channel.lock();
  CloseConnection(*connection, /*force=*/true);
  if (channel == nullptr || channel->connection != connection) return;
  channel->connection = nullptr;  // the next exchange connects again
  FailAll(*channel, [&](const Exchange& exchange) { return ConnectionBroke(exchange, status); });
}

Error CreateChannel(const std::string& address, const TransportOptions& options,
                    std::shared_ptr<ChannelCore>* channel) {
  auto core = std::make_shared<ChannelCore>();
  if (const char* why = sdk::SplitHostPort(address, &core->host, &core->port)) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "address '", address, "' ", why, " ",
                     sdk::kHostPortForm);
  }
  Error error = RefuseIpv6(address, core->host);
  if (!error.ok()) return error;
  error = StartEngine();
  if (!error.ok()) return error;
  core->address = address;
  core->options = options;
  *channel = std::move(core);
  return Error();
}

void DestroyChannel(const std::shared_ptr<ChannelCore>& channel) {
  TheEngine().RunSync([&] {
    channel->destroyed = true;
    FailAll(*channel, [&](const Exchange& exchange) {
      return MakeError(TSR_CODE_CANCELLED, "rdma transport: ", What(exchange), " to '",
                       channel->address, "' was cancelled: its channel was destroyed");
    });
    // Answers whose bytes are landing finish first: their destinations belong to callers that
    // wait for the callbacks. Closing the endpoint bounds the wait.
    if (channel->connection != nullptr) CloseConnection(*channel->connection, /*force=*/true);
    channel->connection = nullptr;
    const Clock::time_point give_up = Clock::now() + std::chrono::seconds(10);
    for (;;) {
      bool landing = false;
      for (const auto& [id, exchange] : channel->exchanges) landing |= exchange->landing;
      if (!landing || Clock::now() > give_up) break;
      TheEngine().ProgressOnce();
    }
  });
}

void Call(const std::shared_ptr<ChannelCore>& channel, const char* method, const void* request,
          size_t request_size, int64_t deadline_ms, TSR_CallDoneFn done, void* done_arg) {
  std::shared_ptr<Exchange> exchange = NewExchange(channel, /*pull=*/false);
  exchange->method = method == nullptr ? "" : method;
  exchange->call_done = done;
  exchange->call_done_arg = done_arg;
  exchange->deadline_ms = DeadlineOf(*channel, deadline_ms);
  if (method == nullptr || exchange->method.size() > kMaxMethodSize ||
      (request == nullptr && request_size > 0)) {
    done(done_arg,
         sdk::InvalidArgument("Channel_Call: a NULL or over-long method, or a NULL request of ",
                              request_size, " bytes")
             .Release(),
         nullptr, 0);
    return;
  }
  std::string header = EncodeCallHeader({exchange->id, exchange->deadline_ms, exchange->method});
  std::string body(static_cast<const char*>(request), request == nullptr ? 0 : request_size);
  TheEngine().Post([exchange, header = std::move(header), body = std::move(body)]() mutable {
    Start(exchange, std::move(header), std::move(body));
  });
}

void RecvTensor(const std::shared_ptr<ChannelCore>& channel,
                const TSR_Channel_RecvTensor_Args& args) {
  std::shared_ptr<Exchange> exchange = NewExchange(channel, /*pull=*/true);
  exchange->step_id = args.step_id;
  exchange->key = args.rendezvous_key == nullptr ? "" : args.rendezvous_key;
  exchange->allocate = args.allocate;
  exchange->allocate_arg = args.allocate_arg;
  exchange->recv_done = args.done;
  exchange->recv_done_arg = args.done_arg;
  exchange->deadline_ms = DeadlineOf(*channel, args.deadline_ms);
  std::string header = EncodePullHeader({exchange->id, exchange->deadline_ms, args.step_id});
  std::string key = exchange->key;
  TheEngine().Post([exchange, header = std::move(header), key = std::move(key)]() mutable {
    Start(exchange, std::move(header), std::move(key));
  });
}

}  // namespace tessera::rdma
