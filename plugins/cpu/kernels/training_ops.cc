// Variable updates on CPU: AssignAdd/AssignSub (ref and resource forms) and the optimizers'
// ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyRMSProp with their Resource* forms. The
// host hands each variable in as its own storage (locked as use_locking asks) and forwards the
// ref output itself; these kernels only update the storage in place.
#include <cmath>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

constexpr int64_t kUpdateCost = 20;  // cycles per element, for sharding

Status CheckSameShape(const KernelContext& ctx, const char* a_name, const TensorView& a,
                      const char* b_name, const TensorView& b) {
  if (a.shape() != b.shape()) {
    return sdk::InvalidArgument(a_name, " and ", b_name, " do not have the same shape",
                                a.shape().DebugString(), " ", b.shape().DebugString(), " (node '",
                                ctx.node_name(), "')");
  }
  return OkStatus();
}

// AssignAdd, AssignSub, AssignAddVariableOp, AssignSubVariableOp: variable (input 0) += or -=
// value (input 1), shapes equal.
template <bool kAdd>
class AssignUpdateKernel : public sdk::Kernel {
 public:
  explicit AssignUpdateKernel(KernelConstruction&) {}

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
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, variable.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = variable.data<T>();
      const T* in = value.data<const T>();
      ctx.ParallelFor(variable.num_elements(), kUpdateCost, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = kAdd ? out[i] + in[i] : out[i] - in[i];
      });
      return OkStatus();
    });
  }
};

// The four optimizers: each names its variables and scalar hyper-parameters in TensorFlow's
// input order and updates one element at a time.
struct GradientDescent {
  static constexpr const char* kVariables[] = {"var"};
  static constexpr const char* kScalars[] = {"alpha"};
  template <typename T>
  static void Update(T* const* vars, const T* s, T grad, bool, int64_t i) {
    vars[0][i] -= s[0] * grad;
  }
};

struct Momentum {
  static constexpr const char* kVariables[] = {"var", "accum"};
  static constexpr const char* kScalars[] = {"lr", "momentum"};
  template <typename T>
  static void Update(T* const* vars, const T* s, T grad, bool nesterov, int64_t i) {
    const T lr = s[0];
    const T momentum = s[1];
    T& accum = vars[1][i];
    accum = accum * momentum + grad;
    vars[0][i] -= nesterov ? grad * lr + accum * momentum * lr : lr * accum;
  }
};

struct Adam {
  static constexpr const char* kVariables[] = {"var", "m", "v"};
  static constexpr const char* kScalars[] = {"beta1_power", "beta2_power", "lr",
                                             "beta1",       "beta2",       "epsilon"};
  // s[6] is the step size lr * sqrt(1 - beta2^t) / (1 - beta1^t), computed once per call.
  template <typename T>
  static void Update(T* const* vars, const T* s, T grad, bool nesterov, int64_t i) {
    const T beta1 = s[3];
    const T beta2 = s[4];
    const T epsilon = s[5];
    const T lr_t = s[6];
    T& m = vars[1][i];
    T& v = vars[2][i];
    m += (grad - m) * (T(1) - beta1);
    v += (grad * grad - v) * (T(1) - beta2);
    const T direction = nesterov ? grad * (T(1) - beta1) + beta1 * m : m;
    vars[0][i] -= direction * lr_t / (std::sqrt(v) + epsilon);
  }
};

struct RMSProp {
  static constexpr const char* kVariables[] = {"var", "ms", "mom"};
  static constexpr const char* kScalars[] = {"lr", "rho", "momentum", "epsilon"};
  template <typename T>
  static void Update(T* const* vars, const T* s, T grad, bool, int64_t i) {
    const T lr = s[0];
    const T rho = s[1];
    const T momentum = s[2];
    const T epsilon = s[3];
    T& ms = vars[1][i];
    T& mom = vars[2][i];
    ms += (grad * grad - ms) * (T(1) - rho);
    mom = mom * momentum + lr * grad / std::sqrt(ms + epsilon);
    vars[0][i] -= mom;
  }
};

// Inputs: the variables, then the scalars and the gradient in TensorFlow's order (the gradient
// is `delta` for GradientDescent and otherwise named `grad`; Momentum has it between lr and
// momentum, Adam and RMSProp last).
template <typename Op>
class ApplyKernel : public sdk::Kernel {
 public:
  static constexpr int kNumVariables = std::size(Op::kVariables);
  static constexpr int kNumScalars = std::size(Op::kScalars);

  explicit ApplyKernel(KernelConstruction& ctx) {
    // use_nesterov exists on Momentum and Adam only.
    TSR_AttrValue probe{};
    probe.struct_size = sizeof(probe);
    if (ctx.GetAttrValue("use_nesterov", &probe).ok()) {
      ctx.SetStatus(ctx.GetAttr("use_nesterov", &nesterov_));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView vars[kNumVariables];
    for (int k = 0; k < kNumVariables; ++k) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(k, &vars[k]));
      if (k > 0) {
        TESSERA_SDK_RETURN_IF_ERROR(
            CheckSameShape(ctx, Op::kVariables[0], vars[0], Op::kVariables[k], vars[k]));
      }
    }
    // The remaining inputs: scalars in order, with the gradient at GradIndex().
    TensorView scalars[kNumScalars];
    TensorView grad;
    int scalar = 0;
    for (int i = kNumVariables; i < ctx.num_inputs(); ++i) {
      TensorView view;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &view));
      if (i == GradIndex()) {
        grad = view;
        continue;
      }
      if (view.rank() != 0) {
        return sdk::InvalidArgument(Op::kScalars[scalar],
                                    " is not a scalar: ", view.shape().DebugString());
      }
      scalars[scalar++] = view;
    }
    TESSERA_SDK_RETURN_IF_ERROR(CheckSameShape(ctx, "var", vars[0], "grad", grad));
    return DispatchTypes<float, double>(ctx, vars[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* var_data[kNumVariables];
      for (int k = 0; k < kNumVariables; ++k) var_data[k] = vars[k].template data<T>();
      T s[kNumScalars + 1];
      for (int k = 0; k < kNumScalars; ++k) s[k] = *scalars[k].template data<const T>();
      if constexpr (std::is_same_v<Op, Adam>) {
        s[kNumScalars] = s[2] * std::sqrt(T(1) - s[1]) / (T(1) - s[0]);
      }
      const T* g = grad.template data<const T>();
      const bool nesterov = nesterov_;
      ctx.ParallelFor(vars[0].num_elements(), kUpdateCost, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) Op::Update(var_data, s, g[i], nesterov, i);
      });
      return OkStatus();
    });
  }

 private:
  static int GradIndex() {
    if constexpr (std::is_same_v<Op, Momentum>) return kNumVariables + 1;  // lr, grad, momentum
    return kNumVariables + kNumScalars;                                    // last
  }

  bool nesterov_ = false;
};

template <typename Op>
Status RegisterApply(TSR_Registrar* registrar, const std::string& name) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ApplyKernel<Op>>(registrar, ("Apply" + name).c_str(),
                                                               kCpu, {{"T", FloatingTypes()}}));
  return sdk::RegisterKernel<ApplyKernel<Op>>(registrar, ("ResourceApply" + name).c_str(), kCpu,
                                              {{"T", FloatingTypes()}});
}

}  // namespace

Status RegisterTrainingKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<true>>(
      registrar, "AssignAdd", kCpu, {{"T", RealNumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<false>>(
      registrar, "AssignSub", kCpu, {{"T", RealNumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<true>>(
      registrar, "AssignAddVariableOp", kCpu, {{"dtype", RealNumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AssignUpdateKernel<false>>(
      registrar, "AssignSubVariableOp", kCpu, {{"dtype", RealNumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterApply<GradientDescent>(registrar, "GradientDescent"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterApply<Momentum>(registrar, "Momentum"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterApply<Adam>(registrar, "Adam"));
  return RegisterApply<RMSProp>(registrar, "RMSProp");
}

}  // namespace tessera::cpu
