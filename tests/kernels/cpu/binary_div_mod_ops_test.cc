// Div, FloorDiv, TruncateDiv, FloorMod, TruncateMod and Mod against reference loops over
// broadcasting shape pairs, plus TensorFlow's integer rules: truncation vs flooring, the sign of
// each remainder, division by zero, and lowest / -1.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/binary_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
T FloorDivReference(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::floor(static_cast<double>(x) / static_cast<double>(y)));
  } else {
    return std::floor(x / y);
  }
}

// The remainder with the divisor's sign: C's remainder moved by one divisor when signs differ.
template <typename T>
T FloorModReference(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(x - FloorDivReference(x, y) * y);
  } else {
    T r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
  }
}

template <typename T>
T TruncateModReference(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return x % y;
  } else {
    return std::fmod(x, y);
  }
}

template <typename T>
void CheckDivMod() {
  const OperandRanges ranges;
  std::optional<T> avoid_zero;
  if constexpr (std::is_integral_v<T>) avoid_zero = T(0);
  CheckBinaryOp<T>(
      "Div", [](T x, T y) { return x / y; }, ranges, avoid_zero);
  CheckBinaryOp<T>("FloorDiv", FloorDivReference<T>, ranges, avoid_zero);
  CheckBinaryOp<T>("FloorMod", FloorModReference<T>, ranges, avoid_zero);
  CheckBinaryOp<T>("TruncateMod", TruncateModReference<T>, ranges, avoid_zero);
  CheckBinaryOp<T>("Mod", TruncateModReference<T>, ranges, avoid_zero);
  if constexpr (std::is_integral_v<T>) {
    CheckBinaryOp<T>(
        "TruncateDiv", [](T x, T y) { return x / y; }, ranges, avoid_zero);
  }
}

TEST(BinaryDivModOpsTest, FloatMatchesReference) { CheckDivMod<float>(); }
TEST(BinaryDivModOpsTest, DoubleMatchesReference) { CheckDivMod<double>(); }
TEST(BinaryDivModOpsTest, Int32MatchesReference) { CheckDivMod<int32_t>(); }
TEST(BinaryDivModOpsTest, Int64MatchesReference) { CheckDivMod<int64_t>(); }

template <typename T>
void CheckIntegerRounding() {
  const std::vector<T> x = {7, -7, 7, -7, 6, -6, 0};
  const std::vector<T> y = {2, 2, -2, -2, 3, -3, -5};
  ExpectBinary<T>("Div", x, y, {3, -3, -3, 3, 2, 2, 0});
  ExpectBinary<T>("TruncateDiv", x, y, {3, -3, -3, 3, 2, 2, 0});
  ExpectBinary<T>("FloorDiv", x, y, {3, -4, -4, 3, 2, 2, 0});
  ExpectBinary<T>("FloorMod", x, y, {1, 1, -1, -1, 0, 0, 0});
  ExpectBinary<T>("TruncateMod", x, y, {1, -1, 1, -1, 0, 0, 0});
  ExpectBinary<T>("Mod", x, y, {1, -1, 1, -1, 0, 0, 0});
}

TEST(BinaryDivModOpsTest, IntegerDivisionTruncatesOrFloors) {
  CheckIntegerRounding<int32_t>();
  CheckIntegerRounding<int64_t>();
}

template <typename T>
void CheckFloatRounding() {
  const std::vector<T> x = {7.5, -7.5, 7.5, -7.5, 6, -0.5};
  const std::vector<T> y = {2, 2, -2, -2, 3, 4};
  ExpectBinary<T>("Div", x, y, {3.75, -3.75, -3.75, 3.75, 2, -0.125});
  ExpectBinary<T>("FloorDiv", x, y, {3, -4, -4, 3, 2, -1});
  // FloorMod takes the divisor's sign; TruncateMod and Mod the dividend's.
  ExpectBinary<T>("FloorMod", x, y, {1.5, 0.5, -0.5, -1.5, 0, 3.5});
  ExpectBinary<T>("TruncateMod", x, y, {1.5, -1.5, 1.5, -1.5, 0, -0.5});
  ExpectBinary<T>("Mod", x, y, {1.5, -1.5, 1.5, -1.5, 0, -0.5});
}

TEST(BinaryDivModOpsTest, FloatDivisionFloorsAndRemaindersTakeTheRightSign) {
  CheckFloatRounding<float>();
  CheckFloatRounding<double>();
}

TEST(BinaryDivModOpsTest, FloatSpecialValuesFollowIeee) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectBinary<float>("Div", {1, -1, 0}, {0}, {inf, -inf, nan});
  ExpectBinary<float>("FloorDiv", {1, -1, 0, nan}, {0, 0, 0, 1}, {inf, -inf, nan, nan});
  ExpectBinary<float>("FloorMod", {1, nan, inf, 3, -3}, {0, 1, 2, inf, inf},
                      {nan, nan, nan, 3, inf});
  ExpectBinary<float>("TruncateMod", {1, inf, 3, -3}, {0, 2, inf, inf}, {nan, nan, 3, -3});
}

template <typename T>
void CheckDivisionByZero(const std::string& op) {
  SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value));
  // Same shapes, and a broadcast scalar zero.
  OpTester same(op);
  same.Attr("T", DataTypeOf<T>::value)
      .Input(Make<T>(Shape({3}), {1, 2, 3}))
      .Input(Make<T>(Shape({3}), {1, 0, 1}));
  ExpectRunError(same, absl::StatusCode::kInvalidArgument, "Integer division by zero");
  OpTester scalar(op);
  scalar.Attr("T", DataTypeOf<T>::value)
      .Input(Random<T>(Shape({4, 5})))
      .Input(Make<T>(Shape({}), {0}));
  ExpectRunError(scalar, absl::StatusCode::kInvalidArgument, "Integer division by zero");
  // Nothing is divided when the output is empty.
  OpTester empty(op);
  empty.Attr("T", DataTypeOf<T>::value)
      .Input(Tensor(DataTypeOf<T>::value, Shape({0, 2})))
      .Input(Make<T>(Shape({1}), {0}));
  ExpectTensorNear<T>(RunOk(empty), DataTypeOf<T>::value, Shape({0, 2}), {});
  // Shapes that do not broadcast are reported first.
  OpTester incompatible(op);
  incompatible.Attr("T", DataTypeOf<T>::value)
      .Input(Random<T>(Shape({2, 3})))
      .Input(Make<T>(Shape({2}), {0, 0}));
  ExpectRunError(incompatible, absl::StatusCode::kInvalidArgument,
                 "Incompatible shapes: [2,3] vs. [2]");
}

TEST(BinaryDivModOpsTest, IntegerDivisionByZeroFails) {
  for (const char* op : {"Div", "FloorDiv", "TruncateDiv", "FloorMod", "TruncateMod", "Mod"}) {
    CheckDivisionByZero<int32_t>(op);
    CheckDivisionByZero<int64_t>(op);
  }
}

template <typename T>
void CheckLowestByMinusOne() {
  const T lowest = std::numeric_limits<T>::lowest();
  ExpectBinary<T>("Div", {lowest, 6}, {-1}, {lowest, -6});
  ExpectBinary<T>("TruncateDiv", {lowest, 6}, {-1}, {lowest, -6});
  ExpectBinary<T>("FloorDiv", {lowest, 6}, {-1}, {lowest, -6});
  ExpectBinary<T>("FloorMod", {lowest, 6}, {-1}, {0, 0});
  ExpectBinary<T>("TruncateMod", {lowest, 6}, {-1}, {0, 0});
  ExpectBinary<T>("Mod", {lowest, 6}, {-1}, {0, 0});
}

TEST(BinaryDivModOpsTest, LowestDividedByMinusOneWraps) {
  CheckLowestByMinusOne<int32_t>();
  CheckLowestByMinusOne<int64_t>();
}

TEST(BinaryDivModOpsTest, TruncateDivHasNoFloatKernel) {
  // As in TensorFlow, whose CPU TruncateDiv kernels are integer only.
  OpTester tester("TruncateDiv");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({1}), {1}))
      .Input(Make<float>(Shape({1}), {2}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "device types with a kernel for TruncateDiv: CPU (not for the node's types)");
}

TEST(BinaryDivModOpsTest, RejectsIncompatibleShapes) {
  for (const char* op : {"Div", "FloorDiv", "FloorMod", "TruncateMod", "Mod"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Random<float>(Shape({2, 3})))
        .Input(Random<float>(Shape({4})));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Incompatible shapes: [2,3] vs. [4]");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
