// Umbrella header of the plugin SDK's C++ helpers (everything except the Eigen adapter).
#ifndef TESSERA_SDK_SDK_H_
#define TESSERA_SDK_SDK_H_

#include "tessera/sdk/host_api.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/kernel_context.h"
#include "tessera/sdk/plugin.h"
#include "tessera/sdk/shape.h"
#include "tessera/sdk/status.h"
#include "tessera/sdk/tensor_view.h"
#include "tessera/sdk/types.h"

#endif  // TESSERA_SDK_SDK_H_
