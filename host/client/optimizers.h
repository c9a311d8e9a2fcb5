// TensorFlow 1.x's optimizers for the C++ API: GradientDescent, Momentum, Adam and RMSProp.
// Minimize adds the gradients of a loss (AddSymbolicGradients) and one Apply* update per variable
// (ref variables) or ResourceApply* (resource variables), with TensorFlow's slot variables and
// their names ("w/Momentum", "w/Adam", "w/Adam_1", "beta1_power", ...), so checkpoints line up
// with TensorFlow's.
#ifndef TESSERA_HOST_CLIENT_OPTIMIZERS_H_
#define TESSERA_HOST_CLIENT_OPTIMIZERS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // d(loss)/d(variable) for each variable (a Variable's ref output or a VarHandleOp's handle).
  absl::StatusOr<std::vector<Output>> ComputeGradients(const Scope& scope, const Output& loss,
                                                       const std::vector<Output>& variables);
  // One update per (gradient, variable); then, when `global_step` (an int64 ref variable) is
  // valid, global_step += 1. Returns an op that runs them all.
  absl::StatusOr<Operation> ApplyGradients(const Scope& scope,
                                           const std::vector<Output>& gradients,
                                           const std::vector<Output>& variables,
                                           const Output& global_step = Output());
  // ComputeGradients then ApplyGradients.
  absl::StatusOr<Operation> Minimize(const Scope& scope, const Output& loss,
                                     const std::vector<Output>& variables,
                                     const Output& global_step = Output());

  // The variables the optimizer created (slots and accumulators) and the ops that initialize
  // them; run the initializers once, like the model variables' own.
  const std::vector<Output>& variables() const { return variables_; }
  const std::vector<Operation>& initializers() const { return initializers_; }

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}

  // Creates accumulators that do not belong to a variable (Adam's beta powers).
  virtual absl::Status Prepare(const Scope& scope, bool resource, DataType dtype) {
    return absl::OkStatus();
  }
  // The update of one variable.
  virtual Operation ApplyDense(const Scope& scope, const Output& gradient, const Output& variable,
                               bool resource) = 0;
  // Runs after every update (Adam advances its beta powers).
  virtual std::vector<Operation> Finish(const Scope& scope, const std::vector<Operation>& updates) {
    return {};
  }

  // A slot variable for `variable` named "<variable>/<slot_name>", of the variable's dtype and
  // shape, initialized to `initial_value` (and remembered in variables()/initializers()).
  Output Slot(const Scope& scope, const Output& variable, const std::string& slot_name,
              double initial_value);
  // A scalar variable of `dtype` named `name` (at the scope's root), initialized to `value`.
  Output Accumulator(const Scope& scope, const std::string& name, DataType dtype, double value,
                     bool resource);
  // The value of a slot or accumulator for arithmetic (a read for resource variables).
  Output Value(const Scope& scope, const Output& variable, DataType dtype);

  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<Output> variables_;
  std::vector<Operation> initializers_;
};

class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate)
      : Optimizer("GradientDescent"), learning_rate_(learning_rate) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Output& gradient, const Output& variable,
                       bool resource) override;

 private:
  double learning_rate_;
};

class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false)
      : Optimizer("Momentum"),
        learning_rate_(learning_rate),
        momentum_(momentum),
        use_nesterov_(use_nesterov) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Output& gradient, const Output& variable,
                       bool resource) override;

 private:
  double learning_rate_;
  double momentum_;
  bool use_nesterov_;
};

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9, double beta2 = 0.999,
                         double epsilon = 1e-8)
      : Optimizer("Adam"),
        learning_rate_(learning_rate),
        beta1_(beta1),
        beta2_(beta2),
        epsilon_(epsilon) {}

 protected:
  absl::Status Prepare(const Scope& scope, bool resource, DataType dtype) override;
  Operation ApplyDense(const Scope& scope, const Output& gradient, const Output& variable,
                       bool resource) override;
  std::vector<Operation> Finish(const Scope& scope, const std::vector<Operation>& updates) override;

 private:
  double learning_rate_;
  double beta1_;
  double beta2_;
  double epsilon_;
  bool resource_ = false;
  DataType dtype_ = TSR_DTYPE_FLOAT;
  Output beta1_power_;
  Output beta2_power_;
};

// TensorFlow 1.x's RMSProp: the mean square starts at ones.
class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9, double momentum = 0.0,
                            double epsilon = 1e-10)
      : Optimizer("RMSProp"),
        learning_rate_(learning_rate),
        decay_(decay),
        momentum_(momentum),
        epsilon_(epsilon) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Output& gradient, const Output& variable,
                       bool resource) override;

 private:
  double learning_rate_;
  double decay_;
  double momentum_;
  double epsilon_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_OPTIMIZERS_H_
