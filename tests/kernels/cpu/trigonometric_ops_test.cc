// Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh and Atan2 against the C library on random inputs
// (empty, scalar, size-1 and large tensors; Atan2 over broadcasting shape pairs), plus known
// values and the broadcasting error.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/binary_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<TensorShape>& Shapes() {
  static const auto* shapes = new std::vector<TensorShape>{
      Shape({}),        Shape({0}),       Shape({1}),       Shape({7}),
      Shape({3, 0, 2}), Shape({1, 1, 5}), Shape({4, 5, 6}), Shape({100003})};
  return *shapes;
}

template <typename T>
void CheckUnary(const std::string& op, T (*reference)(T), double lo, double hi, double tolerance) {
  for (const TensorShape& shape : Shapes()) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString());
    Tensor x = Random<T>(shape, lo, hi);
    std::vector<T> expected(static_cast<size_t>(x.NumElements()));
    for (int64_t i = 0; i < x.NumElements(); ++i) expected[i] = reference(x.data<T>()[i]);
    OpTester tester(op);
    tester.Attr("T", DataTypeOf<T>::value).Input(x);
    ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, tolerance);
  }
}

template <typename T>
void CheckAll(double tolerance) {
  CheckUnary<T>(
      "Sin", [](T v) { return std::sin(v); }, -100, 100, tolerance);
  CheckUnary<T>(
      "Cos", [](T v) { return std::cos(v); }, -100, 100, tolerance);
  CheckUnary<T>(
      "Tan", [](T v) { return std::tan(v); }, -1.5, 1.5, tolerance);
  CheckUnary<T>(
      "Asin", [](T v) { return std::asin(v); }, -1, 1, tolerance);
  CheckUnary<T>(
      "Acos", [](T v) { return std::acos(v); }, -1, 1, tolerance);
  CheckUnary<T>(
      "Atan", [](T v) { return std::atan(v); }, -50, 50, tolerance);
  CheckUnary<T>(
      "Sinh", [](T v) { return std::sinh(v); }, -20, 20, tolerance);
  CheckUnary<T>(
      "Cosh", [](T v) { return std::cosh(v); }, -20, 20, tolerance);
}

TEST(TrigonometricOpsTest, FloatMatchesTheCLibrary) { CheckAll<float>(2e-7); }
TEST(TrigonometricOpsTest, DoubleMatchesTheCLibrary) { CheckAll<double>(1e-15); }

template <typename T>
void ExpectUnary(const std::string& op, const std::vector<T>& x, const std::vector<T>& expected,
                 double tolerance) {
  SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value));
  const TensorShape shape = Shape({static_cast<int64_t>(x.size())});
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value).Input(Make<T>(shape, x));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, tolerance);
}

TEST(TrigonometricOpsTest, KnownValues) {
  const double pi = 3.14159265358979323846;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectUnary<double>("Sin", {0, pi / 2, -pi / 6, inf, nan}, {0, 1, -0.5, nan, nan}, 1e-15);
  ExpectUnary<double>("Cos", {0, pi, pi / 3, -inf}, {1, -1, 0.5, nan}, 1e-15);
  ExpectUnary<double>("Tan", {0, pi / 4, -pi / 4}, {0, 1, -1}, 1e-15);
  ExpectUnary<double>("Asin", {1, -0.5, 2}, {pi / 2, -pi / 6, nan}, 1e-15);
  ExpectUnary<double>("Acos", {1, -1, 0.5, -1.5}, {0, pi, pi / 3, nan}, 1e-15);
  ExpectUnary<double>("Atan", {1, inf, -inf}, {pi / 4, pi / 2, -pi / 2}, 1e-15);
  ExpectUnary<double>("Sinh", {0, inf, -inf, 1000}, {0, inf, -inf, inf}, 0);
  ExpectUnary<double>("Cosh", {0, inf, -inf, -1000}, {1, inf, inf, inf}, 0);
  // Signed zeros survive the odd functions.
  for (const char* op : {"Sin", "Tan", "Asin", "Atan", "Sinh"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT).Input(Make<float>(Shape({1}), {-0.0f}));
    Tensor out = RunOk(tester);
    ASSERT_EQ(out.NumElements(), 1) << op;
    EXPECT_TRUE(std::signbit(out.data<float>()[0])) << op;
  }
}

TEST(TrigonometricOpsTest, Atan2MatchesTheCLibraryWithBroadcasting) {
  CheckBinaryOp<float>(
      "Atan2", [](float y, float x) { return std::atan2(y, x); }, {}, std::nullopt, 2e-7);
  CheckBinaryOp<double>(
      "Atan2", [](double y, double x) { return std::atan2(y, x); }, {}, std::nullopt, 1e-15);
}

TEST(TrigonometricOpsTest, Atan2QuadrantsAndSpecialValues) {
  const double pi = 3.14159265358979323846;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // y first, then x: the angle of the point (x, y).
  ExpectBinary<double>("Atan2", {1, 1, -1, -1, 0, -0.0, inf, nan}, {1, -1, 1, -1, -1, -1, inf, 1},
                       {pi / 4, 3 * pi / 4, -pi / 4, -3 * pi / 4, pi, -pi, pi / 4, nan});
}

TEST(TrigonometricOpsTest, Atan2RejectsIncompatibleShapes) {
  OpTester tester("Atan2");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({4, 3})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Incompatible shapes: [2,3] vs. [4,3]");
}

}  // namespace
}  // namespace tessera::cpu::test
