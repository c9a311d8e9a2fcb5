// `tessera serve`: run one task of a cluster (a master and a worker) until SIGTERM or SIGINT.
#ifndef TESSERA_HOST_TOOLS_SERVE_COMMAND_H_
#define TESSERA_HOST_TOOLS_SERVE_COMMAND_H_

#include <signal.h>

#include <ostream>

#include "absl/status/status.h"
#include "host/tools/cli_args.h"

namespace tessera {
namespace cli {

// Starts the server `args` describe and prints one line to `out`, flushed, once it serves:
//   tessera serve: /job:worker/replica:0/task:0 serving master and worker at localhost:2222 over
//   grpc (devices: /job:worker/replica:0/task:0/device:CPU:0)
// (one line; scripts wait for "serving" and read the address after "at "). Then waits with
// sigwait() for one of `stop_signals`, which the caller must have blocked in every thread (block
// them before any thread starts), stops the server, prints "tessera serve: stopped" and returns
// OK. Errors of Server::Create come back with "tessera serve: " prepended and their code kept;
// a build without the distributed runtime returns UNIMPLEMENTED.
absl::Status ServeCommand(const ServeArgs& args, const sigset_t& stop_signals, std::ostream& out);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_SERVE_COMMAND_H_
