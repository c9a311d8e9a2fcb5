// The runtime's half of the host table.
#include "host/abi/runtime_slots.h"

#include "host/abi/host_kernel_context.h"
#include "host/abi/plugin_ops.h"

namespace tessera {

TSR_HostApi RuntimeSlots() {
  TSR_HostApi slots{};
  slots.struct_size = sizeof(TSR_HostApi);
  FillKernelSlots(&slots);
  FillShapeContextSlots(&slots);
  return slots;
}

}  // namespace tessera
