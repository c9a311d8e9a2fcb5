// Sign, Floor, Ceil and Round against reference functions on random inputs (empty, scalar and
// large tensors), plus half-to-even rounding, integer inputs and NaN/inf.
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
void CheckUnary(const std::string& op, const std::function<T(T)>& reference, double lo, double hi) {
  for (const TensorShape& shape : Shapes()) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString());
    Tensor x = Random<T>(shape, lo, hi);
    std::vector<T> expected(static_cast<size_t>(x.NumElements()));
    for (int64_t i = 0; i < x.NumElements(); ++i) expected[i] = reference(x.data<T>()[i]);
    OpTester tester(op);
    tester.Attr("T", DataTypeOf<T>::value).Input(x);
    ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, 0);
  }
}

template <typename T>
void ExpectUnary(const std::string& op, const std::vector<T>& x, const std::vector<T>& expected) {
  SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value));
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value).Input(Make<T>(Shape({static_cast<int64_t>(x.size())}), x));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, Shape({static_cast<int64_t>(x.size())}),
                      expected, 0);
}

template <typename T>
T SignReference(T v) {
  return v > 0 ? T(1) : (v < 0 ? T(-1) : T(0));
}

// Round half to even, written out rather than through the rounding mode.
template <typename T>
T RoundHalfToEven(T v) {
  const T lower = std::floor(v);
  const T diff = v - lower;
  if (diff < T(0.5)) return lower;
  if (diff > T(0.5)) return lower + 1;
  return std::fmod(lower, T(2)) == 0 ? lower : lower + 1;
}

template <typename T>
void CheckFloating() {
  CheckUnary<T>("Sign", SignReference<T>, -10, 10);
  CheckUnary<T>(
      "Floor", [](T v) { return std::floor(v); }, -100, 100);
  CheckUnary<T>(
      "Ceil", [](T v) { return std::ceil(v); }, -100, 100);
  CheckUnary<T>("Round", RoundHalfToEven<T>, -100, 100);
}

TEST(UnaryRoundingOpsTest, FloatMatchesReference) { CheckFloating<float>(); }
TEST(UnaryRoundingOpsTest, DoubleMatchesReference) { CheckFloating<double>(); }

template <typename T>
void CheckInteger() {
  CheckUnary<T>("Sign", SignReference<T>, -3, 3);
  // Integers are already round.
  CheckUnary<T>(
      "Round", [](T v) { return v; }, -1000, 1000);
  ExpectUnary<T>("Sign", {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), 0},
                 {-1, 1, 0});
}

TEST(UnaryRoundingOpsTest, Int32MatchesReference) { CheckInteger<int32_t>(); }
TEST(UnaryRoundingOpsTest, Int64MatchesReference) { CheckInteger<int64_t>(); }

TEST(UnaryRoundingOpsTest, RoundHalvesToEven) {
  ExpectUnary<float>("Round", {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -2.6f},
                     {0, 2, 2, -0.0f, -2, -2, 2, 3, -3});
  ExpectUnary<double>("Round", {0.5, 1.5, 2.5, 3.5, -3.5, 1e15 + 0.5, 4503599627370497.0},
                      {0, 2, 2, 4, -4, 1e15, 4503599627370497.0});
}

TEST(UnaryRoundingOpsTest, SpecialValuesPassThrough) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"Floor", "Ceil", "Round"}) {
    ExpectUnary<float>(op, {inf, -inf, nan, -0.0f}, {inf, -inf, nan, 0});
  }
  ExpectUnary<float>("Sign", {inf, -inf, nan, 0, -0.0f}, {1, -1, nan, 0, 0});
  ExpectUnary<double>("Floor", {-0.5, 0.5}, {-1, 0});
  ExpectUnary<double>("Ceil", {-0.5, 0.5}, {0, 1});
}

// TensorFlow's Floor and Ceil take floating types only.
TEST(UnaryRoundingOpsTest, FloorAndCeilRejectIntegers) {
  for (const char* op : {"Floor", "Ceil"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_INT32).Input(Make<int32_t>(Shape({1}), {1}));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "value int32 is not in the allowed list {bfloat16, half, float, double}");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
