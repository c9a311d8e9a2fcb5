// Symbolic gradients for the C++ API, as tf.gradients: AddSymbolicGradients adds to a scope the
// nodes that compute d(sum of outputs * grad_inputs)/d(inputs), op by op in reverse, using one
// gradient function per op type from a GradientRegistry (registered by explicit calls, no static
// constructors).
#ifndef TESSERA_HOST_CLIENT_GRADIENTS_H_
#define TESSERA_HOST_CLIENT_GRADIENTS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "host/client/output.h"
#include "host/client/scope.h"
#include "host/framework/proto/node_def.pb.h"

namespace tessera {

// The forward node as its gradient function sees it.
struct GradOp {
  const tensorflow::NodeDef* node = nullptr;
  std::vector<Output> inputs;   // data inputs, in order
  std::vector<Output> outputs;  // every output

  const std::string& op() const { return node->op(); }
  const std::string& name() const { return node->name(); }
  // The attribute, or nullptr.
  const tensorflow::AttrValue* attr(const std::string& name) const;
  bool BoolAttr(const std::string& name, bool fallback) const;
  int64_t IntAttr(const std::string& name, int64_t fallback) const;
  float FloatAttr(const std::string& name, float fallback) const;
  std::string StringAttr(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> IntListAttr(const std::string& name) const;
  DataType TypeAttr(const std::string& name) const;
};

// Computes the gradients of a node's inputs from those of its outputs. `grad_outputs[i]` is the
// gradient flowing into output i (always valid: outputs nothing reached get zeros). The function
// fills `grad_inputs` with one entry per data input; an invalid Output() means "no gradient"
// (an integer index, a shape), which AddSymbolicGradients treats as zero.
using GradFunction = std::function<absl::Status(const Scope& scope, const GradOp& op,
                                                const std::vector<Output>& grad_outputs,
                                                std::vector<Output>* grad_inputs)>;

class GradientRegistry {
 public:
  // The registry with every standard gradient (math, nn, array, state reads).
  static const GradientRegistry& Standard();

  // ALREADY_EXISTS when `op` has one.
  absl::Status Register(const std::string& op, GradFunction fn);
  // Ops whose inputs get no gradient (Shape, comparisons, random ops...).
  absl::Status RegisterNoGradient(const std::string& op);
  // NOT_FOUND naming the op when none is registered.
  absl::Status Lookup(const std::string& op, const GradFunction** fn) const;
  bool Has(const std::string& op) const { return functions_.contains(op); }
  std::vector<std::string> Ops() const;

 private:
  absl::flat_hash_map<std::string, GradFunction> functions_;
};

// The groups of standard gradients, one per file (math_grad.cc, nn_grad.cc, array_grad.cc).
absl::Status RegisterMathGradients(GradientRegistry* registry);
absl::Status RegisterNnGradients(GradientRegistry* registry);
absl::Status RegisterArrayGradients(GradientRegistry* registry);
absl::Status RegisterDataFlowGradients(GradientRegistry* registry);  // data_flow_grad.cc

// Adds the gradients of `outputs` (weighted by `grad_inputs`, one per output, of each output's
// shape) with respect to `inputs`, in `scope` (under "gradients/" as TensorFlow names them).
// `grad_outputs` gets one Output per input; an input that no output depends on gets zeros of its
// shape. Errors: INVALID_ARGUMENT for mismatched lists or Outputs of another graph; NOT_FOUND
// naming the op when a node on a path from an input to an output has no gradient function.
absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  const std::vector<Output>& grad_inputs,
                                  std::vector<Output>* grad_outputs,
                                  const GradientRegistry& registry = GradientRegistry::Standard());
// The same with grad_inputs = OnesLike(outputs): d(sum of outputs)/d(inputs).
absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  std::vector<Output>* grad_outputs);

}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_GRADIENTS_H_
