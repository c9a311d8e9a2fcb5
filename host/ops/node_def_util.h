// NodeDefs checked against their OpDef: default attrs, attr validation, input/output types.
#ifndef TESSERA_HOST_OPS_NODE_DEF_UTIL_H_
#define TESSERA_HOST_OPS_NODE_DEF_UTIL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/framework/proto/node_def.pb.h"
#include "host/framework/proto/op_def.pb.h"
#include "host/runtime/types.h"

namespace tessera {

// Most arguments one node may have (inputs or outputs), a bound against absurd number attrs.
inline constexpr int64_t kMaxNodeArgs = 1 << 20;

// Adds every attr that `op_def` gives a default and `node` does not set.
void AddDefaultsToNodeDef(const tensorflow::OpDef& op_def, tensorflow::NodeDef* node);

// Checks every attr of `node` against `op_def` (INVALID_ARGUMENT):
//   attr 'T' of node 'x' (Add): expected type, got int
//   attr 'T' of node 'x' (Add): value string is not in the allowed list {float, double}
//   node 'x' (Add) is missing required attr 'T'
//   node 'x' (Add) has attr 'foo', which op 'Add' does not define
// Attrs whose names start with "_" are internal and not checked.
absl::Status ValidateNodeDefAttrs(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def);

// The data types of the node's inputs and outputs, resolved from its attrs (number attrs repeat,
// type lists expand). Expects validated attrs; INVALID_ARGUMENT otherwise or past kMaxNodeArgs.
absl::Status InOutTypesForNode(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                               std::vector<DataType>* input_types,
                               std::vector<DataType>* output_types);

// How many tensors each output argument of `op_def` stands for on `node` (1, the value of its
// number attr, or the length of its type list), in argument order.
absl::StatusOr<std::vector<int>> OutputArgSizes(const tensorflow::NodeDef& node,
                                                const tensorflow::OpDef& op_def);
// The same for input arguments.
absl::StatusOr<std::vector<int>> InputArgSizes(const tensorflow::NodeDef& node,
                                               const tensorflow::OpDef& op_def);

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_NODE_DEF_UTIL_H_
