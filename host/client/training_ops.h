// Typed wrappers of TensorFlow's optimizer updates: ApplyGradientDescent, ApplyMomentum,
// ApplyAdam, ApplyRMSProp on ref variables (output: the updated ref) and their ResourceApply*
// forms on resource handles (no output; run as targets).
#ifndef TESSERA_HOST_CLIENT_TRAINING_OPS_H_
#define TESSERA_HOST_CLIENT_TRAINING_OPS_H_

#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

struct ApplyAttrs {
  ApplyAttrs UseLocking(bool x) const {
    ApplyAttrs ret = *this;
    ret.use_locking_ = x;
    return ret;
  }
  // Momentum and Adam only.
  ApplyAttrs UseNesterov(bool x) const {
    ApplyAttrs ret = *this;
    ret.use_nesterov_ = x;
    return ret;
  }
  bool use_locking_ = false;
  bool use_nesterov_ = false;
};

// var -= alpha * delta.
class ApplyGradientDescent {
 public:
  ApplyGradientDescent(const Scope& scope, Input var, Input alpha, Input delta,
                       const ApplyAttrs& attrs = ApplyAttrs());
  operator Output() const { return out; }
  Operation operation;
  Output out;
};

// accum = accum * momentum + grad; var -= lr * accum (Nesterov: grad * lr + accum * momentum * lr).
class ApplyMomentum {
 public:
  ApplyMomentum(const Scope& scope, Input var, Input accum, Input lr, Input grad, Input momentum,
                const ApplyAttrs& attrs = ApplyAttrs());
  operator Output() const { return out; }
  Operation operation;
  Output out;
};

// Adam with bias correction through beta1_power and beta2_power (beta^t).
class ApplyAdam {
 public:
  ApplyAdam(const Scope& scope, Input var, Input m, Input v, Input beta1_power, Input beta2_power,
            Input lr, Input beta1, Input beta2, Input epsilon, Input grad,
            const ApplyAttrs& attrs = ApplyAttrs());
  operator Output() const { return out; }
  Operation operation;
  Output out;
};

// ms = rho * ms + (1 - rho) * grad^2; mom = momentum * mom + lr * grad / sqrt(ms + epsilon);
// var -= mom.
class ApplyRMSProp {
 public:
  ApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom, Input lr, Input rho,
               Input momentum, Input epsilon, Input grad, const ApplyAttrs& attrs = ApplyAttrs());
  operator Output() const { return out; }
  Operation operation;
  Output out;
};

class ResourceApplyGradientDescent {
 public:
  ResourceApplyGradientDescent(const Scope& scope, Input var, Input alpha, Input delta,
                               const ApplyAttrs& attrs = ApplyAttrs());
  Operation operation;
};

class ResourceApplyMomentum {
 public:
  ResourceApplyMomentum(const Scope& scope, Input var, Input accum, Input lr, Input grad,
                        Input momentum, const ApplyAttrs& attrs = ApplyAttrs());
  Operation operation;
};

class ResourceApplyAdam {
 public:
  ResourceApplyAdam(const Scope& scope, Input var, Input m, Input v, Input beta1_power,
                    Input beta2_power, Input lr, Input beta1, Input beta2, Input epsilon,
                    Input grad, const ApplyAttrs& attrs = ApplyAttrs());
  Operation operation;
};

class ResourceApplyRMSProp {
 public:
  ResourceApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom, Input lr, Input rho,
                       Input momentum, Input epsilon, Input grad,
                       const ApplyAttrs& attrs = ApplyAttrs());
  Operation operation;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_TRAINING_OPS_H_
