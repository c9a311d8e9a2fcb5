// The process-wide pointer to the host's service table that TSR_Plugin_Init receives.
#ifndef TESSERA_SDK_HOST_API_H_
#define TESSERA_SDK_HOST_API_H_

#include "tessera/plugin_api/plugin.h"

namespace tessera::sdk {

namespace internal {
// One per plugin library: every SDK header is compiled into the plugin with hidden visibility.
inline const TSR_HostApi* g_host_api = nullptr;
}  // namespace internal

// Installs the host table; InitializePlugin (plugin.h) calls it. The table stays valid until the
// process exits, so the pointer is never cleared. A host initializes a plugin again for every
// registry it creates, while the plugin's threads may be reading the pointer: the host hands out
// one table per set of runtime slots, so the pointer is written only when it changes.
inline void SetHostApi(const TSR_HostApi* host) {
  if (internal::g_host_api != host) internal::g_host_api = host;
}

// The host table; NULL before TSR_Plugin_Init.
inline const TSR_HostApi* HostApi() { return internal::g_host_api; }

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_HOST_API_H_
