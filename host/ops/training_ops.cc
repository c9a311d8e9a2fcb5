// TensorFlow's training op definitions: the optimizers' Apply* updates and their Resource* forms.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

struct TrainingOp {
  const char* name;                    // without the "Apply" / "ResourceApply" prefix
  std::vector<const char*> variables;  // updated in place: Ref(T) or resource
  std::vector<const char*> inputs;     // plain T inputs, in TensorFlow's order
  bool has_use_nesterov;
};

const std::vector<TrainingOp>& TrainingOps() {
  static const auto* ops = new std::vector<TrainingOp>{
      {"GradientDescent", {"var"}, {"alpha", "delta"}, false},
      {"Momentum", {"var", "accum"}, {"lr", "grad", "momentum"}, true},
      {"Adam",
       {"var", "m", "v"},
       {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
       true},
      {"RMSProp", {"var", "ms", "mom"}, {"lr", "rho", "momentum", "epsilon", "grad"}, false},
  };
  return *ops;
}

// Every variable-shaped argument agrees with `var`; the result has var's shape.
absl::Status ApplyShape(ShapeInferenceContext& ctx) {
  PartialShape shape = ctx.input(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const std::string& name = ctx.op_def().input_arg(i).name();
    if (name == "grad" || name == "delta" || ctx.op_def().input_arg(i).is_ref()) {
      ASSIGN_OR_RETURN(shape, ctx.MergeShapes(shape, ctx.input(i)));
    }
  }
  if (ctx.num_outputs() > 0) ctx.set_output(0, shape);
  return absl::OkStatus();
}

absl::Status NoOutputs(ShapeInferenceContext&) { return absl::OkStatus(); }

}  // namespace

absl::Status RegisterTrainingOps(OpRegistry* registry) {
  for (const TrainingOp& op : TrainingOps()) {
    OpDefBuilder ref_form(absl::StrCat("Apply", op.name));
    OpDefBuilder resource_form(absl::StrCat("ResourceApply", op.name));
    for (const char* variable : op.variables) {
      ref_form.RefInput(variable, "T");
      resource_form.Input(variable, TSR_DTYPE_RESOURCE);
    }
    for (const char* input : op.inputs) {
      ref_form.Input(input, "T");
      resource_form.Input(input, "T");
    }
    ref_form.RefOutput("out", "T");
    for (OpDefBuilder* builder : {&ref_form, &resource_form}) {
      builder->TypeAttr("T", NumberTypes()).BoolAttr("use_locking", false);
      if (op.has_use_nesterov) builder->BoolAttr("use_nesterov", false);
    }
    ref_form.SetShapeFn(ApplyShape);
    resource_form.SetIsStateful().SetShapeFn(NoOutputs);
    RETURN_IF_ERROR(RegisterOp(registry, ref_form));
    RETURN_IF_ERROR(RegisterOp(registry, resource_form));
  }
  return absl::OkStatus();
}

}  // namespace tessera
