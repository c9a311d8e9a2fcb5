// The host side of TSR_Registrar: collects one plugin's registrations during TSR_Plugin_Init.
#ifndef TESSERA_REGISTRY_REGISTRAR_H_
#define TESSERA_REGISTRY_REGISTRAR_H_

#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "registry/specs.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

// Everything one plugin registered.
struct PluginRegistrations {
  std::vector<DeviceTypeSpec> device_types;
  std::vector<OpSpec> ops;
  std::vector<KernelSpec> kernels;
  std::vector<TransportSpec> transports;
};

}  // namespace tessera

// The host's definition of the ABI's opaque registrar. Registrations are pending until the
// loader accepts the plugin after Init; the loader then moves them out.
struct TSR_Registrar {
  explicit TSR_Registrar(tessera::PluginOrigin plugin_origin)
      : origin(std::move(plugin_origin)), init_thread(std::this_thread::get_id()) {}

  tessera::PluginOrigin origin;
  tessera::PluginRegistrations registrations;
  std::vector<absl::Status> errors;  // every registration refused, in order
  std::thread::id init_thread;
  bool open = true;  // false once Init has returned
};

namespace tessera {

// The Registrar_* slots of TSR_HostApi. Each validates and copies the registration; a refused
// registration returns its error (and is remembered in `errors`). Calls after Init returned,
// or from another thread, are FAILED_PRECONDITION.
TSR_Status* RegistrarRegisterDeviceType(TSR_Registrar* registrar,
                                        const TSR_DeviceTypeRegistration* registration);
TSR_Status* RegistrarRegisterOp(TSR_Registrar* registrar, TSR_OpDefBuilder* builder);
TSR_Status* RegistrarRegisterKernel(TSR_Registrar* registrar,
                                    const TSR_KernelRegistration* registration);
TSR_Status* RegistrarRegisterTransport(TSR_Registrar* registrar,
                                       const TSR_TransportRegistration* registration);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_REGISTRAR_H_
