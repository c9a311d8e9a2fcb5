// The rdma transport plugin's entry point and its C table: the "rdma" transport. The plugin links
// nothing of UCX: its slots forward to the implementation library (ucx_table.h), which it loads
// from its own folder when the transport is first used. Before that, a slot that can only be
// reached with a handle (a channel, a reply) meets a NULL handle and answers as for one.
#include "tessera/sdk/plugin.h"

#include <dlfcn.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <string>

#include "plugins/rdma/error.h"
#include "plugins/rdma/ucx_table.h"
#include "tessera/sdk/transport.h"

namespace tessera::rdma {
namespace {

std::atomic<const UcxTable*> g_table{nullptr};

// The implementation library's path: beside this plugin's own library.
std::string ImplementationPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ImplementationPath), &info) == 0 ||
      info.dli_fname == nullptr) {
    return kUcxLibraryName;
  }
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? std::string(kUcxLibraryName)
                                    : self.substr(0, slash + 1) + kUcxLibraryName;
}

// Loads the implementation once; every later call gives the same answer. Never unloaded.
Error Load(const UcxTable** table) {
  static std::once_flag once;
  static Error* error = new Error();
  std::call_once(once, [] {
    const std::string path = ImplementationPath();
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      *error = MakeError(TSR_CODE_UNAVAILABLE, "rdma transport: cannot load '", path,
                         "': ", why == nullptr ? "unknown error" : why,
                         " (the transport's implementation, which needs UCX: libucx0)");
      return;
    }
    auto get_table = reinterpret_cast<UcxTableFn>(dlsym(library, kUcxTableSymbol));
    const UcxTable* loaded = get_table == nullptr ? nullptr : get_table();
    if (loaded == nullptr || loaded->version != kUcxTableVersion) {
      *error = MakeError(TSR_CODE_FAILED_PRECONDITION, "rdma transport: '", path,
                         "' is not this plugin's implementation (no ", kUcxTableSymbol,
                         " of version ", kUcxTableVersion, "); reinstall the plugin");
      return;
    }
    loaded->Initialize(sdk::HostApi());
    g_table.store(loaded, std::memory_order_release);
  });
  *table = g_table.load(std::memory_order_acquire);
  return *error;
}

const UcxTable* Loaded() { return g_table.load(std::memory_order_acquire); }

TSR_Status* ServerStart(void* user_data, const TSR_Transport_Listen_Args* args,
                        TSR_TransportServer** server) {
  const UcxTable* table = nullptr;
  Error error = Load(&table);
  if (!error.ok()) return error.ToAbi();
  return table->transport.Server_Start(user_data, args, server);
}

const char* ServerAddress(TSR_TransportServer* server) {
  const UcxTable* table = Loaded();
  return table == nullptr ? "" : table->transport.Server_Address(server);
}

void ServerStop(TSR_TransportServer* server) {
  if (const UcxTable* table = Loaded()) table->transport.Server_Stop(server);
}

TSR_Status* ChannelCreate(void* user_data, const TSR_Transport_Connect_Args* args,
                          TSR_TransportChannel** channel) {
  const UcxTable* table = nullptr;
  Error error = Load(&table);
  if (!error.ok()) return error.ToAbi();
  return table->transport.Channel_Create(user_data, args, channel);
}

void ChannelDestroy(TSR_TransportChannel* channel) {
  if (const UcxTable* table = Loaded()) table->transport.Channel_Destroy(channel);
}

void ChannelCall(TSR_TransportChannel* channel, const char* method, const void* request,
                 size_t request_size, int64_t deadline_ms, TSR_CallDoneFn done, void* done_arg) {
  if (const UcxTable* table = Loaded()) {
    table->transport.Channel_Call(channel, method, request, request_size, deadline_ms, done,
                                  done_arg);
  } else if (done != nullptr) {
    done(done_arg, sdk::InvalidArgument("Channel_Call on a NULL channel").Release(), nullptr, 0);
  }
}

void ChannelRecvTensor(TSR_TransportChannel* channel, const TSR_Channel_RecvTensor_Args* args) {
  if (const UcxTable* table = Loaded()) {
    table->transport.Channel_RecvTensor(channel, args);
  } else {
    sdk::CheckRecvTensorArgs(nullptr, args);  // tells `done` of the NULL channel
  }
}

void ReplySend(TSR_TransportReply* reply, TSR_Status* status, const void* response,
               size_t response_size) {
  if (const UcxTable* table = Loaded()) {
    table->transport.Reply_Send(reply, status, response, response_size);
  } else {
    sdk::Status dropped(status);  // no reply exists before the implementation does
  }
}

void ReplySendTensor(TSR_TransportReply* reply, TSR_Status* status, const TSR_TensorView* tensor,
                     bool is_dead, TSR_ReleaseFn release, void* release_arg) {
  if (const UcxTable* table = Loaded()) {
    table->transport.Reply_SendTensor(reply, status, tensor, is_dead, release, release_arg);
    return;
  }
  sdk::Status dropped(status);
  if (release != nullptr) release(release_arg);
}

bool ReplyIsCancelled(const TSR_TransportReply* reply) {
  const UcxTable* table = Loaded();
  return table != nullptr && table->transport.Reply_IsCancelled(reply);
}

TSR_Status* MemoryRegister(void* user_data, void* ptr, size_t size, int32_t memory_kind,
                           TSR_MemoryRegion** region) {
  const UcxTable* table = nullptr;
  Error error = Load(&table);
  if (!error.ok()) return error.ToAbi();
  return table->rma.Memory_Register(user_data, ptr, size, memory_kind, region);
}

void MemoryDeregister(void* user_data, TSR_MemoryRegion* region) {
  if (const UcxTable* table = Loaded()) table->rma.Memory_Deregister(user_data, region);
}

TSR_Status* RegisterRdmaTransport(TSR_Registrar* registrar) {
  TSR_TransportRmaExtension rma{};
  rma.base.struct_size = sizeof(rma);
  rma.base.type = TSR_EXTENSION_TYPE_TRANSPORT_RMA;
  rma.base.next = nullptr;
  rma.Memory_Register = &MemoryRegister;
  rma.Memory_Deregister = &MemoryDeregister;

  TSR_TransportRegistration registration{};
  registration.struct_size = sizeof(registration);
  registration.extension_start = &rma.base;
  registration.name = "rdma";
  registration.capabilities = TSR_TRANSPORT_CAPABILITY_RMA;
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

}  // namespace
}  // namespace tessera::rdma

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  const tessera::sdk::PluginInitResult init =
      tessera::sdk::InitializePlugin(args, {"rdma", "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  try {
    return tessera::rdma::RegisterRdmaTransport(args->registrar);
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("rdma plugin initialization threw: ", e.what()).Release();
  } catch (...) {
    return tessera::sdk::Internal("rdma plugin initialization threw an unknown exception")
        .Release();
  }
}
