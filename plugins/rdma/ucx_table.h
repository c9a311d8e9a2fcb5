// The rdma plugin in two libraries: the plugin itself (libtessera_rdma.so, plugin.cc), which
// registers the transport and links nothing of UCX, and the transport's implementation
// (libtessera_rdma_ucx.so, beside it), which links UCX and is loaded on first use (a server, a
// channel or a memory registration). Loading UCX installs its memory hooks (it patches mmap and
// friends) in the process; a process that loads every plugin but never uses this transport (a
// local session, `tessera plugins`) should not pay for that, nor run UCX's library constructors.
//
// The implementation library exports one function returning this table: the transport's slots,
// in the ABI's own structs (plugin_api/transport.h).
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
  // The transport's slots, with their ABI contracts; `name`, `capabilities` and the extension
  // list are the plugin's to fill (unset here).
  TSR_TransportRegistration transport;
  TSR_TransportRmaExtension rma;  // Memory_Register and Memory_Deregister
};

// The implementation library's one export.
using UcxTableFn = const UcxTable* (*)();

}  // namespace tessera::rdma

#endif  // TESSERA_PLUGINS_RDMA_UCX_TABLE_H_
