// The rdma transport's slots over UCX, as the implementation library's table (ucx_table.h). Every
// slot checks its arguments and catches every exception, so nothing from UCX or C++ crosses the
// ABI.
#include "tessera/sdk/plugin.h"

#include <exception>
#include <memory>
#include <utility>

#include "plugins/rdma/transport.h"
#include "plugins/rdma/ucx_table.h"
#include "tessera/sdk/transport.h"

struct TSR_TransportServer {
  std::shared_ptr<tessera::rdma::ServerCore> server;
};

struct TSR_TransportChannel {
  std::shared_ptr<tessera::rdma::ChannelCore> channel;
};

namespace tessera::rdma {
namespace {

// Runs `body` (returning TSR_Status*), turning any exception into INTERNAL.
template <typename Body>
TSR_Status* Guarded(const char* slot, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return sdk::Internal("rdma transport ", slot, " threw: ", e.what()).Release();
  } catch (...) {
    return sdk::Internal("rdma transport ", slot, " threw an unknown exception").Release();
  }
}

TSR_Status* ServerStart(void* /*user_data*/, const TSR_Transport_Listen_Args* args,
                        TSR_TransportServer** server) {
  return Guarded("Server_Start", [&]() -> TSR_Status* {
    TSR_TransportHandlers handlers;
    sdk::Status checked = sdk::CheckListenArgs(args, server, &handlers);
    if (!checked.ok()) return checked.Release();
    TransportOptions options;
    Error error = ParseOptions(args->num_options, args->option_keys, args->option_values, &options);
    std::shared_ptr<ServerCore> started;
    if (error.ok()) error = StartServer(args->address, handlers, &started);
    if (!error.ok()) return error.ToAbi();
    *server = new TSR_TransportServer{std::move(started)};
    return nullptr;
  });
}

const char* ServerAddressSlot(TSR_TransportServer* server) {
  return server == nullptr ? "" : ServerAddress(*server->server).c_str();
}

void ServerStop(TSR_TransportServer* server) {
  if (server == nullptr) return;
  try {
    StopServer(server->server);
    delete server;
  } catch (...) {
    // Stop does not throw; nothing else could be done here.
  }
}

TSR_Status* ChannelCreate(void* /*user_data*/, const TSR_Transport_Connect_Args* args,
                          TSR_TransportChannel** channel) {
  return Guarded("Channel_Create", [&]() -> TSR_Status* {
    sdk::Status checked = sdk::CheckConnectArgs(args, channel);
    if (!checked.ok()) return checked.Release();
    TransportOptions options;
    Error error = ParseOptions(args->num_options, args->option_keys, args->option_values, &options);
    std::shared_ptr<ChannelCore> created;
    if (error.ok()) error = CreateChannel(args->address, options, &created);
    if (!error.ok()) return error.ToAbi();
    *channel = new TSR_TransportChannel{std::move(created)};
    return nullptr;
  });
}

void ChannelDestroy(TSR_TransportChannel* channel) {
  if (channel == nullptr) return;
  try {
    DestroyChannel(channel->channel);
    delete channel;
  } catch (...) {
    // The destructor only cancels and waits; nothing else could be done here.
  }
}

void ChannelCall(TSR_TransportChannel* channel, const char* method, const void* request,
                 size_t request_size, int64_t deadline_ms, TSR_CallDoneFn done, void* done_arg) {
  if (done == nullptr) return;  // nobody to tell
  if (channel == nullptr) {
    done(done_arg, sdk::InvalidArgument("Channel_Call on a NULL channel").Release(), nullptr, 0);
    return;
  }
  // Everything that can throw happens before the call starts, so `done` runs once either way.
  TSR_Status* failure = Guarded("Channel_Call", [&]() -> TSR_Status* {
    Call(channel->channel, method, request, request_size, deadline_ms, done, done_arg);
    return nullptr;
  });
  if (failure != nullptr) done(done_arg, failure, nullptr, 0);
}

void ChannelRecvTensor(TSR_TransportChannel* channel, const TSR_Channel_RecvTensor_Args* args) {
  if (!sdk::CheckRecvTensorArgs(channel, args)) return;
  TSR_Status* failure = Guarded("Channel_RecvTensor", [&]() -> TSR_Status* {
    RecvTensor(channel->channel, *args);
    return nullptr;
  });
  if (failure != nullptr) args->done(args->done_arg, failure, false);
}

void ReplySendSlot(TSR_TransportReply* reply, TSR_Status* status, const void* response,
                   size_t response_size) {
  try {
    ReplySend(reply, status, response, response_size);
  } catch (...) {
    // Out of memory while encoding: the caller's deadline or the server's Stop answers it.
  }
}

void ReplySendTensorSlot(TSR_TransportReply* reply, TSR_Status* status,
                         const TSR_TensorView* tensor, bool is_dead, TSR_ReleaseFn release,
                         void* release_arg) {
  try {
    ReplySendTensor(reply, status, tensor, is_dead, release, release_arg);
  } catch (...) {
    // As above.
  }
}

TSR_Status* MemoryRegister(void* /*user_data*/, void* ptr, size_t size, int32_t memory_kind,
                           TSR_MemoryRegion** region) {
  return Guarded("Memory_Register", [&]() -> TSR_Status* {
    return RegisterMemory(ptr, size, memory_kind, region).ToAbi();
  });
}

void MemoryDeregister(void* /*user_data*/, TSR_MemoryRegion* region) {
  try {
    DeregisterMemory(region);
  } catch (...) {
    // ucp_mem_unmap does not throw; nothing else could be done here.
  }
}

void Initialize(const TSR_HostApi* host) { sdk::SetHostApi(host); }

const UcxTable& Table() {
  static const UcxTable table = [] {
    UcxTable built{};
    built.version = kUcxTableVersion;
    built.Initialize = &Initialize;
    TSR_TransportRegistration& slots = built.transport;
    slots.struct_size = sizeof(slots);
    slots.Server_Start = &ServerStart;
    slots.Server_Address = &ServerAddressSlot;
    slots.Server_Stop = &ServerStop;
    slots.Channel_Create = &ChannelCreate;
    slots.Channel_Destroy = &ChannelDestroy;
    slots.Channel_Call = &ChannelCall;
    slots.Channel_RecvTensor = &ChannelRecvTensor;
    slots.Reply_Send = &ReplySendSlot;
    slots.Reply_SendTensor = &ReplySendTensorSlot;
    slots.Reply_IsCancelled = &ReplyIsCancelled;
    built.rma.base.struct_size = sizeof(built.rma);
    built.rma.base.type = TSR_EXTENSION_TYPE_TRANSPORT_RMA;
    built.rma.Memory_Register = &MemoryRegister;
    built.rma.Memory_Deregister = &MemoryDeregister;
    return built;
  }();
  return table;
}

}  // namespace
}  // namespace tessera::rdma

extern "C" TSR_PLUGIN_EXPORT const tessera::rdma::UcxTable* tessera_rdma_ucx_table() {
  return &tessera::rdma::Table();
}
