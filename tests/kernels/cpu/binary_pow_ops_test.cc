// Pow and SquaredDifference against reference loops over broadcasting shape pairs, plus exact
// integer powers, the negative-exponent error and IEEE special values.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/binary_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
T IntegerPowReference(T x, T y) {
  T result = 1;
  for (T i = 0; i < y; ++i) result = static_cast<T>(result * x);
  return result;
}

TEST(BinaryPowOpsTest, FloatingPowMatchesReference) {
  // Positive bases take any exponent.
  CheckBinaryOp<float>(
      "Pow", [](float x, float y) { return std::pow(x, y); }, {0.1, 5, -4, 4}, std::nullopt, 1e-4);
  CheckBinaryOp<double>(
      "Pow", [](double x, double y) { return std::pow(x, y); }, {0.1, 5, -4, 4}, std::nullopt,
      1e-9);
}

TEST(BinaryPowOpsTest, IntegerPowMatchesReference) {
  CheckBinaryOp<int32_t>("Pow", IntegerPowReference<int32_t>, {-6, 6, 0, 7});
  CheckBinaryOp<int64_t>("Pow", IntegerPowReference<int64_t>, {-9, 9, 0, 15});
}

TEST(BinaryPowOpsTest, IntegerPowIsExact) {
  ExpectBinary<int64_t>(
      "Pow", {3, -2, 0, 0, 1, -1}, {39, 63, 0, 5, 1000, 1001},
      {4052555153018976267LL, std::numeric_limits<int64_t>::lowest(), 1, 0, 1, -1});
  ExpectBinary<int32_t>("Pow", {2, -3, 7}, {30, 5, 0}, {1 << 30, -243, 1});
}

TEST(BinaryPowOpsTest, NegativeIntegerExponentsFail) {
  for (TSR_DataType dtype : {TSR_DTYPE_INT32, TSR_DTYPE_INT64}) {
    OpTester tester("Pow");
    tester.Attr("T", dtype);
    if (dtype == TSR_DTYPE_INT32) {
      tester.Input(Make<int32_t>(Shape({3}), {1, 2, 3})).Input(Make<int32_t>(Shape({}), {-1}));
    } else {
      tester.Input(Make<int64_t>(Shape({2, 2}), {1, 2, 3, 4}))
          .Input(Make<int64_t>(Shape({2}), {2, -2}));
    }
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Integers to negative integer powers are not allowed");
  }
  // Floats take negative exponents.
  ExpectBinary<float>("Pow", {2, 4}, {-1}, {0.5f, 0.25f});
}

TEST(BinaryPowOpsTest, FloatingSpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  ExpectBinary<double>("Pow", {nan, -8, 0, 0, -2, 1}, {0, 1.0 / 3, -1, 0, 3, nan},
                       {1, nan, inf, 1, -8, 1});
}

TEST(BinaryPowOpsTest, SquaredDifferenceMatchesReference) {
  CheckBinaryOp<float>("SquaredDifference", [](float x, float y) { return (x - y) * (x - y); }, {});
  CheckBinaryOp<double>("SquaredDifference", [](double x, double y) { return (x - y) * (x - y); },
                        {});
  CheckBinaryOp<int32_t>("SquaredDifference",
                         [](int32_t x, int32_t y) { return (x - y) * (x - y); }, {});
  CheckBinaryOp<int64_t>("SquaredDifference",
                         [](int64_t x, int64_t y) { return (x - y) * (x - y); }, {});
  ExpectBinary<float>(
      "SquaredDifference", {std::numeric_limits<float>::infinity(), 1},
      {1, std::numeric_limits<float>::quiet_NaN()},
      {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()});
}

TEST(BinaryPowOpsTest, RejectsIncompatibleShapes) {
  for (const char* op : {"Pow", "SquaredDifference"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_INT32)
        .Input(Random<int32_t>(Shape({2, 3})))
        .Input(Make<int32_t>(Shape({4}), {-1, -1, -1, -1}));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Incompatible shapes: [2,3] vs. [4]");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
