// The variable-update GPU kernels (training_kernels.cu) on the CPU emulation against TensorFlow's
// update formulas, step after step.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cuda/training_kernels.h"

namespace tessera::gpu {
namespace {

constexpr int64_t kN = 100;

std::vector<float> Ramp(float start, float step) {
  std::vector<float> v(kN);
  for (int64_t i = 0; i < kN; ++i) v[i] = start + step * static_cast<float>(i % 17);
  return v;
}

TEST(EmulatedTrainingKernelsTest, OptimizersFollowTensorFlowsFormulas) {
  for (bool nesterov : {false, true}) {
    std::vector<float> var = Ramp(1.0f, 0.1f);
    std::vector<float> slot1(kN, 0.0f);
    std::vector<float> slot2(kN, 0.0f);
    std::vector<double> ref_var(var.begin(), var.end());
    std::vector<double> ref1(kN, 0.0);
    std::vector<double> ref2(kN, 0.0);
    const std::vector<float> grad = Ramp(-0.5f, 0.07f);
    // Adam for three steps, with beta powers as the optimizer advances them.
    const float lr = 0.01f;
    const float beta1 = 0.9f;
    const float beta2 = 0.999f;
    const float epsilon = 1e-7f;
    for (int step = 1; step <= 3; ++step) {
      const float beta1_power = std::pow(beta1, static_cast<float>(step));
      const float beta2_power = std::pow(beta2, static_cast<float>(step));
      OptimizerArgs args;
      args.variables[0] = var.data();
      args.variables[1] = slot1.data();
      args.variables[2] = slot2.data();
      const float scalars[6] = {beta1_power, beta2_power, lr, beta1, beta2, epsilon};
      for (int k = 0; k < 6; ++k) args.scalars[k] = &scalars[k];
      args.grad = grad.data();
      args.n = kN;
      args.nesterov = nesterov;
      ASSERT_EQ(LaunchApply(Optimizer::kAdam, ElementType::kFloat, args, nullptr), gpuSuccess);
      const double lr_t = lr * std::sqrt(1.0 - beta2_power) / (1.0 - beta1_power);
      for (int64_t i = 0; i < kN; ++i) {
        ref1[i] += (grad[i] - ref1[i]) * (1 - beta1);
        ref2[i] += (static_cast<double>(grad[i]) * grad[i] - ref2[i]) * (1 - beta2);
        const double direction = nesterov ? grad[i] * (1 - beta1) + beta1 * ref1[i] : ref1[i];
        ref_var[i] -= lr_t * direction / (std::sqrt(ref2[i]) + epsilon);
      }
    }
    for (int64_t i = 0; i < kN; ++i) {
      EXPECT_NEAR(var[i], ref_var[i], 1e-5) << "nesterov " << nesterov << " at " << i;
      EXPECT_NEAR(slot1[i], ref1[i], 1e-6);
      EXPECT_NEAR(slot2[i], ref2[i], 1e-7);
    }
  }
}

TEST(EmulatedTrainingKernelsTest, GradientDescentMomentumAndRMSProp) {
  const std::vector<float> grad = Ramp(-1.0f, 0.13f);
  // GradientDescent.
  std::vector<float> var = Ramp(2.0f, -0.2f);
  const std::vector<float> start = var;
  const float alpha = 0.5f;
  OptimizerArgs sgd;
  sgd.variables[0] = var.data();
  sgd.scalars[0] = &alpha;
  sgd.grad = grad.data();
  sgd.n = kN;
  ASSERT_EQ(LaunchApply(Optimizer::kGradientDescent, ElementType::kFloat, sgd, nullptr),
            gpuSuccess);
  for (int64_t i = 0; i < kN; ++i) EXPECT_FLOAT_EQ(var[i], start[i] - alpha * grad[i]);
  // Momentum, Nesterov or not, two steps.
  for (bool nesterov : {false, true}) {
    std::vector<float> v = start;
    std::vector<float> accum(kN, 0.25f);
    std::vector<double> ref_v(start.begin(), start.end());
    std::vector<double> ref_accum(kN, 0.25);
    const float scalars[2] = {0.1f, 0.9f};  // lr, momentum
    for (int step = 0; step < 2; ++step) {
      OptimizerArgs args;
      args.variables[0] = v.data();
      args.variables[1] = accum.data();
      args.scalars[0] = &scalars[0];
      args.scalars[1] = &scalars[1];
      args.grad = grad.data();
      args.n = kN;
      args.nesterov = nesterov;
      ASSERT_EQ(LaunchApply(Optimizer::kMomentum, ElementType::kFloat, args, nullptr), gpuSuccess);
      for (int64_t i = 0; i < kN; ++i) {
        ref_accum[i] = ref_accum[i] * 0.9 + grad[i];
        ref_v[i] -= nesterov ? grad[i] * 0.1 + ref_accum[i] * 0.9 * 0.1 : 0.1 * ref_accum[i];
      }
    }
    for (int64_t i = 0; i < kN; ++i) {
      EXPECT_NEAR(v[i], ref_v[i], 1e-5) << "nesterov " << nesterov << " at " << i;
      EXPECT_NEAR(accum[i], ref_accum[i], 1e-5);
    }
  }
  // RMSProp.
  std::vector<float> v = start;
  std::vector<float> ms(kN, 1.0f);
  std::vector<float> mom(kN, 0.0f);
  const float scalars[4] = {0.01f, 0.9f, 0.5f, 1e-6f};  // lr, rho, momentum, epsilon
  OptimizerArgs rms;
  rms.variables[0] = v.data();
  rms.variables[1] = ms.data();
  rms.variables[2] = mom.data();
  for (int k = 0; k < 4; ++k) rms.scalars[k] = &scalars[k];
  rms.grad = grad.data();
  rms.n = kN;
  ASSERT_EQ(LaunchApply(Optimizer::kRMSProp, ElementType::kFloat, rms, nullptr), gpuSuccess);
  for (int64_t i = 0; i < kN; ++i) {
    const double ref_ms = 1.0 + (static_cast<double>(grad[i]) * grad[i] - 1.0) * (1 - 0.9);
    const double ref_mom = 0.01 * grad[i] / std::sqrt(ref_ms + 1e-6);
    EXPECT_NEAR(ms[i], ref_ms, 1e-6);
    EXPECT_NEAR(mom[i], ref_mom, 1e-7);
    EXPECT_NEAR(v[i], start[i] - ref_mom, 1e-6);
  }
  // Integer variables have no optimizer kernels.
  EXPECT_EQ(LaunchApply(Optimizer::kGradientDescent, ElementType::kInt32, sgd, nullptr),
            gpuErrorInvalidValue);
}

TEST(EmulatedTrainingKernelsTest, AssignAddAndSubWrapIntegers) {
  std::vector<int32_t> counter = {std::numeric_limits<int32_t>::max(), 5, -5};
  const std::vector<int32_t> one = {1, 1, 1};
  ASSERT_EQ(LaunchAssignUpdate(true, ElementType::kInt32, counter.data(), one.data(), 3, nullptr),
            gpuSuccess);
  EXPECT_EQ(counter, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 6, -4}));
  std::vector<float> values = {1.5f, -2.0f};
  const std::vector<float> delta = {0.5f, 0.25f};
  ASSERT_EQ(LaunchAssignUpdate(false, ElementType::kFloat, values.data(), delta.data(), 2, nullptr),
            gpuSuccess);
  EXPECT_EQ(values, (std::vector<float>{1.0f, -2.25f}));
}

}  // namespace
}  // namespace tessera::gpu
