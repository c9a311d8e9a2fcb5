// The table of host services (TSR_HostApi) every plugin receives, and the plugin log sink.
#ifndef TESSERA_REGISTRY_HOST_API_H_
#define TESSERA_REGISTRY_HOST_API_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "absl/strings/string_view.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

// Receives every TSR_HostApi.Log call. `source` is what the plugin passed (its name, by
// convention). Called from any thread; must be thread-safe.
using PluginLogSink = std::function<void(TSR_LogSeverity severity, absl::string_view source,
                                         absl::string_view message)>;

// Replaces the process-wide sink; an empty function restores the default, which writes WARNING
// and ERROR to stderr as "[plugin '<source>'] WARNING: <message>" and drops the rest.
void SetPluginLogSink(PluginLogSink sink);

// Logs as if plugin `source` had called TSR_HostApi.Log (the sink above sees it): for what the
// host learns about a plugin outside a call that returns a status (a failed Memory_Free of an
// allocator, a stream that fails while a device is destroyed).
void LogForPlugin(TSR_LogSeverity severity, absl::string_view source, absl::string_view message);

// The host table for plugins: the registry fills the Status_*, Log, HostMemory_*, Registrar_*
// and OpDefBuilder_* slots; every non-NULL runtime slot of `runtime_slots` (ShapeContext_*,
// KernelConstruction_*, KernelContext_*, ThreadPool_*) is copied in; the other slots of
// `runtime_slots` are ignored. `runtime_slots.struct_size` 0 means the host's own size.
// A `runtime_slots` without any slot set takes the runtime slots given last in this process: a
// plugin keeps one host table (each Init replaces it), and a registry made by a tool must not
// leave the kernels of running sessions with NULL kernel-context slots.
// The table lives until the process exits (plugins may keep the pointer, as the ABI promises);
// equal tables are shared, so repeated calls do not grow memory.
const TSR_HostApi* GetHostApi(const TSR_HostApi& runtime_slots);

// How far above TSR_ABI_VERSION_MINOR an emulated newer host may go, and how many trailing
// slots (all NULL) its table has beyond TSR_HostApi.
inline constexpr uint32_t kMaxEmulatedNewerMinors = 8;
inline constexpr size_t kEmulatedHostTailSlots = 16;

// Conformance kit only: the table of GetHostApi(runtime_slots), reporting ABI minor
// `abi_minor` (above TSR_ABI_VERSION_MINOR) and with a struct_size that covers
// kEmulatedHostTailSlots further NULL slots, as a newer host would hand an older plugin.
// Lives until the process exits; equal requests share one table.
const TSR_HostApi* GetEmulatedNewerHostApi(const TSR_HostApi& runtime_slots, uint32_t abi_minor);

// The host version reported in TSR_HostApi.host_version.
inline constexpr char kHostVersion[] = "0.1.0";

}  // namespace tessera

#endif  // TESSERA_REGISTRY_HOST_API_H_
