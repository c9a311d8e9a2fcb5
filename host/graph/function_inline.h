// Function calls inlined into the calling GraphDef, before import, so that placement and
// partitioning see one graph and a function's body can span devices and tasks (TensorFlow's
// function inlining).
#ifndef TESSERA_HOST_GRAPH_FUNCTION_INLINE_H_
#define TESSERA_HOST_GRAPH_FUNCTION_INLINE_H_

#include "absl/status/status.h"
#include "host/framework/proto/graph.pb.h"
#include "host/ops/op_registry.h"

namespace tessera {

// Deepest chain of nested calls inlined (f calls g calls h ...).
inline constexpr int kMaxFunctionCallDepth = 64;
// Most nodes a graph may have once its calls are inlined, a bound against call trees that grow
// exponentially (each function calling the next twice).
inline constexpr int kMaxInlinedNodes = 1 << 20;

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
//   - body nodes without a device take the call's device;
//   - the call's control inputs gate the whole body (every argument waits for a NoOp
//     "c/input_control_node" that has them), and body nodes none of whose inputs waits for the
//     call's inputs (constants, nodes fed only by handles) wait for every argument (a NoOp
//     "c/arguments_ready"), as the call itself would, which also keeps them in the call's frame
//     when the call is inside a loop;
//   - the call node is replaced by IdentityN "c" (NoOp "c" when the function has no outputs) whose
//     outputs are the function's results, so "c:k" and "^c" keep working; it also waits for the
//     function's control outputs (`control_ret`), or, when there are none, for every body node
//     whose outputs nothing in the body uses, so that "^c" means the whole call has run.
// The library stays in `def`. Errors are INVALID_ARGUMENT (NOT_FOUND for an unknown function),
// naming the call and the function: a wrong number of inputs, a missing or ill-typed attr, an
// input of the body that names no argument or output, a missing result, Tin/Tout that disagree
// with the function, a recursive call ("function 'f' calls itself: f -> g -> f"), calls nested
// deeper than kMaxFunctionCallDepth, more than kMaxInlinedNodes nodes, a function defined twice
// or under the name of a registered op.
absl::Status InlineFunctionCalls(tensorflow::GraphDef* def, const OpRegistry& ops);

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_FUNCTION_INLINE_H_
