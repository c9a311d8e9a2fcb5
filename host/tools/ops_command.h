// `tessera ops`: every registered op with its kernels per device type, or a graph's ops that
// cannot run on the devices present.
#ifndef TESSERA_HOST_TOOLS_OPS_COMMAND_H_
#define TESSERA_HOST_TOOLS_OPS_COMMAND_H_

#include <ostream>

#include "absl/status/status.h"
#include "host/tools/cli_args.h"

namespace tessera {
namespace cli {

// Loads the plugins and creates the devices as a session would, then prints the op catalog (text,
// --json or --markdown) or, with --graph, the graph's coverage. Errors carry a message starting
// with "tessera ops: ": a plugin path, policy file or graph that cannot be read keeps its code;
// a graph with ops that cannot run is FAILED_PRECONDITION naming them, after the full report.
absl::Status OpsCommand(const OpsArgs& args, std::ostream& out);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_OPS_COMMAND_H_
