// Plugin entry helpers: fill TSR_PluginInfo, install the host table and check the host's ABI.
#ifndef TESSERA_SDK_PLUGIN_H_
#define TESSERA_SDK_PLUGIN_H_

#include <cstdint>

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/host_api.h"
#include "tessera/sdk/status.h"

namespace tessera::sdk {

struct PluginDescription {
  const char* name;     // static storage
  const char* version;  // semantic version, static storage
  // The lowest host ABI minor whose slots the plugin calls.
  uint32_t min_host_abi_version_minor = 0;
};

// What TSR_Plugin_Init should do after InitializePlugin.
struct PluginInitResult {
  // True when the plugin may register what it provides.
  bool proceed = false;
  // Returned by TSR_Plugin_Init when !proceed (NULL when the host must decide from `info`
  // alone: a host of another major cannot be trusted to create statuses).
  TSR_Status* status = nullptr;
};

// Call first in TSR_Plugin_Init. Fills `args->info` (so that any host can read the plugin's
// versions), installs the host table and checks that the host serves this plugin: same major,
// host minor >= the plugin's minimum, and a host table holding every slot of that minor.
inline PluginInitResult InitializePlugin(const TSR_Plugin_Init_Args* args,
                                         const PluginDescription& description) {
  PluginInitResult result;
  if (args == nullptr) return result;
  if (args->info != nullptr) {
    args->info->name = description.name;
    args->info->version = description.version;
    args->info->abi_version_major = TSR_ABI_VERSION_MAJOR;
    args->info->abi_version_minor = TSR_ABI_VERSION_MINOR;
    args->info->min_host_abi_version_minor = description.min_host_abi_version_minor;
  }
  if (args->host == nullptr || args->host_abi_version_major != TSR_ABI_VERSION_MAJOR) {
    return result;
  }
  SetHostApi(args->host);
  if (args->host_abi_version_minor < description.min_host_abi_version_minor) {
    result.status =
        FailedPrecondition("plugin '", description.name, "' ", description.version,
                           " needs host ABI >= ", TSR_ABI_VERSION_MAJOR, ".",
                           description.min_host_abi_version_minor, "; this host is ",
                           args->host_abi_version_major, ".", args->host_abi_version_minor)
            .Release();
    return result;
  }
  // Minor 0's slots end with ThreadPool_ParallelFor; a shorter table is a broken host.
  const size_t needed = TSR_STRUCT_SIZE(TSR_HostApi, ThreadPool_ParallelFor);
  if (args->host->struct_size < needed) {
    result.status = FailedPrecondition("plugin '", description.name,
                                       "' needs a host table of at "
                                       "least ",
                                       needed, " bytes; this host's has ", args->host->struct_size)
                        .Release();
    return result;
  }
  result.proceed = true;
  return result;
}

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_PLUGIN_H_
