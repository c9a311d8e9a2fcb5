// Less, LessEqual, Greater, GreaterEqual, Equal and NotEqual against reference loops on random
// inputs with many ties, NaNs, infinities and integer extremes, over broadcasting shape pairs
// (scalars, size-1 and empty dimensions) and every registered type; incompatible_shape_error
// both ways.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<std::pair<TensorShape, TensorShape>>& ShapePairs() {
  static const auto* pairs = new std::vector<std::pair<TensorShape, TensorShape>>{
      {Shape({}), Shape({})},
      {Shape({6}), Shape({6})},
      {Shape({}), Shape({5})},
      {Shape({2, 3}), Shape({3})},
      {Shape({2, 3}), Shape({2, 1})},
      {Shape({2, 1}), Shape({1, 3})},
      {Shape({3, 1, 4}), Shape({2, 1})},
      {Shape({1}), Shape({7})},
      {Shape({1, 1}), Shape({1})},
      {Shape({2, 3, 4, 5}), Shape({3, 1, 5})},
      {Shape({1, 2, 1, 2, 1, 2, 1, 2}), Shape({2, 1, 2, 1, 2, 1, 2, 1})},
      {Shape({0}), Shape({1})},
      {Shape({0, 3}), Shape({3})},
      {Shape({2, 0}), Shape({})},
      {Shape({0}), Shape({0})},
      {Shape({100003}), Shape({100003})},
      {Shape({300, 257}), Shape({257})},
      {Shape({129, 1}), Shape({1, 65})},
  };
  return *pairs;
}

// Small values so that ties are common, plus (one in ten each) the extremes of the type; for
// floating types NaN and infinities instead of the extremes.
template <typename T>
Tensor RandomWithTies(const TensorShape& shape) {
  Tensor t(DataTypeOf<T>::value, shape);
  T* data = t.data<T>();
  std::uniform_int_distribution<int> dist(0, 9);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const int v = dist(Rng());
    if constexpr (std::is_same_v<T, bool>) {
      data[i] = v % 2 == 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      data[i] = v == 9   ? std::numeric_limits<T>::quiet_NaN()
                : v == 8 ? (i % 2 == 0 ? std::numeric_limits<T>::infinity()
                                       : -std::numeric_limits<T>::infinity())
                         : static_cast<T>(v - 4) / 2;
    } else {
      data[i] = v == 9   ? std::numeric_limits<T>::max()
                : v == 8 ? std::numeric_limits<T>::lowest()
                         : static_cast<T>(std::is_signed_v<T> ? v - 4 : v);
    }
  }
  return t;
}

template <typename T>
void CheckComparison(const std::string& op, const std::function<bool(T, T)>& reference) {
  for (const auto& [x_shape, y_shape] : ShapePairs()) {
    for (bool swap : {false, true}) {
      const TensorShape& xs = swap ? y_shape : x_shape;
      const TensorShape& ys = swap ? x_shape : y_shape;
      SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + xs.DebugString() +
                   " vs " + ys.DebugString());
      Tensor x = RandomWithTies<T>(xs);
      Tensor y = RandomWithTies<T>(ys);
      const TensorShape out_shape = BroadcastShape(xs, ys);
      std::vector<bool> expected(static_cast<size_t>(out_shape.num_elements()));
      for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
        expected[i] = reference(x.data<T>()[BroadcastIndex(out_shape, xs, i)],
                                y.data<T>()[BroadcastIndex(out_shape, ys, i)]);
      }
      OpTester tester(op);
      tester.Attr("T", DataTypeOf<T>::value).Input(x).Input(y);
      ExpectTensorNear<bool>(RunOk(tester), TSR_DTYPE_BOOL, out_shape, expected);
    }
  }
}

template <typename T>
void CheckEquality() {
  CheckComparison<T>("Equal", [](T a, T b) { return a == b; });
  CheckComparison<T>("NotEqual", [](T a, T b) { return a != b; });
}

template <typename T>
void CheckAll() {
  CheckComparison<T>("Less", [](T a, T b) { return a < b; });
  CheckComparison<T>("LessEqual", [](T a, T b) { return a <= b; });
  CheckComparison<T>("Greater", [](T a, T b) { return a > b; });
  CheckComparison<T>("GreaterEqual", [](T a, T b) { return a >= b; });
  CheckEquality<T>();
}

TEST(ComparisonOpsTest, FloatMatchesReference) { CheckAll<float>(); }
TEST(ComparisonOpsTest, DoubleMatchesReference) { CheckAll<double>(); }
TEST(ComparisonOpsTest, Int32MatchesReference) { CheckAll<int32_t>(); }
TEST(ComparisonOpsTest, Int64MatchesReference) { CheckAll<int64_t>(); }
TEST(ComparisonOpsTest, Uint8MatchesReference) { CheckAll<uint8_t>(); }
TEST(ComparisonOpsTest, Int8MatchesReference) { CheckAll<int8_t>(); }
TEST(ComparisonOpsTest, Int16MatchesReference) { CheckAll<int16_t>(); }
TEST(ComparisonOpsTest, Uint16MatchesReference) { CheckAll<uint16_t>(); }
TEST(ComparisonOpsTest, Uint32MatchesReference) { CheckAll<uint32_t>(); }
TEST(ComparisonOpsTest, Uint64MatchesReference) { CheckAll<uint64_t>(); }
TEST(ComparisonOpsTest, BoolEqualityMatchesReference) { CheckEquality<bool>(); }

template <typename T>
void CheckNanComparisons() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const Tensor x = Make<T>(Shape({5}), {nan, nan, 1, nan, -inf});
  const Tensor y = Make<T>(Shape({5}), {nan, 1, nan, -inf, nan});
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    SCOPED_TRACE(std::string(op) + " " + DataTypeString(DataTypeOf<T>::value));
    const bool expected = std::string(op) == "NotEqual";
    OpTester tester(op);
    tester.Attr("T", DataTypeOf<T>::value).Input(x).Input(y);
    ExpectTensorNear<bool>(RunOk(tester), TSR_DTYPE_BOOL, Shape({5}),
                           std::vector<bool>(5, expected));
    // A broadcast NaN scalar: the same, through the broadcasting loop.
    OpTester scalar(op);
    scalar.Attr("T", DataTypeOf<T>::value).Input(Make<T>(Shape({}), {nan})).Input(x);
    ExpectTensorNear<bool>(RunOk(scalar), TSR_DTYPE_BOOL, Shape({5}),
                           std::vector<bool>(5, expected));
  }
}

TEST(ComparisonOpsTest, NanComparesFalseExceptNotEqual) {
  CheckNanComparisons<float>();
  CheckNanComparisons<double>();
}

TEST(ComparisonOpsTest, SignedZerosAreEqual) {
  OpTester equal("Equal");
  equal.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({2}), {0.0f, -0.0f}))
      .Input(Make<float>(Shape({2}), {-0.0f, 0.0f}));
  ExpectTensorNear<bool>(RunOk(equal), TSR_DTYPE_BOOL, Shape({2}), {true, true});
  OpTester less("Less");
  less.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({2}), {-0.0f, 0.0f}))
      .Input(Make<float>(Shape({2}), {0.0f, -0.0f}));
  ExpectTensorNear<bool>(RunOk(less), TSR_DTYPE_BOOL, Shape({2}), {false, false});
}

TEST(ComparisonOpsTest, RejectsIncompatibleShapes) {
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    SCOPED_TRACE(op);
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Random<float>(Shape({2, 3})))
        .Input(Random<float>(Shape({4})));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Incompatible shapes: [2,3] vs. [4]");
    OpTester empty_vs_two(op);
    empty_vs_two.Attr("T", TSR_DTYPE_INT32)
        .Input(Random<int32_t>(Shape({0})))
        .Input(Random<int32_t>(Shape({2})));
    ExpectRunError(empty_vs_two, absl::StatusCode::kInvalidArgument,
                   "Incompatible shapes: [0] vs. [2]");
  }
  // The attr's explicit default behaves like the default.
  OpTester explicit_true("Equal");
  explicit_true.Attr("T", TSR_DTYPE_INT64)
      .Attr("incompatible_shape_error", true)
      .Input(Random<int64_t>(Shape({3})))
      .Input(Random<int64_t>(Shape({2, 2})));
  ExpectRunError(explicit_true, absl::StatusCode::kInvalidArgument,
                 "Incompatible shapes: [3] vs. [2,2]");
}

TEST(ComparisonOpsTest, EqualityWithoutShapeErrorGivesScalarForIncompatibleShapes) {
  const std::vector<std::pair<TensorShape, TensorShape>> incompatible = {
      {Shape({2, 3}), Shape({4})}, {Shape({0}), Shape({2})}, {Shape({3}), Shape({2, 2})}};
  for (const auto& [x_shape, y_shape] : incompatible) {
    for (const char* op : {"Equal", "NotEqual"}) {
      SCOPED_TRACE(std::string(op) + " " + x_shape.DebugString() + " vs " + y_shape.DebugString());
      OpTester tester(op);
      tester.Attr("T", TSR_DTYPE_FLOAT)
          .Attr("incompatible_shape_error", false)
          .Input(Random<float>(x_shape))
          .Input(Random<float>(y_shape));
      ExpectTensorNear<bool>(RunOk(tester), TSR_DTYPE_BOOL, Shape({}),
                             {std::string(op) == "NotEqual"});
    }
  }
  // bool inputs too (the output could otherwise reuse an input's buffer).
  OpTester bools("NotEqual");
  bools.Attr("T", TSR_DTYPE_BOOL)
      .Attr("incompatible_shape_error", false)
      .Input(Make<bool>(Shape({2}), {true, false}))
      .Input(Make<bool>(Shape({3}), {true, false, true}));
  ExpectTensorNear<bool>(RunOk(bools), TSR_DTYPE_BOOL, Shape({}), {true});
}

TEST(ComparisonOpsTest, EqualityWithoutShapeErrorStillBroadcasts) {
  for (const char* op : {"Equal", "NotEqual"}) {
    const bool equal = std::string(op) == "Equal";
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_INT32)
        .Attr("incompatible_shape_error", false)
        .Input(Make<int32_t>(Shape({2, 1}), {1, 2}))
        .Input(Make<int32_t>(Shape({3}), {1, 2, 3}));
    ExpectTensorNear<bool>(RunOk(tester), TSR_DTYPE_BOOL, Shape({2, 3}),
                           {equal, !equal, !equal, !equal, equal, !equal});
    OpTester same(op);
    same.Attr("T", TSR_DTYPE_INT32)
        .Attr("incompatible_shape_error", false)
        .Input(Make<int32_t>(Shape({2}), {1, 2}))
        .Input(Make<int32_t>(Shape({2}), {1, 3}));
    ExpectTensorNear<bool>(RunOk(same), TSR_DTYPE_BOOL, Shape({2}), {equal, !equal});
  }
}

TEST(ComparisonOpsTest, IntegerExtremesCompareExactly) {
  // Values that a conversion through double would merge.
  const int64_t big = std::numeric_limits<int64_t>::max();
  OpTester tester("Less");
  tester.Attr("T", TSR_DTYPE_INT64)
      .Input(Make<int64_t>(Shape({3}), {big - 1, big, std::numeric_limits<int64_t>::lowest()}))
      .Input(Make<int64_t>(Shape({3}), {big, big - 1, -1}));
  ExpectTensorNear<bool>(RunOk(tester), TSR_DTYPE_BOOL, Shape({3}), {true, false, true});
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  OpTester unsigned_equal("Equal");
  unsigned_equal.Attr("T", TSR_DTYPE_UINT64)
      .Input(Make<uint64_t>(Shape({2}), {top, top - 1}))
      .Input(Make<uint64_t>(Shape({}), {top}));
  ExpectTensorNear<bool>(RunOk(unsigned_equal), TSR_DTYPE_BOOL, Shape({2}), {true, false});
}

}  // namespace
}  // namespace tessera::cpu::test
