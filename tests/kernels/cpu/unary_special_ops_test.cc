// Log1p, Expm1, Erf and Reciprocal against std:: reference functions on random inputs (empty,
// scalar and large tensors), plus accuracy near zero and special values.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<TensorShape>& Shapes() {
  static const auto* shapes = new std::vector<TensorShape>{
      Shape({}), Shape({0}), Shape({7}), Shape({3, 0, 2}), Shape({4, 5, 6}), Shape({100003})};
  return *shapes;
}

template <typename T>
void CheckUnary(const std::string& op, const std::function<T(T)>& reference, double lo, double hi,
                double tolerance) {
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
void ExpectUnary(const std::string& op, const std::vector<T>& x, const std::vector<T>& expected,
                 double tolerance) {
  SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value));
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value).Input(Make<T>(Shape({static_cast<int64_t>(x.size())}), x));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, Shape({static_cast<int64_t>(x.size())}),
                      expected, tolerance);
}

template <typename T>
void CheckAll(double tolerance) {
  CheckUnary<T>(
      "Log1p", [](T v) { return std::log1p(v); }, -0.99, 100, tolerance);
  CheckUnary<T>(
      "Expm1", [](T v) { return std::expm1(v); }, -20, 20, tolerance);
  CheckUnary<T>(
      "Erf", [](T v) { return std::erf(v); }, -4, 4, tolerance);
  CheckUnary<T>(
      "Reciprocal", [](T v) { return T(1) / v; }, -100, 100, tolerance);
}

TEST(UnarySpecialOpsTest, FloatMatchesReference) { CheckAll<float>(1e-5); }
TEST(UnarySpecialOpsTest, DoubleMatchesReference) { CheckAll<double>(1e-12); }

TEST(UnarySpecialOpsTest, AccurateNearZero) {
  // Relative accuracy where log(1 + x) and exp(x) - 1 would cancel.
  const std::vector<double> tiny = {1e-10, -1e-12, 3e-17};
  std::vector<double> log1p;
  std::vector<double> expm1;
  for (double v : tiny) {
    log1p.push_back(std::log1p(v));
    expm1.push_back(std::expm1(v));
  }
  // ExpectTensorNear's tolerance is relative to max(1, |expected|): scale it down to the values.
  ExpectUnary<double>("Log1p", tiny, log1p, 1e-24);
  ExpectUnary<double>("Expm1", tiny, expm1, 1e-24);
  ExpectUnary<float>("Erf", {1e-8f, -1e-8f}, {std::erf(1e-8f), std::erf(-1e-8f)}, 1e-14);
}

TEST(UnarySpecialOpsTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectUnary<float>("Log1p", {-1, -2, inf, nan}, {-inf, nan, inf, nan}, 0);
  ExpectUnary<float>("Expm1", {-inf, inf, nan, 0}, {-1, inf, nan, 0}, 0);
  ExpectUnary<float>("Erf", {-inf, inf, nan, 0}, {-1, 1, nan, 0}, 0);
  ExpectUnary<float>("Reciprocal", {0, -0.0f, inf, nan}, {inf, -inf, 0, nan}, 0);
}

}  // namespace
}  // namespace tessera::cpu::test
