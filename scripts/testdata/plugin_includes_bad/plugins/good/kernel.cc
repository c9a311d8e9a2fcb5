// Includes a plugin may use: the ABI, the SDK, its own folder, third-party and system headers.
#include "plugins/good/kernel.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/kernel.h"
