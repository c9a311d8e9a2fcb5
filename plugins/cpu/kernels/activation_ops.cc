// Element-wise activations and activation gradients on CPU: Elu, Selu, LeakyRelu, Softplus,
// Softsign and ReluGrad, Relu6Grad, LeakyReluGrad, EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad,
// SigmoidGrad, TanhGrad,
// each a plain loop over the host's pool with TensorFlow's formulas.
#include <cmath>
#include <limits>
#include <type_traits>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// SELU's constants (Klambauer et al.): scale and scale * alpha.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

// Reads the float attr `alpha` (LeakyRelu, LeakyReluGrad).
float AlphaAttr(KernelConstruction& ctx) {
  float alpha = 0.2f;
  if (ctx.HasAttr("alpha")) ctx.SetStatus(ctx.GetAttr("alpha", &alpha));
  return alpha;
}

// ---- Forward activations: out = f(features). ----

struct EluFn {
  template <typename T>
  T operator()(T x) const {
    return x < T(0) ? std::expm1(x) : x;
  }
};
struct SeluFn {
  template <typename T>
  T operator()(T x) const {
    return x < T(0) ? static_cast<T>(kSeluScaleAlpha) * std::expm1(x)
                    : static_cast<T>(kSeluScale) * x;
  }
};
struct LeakyReluFn {
  explicit LeakyReluFn(KernelConstruction& ctx) : alpha(AlphaAttr(ctx)) {}
  template <typename T>
  T operator()(T x) const {
    // alpha may be above 1 or negative, so this is a select rather than max(x, alpha * x).
    return x > T(0) ? x : x * static_cast<T>(alpha);
  }
  float alpha;
};
// log(1 + exp(x)) without overflow: x itself above -threshold, exp(x) below threshold, where
// threshold = log(epsilon) + 2 makes either approximation exact to the type's precision.
struct SoftplusFn {
  template <typename T>
  T operator()(T x) const {
    static const T threshold = std::log(std::numeric_limits<T>::epsilon()) + T(2);
    if (x > -threshold) return x;
    if (x < threshold) return std::exp(x);
    return std::log1p(std::exp(x));
  }
};

// x / (1 + |x|), evaluated as written, as TensorFlow does: an infinity gives NaN (inf / inf).
struct SoftsignFn {
  template <typename T>
  T operator()(T x) const {
    return x / (std::abs(x) + T(1));
  }
};

// ---- Gradients: out = f(a, b) for the op's two inputs in order. ----

// ReluGrad(gradients, features): TensorFlow multiplies, so a NaN gradient stays NaN.
struct ReluGradFn {
  template <typename T>
  T operator()(T g, T features) const {
    return g * static_cast<T>(features > T(0));
  }
};
struct Relu6GradFn {
  template <typename T>
  T operator()(T g, T features) const {
    return g * static_cast<T>(features > T(0) && features < T(6));
  }
};
struct LeakyReluGradFn {
  explicit LeakyReluGradFn(KernelConstruction& ctx) : alpha(AlphaAttr(ctx)) {}
  template <typename T>
  T operator()(T g, T features) const {
    return features > T(0) ? g : g * static_cast<T>(alpha);
  }
  float alpha;
};
// EluGrad(gradients, outputs): for x < 0, d/dx expm1(x) = exp(x) = outputs + 1.
struct EluGradFn {
  template <typename T>
  T operator()(T g, T outputs) const {
    return outputs < T(0) ? g * (outputs + T(1)) : g;
  }
};
struct SeluGradFn {
  template <typename T>
  T operator()(T g, T outputs) const {
    return outputs < T(0) ? g * (outputs + static_cast<T>(kSeluScaleAlpha))
                          : g * static_cast<T>(kSeluScale);
  }
};
// SoftplusGrad(gradients, features) = gradients * sigmoid(features).
struct SoftplusGradFn {
  template <typename T>
  T operator()(T g, T features) const {
    return g / (std::exp(-features) + T(1));
  }
};
// SoftsignGrad(gradients, features) = gradients / (1 + |features|)^2.
struct SoftsignGradFn {
  template <typename T>
  T operator()(T g, T features) const {
    const T d = std::abs(features) + T(1);
    return g / (d * d);
  }
};
// SigmoidGrad(y, dy) = dy * y * (1 - y); TanhGrad(y, dy) = dy * (1 - y * y).
struct SigmoidGradFn {
  template <typename T>
  T operator()(T y, T dy) const {
    return dy * y * (T(1) - y);
  }
};
struct TanhGradFn {
  template <typename T>
  T operator()(T y, T dy) const {
    return dy * (T(1) - y * y);
  }
};

template <typename Fn>
Fn MakeFn(KernelConstruction& ctx) {
  if constexpr (std::is_constructible_v<Fn, KernelConstruction&>) {
    return Fn(ctx);
  } else {
    return Fn();
  }
}

// Cycles per element handed to ParallelFor: transcendental functions cost more.
constexpr int64_t kCheapCost = 4;
constexpr int64_t kExpCost = 40;

template <typename Fn, int64_t kCost, typename... Ts>
class ActivationKernel : public sdk::Kernel {
 public:
  explicit ActivationKernel(KernelConstruction& ctx) : fn_(MakeFn<Fn>(ctx)) {}

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &out));
    return DispatchTypes<Ts...>(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<const T>();
      T* o = out.data<T>();
      ctx.ParallelFor(out.num_elements(), kCost, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = fn_(in[i]);
      });
      return OkStatus();
    });
  }

 private:
  const Fn fn_;
};

// What the two inputs must share (TensorFlow's checks and messages): the activation gradients
// require equal shapes, SigmoidGrad and TanhGrad only equal element counts.
enum class SizeRule { kSameShape, kSameCount };

template <typename Fn, int64_t kCost, SizeRule kRule, typename... Ts>
class ActivationGradKernel : public sdk::Kernel {
 public:
  explicit ActivationGradKernel(KernelConstruction& ctx) : fn_(MakeFn<Fn>(ctx)) {}

  Status Compute(KernelContext& ctx) override {
    TensorView a;
    TensorView b;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &a));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &b));
    if constexpr (kRule == SizeRule::kSameShape) {
      if (a.shape() != b.shape()) {
        return sdk::InvalidArgument("g and a must be the same size");
      }
    } else if (a.num_elements() != b.num_elements()) {
      return sdk::InvalidArgument(
          "The two arguments to a cwise op must have same number of elements, got ",
          a.num_elements(), " and ", b.num_elements());
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0, 1}, 0, a.shape(), &out));
    return DispatchTypes<Ts...>(ctx, a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* ap = a.data<const T>();
      const T* bp = b.data<const T>();
      T* o = out.data<T>();
      ctx.ParallelFor(out.num_elements(), kCost, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = fn_(ap[i], bp[i]);
      });
      return OkStatus();
    });
  }

 private:
  const Fn fn_;
};

template <typename Fn, int64_t kCost>
Status RegisterFloating(TSR_Registrar* registrar, const char* op) {
  return sdk::RegisterKernel<ActivationKernel<Fn, kCost, float, double>>(
      registrar, op, kCpu, {{"T", FloatingTypes()}}, TSR_KERNEL_FLAG_CHEAP);
}

template <typename Fn, int64_t kCost, SizeRule kRule = SizeRule::kSameShape>
Status RegisterFloatingGrad(TSR_Registrar* registrar, const char* op) {
  return sdk::RegisterKernel<ActivationGradKernel<Fn, kCost, kRule, float, double>>(
      registrar, op, kCpu, {{"T", FloatingTypes()}}, TSR_KERNEL_FLAG_CHEAP);
}

template <typename Fn>
Status RegisterRealGrad(TSR_Registrar* registrar, const char* op) {
  return sdk::RegisterKernel<
      ActivationGradKernel<Fn, kCheapCost, SizeRule::kSameShape, float, double, int32_t, int64_t>>(
      registrar, op, kCpu, {{"T", RealNumberTypes()}}, TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace

Status RegisterActivationKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloating<EluFn, kExpCost>(registrar, "Elu")));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloating<SeluFn, kExpCost>(registrar, "Selu")));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloating<LeakyReluFn, kCheapCost>(registrar, "LeakyRelu")));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloating<SoftplusFn, kExpCost>(registrar, "Softplus")));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloating<SoftsignFn, kCheapCost>(registrar, "Softsign")));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterRealGrad<ReluGradFn>(registrar, "ReluGrad"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterRealGrad<Relu6GradFn>(registrar, "Relu6Grad"));
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterFloatingGrad<LeakyReluGradFn, kCheapCost>(registrar, "LeakyReluGrad")));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloatingGrad<EluGradFn, kCheapCost>(registrar, "EluGrad")));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloatingGrad<SeluGradFn, kCheapCost>(registrar, "SeluGrad")));
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterFloatingGrad<SoftplusGradFn, kExpCost>(registrar, "SoftplusGrad")));
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterFloatingGrad<SoftsignGradFn, kCheapCost>(registrar, "SoftsignGrad")));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterFloatingGrad<SigmoidGradFn, kCheapCost, SizeRule::kSameCount>(
      registrar, "SigmoidGrad")));
  return RegisterFloatingGrad<TanhGradFn, kCheapCost, SizeRule::kSameCount>(registrar, "TanhGrad");
}

}  // namespace tessera::cpu
