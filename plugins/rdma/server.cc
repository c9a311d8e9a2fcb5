// The rdma transport's listening side: UCX listeners, accepted connections, incoming calls and
// pulls, and the replies the host answers them through.
#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <unordered_map>
#include <utility>

#include "plugins/rdma/endpoints.h"
#include "plugins/rdma/transport.h"
#include "plugins/rdma/wire_format.h"
#include "tessera/sdk/status.h"
#include "tessera/sdk/transport.h"

namespace tessera::rdma {

class ServerCall;

class ServerCore {
 public:
  TSR_TransportHandlers handlers{};
  std::string address;
  // Engine thread only.
  ucp_listener_h listener = nullptr;
  bool stopped = false;
  std::set<std::shared_ptr<Connection>> connections;
  std::set<std::shared_ptr<ServerCall>> unanswered;
};

// An incoming call or pull until the host answers it. Whoever claims it first (the host's
// answer, the connection's failure, Server_Stop) decides; later answers are dropped.
class ServerCall {
 public:
  bool Claim() { return !claimed_.exchange(true, std::memory_order_acq_rel); }
  bool claimed() const { return claimed_.load(std::memory_order_acquire); }

  std::shared_ptr<ServerCore> server;
  std::shared_ptr<Connection> connection;
  uint64_t exchange = 0;
  bool pull = false;
  Clock::time_point deadline = Clock::time_point::max();

 private:
  std::atomic<bool> claimed_{false};
};

}  // namespace tessera::rdma

struct TSR_TransportReply {
  std::shared_ptr<tessera::rdma::ServerCall> call;
};

namespace tessera::rdma {
namespace {

// Servers whose listener may still call back (engine thread only), by the listener's argument.
std::unordered_map<ServerCore*, std::shared_ptr<ServerCore>>& LiveServers() {
  static auto* servers = new std::unordered_map<ServerCore*, std::shared_ptr<ServerCore>>();
  return *servers;
}

void SendCallReply(ServerCall& call, TSR_Code code, const std::string& message,
                   const void* response, size_t response_size) {
  if (call.connection->ep == nullptr) return;
  auto outgoing = std::make_unique<Outgoing>();
  outgoing->header = EncodeCallReplyHeader({call.exchange, static_cast<uint32_t>(code)});
  outgoing->owned_data = EncodeCallReplyData(message, response, response_size);
  outgoing->data = outgoing->owned_data.data();
  outgoing->size = outgoing->owned_data.size();
  Send(call.connection->ep, kCallReply, std::move(outgoing));
}

void SendTensorError(ServerCall& call, TSR_Code code, const std::string& message) {
  if (call.connection->ep == nullptr) return;
  TensorReplyHeader header;
  header.exchange = call.exchange;
  header.code = code;
  auto outgoing = std::make_unique<Outgoing>();
  outgoing->header = EncodeTensorReplyHeader(header);
  outgoing->owned_data = message;
  outgoing->data = outgoing->owned_data.data();
  outgoing->size = outgoing->owned_data.size();
  Send(call.connection->ep, kTensorReply, std::move(outgoing));
}

// Answers with UNAVAILABLE (the server stopped) or, when the connection is gone, only claims.
void FailUnanswered(ServerCore& server, const std::string& why) {
  std::set<std::shared_ptr<ServerCall>> unanswered;
  unanswered.swap(server.unanswered);
  for (const std::shared_ptr<ServerCall>& call : unanswered) {
    if (!call->Claim()) continue;
    if (call->pull) {
      SendTensorError(*call, TSR_CODE_UNAVAILABLE, why);
    } else {
      SendCallReply(*call, TSR_CODE_UNAVAILABLE, why, nullptr, 0);
    }
  }
}

std::shared_ptr<ServerCall> NewCall(const std::shared_ptr<Connection>& connection,
                                    uint64_t exchange, int64_t deadline_ms, bool pull) {
  auto call = std::make_shared<ServerCall>();
  call->server = connection->server;
  call->connection = connection;
  call->exchange = exchange;
  call->pull = pull;
  if (deadline_ms > 0) {
    call->deadline =
        Clock::now() + std::chrono::milliseconds(std::min(deadline_ms, kMaxDeadlineMs));
  }
  connection->server->unanswered.insert(call);
  return call;
}

// The connection an incoming message came on, if its server still serves.
std::shared_ptr<Connection> ServingConnection(const ucp_am_recv_param_t* param) {
  if ((param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) == 0) return nullptr;
  std::shared_ptr<Connection> connection = FindConnection(param->reply_ep);
  if (connection == nullptr || connection->server == nullptr || connection->server->stopped) {
    return nullptr;
  }
  return connection;
}

void DispatchCall(const std::shared_ptr<Connection>& connection, const CallHeader& header,
                  const std::string& request) {
  if (connection->server->stopped || connection->ep == nullptr) return;
  std::shared_ptr<ServerCall> call =
      NewCall(connection, header.exchange, header.deadline_ms, /*pull=*/false);
  const TSR_TransportHandlers& handlers = connection->server->handlers;
  handlers.HandleCall(handlers.handler_arg, header.method.c_str(), request.data(), request.size(),
                      new TSR_TransportReply{call});
}

ucs_status_t OnCall(void* /*arg*/, const void* header, size_t header_length, void* data,
                    size_t length, const ucp_am_recv_param_t* param) {
  auto decoded = std::make_shared<CallHeader>();
  std::shared_ptr<Connection> connection = ServingConnection(param);
  if (connection == nullptr || !DecodeCallHeader(header, header_length, decoded.get())) {
    return UCS_OK;  // a stopped server, or bytes of no Tessera peer: dropped
  }
  auto incoming = std::make_shared<IncomingData>();
  const ucs_status_t kept = Capture(data, length, param, incoming.get());
  TheEngine().Defer([connection, decoded, incoming] {
    if (incoming->descriptor == nullptr) {
      DispatchCall(connection, *decoded, incoming->bytes);
      return;
    }
    auto request = std::make_shared<std::string>(incoming->size, '\0');
    Receive(*incoming, request->data(), [connection, decoded, request](ucs_status_t status) {
      if (status == UCS_OK) DispatchCall(connection, *decoded, *request);
    });
  });
  return kept;
}

ucs_status_t OnPull(void* /*arg*/, const void* header, size_t header_length, void* data,
                    size_t length, const ucp_am_recv_param_t* param) {
  PullHeader decoded;
  std::shared_ptr<Connection> connection = ServingConnection(param);
  if (connection == nullptr || !DecodePullHeader(header, header_length, &decoded)) return UCS_OK;
  auto incoming = std::make_shared<IncomingData>();
  const ucs_status_t kept = Capture(data, length, param, incoming.get());
  TheEngine().Defer([connection, decoded, incoming] {
    auto key = std::make_shared<std::string>(incoming->size, '\0');
    Receive(*incoming, key->data(), [connection, decoded, key](ucs_status_t status) {
      if (status != UCS_OK || connection->server->stopped || connection->ep == nullptr) return;
      std::shared_ptr<ServerCall> call =
          NewCall(connection, decoded.exchange, decoded.deadline_ms, /*pull=*/true);
      const TSR_TransportHandlers& handlers = connection->server->handlers;
      handlers.HandleRecvTensor(handlers.handler_arg, decoded.step_id, key->c_str(),
                                new TSR_TransportReply{call});
    });
  });
  return kept;
}

void OnConnectionRequest(ucp_conn_request_h request, void* arg) {
  auto* raw = static_cast<ServerCore*>(arg);
  TheEngine().Defer([request, raw] {
    auto live = LiveServers().find(raw);
    if (live == LiveServers().end() || live->second->stopped) {
      return;  // the listener is gone; UCX drops its requests
    }
    auto connection = std::make_shared<Connection>();
    connection->server = live->second;
    connection->peer = "a client of " + live->second->address;
    if (AcceptEndpoint(request, connection).ok()) live->second->connections.insert(connection);
  });
}

std::string WithPort(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

void InstallServerHandlers(Engine& engine) {
  engine.SetAmHandler(kCall, &OnCall, nullptr);
  engine.SetAmHandler(kPull, &OnPull, nullptr);
}

void OnServerConnectionFailed(const std::shared_ptr<Connection>& connection,
                              ucs_status_t /*status*/) {
  // The caller went away: its unanswered calls are cancelled (Reply_IsCancelled) and their
  // answers dropped.
  std::shared_ptr<ServerCore> server = connection->server;
  for (auto it = server->unanswered.begin(); it != server->unanswered.end();) {
    if ((*it)->connection == connection) {
      (*it)->Claim();
      it = server->unanswered.erase(it);
    } else {
      ++it;
    }
  }
  CloseConnection(*connection, /*force=*/true);
  server->connections.erase(connection);
}

Error StartServer(const std::string& address, const TSR_TransportHandlers& handlers,
                  std::shared_ptr<ServerCore>* server) {
  std::string host;
  int port = 0;
  if (const char* why = sdk::SplitHostPort(address, &host, &port)) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "address '", address, "' ", why, " ",
                     sdk::kHostPortForm);
  }
  sockaddr_storage bind_address;
  socklen_t bind_length = 0;
  Error error = Resolve(address, host, port, /*passive=*/true, &bind_address, &bind_length);
  if (!error.ok()) return error;
  error = StartEngine();
  if (!error.ok()) return error;

  auto core = std::make_shared<ServerCore>();
  core->handlers = handlers;
  TheEngine().RunSync([&] {
    ucp_listener_params_t params{};
    params.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
    params.sockaddr.addr = reinterpret_cast<const sockaddr*>(&bind_address);
    params.sockaddr.addrlen = bind_length;
    params.conn_handler.cb = &OnConnectionRequest;
    params.conn_handler.arg = core.get();
    const ucs_status_t status = ucp_listener_create(TheEngine().worker(), &params, &core->listener);
    if (status == UCS_ERR_BUSY) {
      error = MakeError(TSR_CODE_ALREADY_EXISTS, "cannot listen on '", address, "': port ", port,
                        " is in use");
      return;
    }
    if (status != UCS_OK) {
      error = MakeError(TSR_CODE_UNAVAILABLE, "cannot listen on '", address,
                        "': ", ucs_status_string(status));
      return;
    }
    ucp_listener_attr_t attr{};
    attr.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
    if (ucp_listener_query(core->listener, &attr) == UCS_OK) {
      const auto& bound = attr.sockaddr;
      port = ntohs(bound.ss_family == AF_INET6
                       ? reinterpret_cast<const sockaddr_in6&>(bound).sin6_port
                       : reinterpret_cast<const sockaddr_in&>(bound).sin_port);
    }
    core->address = WithPort(host, port);
    LiveServers().emplace(core.get(), core);
  });
  if (!error.ok()) return error;
  *server = std::move(core);
  return Error();
}

const std::string& ServerAddress(const ServerCore& server) { return server.address; }

void StopServer(const std::shared_ptr<ServerCore>& server) {
  TheEngine().RunSync([&] {
    if (server->stopped) return;
    server->stopped = true;
    if (server->listener != nullptr) ucp_listener_destroy(server->listener);
    server->listener = nullptr;
    LiveServers().erase(server.get());
    FailUnanswered(*server, sdk::StrCat("the server at '", server->address, "' stopped"));
    for (const std::shared_ptr<Connection>& connection : server->connections) {
      CloseConnection(*connection, /*force=*/false);  // the answers above are flushed first
    }
    server->connections.clear();
  });
}

bool ReplyIsCancelled(const TSR_TransportReply* reply) {
  if (reply == nullptr) return false;
  return reply->call->claimed() || Clock::now() >= reply->call->deadline;
}

void ReplySend(TSR_TransportReply* reply, TSR_Status* status, const void* response,
               size_t response_size) {
  std::unique_ptr<TSR_TransportReply> owned(reply);
  const sdk::Status answer(status);
  if (owned == nullptr || !owned->call->Claim()) return;
  auto call = owned->call;
  const TSR_Code code = answer.code();
  std::string message = answer.message();
  std::string body(static_cast<const char*>(response), response == nullptr ? 0 : response_size);
  TheEngine().Post([call, code, message = std::move(message), body = std::move(body)] {
    call->server->unanswered.erase(call);
    if (call->server->stopped) return;
    if (call->pull) {
      // A pull answered without a tensor: its status, or INTERNAL when that is OK.
      SendTensorError(*call, code == TSR_CODE_OK ? TSR_CODE_INTERNAL : code,
                      code == TSR_CODE_OK ? "the sender answered a tensor pull without a tensor"
                                          : message);
      return;
    }
    SendCallReply(*call, code, message, body.data(), body.size());
  });
}

void ReplySendTensor(TSR_TransportReply* reply, TSR_Status* status, const TSR_TensorView* tensor,
                     bool is_dead, TSR_ReleaseFn release, void* release_arg) {
  std::unique_ptr<TSR_TransportReply> owned(reply);
  const sdk::Status answer(status);
  const auto release_now = [&] {
    if (release != nullptr) release(release_arg);
  };
  if (owned == nullptr || !owned->call->Claim()) {
    release_now();
    return;
  }
  auto call = owned->call;
  if (!call->pull) {
    release_now();
    TheEngine().Post([call] {
      call->server->unanswered.erase(call);
      if (call->server->stopped) return;
      SendCallReply(*call, TSR_CODE_INTERNAL, "the host answered a call with a tensor", nullptr, 0);
    });
    return;
  }
  TensorReplyHeader header;
  header.exchange = call->exchange;
  header.code = answer.code();
  std::string message = answer.message();
  const bool has_tensor = answer.ok() && !is_dead && tensor != nullptr;
  if (answer.ok() && !is_dead && tensor == nullptr) {
    header.code = TSR_CODE_INTERNAL;
    message = "Reply_SendTensor: an OK answer without a tensor";
  } else if (answer.ok() && (tensor == nullptr || tensor->rank < 0 ||
                             tensor->rank > TSR_MAX_RANK ||
                             (tensor->rank > 0 && tensor->dims == nullptr) ||
                             (tensor->byte_size > 0 && tensor->data == nullptr))) {
    if (!is_dead) {
      header.code = TSR_CODE_INTERNAL;
      message = "Reply_SendTensor: a malformed tensor view";
    }
  }
  header.is_dead = answer.ok() && is_dead;
  const bool send_bytes = has_tensor && header.code == TSR_CODE_OK;
  if (send_bytes) {
    header.dtype = static_cast<uint32_t>(tensor->dtype);
    header.dims.assign(tensor->dims, tensor->dims + tensor->rank);
    header.byte_size = tensor->byte_size;
  }
  auto outgoing = std::make_unique<Outgoing>();
  outgoing->header = EncodeTensorReplyHeader(header);
  if (send_bytes) {
    outgoing->data = tensor->data;
    outgoing->size = tensor->byte_size;
    outgoing->done = [release, release_arg](ucs_status_t) {
      if (release != nullptr) release(release_arg);
    };
  } else {
    release_now();
    if (header.code != TSR_CODE_OK) outgoing->owned_data = std::move(message);
    outgoing->data = outgoing->owned_data.data();
    outgoing->size = outgoing->owned_data.size();
  }
  TheEngine().Post([call, outgoing = std::shared_ptr<Outgoing>(std::move(outgoing))]() mutable {
    call->server->unanswered.erase(call);
    if (call->server->stopped || call->connection->ep == nullptr) {
      if (outgoing->done) outgoing->done(UCS_ERR_CANCELED);  // releases a lent tensor
      return;
    }
    auto sending = std::make_unique<Outgoing>(std::move(*outgoing));
    if (sending->owned_data.size() > 0) sending->data = sending->owned_data.data();
    Send(call->connection->ep, kTensorReply, std::move(sending));
  });
}

}  // namespace tessera::rdma
