// Helpers shared by the CPU kernel tests: random tensors, numpy-style broadcast indexing for the
// reference loops, comparisons and error assertions over OpTester results.
#ifndef TESSERA_TESTS_KERNELS_CPU_KERNEL_TEST_UTIL_H_
#define TESSERA_TESTS_KERNELS_CPU_KERNEL_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/runtime/tensor.h"
#include "host/testing/op_tester.h"

namespace tessera::cpu::test {

using ::tessera::testing::OpTester;

inline std::mt19937& Rng() {
  static std::mt19937 rng(20240521);
  return rng;
}

// Uniform values in [lo, hi] (integers: inclusive integer range; bool: coin flips).
template <typename T>
Tensor Random(const TensorShape& shape, double lo = -5, double hi = 5) {
  Tensor t(DataTypeOf<T>::value, shape);
  T* data = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      data[i] = Rng()() % 2 == 0;
    } else if constexpr (std::is_integral_v<T>) {
      std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo),
                                                  static_cast<int64_t>(hi));
      data[i] = static_cast<T>(dist(Rng()));
    } else {
      std::uniform_real_distribution<double> dist(lo, hi);
      data[i] = static_cast<T>(dist(Rng()));
    }
  }
  return t;
}

template <typename T>
Tensor Make(const TensorShape& shape, const std::vector<T>& values) {
  Tensor t(DataTypeOf<T>::value, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

inline TensorShape Shape(std::initializer_list<int64_t> dims) { return TensorShape(dims); }

// The linear index into `in` (broadcast against `out`) of output element `out_index`.
inline int64_t BroadcastIndex(const TensorShape& out, const TensorShape& in, int64_t out_index) {
  int64_t in_index = 0;
  int64_t stride = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int64_t coordinate = out_index % out.dim(d);
    out_index /= out.dim(d);
    const int in_d = d - (out.rank() - in.rank());
    if (in_d < 0) continue;
    if (in.dim(in_d) != 1) in_index += coordinate * stride;
    stride *= in.dim(in_d);
  }
  return in_index;
}

// numpy's broadcast shape of two compatible shapes.
inline TensorShape BroadcastShape(const TensorShape& a, const TensorShape& b) {
  const int rank = std::max(a.rank(), b.rank());
  TensorShape out;
  for (int d = 0; d < rank; ++d) {
    const int ad = d - (rank - a.rank());
    const int bd = d - (rank - b.rank());
    const int64_t as = ad >= 0 ? a.dim(ad) : 1;
    const int64_t bs = bd >= 0 ? b.dim(bd) : 1;
    out.AddDim(as == 1 ? bs : as);
  }
  return out;
}

// Element-wise comparison: exact for integers and bool, relative-or-absolute `tolerance`
// otherwise (NaN equals NaN, infinities must match).
template <typename T>
void ExpectTensorNear(const Tensor& actual, DataType dtype, const TensorShape& shape,
                      const std::vector<T>& expected, double tolerance = 1e-5) {
  ASSERT_EQ(actual.dtype(), dtype);
  ASSERT_EQ(actual.shape(), shape)
      << actual.shape().DebugString() << " vs. " << shape.DebugString();
  ASSERT_EQ(static_cast<size_t>(actual.NumElements()), expected.size());
  const T* data = actual.data<T>();
  for (size_t i = 0; i < expected.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      const double a = data[i];
      const double e = expected[i];
      if (std::isnan(e)) {
        EXPECT_TRUE(std::isnan(a)) << "at " << i << ": " << a;
      } else if (std::isinf(e)) {
        EXPECT_EQ(a, e) << "at " << i;
      } else {
        EXPECT_NEAR(a, e, tolerance * std::max(1.0, std::fabs(e))) << "at " << i;
      }
    } else {
      EXPECT_EQ(data[i], expected[i]) << "at " << i;
    }
  }
}

// Runs `tester` and returns output 0, failing the test on error.
inline Tensor RunOk(OpTester& tester, int num_outputs = 1) {
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(num_outputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok() || outputs->empty()) return Tensor();
  return (*outputs)[0];
}

// Runs `tester` and expects it to fail with `code` and a message containing `substring`.
inline void ExpectRunError(OpTester& tester, absl::StatusCode code, const std::string& substring) {
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run();
  ASSERT_FALSE(outputs.ok()) << "expected an error containing '" << substring << "'";
  EXPECT_EQ(outputs.status().code(), code) << outputs.status();
  EXPECT_THAT(std::string(outputs.status().message()), ::testing::HasSubstr(substring));
}

}  // namespace tessera::cpu::test

#endif  // TESSERA_TESTS_KERNELS_CPU_KERNEL_TEST_UTIL_H_
