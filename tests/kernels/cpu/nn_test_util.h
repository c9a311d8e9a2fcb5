// Helpers of the neural-network kernel tests: tensors to and from double vectors, NHWC/NCHW
// indexing, running an op for several outputs, and central-difference gradients of reference
// functions (the numeric check of the gradient kernels).
#ifndef TESSERA_TESTS_KERNELS_CPU_NN_TEST_UTIL_H_
#define TESSERA_TESTS_KERNELS_CPU_NN_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {

// The values of a float or double tensor, as doubles.
inline std::vector<double> Values(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.NumElements()));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out[i] = t.dtype() == TSR_DTYPE_FLOAT ? double(t.data<float>()[i]) : t.data<double>()[i];
  }
  return out;
}

// A tensor of T with `values`.
template <typename T>
Tensor FromValues(const TensorShape& shape, const std::vector<double>& values) {
  Tensor t(DataTypeOf<T>::value, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(values[i]);
  return t;
}

// Runs `tester` and returns its first `n` outputs (empty on failure, after a test failure).
inline std::vector<Tensor> RunAll(OpTester& tester, int n) {
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(n);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  return *std::move(outputs);
}

// Element-wise comparison of a float or double tensor with expected doubles.
inline void ExpectValuesNear(const Tensor& actual, const TensorShape& shape,
                             const std::vector<double>& expected, double tolerance) {
  if (actual.dtype() == TSR_DTYPE_FLOAT) {
    ExpectTensorNear<float>(actual, TSR_DTYPE_FLOAT, shape,
                            std::vector<float>(expected.begin(), expected.end()), tolerance);
  } else {
    ExpectTensorNear<double>(actual, TSR_DTYPE_DOUBLE, shape, expected, tolerance);
  }
}

// The offset of element (n, h, w, c) of a 4-D tensor with `dims` laid out as NHWC or NCHW.
struct Layout4 {
  Layout4(const TensorShape& shape, bool nchw) : nchw(nchw) {
    batch = shape.dim(0);
    rows = shape.dim(nchw ? 2 : 1);
    cols = shape.dim(nchw ? 3 : 2);
    depth = shape.dim(nchw ? 1 : 3);
  }
  int64_t At(int64_t n, int64_t h, int64_t w, int64_t c) const {
    return nchw ? ((n * depth + c) * rows + h) * cols + w : ((n * rows + h) * cols + w) * depth + c;
  }
  bool nchw;
  int64_t batch, rows, cols, depth;
};

inline TensorShape Shape4(bool nchw, int64_t n, int64_t h, int64_t w, int64_t c) {
  return nchw ? TensorShape({n, c, h, w}) : TensorShape({n, h, w, c});
}

// d f / d x by central differences at `x`, one coordinate at a time.
inline std::vector<double> NumericGradient(
    const std::function<double(const std::vector<double>&)>& f, std::vector<double> x,
    double step = 1e-6) {
  std::vector<double> gradient(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double saved = x[i];
    x[i] = saved + step;
    const double up = f(x);
    x[i] = saved - step;
    const double down = f(x);
    x[i] = saved;
    gradient[i] = (up - down) / (2 * step);
  }
  return gradient;
}

// sum(weights * f(x)): a scalar whose gradient with respect to x is the vector-Jacobian product
// a gradient kernel computes for upstream gradient `weights`.
inline std::function<double(const std::vector<double>&)> Weighted(
    std::function<std::vector<double>(const std::vector<double>&)> f, std::vector<double> weights) {
  return [f = std::move(f), weights = std::move(weights)](const std::vector<double>& x) {
    const std::vector<double> y = f(x);
    double sum = 0;
    for (size_t i = 0; i < y.size(); ++i) sum += weights[i] * y[i];
    return sum;
  };
}

// Uniform doubles in [lo, hi].
inline std::vector<double> RandomValues(int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& v : out) v = dist(Rng());
  return out;
}

}  // namespace tessera::cpu::test

#endif  // TESSERA_TESTS_KERNELS_CPU_NN_TEST_UTIL_H_
