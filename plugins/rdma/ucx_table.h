// The rdma plugin in two libraries: the plugin itself (libtessera_rdma.so, plugin.cc), which
// registers the transport and links nothing of UCX, and the transport's implementation
// (libtessera_rdma_ucx.so, beside it), which links UCX and is loaded on first use (a server, a
// channel or a memory registration). Loading UCX installs its memory hooks (it patches mmap and
// friends) in the process; a process that loads every plugin but never uses this transport (a
// local session, `tessera plugins`) should not pay for that, nor run UCX's library constructors.
//
// The implementation library exports one function returning this table; its slots have the
// transport registration's signatures (plugin_api/transport.h) and the same contracts.
#ifndef TESSERA_PLUGINS_RDMA_UCX_TABLE_H_
#define TESSERA_PLUGINS_RDMA_UCX_TABLE_H_

#include <cstdint>

#include "tessera/plugin_api/plugin.h"
#include "tessera/plugin_api/transport.h"

namespace tessera::rdma {

// Bumped whenever the table changes; the plugin refuses an implementation library of another.
inline constexpr uint32_t kUcxTableVersion = 1;
inline constexpr char kUcxLibraryName[] = "libtessera_rdma_ucx.so";
inline constexpr char kUcxTableSymbol[] = "tessera_rdma_ucx_table";

struct UcxTable {
  uint32_t version;
  // Gives the implementation the host's table (its own copy of the SDK's pointer).
  void (*Initialize)(const TSR_HostApi* host);
  TSR_Status* (*Server_Start)(void* user_data, const TSR_Transport_Listen_Args* args,
                              TSR_TransportServer** server);
  const char* (*Server_Address)(TSR_TransportServer* server);
  void (*Server_Stop)(TSR_TransportServer* server);
  TSR_Status* (*Channel_Create)(void* user_data, const TSR_Transport_Connect_Args* args,
                                TSR_TransportChannel** channel);
  void (*Channel_Destroy)(TSR_TransportChannel* channel);
  void (*Channel_Call)(TSR_TransportChannel* channel, const char* method, const void* request,
                       size_t request_size, int64_t deadline_ms, TSR_CallDoneFn done,
                       void* done_arg);
  void (*Channel_RecvTensor)(TSR_TransportChannel* channel,
                             const TSR_Channel_RecvTensor_Args* args);
  void (*Reply_Send)(TSR_TransportReply* reply, TSR_Status* status, const void* response,
                     size_t response_size);
  void (*Reply_SendTensor)(TSR_TransportReply* reply, TSR_Status* status,
                           const TSR_TensorView* tensor, bool is_dead, TSR_ReleaseFn release,
                           void* release_arg);
  bool (*Reply_IsCancelled)(const TSR_TransportReply* reply);
  TSR_Status* (*Memory_Register)(void* user_data, void* ptr, size_t size, int32_t memory_kind,
                                 TSR_MemoryRegion** region);
  void (*Memory_Deregister)(void* user_data, TSR_MemoryRegion* region);
};

// The implementation library's one export.
using UcxTableFn = const UcxTable* (*)();

}  // namespace tessera::rdma

#endif  // TESSERA_PLUGINS_RDMA_UCX_TABLE_H_
