// `tessera run`: load a graph, feed .npy files, run one step, print and save the fetches.
#ifndef TESSERA_HOST_TOOLS_RUN_COMMAND_H_
#define TESSERA_HOST_TOOLS_RUN_COMMAND_H_

#include <ostream>

#include "absl/status/status.h"
#include "host/tools/cli_args.h"

namespace tessera {
namespace cli {

// Runs one step as `args` say and prints one line per fetch to `out` (plus one "wrote FILE" line
// per file when args.output_dir is set, and "wrote trace FILE (N nodes on D devices)" when
// args.trace_path is set). Errors carry a message ready for the user, starting
// with "tessera run: " and naming the file, feed or step that failed; the code is the
// underlying one (NOT_FOUND for a missing graph or feed file, INVALID_ARGUMENT for a bad one...).
absl::Status RunCommand(const RunArgs& args, std::ostream& out);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_RUN_COMMAND_H_
