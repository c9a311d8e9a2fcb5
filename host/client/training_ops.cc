// The optimizer-update wrappers: one builder for all eight ops.
#include "host/client/training_ops.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "host/client/math_ops.h"
#include "host/client/op_builder.h"

namespace tessera {
namespace ops {
namespace {

// `variables` are refs (Apply*) or resource handles (ResourceApply*); `values` share type T.
Operation ApplyOp(const Scope& scope, const char* op, bool resource,
                  const std::vector<Input>& variables, const std::vector<Input>& values,
                  bool has_nesterov, const ApplyAttrs& attrs) {
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  std::vector<Output> vars;
  for (const Input& variable : variables) {
    Output v = AsNodeOut(scope, variable);
    if (resource) {
      builder.CheckType("resource", v, {TSR_DTYPE_RESOURCE});
    } else if (v.valid() && !v.is_ref()) {
      builder.SetError(absl::StrCat("input '", v.name(), "' of ", builder.node_name(),
                                    " must be a ref variable, got ", DataTypeString(v.type())));
    }
    vars.push_back(v);
  }
  std::vector<Output> vals;
  for (const Input& value : values) vals.push_back(AsNodeOut(scope, value));
  if (!scope.ok()) return Operation();
  std::vector<Output> typed = vals;
  if (!resource) typed.insert(typed.begin(), vars.begin(), vars.end());
  const DataType t = builder.CommonType("T", typed);
  builder.Inputs(vars).Inputs(vals).AttrType("T", t).AttrBool("use_locking", attrs.use_locking_);
  if (has_nesterov) builder.AttrBool("use_nesterov", attrs.use_nesterov_);
  if (resource) return builder.Finalize({});
  return builder.Finalize({MakeRefType(t)});
}

}  // namespace

ApplyGradientDescent::ApplyGradientDescent(const Scope& scope, Input var, Input alpha, Input delta,
                                           const ApplyAttrs& attrs)
    : operation(ApplyOp(scope, "ApplyGradientDescent", false, {var}, {alpha, delta}, false, attrs)),
      out(internal::FirstOutput(operation)) {}

ApplyMomentum::ApplyMomentum(const Scope& scope, Input var, Input accum, Input lr, Input grad,
                             Input momentum, const ApplyAttrs& attrs)
    : operation(
          ApplyOp(scope, "ApplyMomentum", false, {var, accum}, {lr, grad, momentum}, true, attrs)),
      out(internal::FirstOutput(operation)) {}

ApplyAdam::ApplyAdam(const Scope& scope, Input var, Input m, Input v, Input beta1_power,
                     Input beta2_power, Input lr, Input beta1, Input beta2, Input epsilon,
                     Input grad, const ApplyAttrs& attrs)
    : operation(ApplyOp(scope, "ApplyAdam", false, {var, m, v},
                        {beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad}, true, attrs)),
      out(internal::FirstOutput(operation)) {}

ApplyRMSProp::ApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom, Input lr, Input rho,
                           Input momentum, Input epsilon, Input grad, const ApplyAttrs& attrs)
    : operation(ApplyOp(scope, "ApplyRMSProp", false, {var, ms, mom},
                        {lr, rho, momentum, epsilon, grad}, false, attrs)),
      out(internal::FirstOutput(operation)) {}

ResourceApplyGradientDescent::ResourceApplyGradientDescent(const Scope& scope, Input var,
                                                           Input alpha, Input delta,
                                                           const ApplyAttrs& attrs)
    : operation(ApplyOp(scope, "ResourceApplyGradientDescent", true, {var}, {alpha, delta}, false,
                        attrs)) {}

ResourceApplyMomentum::ResourceApplyMomentum(const Scope& scope, Input var, Input accum, Input lr,
                                             Input grad, Input momentum, const ApplyAttrs& attrs)
    : operation(ApplyOp(scope, "ResourceApplyMomentum", true, {var, accum}, {lr, grad, momentum},
                        true, attrs)) {}

ResourceApplyAdam::ResourceApplyAdam(const Scope& scope, Input var, Input m, Input v,
                                     Input beta1_power, Input beta2_power, Input lr, Input beta1,
                                     Input beta2, Input epsilon, Input grad,
                                     const ApplyAttrs& attrs)
    : operation(ApplyOp(scope, "ResourceApplyAdam", true, {var, m, v},
                        {beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad}, true, attrs)) {
}

ResourceApplyRMSProp::ResourceApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom,
                                           Input lr, Input rho, Input momentum, Input epsilon,
                                           Input grad, const ApplyAttrs& attrs)
    : operation(ApplyOp(scope, "ResourceApplyRMSProp", true, {var, ms, mom},
                        {lr, rho, momentum, epsilon, grad}, false, attrs)) {}

}  // namespace ops
}  // namespace tessera
