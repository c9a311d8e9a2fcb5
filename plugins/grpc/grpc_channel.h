// GrpcChannel: the calling side of the gRPC transport (TSR_TransportChannel): control-plane calls
// and tensor pulls to one peer over gRPC's generic stub.
#ifndef TESSERA_PLUGINS_GRPC_GRPC_CHANNEL_H_
#define TESSERA_PLUGINS_GRPC_GRPC_CHANNEL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "plugins/grpc/error.h"
#include "plugins/grpc/options.h"
#include "tessera/plugin_api/transport.h"

namespace grpc {
class Channel;
template <class RequestType, class ResponseType>
class TemplatedGenericStub;
class ByteBuffer;
}  // namespace grpc

namespace tessera::grpc_plugin {

class ChannelCore;

// Thread-safe. Connects lazily: connection failures surface as UNAVAILABLE on calls. Every
// completion callback runs exactly once, on a gRPC thread or (for immediate failures) on the
// calling thread.
class GrpcChannel {
 public:
  // INVALID_ARGUMENT for a bad address or option, NOT_FOUND for an unreadable TLS file.
  static Error Create(const std::string& address, const TransportOptions& options,
                      std::unique_ptr<GrpcChannel>* channel);
  // Cancels the calls in flight and returns once all their callbacks have run (a callback of
  // this channel may destroy it: the wait then excludes that callback).
  ~GrpcChannel();

  void Call(const char* method, const void* request, size_t request_size, int64_t deadline_ms,
            TSR_CallDoneFn done, void* done_arg);
  void RecvTensor(const TSR_Channel_RecvTensor_Args& args);

 private:
  GrpcChannel() = default;

  std::string address_;
  int64_t default_deadline_ms_ = 0;
  std::shared_ptr<ChannelCore> core_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::TemplatedGenericStub<grpc::ByteBuffer, grpc::ByteBuffer>> stub_;
};

}  // namespace tessera::grpc_plugin

#endif  // TESSERA_PLUGINS_GRPC_GRPC_CHANNEL_H_
