// Session::Create: the session factory by target.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "host/distributed/distributed_session.h"
#include "host/session/local_session.h"
#include "host/session/session.h"

namespace tessera {

absl::StatusOr<std::unique_ptr<Session>> Session::Create(const SessionOptions& options,
                                                         const tensorflow::GraphDef& graph) {
  const std::string& target = options.target;
  if (target.empty() || target == "local") return LocalSession::Create(options, graph);
  if (absl::StrContains(target, "://")) return CreateDistributedSession(options, graph);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown session target '", target,
                   "': expected \"\" (local) or <transport>://host:port "
                   "(grpc://host:port)"));
}

absl::StatusOr<std::unique_ptr<Session>> Session::Create(const SessionOptions& options,
                                                         tensorflow::GraphDef&& graph) {
  const std::string& target = options.target;
  if (target.empty() || target == "local") return LocalSession::Create(options, std::move(graph));
  const tensorflow::GraphDef& shared = graph;  // a cluster's session sends a copy to the master
  return Create(options, shared);
}

}  // namespace tessera
