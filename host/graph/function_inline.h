// Function calls inlined into the calling GraphDef, before import, so that placement and
// partitioning see one graph and a function's body can span devices and tasks (TensorFlow's
// function inlining).
#ifndef TESSERA_HOST_GRAPH_FUNCTION_INLINE_H_
#define TESSERA_HOST_GRAPH_FUNCTION_INLINE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "host/framework/proto/graph.pb.h"
#include "host/ops/op_registry.h"

namespace tessera {

// Bounds on what inlining may build, against call trees that grow exponentially (each function
// calling the next twice) and lists that multiply (a list input expands to every tensor of the
// output it names; attrs are copied into every instantiation).
struct InlineLimits {
  int max_call_depth = 64;                      // f calls g calls h ...
  int64_t max_nodes = int64_t{1} << 20;         // nodes of the inlined graph
  int64_t max_inputs = int64_t{1} << 22;        // input names of the inlined nodes, together
  int64_t max_bytes = int64_t{1} << 30;         // serialized bytes of the inlined nodes, together
};

// True when a node of `def` calls a function: its op names a function of `def.library()`, or is
// PartitionedCall or StatefulPartitionedCall.
bool HasFunctionCalls(const tensorflow::GraphDef& def);

// Replaces every function call of `def` (and, recursively, every call inside the inlined bodies)
// by the function's body, instantiated with the call's attrs:
//   - a call names its function either as its op (the call's attrs are the function's attrs) or
//     through PartitionedCall / StatefulPartitionedCall (attr `f`, whose own attrs are the
//     function's; `Tin`/`Tout` must match the function's resolved types);
//   - body node "n" of call node "c" becomes "c/n" (made unique against the graph if taken); each
//     function argument becomes an Identity node "c/<arg>" fed by the call's input, each element
//     of a list argument "c/<arg>_<k>"; resource and variant handles pass straight through;
//   - attr placeholders ("$T") take the call's values, also inside func attrs of body nodes;
//   - body nodes without a device take the call's device; a node's partial device takes the
//     job, replica and task it leaves out from the call's;
//   - the call's control inputs gate the whole body (every argument waits for a NoOp
//     "c/input_control_node" that has them), and body nodes none of whose inputs waits for the
//     call's inputs (constants, nodes fed only by handles) wait for every argument (a NoOp
//     "c/arguments_ready"), as the call itself would, which also keeps them in the call's frame
//     when the call is inside a loop;
//   - the call node is replaced by a node "c" whose outputs are the function's results (Identity
//     for one result, IdentityN for several, NoOp for none), so "c:k" and "^c" keep working; it
//     waits for every argument and for the function's control outputs (`control_ret`), or, when
//     there are none, for the stateful body nodes whose outputs nothing in the body uses.
// The library stays in `def`. Errors name the call and the function. NOT_FOUND: an unknown
// function, a body node whose op is neither registered nor a function. INVALID_ARGUMENT: a wrong
// number of inputs, a missing or ill-typed attr, Tin/Tout that disagree with the function, an
// input or result of the body that names no argument or node output, a missing result, a
// recursive call ("function 'f' calls itself: f -> g -> f"), calls nested deeper than
// limits.max_call_depth, more nodes, inputs or bytes than the limits allow, a function without a
// name, defined twice or under the name of a registered op, two arguments or outputs of a
// function with one name, two nodes of the graph with one name.
// On an error `def` is left partly rewritten (import works on a copy).
absl::Status InlineFunctionCalls(tensorflow::GraphDef* def, const OpRegistry& ops,
                                 const InlineLimits& limits = InlineLimits());

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_FUNCTION_INLINE_H_
