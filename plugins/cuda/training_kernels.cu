// The variables' in-place updates: one grid-stride kernel per optimizer, and AssignAdd/AssignSub.
#include <cmath>

#include "plugins/cuda/elementwise_common.cuh"
#include "plugins/cuda/training_kernels.h"

namespace tessera::gpu {
namespace {

template <typename T>
__device__ inline float Scalar(const void* p) {
  return static_cast<float>(Traits<T>::Load(*static_cast<const T*>(p)));
}

template <Optimizer OP, typename T>
__global__ void ApplyKernel(OptimizerArgs a) {
  using Tr = Traits<T>;
  T* var = static_cast<T*>(a.variables[0]);
  T* slot1 = static_cast<T*>(a.variables[1]);
  T* slot2 = static_cast<T*>(a.variables[2]);
  const T* grad = static_cast<const T*>(a.grad);
  float s[6];
  for (int k = 0; k < 6; ++k) s[k] = a.scalars[k] == nullptr ? 0.0f : Scalar<T>(a.scalars[k]);
  TESSERA_GPU_GRID_LOOP(i, a.n) {
    const float g = static_cast<float>(Tr::Load(grad[i]));
    float v = static_cast<float>(Tr::Load(var[i]));
    if constexpr (OP == Optimizer::kGradientDescent) {
      v -= s[0] * g;
    } else if constexpr (OP == Optimizer::kMomentum) {
      const float lr = s[0];
      const float momentum = s[1];
      const float accum = static_cast<float>(Tr::Load(slot1[i])) * momentum + g;
      slot1[i] = Tr::Store(accum);
      v -= a.nesterov ? g * lr + accum * momentum * lr : lr * accum;
    } else if constexpr (OP == Optimizer::kAdam) {
      const float beta1 = s[3];
      const float beta2 = s[4];
      const float epsilon = s[5];
      const float lr_t = s[2] * sqrtf(1.0f - s[1]) / (1.0f - s[0]);
      float m = static_cast<float>(Tr::Load(slot1[i]));
      float second = static_cast<float>(Tr::Load(slot2[i]));
      m += (g - m) * (1.0f - beta1);
      second += (g * g - second) * (1.0f - beta2);
      slot1[i] = Tr::Store(m);
      slot2[i] = Tr::Store(second);
      const float direction = a.nesterov ? g * (1.0f - beta1) + beta1 * m : m;
      v -= direction * lr_t / (sqrtf(second) + epsilon);
    } else {
      static_assert(OP == Optimizer::kRMSProp);
      const float lr = s[0];
      const float rho = s[1];
      const float momentum = s[2];
      const float epsilon = s[3];
      float ms = static_cast<float>(Tr::Load(slot1[i]));
      ms += (g * g - ms) * (1.0f - rho);
      const float mom = static_cast<float>(Tr::Load(slot2[i])) * momentum +
                        lr * g / sqrtf(ms + epsilon);
      slot1[i] = Tr::Store(ms);
      slot2[i] = Tr::Store(mom);
      v -= mom;
    }
    var[i] = Tr::Store(v);
  }
}

template <bool kAdd, typename T>
__global__ void AssignUpdateKernel(T* variable, const T* value, int64_t n) {
  using Tr = Traits<T>;
  TESSERA_GPU_GRID_LOOP(i, n) {
    const auto a = Tr::Load(variable[i]);
    const auto b = Tr::Load(value[i]);
    variable[i] = Tr::Store(kAdd ? Wrapping(a, b, [](auto p, auto q) { return p + q; })
                                 : Wrapping(a, b, [](auto p, auto q) { return p - q; }));
  }
}

template <Optimizer OP>
gpuError_t LaunchOptimizer(ElementType type, const OptimizerArgs& args, gpuStream_t stream) {
  return DispatchType</*kWithBool=*/false>(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      return gpuErrorInvalidValue;
    } else {
      return Launch(ApplyKernel<OP, T>, BlocksFor(args.n), kThreadsPerBlock, stream, args);
    }
  });
}

}  // namespace

gpuError_t LaunchApply(Optimizer optimizer, ElementType type, const OptimizerArgs& args,
                       gpuStream_t stream) {
  if (args.n == 0) return gpuSuccess;
  switch (optimizer) {
    case Optimizer::kGradientDescent:
      return LaunchOptimizer<Optimizer::kGradientDescent>(type, args, stream);
    case Optimizer::kMomentum:
      return LaunchOptimizer<Optimizer::kMomentum>(type, args, stream);
    case Optimizer::kAdam:
      return LaunchOptimizer<Optimizer::kAdam>(type, args, stream);
    case Optimizer::kRMSProp:
      return LaunchOptimizer<Optimizer::kRMSProp>(type, args, stream);
  }
  return gpuErrorInvalidValue;
}

gpuError_t LaunchAssignUpdate(bool add, ElementType type, void* variable, const void* value,
                              int64_t n, gpuStream_t stream) {
  if (n == 0) return gpuSuccess;
  return DispatchType</*kWithBool=*/false>(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    auto* var = static_cast<T*>(variable);
    const auto* in = static_cast<const T*>(value);
    return add ? Launch(AssignUpdateKernel<true, T>, BlocksFor(n), kThreadsPerBlock, stream, var,
                        in, n)
               : Launch(AssignUpdateKernel<false, T>, BlocksFor(n), kThreadsPerBlock, stream, var,
                        in, n);
  });
}

}  // namespace tessera::gpu
