// A broken transport the kit's transport suite must catch: the loopback transport
// (plugins/testing) registered as "lossy", whose Reply_SendTensor drops the last byte of every
// tensor over 1 KiB (it sends the sender's view with byte_size one short). Everything else is
// loopback's, so the cases that move no such tensor pass.
#include <algorithm>
#include <cstring>
#include <exception>

#include "plugins/testing/loopback_transport.h"
#include "tessera/sdk/plugin.h"

namespace {

constexpr size_t kLossyAbove = 1024;

const TSR_HostApi* g_host = nullptr;
// The host's table, except that loopback's registration goes through RegisterLossy.
TSR_HostApi g_host_for_loopback{};
void (*g_loopback_send_tensor)(TSR_TransportReply*, TSR_Status*, const TSR_TensorView*, bool,
                               TSR_ReleaseFn, void*) = nullptr;

void LossySendTensor(TSR_TransportReply* reply, TSR_Status* status, const TSR_TensorView* tensor,
                     bool is_dead, TSR_ReleaseFn release, void* release_arg) {
  if (tensor != nullptr && !is_dead && tensor->byte_size > kLossyAbove) {
    TSR_TensorView shortened = *tensor;  // loopback copies what it needs before returning
    --shortened.byte_size;
    return g_loopback_send_tensor(reply, status, &shortened, is_dead, release, release_arg);
  }
  g_loopback_send_tensor(reply, status, tensor, is_dead, release, release_arg);
}

TSR_Status* RegisterLossy(TSR_Registrar* registrar,
                          const TSR_TransportRegistration* registration) {
  TSR_TransportRegistration lossy = *registration;
  lossy.name = "lossy";
  g_loopback_send_tensor = lossy.Reply_SendTensor;
  lossy.Reply_SendTensor = &LossySendTensor;
  return g_host->Registrar_RegisterTransport(registrar, &lossy);
}

}  // namespace

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  const tessera::sdk::PluginInitResult init = tessera::sdk::InitializePlugin(
      args, {"fake_lossy_transport", "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  g_host = args->host;
  const size_t size = std::min(sizeof(g_host_for_loopback), g_host->struct_size);
  std::memcpy(&g_host_for_loopback, g_host, size);
  g_host_for_loopback.struct_size = size;
  g_host_for_loopback.Registrar_RegisterTransport = &RegisterLossy;
  tessera::sdk::SetHostApi(&g_host_for_loopback);
  try {
    return tessera::loopback::RegisterLoopbackTransport(args->registrar);
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("fake_lossy_transport initialization threw: ", e.what())
        .Release();
  } catch (...) {
    return tessera::sdk::Internal("fake_lossy_transport initialization threw").Release();
  }
}
