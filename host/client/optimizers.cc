// The optimizers: slots, updates and TensorFlow's names.
#include "host/client/optimizers.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/client/array_ops.h"
#include "host/client/grad_util.h"
#include "host/client/gradients.h"
#include "host/client/math_ops.h"
#include "host/client/state_ops.h"
#include "host/client/training_ops.h"

namespace tessera {
namespace {

// A scope at the graph's root (no name prefix, no control dependencies) naming its next op `name`.
Scope RootNamed(const Scope& scope, const std::string& name) {
  return scope.Root().WithOpName(name);
}

// The variable's dtype and declared shape, from its VariableV2, Variable or VarHandleOp node.
absl::Status VariableInfo(const Scope& scope, const Output& variable, DataType* dtype,
                          tensorflow::TensorShapeProto* shape) {
  const tensorflow::NodeDef* def = scope.FindNode(variable.node_name());
  if (def == nullptr ||
      (def->op() != "VariableV2" && def->op() != "Variable" && def->op() != "VarHandleOp")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", variable.name(), "' is not a variable (the output of a Variable or VarHandleOp)"));
  }
  *dtype = static_cast<DataType>(def->attr().at("dtype").type());
  *shape = def->attr().at("shape").shape();
  if (shape->unknown_rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variable '", variable.node_name(), "' has an unknown shape; optimizer slots need one"));
  }
  for (const auto& dim : shape->dim()) {
    if (dim.size() < 0) {
      return absl::InvalidArgumentError(absl::StrCat("variable '", variable.node_name(),
                                                     "' has an unknown dimension; optimizer "
                                                     "slots need a fully defined shape"));
    }
  }
  return absl::OkStatus();
}

Output Filled(const Scope& scope, const tensorflow::TensorShapeProto& shape, double value,
              DataType dtype) {
  std::vector<int32_t> dims;
  for (const auto& dim : shape.dim()) dims.push_back(static_cast<int32_t>(dim.size()));
  return ops::Fill(scope, grad_util::IntVector(scope, dims),
                   grad_util::Scalar(scope, value, dtype));
}

PartialTensorShape ToPartial(const tensorflow::TensorShapeProto& shape) {
  std::vector<int64_t> dims;
  for (const auto& dim : shape.dim()) dims.push_back(dim.size());
  return PartialTensorShape(dims);
}

}  // namespace

absl::StatusOr<std::vector<Output>> Optimizer::ComputeGradients(
    const Scope& scope, const Output& loss, const std::vector<Output>& variables) {
  std::vector<Output> gradients;
  RETURN_IF_ERROR(AddSymbolicGradients(scope, {loss}, variables, &gradients));
  return gradients;
}

absl::StatusOr<Operation> Optimizer::ApplyGradients(const Scope& scope,
                                                    const std::vector<Output>& gradients,
                                                    const std::vector<Output>& variables,
                                                    const Output& global_step) {
  if (gradients.size() != variables.size() || variables.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("got ", gradients.size(), " gradients for ", variables.size(), " variables"));
  }
  const bool resource = variables[0].type() == TSR_DTYPE_RESOURCE;
  for (const Output& v : variables) {
    if ((v.type() == TSR_DTYPE_RESOURCE) != resource) {
      return absl::InvalidArgumentError(
          "an optimizer updates either ref variables or resource variables, not both at once");
    }
    DataType dtype;
    tensorflow::TensorShapeProto shape;
    RETURN_IF_ERROR(VariableInfo(scope, v, &dtype, &shape));
  }
  Scope root = scope.NewSubScope(name_);
  DataType dtype = TSR_DTYPE_INVALID;
  tensorflow::TensorShapeProto shape;
  RETURN_IF_ERROR(VariableInfo(scope, variables[0], &dtype, &shape));
  RETURN_IF_ERROR(Prepare(scope, resource, dtype));
  std::vector<Operation> updates;
  for (size_t i = 0; i < variables.size(); ++i) {
    Scope update_scope = root.NewSubScope("update_" + variables[i].node_name());
    Operation update = ApplyDense(update_scope, gradients[i], variables[i], resource);
    RETURN_IF_ERROR(scope.status());
    updates.push_back(update);
  }
  std::vector<Operation> finish = Finish(root.WithControlDependencies(updates), updates);
  std::vector<Operation> all = updates;
  all.insert(all.end(), finish.begin(), finish.end());
  if (global_step.valid()) {
    auto increment = ops::AssignAdd(root.WithControlDependencies(all).WithOpName("global_step"),
                                    global_step, grad_util::Scalar(root, 1, global_step.type()));
    all.push_back(increment.operation);
  }
  auto train = ops::NoOp(root.WithControlDependencies(all).WithOpName(name_));
  RETURN_IF_ERROR(scope.status());
  return train.operation;
}

absl::StatusOr<Operation> Optimizer::Minimize(const Scope& scope, const Output& loss,
                                              const std::vector<Output>& variables,
                                              const Output& global_step) {
  ASSIGN_OR_RETURN(std::vector<Output> gradients, ComputeGradients(scope, loss, variables));
  return ApplyGradients(scope, gradients, variables, global_step);
}

Output Optimizer::Slot(const Scope& scope, const Output& variable, const std::string& slot_name,
                       double initial_value) {
  DataType dtype = TSR_DTYPE_INVALID;
  tensorflow::TensorShapeProto shape;
  absl::Status status = VariableInfo(scope, variable, &dtype, &shape);
  if (!status.ok()) {
    scope.UpdateStatus(status);
    return Output();
  }
  // TensorFlow names slots after their variable: "dense/kernel/Adam".
  const std::string name = absl::StrCat(variable.node_name(), "/", slot_name);
  const bool resource = variable.type() == TSR_DTYPE_RESOURCE;
  Output slot;
  Operation init;
  if (resource) {
    auto handle = ops::VarHandleOp(RootNamed(scope, name), dtype, ToPartial(shape),
                                   ops::VariableAttrs().SharedName(name));
    slot = handle;
    init = ops::AssignVariableOp(
               RootNamed(scope, name + "/Assign"), handle,
               Filled(RootNamed(scope, name + "/Initializer"), shape, initial_value, dtype))
               .operation;
  } else {
    auto var = ops::Variable(RootNamed(scope, name), ToPartial(shape), dtype);
    slot = var;
    init = ops::Assign(RootNamed(scope, name + "/Assign"), var,
                       Filled(RootNamed(scope, name + "/Initializer"), shape, initial_value, dtype))
               .operation;
  }
  variables_.push_back(slot);
  initializers_.push_back(init);
  return slot;
}

Output Optimizer::Accumulator(const Scope& scope, const std::string& name, DataType dtype,
                              double value, bool resource) {
  Output acc;
  Operation init;
  Output initial = grad_util::Scalar(RootNamed(scope, name + "/initial_value"), value, dtype);
  if (resource) {
    auto handle = ops::VarHandleOp(RootNamed(scope, name), dtype, PartialTensorShape({}),
                                   ops::VariableAttrs().SharedName(name));
    acc = handle;
    init = ops::AssignVariableOp(RootNamed(scope, name + "/Assign"), handle, initial).operation;
  } else {
    auto var = ops::Variable(RootNamed(scope, name), PartialTensorShape({}), dtype);
    acc = var;
    init = ops::Assign(RootNamed(scope, name + "/Assign"), var, initial).operation;
  }
  variables_.push_back(acc);
  initializers_.push_back(init);
  return acc;
}

Output Optimizer::Value(const Scope& scope, const Output& variable, DataType dtype) {
  if (variable.type() == TSR_DTYPE_RESOURCE) return ops::ReadVariableOp(scope, variable, dtype);
  return variable;
}

Operation GradientDescentOptimizer::ApplyDense(const Scope& s, const Output& gradient,
                                               const Output& variable, bool resource) {
  Output lr = grad_util::Scalar(s, learning_rate_, gradient.type());
  if (resource) return ops::ResourceApplyGradientDescent(s, variable, lr, gradient).operation;
  return ops::ApplyGradientDescent(s, variable, lr, gradient).operation;
}

Operation MomentumOptimizer::ApplyDense(const Scope& s, const Output& gradient,
                                        const Output& variable, bool resource) {
  Output accum = Slot(s, variable, "Momentum", 0.0);
  const DataType t = gradient.type();
  Output lr = grad_util::Scalar(s, learning_rate_, t);
  Output momentum = grad_util::Scalar(s, momentum_, t);
  auto attrs = ops::ApplyAttrs().UseNesterov(use_nesterov_);
  if (resource) {
    return ops::ResourceApplyMomentum(s, variable, accum, lr, gradient, momentum, attrs).operation;
  }
  return ops::ApplyMomentum(s, variable, accum, lr, gradient, momentum, attrs).operation;
}

absl::Status AdamOptimizer::Prepare(const Scope& scope, bool resource, DataType dtype) {
  resource_ = resource;
  dtype_ = dtype;
  beta1_power_ = Accumulator(scope, "beta1_power", dtype_, beta1_, resource);
  beta2_power_ = Accumulator(scope, "beta2_power", dtype_, beta2_, resource);
  return scope.status();
}

Operation AdamOptimizer::ApplyDense(const Scope& s, const Output& gradient, const Output& variable,
                                    bool resource) {
  Output m = Slot(s, variable, "Adam", 0.0);
  Output v = Slot(s, variable, "Adam_1", 0.0);
  const DataType t = gradient.type();
  Output b1p = Value(s, beta1_power_, t);
  Output b2p = Value(s, beta2_power_, t);
  Output lr = grad_util::Scalar(s, learning_rate_, t);
  Output b1 = grad_util::Scalar(s, beta1_, t);
  Output b2 = grad_util::Scalar(s, beta2_, t);
  Output eps = grad_util::Scalar(s, epsilon_, t);
  if (resource) {
    return ops::ResourceApplyAdam(s, variable, m, v, b1p, b2p, lr, b1, b2, eps, gradient).operation;
  }
  return ops::ApplyAdam(s, variable, m, v, b1p, b2p, lr, b1, b2, eps, gradient).operation;
}

std::vector<Operation> AdamOptimizer::Finish(const Scope& s,
                                             const std::vector<Operation>& updates) {
  std::vector<Operation> ops_out;
  const std::pair<Output*, double> powers[] = {{&beta1_power_, beta1_}, {&beta2_power_, beta2_}};
  int k = 0;
  for (const auto& [power, beta] : powers) {
    Scope named = s.WithOpName(k++ == 0 ? "update_beta1" : "update_beta2");
    Output next = ops::Mul(s, Value(s, *power, dtype_), grad_util::Scalar(s, beta, dtype_));
    if (resource_) {
      ops_out.push_back(ops::AssignVariableOp(named, *power, next).operation);
    } else {
      ops_out.push_back(ops::Assign(named, *power, next).operation);
    }
  }
  return ops_out;
}

Operation RMSPropOptimizer::ApplyDense(const Scope& s, const Output& gradient,
                                       const Output& variable, bool resource) {
  Output ms = Slot(s, variable, "RMSProp", 1.0);
  Output mom = Slot(s, variable, "RMSProp_1", 0.0);
  const DataType t = gradient.type();
  Output lr = grad_util::Scalar(s, learning_rate_, t);
  Output rho = grad_util::Scalar(s, decay_, t);
  Output momentum = grad_util::Scalar(s, momentum_, t);
  Output eps = grad_util::Scalar(s, epsilon_, t);
  if (resource) {
    return ops::ResourceApplyRMSProp(s, variable, ms, mom, lr, rho, momentum, eps, gradient)
        .operation;
  }
  return ops::ApplyRMSProp(s, variable, ms, mom, lr, rho, momentum, eps, gradient).operation;
}

}  // namespace tessera
