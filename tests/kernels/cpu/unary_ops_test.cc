// Neg, Abs, Square, Relu, Relu6, Exp, Log, Sqrt, Rsqrt, Tanh and Sigmoid against std:: reference
// functions on random inputs (empty, scalar and large tensors), for every registered type.
#include <algorithm>
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
                double tolerance = 1e-5) {
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
void CheckBasic() {
  CheckUnary<T>(
      "Neg", [](T v) { return -v; }, -100, 100);
  CheckUnary<T>(
      "Abs", [](T v) { return v < 0 ? -v : v; }, -100, 100);
  CheckUnary<T>(
      "Square", [](T v) { return v * v; }, -100, 100);
  CheckUnary<T>(
      "Relu", [](T v) { return std::max<T>(v, 0); }, -10, 10);
  CheckUnary<T>(
      "Relu6", [](T v) { return std::min<T>(std::max<T>(v, 0), 6); }, -10, 12);
}

template <typename T>
void CheckTranscendental() {
  CheckUnary<T>(
      "Exp", [](T v) { return std::exp(v); }, -20, 20);
  CheckUnary<T>(
      "Log", [](T v) { return std::log(v); }, 1e-3, 1e3);
  CheckUnary<T>(
      "Sqrt", [](T v) { return std::sqrt(v); }, 0, 1e4);
  CheckUnary<T>(
      "Rsqrt", [](T v) { return T(1) / std::sqrt(v); }, 1e-3, 1e4);
  CheckUnary<T>(
      "Tanh", [](T v) { return std::tanh(v); }, -10, 10);
  CheckUnary<T>(
      "Sigmoid", [](T v) { return T(1) / (T(1) + std::exp(-v)); }, -30, 30);
}

TEST(UnaryOpsTest, FloatMatchesReference) {
  CheckBasic<float>();
  CheckTranscendental<float>();
}

TEST(UnaryOpsTest, DoubleMatchesReference) {
  CheckBasic<double>();
  CheckTranscendental<double>();
}

TEST(UnaryOpsTest, Int32MatchesReference) { CheckBasic<int32_t>(); }

TEST(UnaryOpsTest, Int64MatchesReference) { CheckBasic<int64_t>(); }

TEST(UnaryOpsTest, SpecialValuesFollowTensorFlow) {
  OpTester log("Log");
  log.Attr("T", TSR_DTYPE_FLOAT).Input(Make<float>(Shape({3}), {0, -1, 1}));
  ExpectTensorNear<float>(RunOk(log), TSR_DTYPE_FLOAT, Shape({3}), {-INFINITY, NAN, 0});

  OpTester rsqrt("Rsqrt");
  rsqrt.Attr("T", TSR_DTYPE_DOUBLE).Input(Make<double>(Shape({2}), {0, 4}));
  ExpectTensorNear<double>(RunOk(rsqrt), TSR_DTYPE_DOUBLE, Shape({2}), {INFINITY, 0.5});

  // The logistic function saturates without overflow warnings turning into NaN.
  OpTester sigmoid("Sigmoid");
  sigmoid.Attr("T", TSR_DTYPE_FLOAT).Input(Make<float>(Shape({3}), {-1000, 0, 1000}));
  ExpectTensorNear<float>(RunOk(sigmoid), TSR_DTYPE_FLOAT, Shape({3}), {0, 0.5f, 1});

  // Integers wrap around in two's complement, as in TensorFlow.
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  struct Case {
    const char* op;
    std::vector<int32_t> input;
    std::vector<int32_t> expected;
  };
  for (const Case& c :
       {Case{"Neg", {kMin, -5, 0}, {kMin, 5, 0}}, Case{"Abs", {kMin, -5, 0}, {kMin, 5, 0}},
        Case{"Square", {65536, -5, 0}, {0, 25, 0}}}) {
    OpTester tester(c.op);
    tester.Attr("T", TSR_DTYPE_INT32).Input(Make<int32_t>(Shape({3}), c.input));
    ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, Shape({3}), c.expected);
  }

  OpTester relu6("Relu6");
  relu6.Attr("T", TSR_DTYPE_FLOAT).Input(Make<float>(Shape({4}), {-1, 3, 6, 7}));
  ExpectTensorNear<float>(RunOk(relu6), TSR_DTYPE_FLOAT, Shape({4}), {0, 3, 6, 6});
}

}  // namespace
}  // namespace tessera::cpu::test
