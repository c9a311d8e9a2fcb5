// ExtendGraph: adds nodes to a graph that already holds some, as a client building a graph node
// by node (the C API) or a session whose graph grows needs it.
#ifndef TESSERA_HOST_GRAPH_GRAPH_EXTEND_H_
#define TESSERA_HOST_GRAPH_GRAPH_EXTEND_H_

#include <vector>

#include "absl/status/status.h"
#include "host/framework/proto/node_def.pb.h"
#include "host/graph/graph.h"

namespace tessera {

// Adds `nodes` to `graph`, all or nothing: on any error the graph is exactly as before. The
// checks are ImportGraphDef's (node names, duplicates against the graph and among `nodes`, ops,
// attrs, input counts and types, inputs naming nodes of the graph or of `nodes`, cycles among the
// new nodes) and shape inference runs for the new nodes. Unlike ImportGraphDef, function calls and
// functional control flow are kept as they are, and no SOURCE/SINK edges are added. `added`
// (optional) receives the new nodes in the order of `nodes`.
absl::Status ExtendGraph(Graph* graph, const std::vector<tensorflow::NodeDef>& nodes,
                         std::vector<Node*>* added = nullptr);

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_GRAPH_EXTEND_H_
