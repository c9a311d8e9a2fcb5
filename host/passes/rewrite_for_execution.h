// RewriteGraphForExecution: replaces fed tensors by _Arg nodes, adds a _Retval per fetch, and
// prunes the graph to what the fetches and targets need (TensorFlow's subgraph rewrite).
#ifndef TESSERA_HOST_PASSES_REWRITE_FOR_EXECUTION_H_
#define TESSERA_HOST_PASSES_REWRITE_FOR_EXECUTION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "host/runtime/types.h"

namespace tessera {

class Graph;
class Node;

struct ExecutionSignature {
  std::vector<std::string> feeds;    // "node" or "node:k"
  std::vector<std::string> fetches;  // "node" or "node:k"
  std::vector<std::string> targets;  // node names ("node:k" accepted; the port is ignored)
};

// The nodes a signature names (fed, fetched, targeted) that `graph` has; the step needs at most
// them and what they reach backwards (Graph::CloneReaching). Unknown names are left to
// RewriteGraphForExecution to report.
std::vector<const Node*> SignatureNodes(const Graph& graph, const ExecutionSignature& signature);

struct RewriteResult {
  // dtype of each feed, in the order of `feeds` (argument i is feed i).
  std::vector<DataType> feed_types;
  // dtype of each fetch, in the order of `fetches`.
  std::vector<DataType> fetch_types;
};

// Rewrites `graph` in place. The new _Arg/_Retval nodes are placed on `client_device`.
// Errors: INVALID_ARGUMENT for no fetches or targets, a feed given twice, a tensor both fed and
// fetched, or an output index out of range; NOT_FOUND for unknown feed, fetch or target nodes.
absl::Status RewriteGraphForExecution(Graph* graph, const ExecutionSignature& signature,
                                      const std::string& client_device, RewriteResult* result);

}  // namespace tessera

#endif  // TESSERA_HOST_PASSES_REWRITE_FOR_EXECUTION_H_
