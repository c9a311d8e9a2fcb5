// Shared by the binary kernel tests: broadcasting shape pairs (scalars, size-1 dimensions, empty
// tensors, large tensors) and a check of one op against a reference function over all of them.
#ifndef TESSERA_TESTS_KERNELS_CPU_BINARY_TEST_UTIL_H_
#define TESSERA_TESTS_KERNELS_CPU_BINARY_TEST_UTIL_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {

inline const std::vector<std::pair<TensorShape, TensorShape>>& BroadcastShapePairs() {
  static const auto* pairs = new std::vector<std::pair<TensorShape, TensorShape>>{
      {Shape({}), Shape({})},
      {Shape({5}), Shape({5})},
      {Shape({}), Shape({4})},
      {Shape({2, 3}), Shape({3})},
      {Shape({2, 3}), Shape({2, 1})},
      {Shape({2, 1}), Shape({1, 3})},
      {Shape({3, 1, 4}), Shape({2, 1})},
      {Shape({1, 1}), Shape({1})},
      {Shape({2, 3, 4, 5}), Shape({3, 1, 5})},
      {Shape({0}), Shape({1})},
      {Shape({0, 3}), Shape({3})},
      {Shape({2, 0}), Shape({})},
      {Shape({300, 257}), Shape({257})},
      {Shape({129, 1}), Shape({1, 65})},
      {Shape({10000}), Shape({10000})},
  };
  return *pairs;
}

// Values for the right operand: uniform in [lo, hi], with `avoid` replaced by `avoid` + 1 (to
// keep integer divisors away from zero).
template <typename T>
Tensor RandomAvoiding(const TensorShape& shape, double lo, double hi, std::optional<T> avoid) {
  Tensor t = Random<T>(shape, lo, hi);
  if (avoid.has_value()) {
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if (t.data<T>()[i] == *avoid) t.data<T>()[i] = static_cast<T>(*avoid + 1);
    }
  }
  return t;
}

struct OperandRanges {
  double x_lo = -50;
  double x_hi = 50;
  double y_lo = -50;
  double y_hi = 50;
};

// Runs `op` on random operands for every shape pair (each way round) and compares with
// reference(x, y) element by element.
template <typename T>
void CheckBinaryOp(const std::string& op, const std::function<T(T, T)>& reference,
                   const OperandRanges& ranges, std::optional<T> avoid_y = std::nullopt,
                   double tolerance = 1e-5) {
  for (const auto& [first, second] : BroadcastShapePairs()) {
    for (bool swap : {false, true}) {
      const TensorShape& xs = swap ? second : first;
      const TensorShape& ys = swap ? first : second;
      SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + xs.DebugString() +
                   " vs " + ys.DebugString());
      Tensor x = Random<T>(xs, ranges.x_lo, ranges.x_hi);
      Tensor y = RandomAvoiding<T>(ys, ranges.y_lo, ranges.y_hi, avoid_y);
      const TensorShape out_shape = BroadcastShape(xs, ys);
      std::vector<T> expected(static_cast<size_t>(out_shape.num_elements()));
      for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
        expected[i] = reference(x.data<T>()[BroadcastIndex(out_shape, xs, i)],
                                y.data<T>()[BroadcastIndex(out_shape, ys, i)]);
      }
      OpTester tester(op);
      tester.Attr("T", DataTypeOf<T>::value).Input(x).Input(y);
      ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape, expected, tolerance);
    }
  }
}

// Runs `op` on two explicit vectors (y broadcast when it has one element) and expects `expected`.
template <typename T>
void ExpectBinary(const std::string& op, const std::vector<T>& x, const std::vector<T>& y,
                  const std::vector<T>& expected) {
  SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value));
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value)
      .Input(Make<T>(Shape({static_cast<int64_t>(x.size())}), x))
      .Input(Make<T>(Shape({static_cast<int64_t>(y.size())}), y));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value,
                      Shape({static_cast<int64_t>(expected.size())}), expected);
}

}  // namespace tessera::cpu::test

#endif  // TESSERA_TESTS_KERNELS_CPU_BINARY_TEST_UTIL_H_
