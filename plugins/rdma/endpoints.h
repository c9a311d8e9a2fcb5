// What the rdma transport's servers and channels share on the engine thread: the endpoint table,
// sends, receives of Active Message data (inline or by UCX's rendezvous protocol), address
// resolution, and the registered-memory cache. Everything here runs on the engine thread.
#ifndef TESSERA_PLUGINS_RDMA_ENDPOINTS_H_
#define TESSERA_PLUGINS_RDMA_ENDPOINTS_H_

#include <sys/socket.h>
#include <ucp/api/ucp.h>

#include <functional>
#include <memory>
#include <string>

#include "plugins/rdma/engine.h"
#include "plugins/rdma/error.h"

namespace tessera::rdma {

class ServerCore;
class ChannelCore;

// One UCX endpoint and its owner: a server's accepted connection or a channel's connection.
struct Connection {
  ucp_ep_h ep = nullptr;  // nullptr once closed
  std::shared_ptr<ServerCore> server;     // accepted side
  std::weak_ptr<ChannelCore> channel;     // connecting side
  std::string peer;                       // for messages
};

// Starts the engine and installs the Active Message handlers once; every later call gives the
// same answer. Any thread.
Error StartEngine();
// The engine, once StartEngine succeeded.
Engine& TheEngine();
// The Active Message handlers of each side (server.cc, channel.cc), installed by StartEngine.
void InstallServerHandlers(Engine& engine);
void InstallChannelHandlers(Engine& engine);

// Endpoints: created with peer error handling; their failures reach OnConnectionFailed of the
// owner (server.cc, channel.cc) as a deferred task.
Error ConnectEndpoint(const sockaddr_storage& address, socklen_t length,
                      const std::shared_ptr<Connection>& connection);
Error AcceptEndpoint(ucp_conn_request_h request, const std::shared_ptr<Connection>& connection);
std::shared_ptr<Connection> FindConnection(ucp_ep_h ep);
// Closes the endpoint (flushing what was sent unless `force`) and forgets it.
void CloseConnection(Connection& connection, bool force);
void OnServerConnectionFailed(const std::shared_ptr<Connection>& connection, ucs_status_t status);
void OnChannelConnectionFailed(const std::shared_ptr<Connection>& connection,
                               ucs_status_t status);

// Sends an Active Message; `header` and the owner of `data` are kept until UCX is done with them,
// then `done` runs (deferred) with UCX's status.
struct Outgoing {
  std::string header;
  std::string owned_data;        // when the data is the plugin's own
  const void* data = nullptr;    // owned_data's bytes, or a lent buffer
  size_t size = 0;
  bool reply_expected = false;   // the receiver answers through the reply endpoint
  std::function<void(ucs_status_t)> done;
};
void Send(ucp_ep_h ep, unsigned id, std::unique_ptr<Outgoing> outgoing);

// The data of an incoming Active Message: its bytes when they came inline, or UCX's descriptor
// when they come by rendezvous.
struct IncomingData {
  std::string bytes;
  void* descriptor = nullptr;  // rendezvous: receive with Receive or drop with Drop
  size_t size = 0;
};
// Fills `incoming` from an Active Message callback; returns what the callback returns.
ucs_status_t Capture(void* data, size_t length, const ucp_am_recv_param_t* param,
                     IncomingData* incoming);
// Lands the data in [destination, destination + incoming.size) and then runs `done` (deferred
// when it completes later, inline when it completed at once).
void Receive(IncomingData& incoming, void* destination, std::function<void(ucs_status_t)> done);
void Drop(IncomingData& incoming);

// INVALID_ARGUMENT naming `address` when `host` (split from it) is an IPv6 address.
Error RefuseIpv6(const std::string& address, const std::string& host);

// Resolves "host" and `port` to an IPv4 socket address (numeric hosts and names). INVALID_ARGUMENT
// naming `address` when it does not resolve, or is an IPv6 address (UCX 1.13 mishandles those).
Error Resolve(const std::string& address, const std::string& host, int port, bool passive,
              sockaddr_storage* out, socklen_t* length);

// The registration covering [data, data + size), or nullptr.
ucp_mem_h FindRegistration(const void* data, size_t size);

}  // namespace tessera::rdma

#endif  // TESSERA_PLUGINS_RDMA_ENDPOINTS_H_
