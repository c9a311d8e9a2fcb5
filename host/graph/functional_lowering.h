// Functional control flow (If, StatelessIf, Case, StatelessCase, While, StatelessWhile, as
// TensorFlow 2 writes it)
// lowered to the v1 control flow the executor runs (Switch, Merge, Enter, Exit, NextIteration,
// LoopCond), with the branches, condition and body left as calls of the library's functions for
// the inliner (TensorFlow's LowerFunctionalOpsPass).
#ifndef TESSERA_HOST_GRAPH_FUNCTIONAL_LOWERING_H_
#define TESSERA_HOST_GRAPH_FUNCTIONAL_LOWERING_H_

#include "absl/status/status.h"
#include "host/framework/proto/graph.pb.h"
#include "host/graph/function_inline.h"
#include "host/ops/op_registry.h"

namespace tessera {

// True when a node of `def` (not of its library) is If, StatelessIf, Case, StatelessCase, While or
// StatelessWhile.
bool HasFunctionalControlFlow(const tensorflow::GraphDef& def);

// Rewrites every If, StatelessIf, Case, StatelessCase, While and StatelessWhile node of `def`
// (nodes of the library's functions are lowered once their calls are inlined):
//   - If "n": the condition (a bool, or a number Cast to bool: non-zero is true) switches each
//     input; the then branch is called on the true outputs, gated by "n/then_pivot", the else
//     branch on the false ones; each result is a Merge "n/output_<k>" of the two calls'; "n"
//     becomes the node of the results (Identity, IdentityN, or for none a NoOp that waits for
//     whichever branch ran);
//   - Case "c" with N branches: a cascade of Switches. Level b < N-1 compares the index with b
//     ("c/index", an Identity of it; "c/is_branch_b": Equal against "c/branch_index_b", a Const
//     waiting on "c/index") and switches what reached it: to
//     branch b ("c/branch_b", gated by "c/branch_b_pivot") when equal, on to level b+1
//     otherwise; the last branch takes what passes every level, so an index outside [0, N) runs
//     it (TensorFlow's rule); results merge as an If's ("c/output_<k>", Merge of N);
//   - While "w": loop frame "w" (made unique against the frames of v1 loops); each loop variable
//     enters it ("w/enter_<k>"), merges with its
//     next value, the condition is called on the merged values and feeds LoopCond, a Switch per
//     variable leaves the loop ("w/exit_<k>") or feeds the body's call, whose results go round
//     through NextIteration; "w" becomes the node of the exits;
//   - the node's control inputs gate both branches (through the pivots) or every loop variable's
//     Enter; every node made takes the node's device.
// INVALID_ARGUMENT naming the node for attrs that do not validate, a wrong number of inputs, a
// condition that is not a bool or a number, a branch, condition or body whose signature does not
// take the node's input types (and, for branches and body, return its output types), a While
// without loop variables, a condition that does not return one tensor, parallel_iterations below
// 1 (above 16384 it runs with 16384), more than limits.max_nodes nodes; NOT_FOUND for a branch,
// condition or body the library does not define. On an error `def` is left partly rewritten.
absl::Status LowerFunctionalControlFlow(tensorflow::GraphDef* def, const OpRegistry& ops,
                                        const InlineLimits& limits = InlineLimits());

// What import runs on a graph with function calls or functional control flow: lowering and
// inlining in turn until neither is left (If and While inside function bodies appear once their
// calls are inlined). INVALID_ARGUMENT when that takes more than limits.max_call_depth rounds (a
// function reaching itself through a branch or loop body; one reaching itself through both
// branches meets limits.max_nodes first) or the graph grows past limits.max_bytes.
absl::Status ExpandFunctions(tensorflow::GraphDef* def, const OpRegistry& ops,
                             const InlineLimits& limits = InlineLimits());

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_FUNCTIONAL_LOWERING_H_
