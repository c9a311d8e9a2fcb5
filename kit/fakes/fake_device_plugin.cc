// The entry point of the kit's broken device fakes, built once per defect: KIT_FAKE_NAME,
// KIT_FAKE_DEVICE_TYPE and KIT_FAKE_DEFECT (a tessera::kit_fakes::Defect) come from CMake.
#include <exception>

#include "kit/fakes/fake_device.h"
#include "tessera/sdk/plugin.h"

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  const tessera::sdk::PluginInitResult init =
      tessera::sdk::InitializePlugin(args, {KIT_FAKE_NAME, "0.1.0", 0});
  if (!init.proceed) return init.status;
  try {
    return tessera::kit_fakes::RegisterFakeDevice(args->registrar, KIT_FAKE_DEVICE_TYPE,
                                                  tessera::kit_fakes::Defect::KIT_FAKE_DEFECT)
        .Release();
  } catch (const std::exception& e) {
    return tessera::sdk::Internal(KIT_FAKE_NAME, " initialization threw: ", e.what()).Release();
  }
}
