// Add, AddV2, Sub, Mul, RealDiv, Maximum and Minimum against reference loops, over many
// broadcasting shape pairs (scalars, size-1 dimensions, empty tensors) and every registered type.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<std::pair<TensorShape, TensorShape>>& ShapePairs() {
  static const auto* pairs = new std::vector<std::pair<TensorShape, TensorShape>>{
      {Shape({}), Shape({})},
      {Shape({5}), Shape({5})},
      {Shape({}), Shape({4})},
      {Shape({2, 3}), Shape({})},
      {Shape({2, 3}), Shape({3})},
      {Shape({2, 3}), Shape({2, 1})},
      {Shape({2, 1}), Shape({1, 3})},
      {Shape({3, 1, 4}), Shape({2, 1})},
      {Shape({1}), Shape({7})},
      {Shape({1, 1}), Shape({1})},
      {Shape({4, 5, 6}), Shape({4, 5, 6})},
      {Shape({2, 3, 4, 5}), Shape({3, 1, 5})},
      {Shape({2, 1, 4, 1, 3}), Shape({5, 1, 2, 1})},
      {Shape({1, 2, 1, 2, 1, 2, 1, 2}), Shape({2, 1, 2, 1, 2, 1, 2, 1})},
      {Shape({0}), Shape({1})},
      {Shape({0, 3}), Shape({3})},
      {Shape({2, 0}), Shape({})},
      {Shape({300, 257}), Shape({257})},
      {Shape({129, 1}), Shape({1, 65})},
  };
  return *pairs;
}

template <typename T>
void CheckBinary(const std::string& op, const std::function<T(T, T)>& reference, double lo,
                 double hi, bool nonzero_y = false) {
  for (const auto& [x_shape, y_shape] : ShapePairs()) {
    for (bool swap : {false, true}) {
      const TensorShape& xs = swap ? y_shape : x_shape;
      const TensorShape& ys = swap ? x_shape : y_shape;
      SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + xs.DebugString() +
                   " vs " + ys.DebugString());
      Tensor x = Random<T>(xs, lo, hi);
      Tensor y = Random<T>(ys, nonzero_y ? 0.5 : lo, hi);
      const TensorShape out_shape = BroadcastShape(xs, ys);
      std::vector<T> expected(static_cast<size_t>(out_shape.num_elements()));
      for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
        expected[i] = reference(x.data<T>()[BroadcastIndex(out_shape, xs, i)],
                                y.data<T>()[BroadcastIndex(out_shape, ys, i)]);
      }
      OpTester tester(op);
      tester.Attr("T", DataTypeOf<T>::value).Input(x).Input(y);
      ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape, expected);
    }
  }
}

template <typename T>
void CheckArithmetic() {
  CheckBinary<T>(
      "Add", [](T a, T b) { return a + b; }, -50, 50);
  CheckBinary<T>(
      "AddV2", [](T a, T b) { return a + b; }, -50, 50);
  CheckBinary<T>(
      "Sub", [](T a, T b) { return a - b; }, -50, 50);
  CheckBinary<T>(
      "Mul", [](T a, T b) { return a * b; }, -50, 50);
  CheckBinary<T>(
      "Maximum", [](T a, T b) { return std::max(a, b); }, -50, 50);
  CheckBinary<T>(
      "Minimum", [](T a, T b) { return std::min(a, b); }, -50, 50);
}

TEST(BinaryOpsTest, FloatMatchesReference) {
  CheckArithmetic<float>();
  CheckBinary<float>(
      "RealDiv", [](float a, float b) { return a / b; }, -50, 50, true);
}

TEST(BinaryOpsTest, DoubleMatchesReference) {
  CheckArithmetic<double>();
  CheckBinary<double>(
      "RealDiv", [](double a, double b) { return a / b; }, -50, 50, true);
}

TEST(BinaryOpsTest, Int32MatchesReference) { CheckArithmetic<int32_t>(); }

TEST(BinaryOpsTest, Int64MatchesReference) { CheckArithmetic<int64_t>(); }

TEST(BinaryOpsTest, RealDivFollowsIeeeForZeroDivisors) {
  OpTester tester("RealDiv");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({3}), {1, -1, 0}))
      .Input(Make<float>(Shape({}), {0}));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({3}), {INFINITY, -INFINITY, NAN});
}

// Integer arithmetic wraps around in two's complement, as TensorFlow's does, on the vector path
// (8 elements) and the scalar and broadcasting paths (a scalar operand, a broadcast row).
TEST(BinaryOpsTest, IntegerArithmeticWrapsAround) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  struct Case {
    const char* op;
    int32_t x;
    int32_t y;
    int32_t expected;
  };
  for (const Case& c :
       {Case{"AddV2", kMax, 1, kMin}, Case{"Add", kMin, -1, kMax}, Case{"Sub", kMin, 1, kMax},
        Case{"Mul", 65536, 65536, 0}, Case{"Mul", kMax, 2, -2}}) {
    for (const auto& [x_shape, y_shape] : std::vector<std::pair<TensorShape, TensorShape>>{
             {Shape({8}), Shape({8})}, {Shape({8}), Shape({})}, {Shape({2, 4}), Shape({1, 4})}}) {
      OpTester tester(c.op);
      tester.Attr("T", TSR_DTYPE_INT32)
          .Input(Make<int32_t>(x_shape, std::vector<int32_t>(x_shape.num_elements(), c.x)))
          .Input(Make<int32_t>(y_shape, std::vector<int32_t>(y_shape.num_elements(), c.y)));
      ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, x_shape,
                                std::vector<int32_t>(x_shape.num_elements(), c.expected));
    }
  }
  OpTester tester("AddV2");
  tester.Attr("T", TSR_DTYPE_INT64)
      .Input(Make<int64_t>(Shape({2}), {std::numeric_limits<int64_t>::max(), 5}))
      .Input(Make<int64_t>(Shape({}), {1}));
  ExpectTensorNear<int64_t>(RunOk(tester), TSR_DTYPE_INT64, Shape({2}),
                            {std::numeric_limits<int64_t>::min(), 6});
}

TEST(BinaryOpsTest, MaximumAndMinimumPropagateNan) {
  for (const char* op : {"Maximum", "Minimum"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Make<float>(Shape({2}), {NAN, 1}))
        .Input(Make<float>(Shape({2}), {1, NAN}));
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({2}), {NAN, NAN});
  }
}

TEST(BinaryOpsTest, RejectsIncompatibleShapes) {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Random<float>(Shape({2, 3})))
        .Input(Random<float>(Shape({4})));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Incompatible shapes: [2,3] vs. [4]");
  }
  OpTester empty_vs_two("AddV2");
  empty_vs_two.Attr("T", TSR_DTYPE_INT32)
      .Input(Random<int32_t>(Shape({0})))
      .Input(Random<int32_t>(Shape({2})));
  ExpectRunError(empty_vs_two, absl::StatusCode::kInvalidArgument,
                 "Incompatible shapes: [0] vs. [2]");
}

}  // namespace
}  // namespace tessera::cpu::test
