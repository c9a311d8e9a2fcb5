// The slots of the host table (TSR_HostApi) that the runtime implements: kernel construction and
// kernel contexts, thread pools and shape contexts. The registry fills the rest (status, log, host
// memory, registrar, op-def builder: registry/host_api.h) and joins both into the plugins' table.
#ifndef TESSERA_HOST_ABI_RUNTIME_SLOTS_H_
#define TESSERA_HOST_ABI_RUNTIME_SLOTS_H_

#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

// A table with only the runtime's slots set (struct_size is the host's own size).
TSR_HostApi RuntimeSlots();

}  // namespace tessera

#endif  // TESSERA_HOST_ABI_RUNTIME_SLOTS_H_
