/* Umbrella header: the whole Tessera plugin C ABI. */
#ifndef TESSERA_PLUGIN_API_PLUGIN_API_H_
#define TESSERA_PLUGIN_API_PLUGIN_API_H_

#include "tessera/plugin_api/common.h"
#include "tessera/plugin_api/device.h"
#include "tessera/plugin_api/kernel.h"
#include "tessera/plugin_api/op.h"
#include "tessera/plugin_api/plugin.h"
#include "tessera/plugin_api/transport.h"

#endif /* TESSERA_PLUGIN_API_PLUGIN_API_H_ */
