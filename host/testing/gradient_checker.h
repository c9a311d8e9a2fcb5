// Numeric gradient checks, as TensorFlow's gradient_checker: the Jacobian that
// AddSymbolicGradients computes against central differences of the forward graph, both run in a
// real local session.
#ifndef TESSERA_HOST_TESTING_GRADIENT_CHECKER_H_
#define TESSERA_HOST_TESTING_GRADIENT_CHECKER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "host/client/gradients.h"
#include "host/client/output.h"
#include "host/client/scope.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace testing {

struct GradientCheckOptions {
  // Central-difference step: 1e-3 suits float; double inputs are checked more tightly with 1e-5.
  double delta = 1e-3;
  // The gradient functions to check; null means GradientRegistry::Standard().
  const GradientRegistry* registry = nullptr;
};

// The largest absolute difference between the symbolic and the numeric Jacobian of `ys` with
// respect to `xs` at `x_values`. Each x must be a Placeholder (fed `x_values`) of float or double;
// the ys must be float or double. Builds the gradient nodes in `scope`.
absl::StatusOr<double> ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                            const std::vector<Tensor>& x_values,
                                            const std::vector<Output>& ys,
                                            const GradientCheckOptions& options = {});

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_HOST_TESTING_GRADIENT_CHECKER_H_
