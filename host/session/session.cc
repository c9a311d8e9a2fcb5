// Session::Create: the session factory by target.
#include "host/session/session.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "host/session/local_session.h"

namespace tessera {

absl::StatusOr<std::unique_ptr<Session>> Session::Create(const SessionOptions& options,
                                                         const tensorflow::GraphDef& graph) {
  const std::string& target = options.target;
  if (target.empty() || target == "local") return LocalSession::Create(options, graph);
  if (absl::StartsWith(target, "grpc://") || absl::StartsWith(target, "rdma://")) {
    return absl::UnimplementedError(absl::StrCat(
        "session target '", target,
        "' needs the distributed runtime, which this release does not include; use the local "
        "session (target \"\")"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown session target '", target, "': expected \"\" (local), grpc://host:port or "
      "rdma://host:port"));
}

}  // namespace tessera
