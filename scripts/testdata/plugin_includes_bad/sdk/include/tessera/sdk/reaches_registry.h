// The SDK may include plugin_api/ only: not the registry, not a plugin.
#include "tessera/plugin_api/common.h"
#include "registry/abi_status.h"
#include "plugins/good/kernel.h"
