// Launchers of the variable-update device kernels (training_kernels.cu, shared by CUDA and HIP):
// the optimizers' in-place updates and AssignAdd/AssignSub. Scalar hyper-parameters stay in device
// memory; every thread reads them there.
#ifndef TESSERA_PLUGINS_CUDA_TRAINING_KERNELS_H_
#define TESSERA_PLUGINS_CUDA_TRAINING_KERNELS_H_

#include <cstdint>

#include "plugins/cuda/elementwise_kernels.h"
#include "plugins/cuda/gpu_runtime.h"

namespace tessera::gpu {

// TensorFlow's optimizers, with their variables and scalars in the ops' input order:
//   kGradientDescent: var; alpha.                        var -= alpha * grad
//   kMomentum:        var, accum; lr, momentum.           accum = accum * momentum + grad;
//                     var -= lr * accum (nesterov: grad * lr + accum * momentum * lr)
//   kAdam:            var, m, v; beta1_power, beta2_power, lr, beta1, beta2, epsilon.
//                     lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power);
//                     m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2);
//                     var -= lr_t * (nesterov ? grad * (1 - beta1) + beta1 * m : m) /
//                            (sqrt(v) + epsilon)
//   kRMSProp:         var, ms, mom; lr, rho, momentum, epsilon.
//                     ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad /
//                     sqrt(ms + epsilon); var -= mom
enum class Optimizer : int32_t { kGradientDescent, kMomentum, kAdam, kRMSProp };

struct OptimizerArgs {
  void* variables[3] = {};        // device memory, n elements each
  const void* scalars[6] = {};    // device memory, one element each
  const void* grad = nullptr;     // n elements
  int64_t n = 0;
  bool nesterov = false;
};

// float, half or bfloat16 (computing in float).
gpuError_t LaunchApply(Optimizer optimizer, ElementType type, const OptimizerArgs& args,
                       gpuStream_t stream);

// variable += value (add) or -= value, n elements; integers wrap.
gpuError_t LaunchAssignUpdate(bool add, ElementType type, void* variable, const void* value,
                              int64_t n, gpuStream_t stream);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_TRAINING_KERNELS_H_
