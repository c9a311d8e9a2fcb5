// Small pieces the GraphDef rewrites (function inlining, If/While lowering) share: names made
// unique against a graph, tensor names, the node that gives a construct's results, type lists
// for messages.
#ifndef TESSERA_HOST_GRAPH_NODE_DEF_BUILDER_UTIL_H_
#define TESSERA_HOST_GRAPH_NODE_DEF_BUILDER_UTIL_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "host/framework/proto/node_def.pb.h"
#include "host/runtime/types.h"

namespace tessera {

// The node names of a graph being rewritten, and new ones made unique against them.
class UniqueNames {
 public:
  // Takes `name`; false when it was taken already.
  bool Reserve(const std::string& name) { return names_.insert(name).second; }
  // `wanted` when free, else `wanted` + "_<n>" for the first free n (each base name remembers
  // the last n it handed out, so many clashes stay linear).
  std::string NewName(const std::string& wanted);

 private:
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<std::string, int> next_suffix_;
};

// "node" for output 0, "node:k" otherwise.
std::string OutputName(const std::string& node, int index);

// "[float, int32]" for messages.
std::string TypeListString(const std::vector<DataType>& types);

// Sets `type` as the type attr `name` of `node`.
void SetTypeAttr(tensorflow::NodeDef* node, absl::string_view name, DataType type);

// Makes `node` the node that gives a construct's results of `types`: NoOp for none, Identity for
// one, IdentityN for several (with its T attr).
void SetResultsOp(const std::vector<DataType>& types, tensorflow::NodeDef* node);

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_NODE_DEF_BUILDER_UTIL_H_
