// GrpcServer: the listening side of the gRPC transport (TSR_TransportServer) and the replies the
// host answers incoming calls through (TSR_TransportReply).
#ifndef TESSERA_PLUGINS_GRPC_GRPC_SERVER_H_
#define TESSERA_PLUGINS_GRPC_GRPC_SERVER_H_

#include <memory>
#include <string>

#include "plugins/grpc/error.h"
#include "plugins/grpc/options.h"
#include "tessera/plugin_api/transport.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace tessera::grpc_plugin {

class ServerCall;
class ServerCore;
class TransportService;

// A gRPC server with the transport's generic service. Handlers run on gRPC's callback threads.
class GrpcServer {
 public:
  // Binds exactly `address` ("host:port"; port 0 picks a free one). Errors: INVALID_ARGUMENT
  // (bad address or options), NOT_FOUND (unreadable TLS file), ALREADY_EXISTS (port in use).
  static Error Start(const std::string& address, const TransportOptions& options,
                     const TSR_TransportHandlers& handlers, std::unique_ptr<GrpcServer>* server);
  ~GrpcServer();  // Stop()

  // "host:port" with the bound port.
  const std::string& address() const;

  // Stops accepting, answers every unanswered call with gRPC UNAVAILABLE, waits for handlers
  // that are running, and shuts gRPC's server down. Replies the host still holds stay valid;
  // their answers are dropped. Must not be called from a handler of this server.
  void Stop();

 private:
  GrpcServer() = default;

  std::shared_ptr<ServerCore> core_;
  std::unique_ptr<TransportService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

// Whether the caller of an unanswered call no longer waits (deadline passed, call cancelled,
// connection broken, server stopped): the reply was claimed by someone other than the host.
bool ReplyIsCancelled(const TSR_TransportReply* reply);

// TSR_TransportReply slots. Both consume `reply` and `status`.
void ReplySend(TSR_TransportReply* reply, TSR_Status* status, const void* response,
               size_t response_size);
void ReplySendTensor(TSR_TransportReply* reply, TSR_Status* status, const TSR_TensorView* tensor,
                     bool is_dead, TSR_ReleaseFn release, void* release_arg);

}  // namespace tessera::grpc_plugin

#endif  // TESSERA_PLUGINS_GRPC_GRPC_SERVER_H_
