// `tessera plugins`: discover and load the plugins, then print the registry's report.
#ifndef TESSERA_HOST_TOOLS_PLUGINS_COMMAND_H_
#define TESSERA_HOST_TOOLS_PLUGINS_COMMAND_H_

#include <ostream>

#include "absl/status/status.h"
#include "host/tools/cli_args.h"

namespace tessera {
namespace cli {

// Prints PluginRegistry::FormatText() (FormatJson() with --json) to `out`. A rejected plugin is
// part of the report, not an error; errors (a --plugin path that does not exist: NOT_FOUND)
// carry a message starting with "tessera plugins: ".
absl::Status PluginsCommand(const PluginsArgs& args, std::ostream& out);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_PLUGINS_COMMAND_H_
