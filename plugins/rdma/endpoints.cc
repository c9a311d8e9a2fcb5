// The engine-thread plumbing the rdma transport's servers and channels share.
#include "plugins/rdma/endpoints.h"

#include <netdb.h>

#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "plugins/rdma/transport.h"

struct TSR_MemoryRegion {
  void* ptr = nullptr;
  size_t size = 0;
  ucp_mem_h memh = nullptr;
  int references = 0;
};

namespace tessera::rdma {
namespace {

Engine* g_engine = nullptr;

// Engine thread only.
std::unordered_map<ucp_ep_h, std::shared_ptr<Connection>>& Endpoints() {
  static auto* endpoints = new std::unordered_map<ucp_ep_h, std::shared_ptr<Connection>>();
  return *endpoints;
}

// Registered memory by start address (engine thread only).
std::map<const char*, TSR_MemoryRegion*>& Regions() {
  static auto* regions = new std::map<const char*, TSR_MemoryRegion*>();
  return *regions;
}

void OnEndpointError(void* /*arg*/, ucp_ep_h ep, ucs_status_t status) {
  TheEngine().Defer([ep, status] {
    std::shared_ptr<Connection> connection = FindConnection(ep);
    if (connection == nullptr) return;
    if (connection->server != nullptr) {
      OnServerConnectionFailed(connection, status);
    } else {
      OnChannelConnectionFailed(connection, status);
    }
  });
}

Error Created(ucs_status_t status, ucp_ep_h ep, const std::shared_ptr<Connection>& connection) {
  if (status != UCS_OK) {
    return MakeError(TSR_CODE_UNAVAILABLE, "cannot create a UCX endpoint for '", connection->peer,
                     "': ", ucs_status_string(status));
  }
  connection->ep = ep;
  Endpoints()[ep] = connection;
  return Error();
}

void FreeRequest(void* request, ucs_status_t /*status*/, void* /*user_data*/) {
  ucp_request_free(request);
}

void SendDone(void* request, ucs_status_t status, void* user_data) {
  ucp_request_free(request);
  auto* outgoing = static_cast<Outgoing*>(user_data);
  TheEngine().Defer([outgoing, status] {
    std::unique_ptr<Outgoing> owned(outgoing);
    if (owned->done) owned->done(status);
  });
}

struct Landing {
  std::function<void(ucs_status_t)> done;
};

void ReceiveDone(void* request, ucs_status_t status, size_t /*length*/, void* user_data) {
  ucp_request_free(request);
  auto* landing = static_cast<Landing*>(user_data);
  TheEngine().Defer([landing, status] {
    std::unique_ptr<Landing> owned(landing);
    owned->done(status);
  });
}

}  // namespace

Error StartEngine() {
  static std::once_flag once;
  static Error error;
  std::call_once(once, [] {
    Engine* engine = nullptr;
    error = Engine::Get(&engine);
    if (!error.ok()) return;
    engine->RunSync([engine] {
      InstallServerHandlers(*engine);
      InstallChannelHandlers(*engine);
    });
    g_engine = engine;
  });
  return error;
}

Engine& TheEngine() { return *g_engine; }

Error ConnectEndpoint(const sockaddr_storage& address, socklen_t length,
                      const std::shared_ptr<Connection>& connection) {
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
                      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
  params.sockaddr.addr = reinterpret_cast<const sockaddr*>(&address);
  params.sockaddr.addrlen = length;
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = &OnEndpointError;
  params.err_handler.arg = nullptr;
  ucp_ep_h ep = nullptr;
  const ucs_status_t status = ucp_ep_create(TheEngine().worker(), &params, &ep);
  return Created(status, ep, connection);
}

Error AcceptEndpoint(ucp_conn_request_h request, const std::shared_ptr<Connection>& connection) {
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.conn_request = request;
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = &OnEndpointError;
  params.err_handler.arg = nullptr;
  ucp_ep_h ep = nullptr;
  const ucs_status_t status = ucp_ep_create(TheEngine().worker(), &params, &ep);
  return Created(status, ep, connection);
}

std::shared_ptr<Connection> FindConnection(ucp_ep_h ep) {
  auto found = Endpoints().find(ep);
  return found == Endpoints().end() ? nullptr : found->second;
}

void CloseConnection(Connection& connection, bool force) {
  if (connection.ep == nullptr) return;
  Endpoints().erase(connection.ep);
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK;
  param.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
  param.cb.send = &FreeRequest;
  ucs_status_ptr_t closing = ucp_ep_close_nbx(connection.ep, &param);
  (void)closing;  // NULL or an error: done; otherwise FreeRequest frees it
  connection.ep = nullptr;
}

void Send(ucp_ep_h ep, unsigned id, std::unique_ptr<Outgoing> outgoing) {
  ucp_request_param_t param{};
  param.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  param.cb.send = &SendDone;
  param.user_data = outgoing.get();
  param.flags = outgoing->reply_expected ? UCP_AM_SEND_FLAG_REPLY : 0;
  if (outgoing->size > 0) {
    if (ucp_mem_h memh = FindRegistration(outgoing->data, outgoing->size)) {
      param.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMH;
      param.memh = memh;
    }
  }
  ucs_status_ptr_t sent =
      ucp_am_send_nbx(ep, id, outgoing->header.data(), outgoing->header.size(), outgoing->data,
                      outgoing->size, &param);
  if (sent != nullptr && !UCS_PTR_IS_ERR(sent)) {
    outgoing.release();  // SendDone owns it now
    return;
  }
  const ucs_status_t status = sent == nullptr ? UCS_OK : UCS_PTR_STATUS(sent);
  if (outgoing->done) outgoing->done(status);
}

ucs_status_t Capture(void* data, size_t length, const ucp_am_recv_param_t* param,
                     IncomingData* incoming) {
  incoming->size = length;
  if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
    incoming->descriptor = data;
    return UCS_INPROGRESS;
  }
  if (length > 0) incoming->bytes.assign(static_cast<const char*>(data), length);
  return UCS_OK;
}

void Receive(IncomingData& incoming, void* destination, std::function<void(ucs_status_t)> done) {
  if (incoming.descriptor == nullptr) {
    if (incoming.size > 0) std::memcpy(destination, incoming.bytes.data(), incoming.size);
    done(UCS_OK);
    return;
  }
  auto landing = std::make_unique<Landing>();
  landing->done = std::move(done);
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.recv_am = &ReceiveDone;
  param.user_data = landing.get();
  void* descriptor = std::exchange(incoming.descriptor, nullptr);
  ucs_status_ptr_t received =
      ucp_am_recv_data_nbx(TheEngine().worker(), descriptor, destination, incoming.size, &param);
  if (received != nullptr && !UCS_PTR_IS_ERR(received)) {
    landing.release();  // ReceiveDone owns it now
    return;
  }
  landing->done(received == nullptr ? UCS_OK : UCS_PTR_STATUS(received));
}

void Drop(IncomingData& incoming) {
  if (incoming.descriptor == nullptr) return;
  ucp_am_data_release(TheEngine().worker(), std::exchange(incoming.descriptor, nullptr));
}

Error RefuseIpv6(const std::string& address, const std::string& host) {
  if (host.find(':') == std::string::npos) return Error();
  return MakeError(TSR_CODE_INVALID_ARGUMENT, "address '", address,
                   "' is IPv6, which the rdma transport does not take (UCX 1.13's TCP connection "
                   "manager mishandles IPv6 peers); give an IPv4 address or a name");
}

Error Resolve(const std::string& address, const std::string& host, int port, bool passive,
              sockaddr_storage* out, socklen_t* length) {
  addrinfo hints{};
  // IPv4 only: UCX 1.13's TCP connection manager overruns its address buffer when it connects
  // back to an IPv6 peer (a heap-buffer-overflow under AddressSanitizer), so names resolve to
  // their IPv4 addresses ("localhost" to 127.0.0.1 even where ::1 comes first).
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  Error ipv6 = RefuseIpv6(address, host);
  if (!ipv6.ok()) return ipv6;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int failed = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (failed != 0 || found == nullptr) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "address '", address,
                     "' does not resolve: ", gai_strerror(failed));
  }
  std::memset(out, 0, sizeof(*out));
  std::memcpy(out, found->ai_addr, found->ai_addrlen);
  *length = found->ai_addrlen;
  freeaddrinfo(found);
  return Error();
}

ucp_mem_h FindRegistration(const void* data, size_t size) {
  const char* start = static_cast<const char*>(data);
  auto after = Regions().upper_bound(start);
  if (after == Regions().begin()) return nullptr;
  const TSR_MemoryRegion* region = std::prev(after)->second;
  const char* region_start = static_cast<const char*>(region->ptr);
  if (start + size <= region_start + region->size) return region->memh;
  return nullptr;
}

Error RegisterMemory(void* ptr, size_t size, int32_t memory_kind, TSR_MemoryRegion** region) {
  if (region == nullptr || (ptr == nullptr && size > 0)) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT,
                     "Memory_Register: NULL region, or a NULL pointer with ", size, " bytes");
  }
  if (memory_kind < 0 || memory_kind > 2) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "Memory_Register: unknown memory kind ",
                     memory_kind);
  }
  Error error = StartEngine();
  if (!error.ok()) return error;
  TheEngine().RunSync([&] {
    auto found = Regions().find(static_cast<const char*>(ptr));
    if (found != Regions().end() && found->second->size == size) {
      ++found->second->references;
      *region = found->second;
      return;
    }
    ucp_mem_map_params_t params{};
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = ptr;
    params.length = size;
    ucp_mem_h memh = nullptr;
    const ucs_status_t status = ucp_mem_map(TheEngine().context(), &params, &memh);
    if (status != UCS_OK) {
      error = MakeError(status == UCS_ERR_NO_MEMORY || status == UCS_ERR_NO_RESOURCE
                            ? TSR_CODE_RESOURCE_EXHAUSTED
                            : TSR_CODE_INTERNAL,
                        "Memory_Register of ", size, " bytes: ucp_mem_map failed: ",
                        ucs_status_string(status));
      return;
    }
    auto* created = new TSR_MemoryRegion{ptr, size, memh, 1};
    if (found != Regions().end()) {
      // Another size at the same start: the new registration replaces it in lookups; the old one
      // stays valid until its own Deregister.
      found->second = created;
    } else {
      Regions().emplace(static_cast<const char*>(ptr), created);
    }
    *region = created;
  });
  return error;
}

void DeregisterMemory(TSR_MemoryRegion* region) {
  if (region == nullptr) return;
  TheEngine().RunSync([region] {
    if (--region->references > 0) return;
    auto found = Regions().find(static_cast<const char*>(region->ptr));
    if (found != Regions().end() && found->second == region) Regions().erase(found);
    ucp_mem_unmap(TheEngine().context(), region->memh);
    delete region;
  });
}

}  // namespace tessera::rdma
