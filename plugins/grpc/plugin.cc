// The gRPC transport plugin's entry point and its C table: the "grpc" transport. Every slot
// checks its arguments and catches every exception, so nothing from gRPC or C++ crosses the ABI.
#include "tessera/sdk/plugin.h"

#include <grpc/grpc.h>

#include <exception>
#include <memory>
#include <utility>

#include "plugins/grpc/grpc_channel.h"
#include "plugins/grpc/grpc_server.h"
#include "plugins/grpc/options.h"
#include "tessera/sdk/transport.h"

struct TSR_TransportServer {
  std::unique_ptr<tessera::grpc_plugin::GrpcServer> server;
};

struct TSR_TransportChannel {
  std::unique_ptr<tessera::grpc_plugin::GrpcChannel> channel;
};

namespace tessera::grpc_plugin {
namespace {

sdk::Status Threw(const char* slot, const char* what) {
  return sdk::Internal("gRPC transport ", slot, " threw: ", what);
}

// Runs `body` (returning TSR_Status*), turning any exception into INTERNAL.
template <typename Body>
TSR_Status* Guarded(const char* slot, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Threw(slot, e.what()).Release();
  } catch (...) {
    return Threw(slot, "an unknown exception").Release();
  }
}

// From the first server or channel on, gRPC stays initialized for the life of the process (the
// plugin is never unloaded) instead of shutting down whenever the last server or channel goes
// (possibly on a gRPC thread) and starting again with the next one. Together with channels
// destroyed from their own callback being released off gRPC's threads (grpc_channel.cc), this
// ended the process aborts of gRPC 1.51 ("ref_counted.h: assertion failed: prior > 0") seen under
// load right after such a destruction. A process that loads the plugin but never uses it starts
// none of gRPC's threads.
void KeepGrpcInitialized() {
  static const bool initialized = (grpc_init(), true);
  (void)initialized;
}

TSR_Status* ServerStart(void* /*user_data*/, const TSR_Transport_Listen_Args* args,
                        TSR_TransportServer** server) {
  return Guarded("Server_Start", [&]() -> TSR_Status* {
    KeepGrpcInitialized();
    TSR_TransportHandlers handlers;
    sdk::Status checked = sdk::CheckListenArgs(args, server, &handlers);
    if (!checked.ok()) return checked.Release();
    TransportOptions options;
    Error error = ParseOptions(args->num_options, args->option_keys, args->option_values, &options);
    std::unique_ptr<GrpcServer> started;
    if (error.ok()) error = GrpcServer::Start(args->address, options, handlers, &started);
    if (!error.ok()) return error.ToAbi();
    *server = new TSR_TransportServer{std::move(started)};
    return nullptr;
  });
}

const char* ServerAddress(TSR_TransportServer* server) {
  return server == nullptr ? "" : server->server->address().c_str();
}

void ServerStop(TSR_TransportServer* server) {
  try {
    delete server;
  } catch (...) {
    // Stop does not throw; nothing else could be done here.
  }
}

TSR_Status* ChannelCreate(void* /*user_data*/, const TSR_Transport_Connect_Args* args,
                          TSR_TransportChannel** channel) {
  return Guarded("Channel_Create", [&]() -> TSR_Status* {
    KeepGrpcInitialized();
    sdk::Status checked = sdk::CheckConnectArgs(args, channel);
    if (!checked.ok()) return checked.Release();
    TransportOptions options;
    Error error = ParseOptions(args->num_options, args->option_keys, args->option_values, &options);
    std::unique_ptr<GrpcChannel> created;
    if (error.ok()) error = GrpcChannel::Create(args->address, options, &created);
    if (!error.ok()) return error.ToAbi();
    *channel = new TSR_TransportChannel{std::move(created)};
    return nullptr;
  });
}

void ChannelDestroy(TSR_TransportChannel* channel) {
  try {
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
    channel->channel->Call(method, request, request_size, deadline_ms, done, done_arg);
    return nullptr;
  });
  if (failure != nullptr) done(done_arg, failure, nullptr, 0);
}

void ChannelRecvTensor(TSR_TransportChannel* channel, const TSR_Channel_RecvTensor_Args* args) {
  if (!sdk::CheckRecvTensorArgs(channel, args)) return;
  TSR_Status* failure = Guarded("Channel_RecvTensor", [&]() -> TSR_Status* {
    channel->channel->RecvTensor(*args);
    return nullptr;
  });
  if (failure != nullptr) args->done(args->done_arg, failure, false);
}

void ReplySendSlot(TSR_TransportReply* reply, TSR_Status* status, const void* response,
                   size_t response_size) {
  try {
    ReplySend(reply, status, response, response_size);
  } catch (...) {
    // Out of memory while encoding: the call stays unanswered until its deadline or Stop.
  }
}

void ReplySendTensorSlot(TSR_TransportReply* reply, TSR_Status* status,
                         const TSR_TensorView* tensor, bool is_dead, TSR_ReleaseFn release,
                         void* release_arg) {
  try {
    ReplySendTensor(reply, status, tensor, is_dead, release, release_arg);
  } catch (...) {
    // As above; `release` has run unless the payload slice exists, whose release then runs.
  }
}

TSR_Status* RegisterGrpcTransport(TSR_Registrar* registrar) {
  TSR_TransportRegistration registration{};
  registration.struct_size = sizeof(registration);
  registration.name = "grpc";
  registration.capabilities = TSR_TRANSPORT_CAPABILITY_TLS;
  registration.Server_Start = &ServerStart;
  registration.Server_Address = &ServerAddress;
  registration.Server_Stop = &ServerStop;
  registration.Channel_Create = &ChannelCreate;
  registration.Channel_Destroy = &ChannelDestroy;
  registration.Channel_Call = &ChannelCall;
  registration.Channel_RecvTensor = &ChannelRecvTensor;
  registration.Reply_Send = &ReplySendSlot;
  registration.Reply_SendTensor = &ReplySendTensorSlot;
  registration.Reply_IsCancelled = &ReplyIsCancelled;
  return sdk::HostApi()->Registrar_RegisterTransport(registrar, &registration);
}

}  // namespace
}  // namespace tessera::grpc_plugin

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  const tessera::sdk::PluginInitResult init =
      tessera::sdk::InitializePlugin(args, {"grpc", "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  try {
    return tessera::grpc_plugin::RegisterGrpcTransport(args->registrar);
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("grpc plugin initialization threw: ", e.what()).Release();
  } catch (...) {
    return tessera::sdk::Internal("grpc plugin initialization threw an unknown exception")
        .Release();
  }
}
