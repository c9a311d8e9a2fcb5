// The rdma transport's servers, channels and replies, over UCX Active Messages (engine.h).
//
// How it meets the transport contract (docs/transports.md):
// - Control-plane calls and pull requests are Active Messages with the caller's exchange id; the
//   answer echoes it. Data up to UCX's rendezvous threshold travels inline; larger requests,
//   responses and tensors use UCX's rendezvous protocol, which moves the bytes straight from the
//   sender's buffer (the host's own tensor, lent until its release) into the receiver's buffer
//   (for a tensor, the destination the host's `allocate` returned) with zero copies on both
//   sides where the transport allows it (RDMA reads on InfiniBand and RoCE); over TCP the
//   receiver copies from the socket once. (UCX 1.13 offers peer error handling for none of its
//   shared-memory transports, so processes of one machine talk over TCP: docs/transports.md.)
// - Servers listen through UCX's socket-address listener; each channel owns one UCX endpoint to
//   its server, created on first use and again after it fails (a restarted peer is reached
//   again). Endpoints use UCX's peer error handling: a peer that closes, dies or stops answering
//   UCX's keepalive fails the exchanges on it with UNAVAILABLE naming the address, and marks the
//   server's calls from it cancelled.
// - Every host callback (handlers, allocate, completions, releases) runs on the engine thread,
//   never under a plugin lock; a call made from one of them runs inline.
#ifndef TESSERA_PLUGINS_RDMA_TRANSPORT_H_
#define TESSERA_PLUGINS_RDMA_TRANSPORT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "plugins/rdma/error.h"
#include "tessera/plugin_api/transport.h"

namespace tessera::rdma {

class ServerCore;
class ChannelCore;

// The options both sides accept: only `default_deadline_ms` (channel: the deadline of calls and
// pulls that give none). Anything else, TLS options included, is INVALID_ARGUMENT naming it.
struct TransportOptions {
  int64_t default_deadline_ms = 0;  // 0: none
};
Error ParseOptions(size_t num_options, const char* const* keys, const char* const* values,
                   TransportOptions* options);

// Server_Start: binds exactly `address` (port 0 picks a free port). INVALID_ARGUMENT for a bad
// address, ALREADY_EXISTS for a port in use, UNAVAILABLE when UCX cannot listen.
Error StartServer(const std::string& address, const TSR_TransportHandlers& handlers,
                  std::shared_ptr<ServerCore>* server);
const std::string& ServerAddress(const ServerCore& server);
// Server_Stop: stops accepting, answers unanswered calls with UNAVAILABLE, closes the server's
// connections. Handlers run on the engine thread, so none runs once this returns.
void StopServer(const std::shared_ptr<ServerCore>& server);

// Channel_Create: checks the address and options; connects on first use.
Error CreateChannel(const std::string& address, const TransportOptions& options,
                    std::shared_ptr<ChannelCore>* channel);
// Channel_Destroy: completes the channel's exchanges with CANCELLED before it returns.
void DestroyChannel(const std::shared_ptr<ChannelCore>& channel);
void Call(const std::shared_ptr<ChannelCore>& channel, const char* method, const void* request,
          size_t request_size, int64_t deadline_ms, TSR_CallDoneFn done, void* done_arg);
void RecvTensor(const std::shared_ptr<ChannelCore>& channel,
                const TSR_Channel_RecvTensor_Args& args);

// The reply slots; both consume `reply` and `status`.
void ReplySend(TSR_TransportReply* reply, TSR_Status* status, const void* response,
               size_t response_size);
void ReplySendTensor(TSR_TransportReply* reply, TSR_Status* status, const TSR_TensorView* tensor,
                     bool is_dead, TSR_ReleaseFn release, void* release_arg);
bool ReplyIsCancelled(const TSR_TransportReply* reply);

// The RMA extension: registration of host-addressable memory with UCX (ucp_mem_map), cached so
// that registering the same range again returns the same region. A lent tensor that lies inside
// a registered region is sent with that registration instead of one UCX makes per transfer.
Error RegisterMemory(void* ptr, size_t size, int32_t memory_kind, TSR_MemoryRegion** region);
void DeregisterMemory(TSR_MemoryRegion* region);

}  // namespace tessera::rdma

#endif  // TESSERA_PLUGINS_RDMA_TRANSPORT_H_
