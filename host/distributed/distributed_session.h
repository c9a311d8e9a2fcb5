// DistributedSession: a session whose graph runs on a cluster. The client side only: the graph
// goes to the master named by the target ("grpc://host:port"), which places, partitions and runs
// it on the cluster's workers; each Run is one RunStep call.
#ifndef TESSERA_HOST_DISTRIBUTED_DISTRIBUTED_SESSION_H_
#define TESSERA_HOST_DISTRIBUTED_DISTRIBUTED_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/session/session.h"

namespace tessera {

// Creates the session on the master of `options.target` ("<transport>://host:port"). Errors:
// INVALID_ARGUMENT for a malformed target; NOT_FOUND when no loaded plugin provides the target's
// transport (the message lists those that do); UNAVAILABLE naming the address when the master
// cannot be reached; the master's own error (placement, unknown op) otherwise.
absl::StatusOr<std::unique_ptr<Session>> CreateDistributedSession(
    const SessionOptions& options, const tensorflow::GraphDef& graph);

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_DISTRIBUTED_SESSION_H_
