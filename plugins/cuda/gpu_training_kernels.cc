// The GPU's variable updates behind the SDK: AssignAdd/AssignSub (ref and resource forms) and the
// optimizers' Apply*/ResourceApply* (GradientDescent, Momentum, Adam, RMSProp). The host hands
// each variable in as its own storage in device memory, holding its lock during Compute; the
// update is enqueued on the compute stream, after every earlier use of the variable there and
// before every later one.
#include <iterator>
#include <string>
#include <vector>

#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"
#include "plugins/cuda/training_kernels.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/types.h"

namespace tessera::gpu {
namespace {

using sdk::KernelConstruction;
using sdk::KernelContext;
using sdk::Status;
using sdk::TensorView;

template <bool kAdd>
class AssignUpdateKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView variable;
    TensorView value;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &variable));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &value));
    if (variable.shape() != value.shape()) {
      return sdk::InvalidArgument("Cannot update variable with shape ",
                                  variable.shape().DebugString(), " using a Tensor with shape ",
                                  value.shape().DebugString(), ", shapes must be equal.");
    }
    if (variable.dtype() != value.dtype()) {
      return sdk::InvalidArgument("variable of node '", ctx.node_name(), "' is ",
                                  sdk::DataTypeName(variable.dtype()), " but the value is ",
                                  sdk::DataTypeName(value.dtype()));
    }
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(variable.dtype(), "the variable", &type));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchAssignUpdate(kAdd, type, variable.raw_data(), value.raw_data(),
                                       variable.num_elements(), NativeStream(ctx.stream())),
                    ctx);
  }
};

// Each optimizer's variables and scalars in TensorFlow's input order (training_kernels.h).
struct GradientDescent {
  static constexpr Optimizer kOptimizer = Optimizer::kGradientDescent;
  static constexpr const char* kVariables[] = {"var"};
  static constexpr const char* kScalars[] = {"alpha"};
};
struct Momentum {
  static constexpr Optimizer kOptimizer = Optimizer::kMomentum;
  static constexpr const char* kVariables[] = {"var", "accum"};
  static constexpr const char* kScalars[] = {"lr", "momentum"};
};
struct Adam {
  static constexpr Optimizer kOptimizer = Optimizer::kAdam;
  static constexpr const char* kVariables[] = {"var", "m", "v"};
  static constexpr const char* kScalars[] = {"beta1_power", "beta2_power", "lr",
                                             "beta1",       "beta2",       "epsilon"};
};
struct RMSProp {
  static constexpr Optimizer kOptimizer = Optimizer::kRMSProp;
  static constexpr const char* kVariables[] = {"var", "ms", "mom"};
  static constexpr const char* kScalars[] = {"lr", "rho", "momentum", "epsilon"};
};

// Inputs: the variables, then the scalars and the gradient in TensorFlow's order (Momentum has the
// gradient between lr and momentum, the others last).
template <typename Op>
class ApplyKernel : public sdk::Kernel {
 public:
  static constexpr int kNumVariables = static_cast<int>(std::size(Op::kVariables));
  static constexpr int kNumScalars = static_cast<int>(std::size(Op::kScalars));

  explicit ApplyKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("use_nesterov")) ctx.SetStatus(ctx.GetAttr("use_nesterov", &nesterov_));
  }

  Status Compute(KernelContext& ctx) override {
    OptimizerArgs args;
    TensorView first;
    for (int k = 0; k < kNumVariables; ++k) {
      TensorView variable;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(k, &variable));
      if (k == 0) first = variable;
      if (variable.shape() != first.shape()) {
        return sdk::InvalidArgument(Op::kVariables[0], " and ", Op::kVariables[k],
                                    " do not have the same shape", first.shape().DebugString(),
                                    " ", variable.shape().DebugString(), " (node '",
                                    ctx.node_name(), "')");
      }
      args.variables[k] = variable.raw_data();
    }
    const int grad_index = Op::kOptimizer == Optimizer::kMomentum ? kNumVariables + 1
                                                                   : kNumVariables + kNumScalars;
    int scalar = 0;
    TensorView grad;
    for (int i = kNumVariables; i < ctx.num_inputs(); ++i) {
      TensorView view;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &view));
      if (i == grad_index) {
        grad = view;
        continue;
      }
      if (view.rank() != 0) {
        return sdk::InvalidArgument(Op::kScalars[scalar],
                                    " is not a scalar: ", view.shape().DebugString());
      }
      args.scalars[scalar++] = view.raw_data();
    }
    if (grad.shape() != first.shape()) {
      return sdk::InvalidArgument("var and grad do not have the same shape",
                                  first.shape().DebugString(), " ", grad.shape().DebugString(),
                                  " (node '", ctx.node_name(), "')");
    }
    args.grad = grad.raw_data();
    args.n = first.num_elements();
    args.nesterov = nesterov_;
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(first.dtype(), "the variable", &type));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchApply(Op::kOptimizer, type, args, NativeStream(ctx.stream())), ctx);
  }

 private:
  bool nesterov_ = false;
};

template <typename Op>
Status RegisterApply(TSR_Registrar* registrar, const std::string& name) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ApplyKernel<Op>>(
      registrar, ("Apply" + name).c_str(), kDeviceType, {{"T", FloatingTypes()}}));
  return sdk::RegisterKernel<ApplyKernel<Op>>(registrar, ("ResourceApply" + name).c_str(),
                                              kDeviceType, {{"T", FloatingTypes()}});
}

}  // namespace

Status RegisterTrainingKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<true>>(
      registrar, "AssignAdd", kDeviceType, {{"T", NumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<false>>(
      registrar, "AssignSub", kDeviceType, {{"T", NumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<true>>(
      registrar, "AssignAddVariableOp", kDeviceType, {{"dtype", NumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<false>>(
      registrar, "AssignSubVariableOp", kDeviceType, {{"dtype", NumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterApply<GradientDescent>(registrar, "GradientDescent"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterApply<Momentum>(registrar, "Momentum"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterApply<Adam>(registrar, "Adam"));
  return RegisterApply<RMSProp>(registrar, "RMSProp");
}

}  // namespace tessera::gpu
