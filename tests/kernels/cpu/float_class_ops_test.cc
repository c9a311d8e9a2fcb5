// IsNan, IsInf, IsFinite and Rint against the C library on random inputs with special values mixed
// in (empty, scalar, size-1 and large tensors), plus TensorFlow's rounding of halves to even.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<TensorShape>& Shapes() {
  static const auto* shapes = new std::vector<TensorShape>{
      Shape({}),        Shape({0}),       Shape({1}),       Shape({9}),
      Shape({3, 0, 2}), Shape({1, 1, 5}), Shape({4, 5, 6}), Shape({100003})};
  return *shapes;
}

// Random values with every fifth one a NaN, an infinity or a denormal.
template <typename T>
Tensor RandomWithSpecials(const TensorShape& shape) {
  using L = std::numeric_limits<T>;
  const T specials[] = {L::quiet_NaN(), L::infinity(),   -L::infinity(), L::denorm_min(),
                        -L::min() / 4,  -L::quiet_NaN(), L::max()};
  Tensor t = Random<T>(shape, -10, 10);
  for (int64_t i = 0; i < t.NumElements(); i += 5) {
    t.data<T>()[i] = specials[(i / 5) % (sizeof(specials) / sizeof(specials[0]))];
  }
  return t;
}

template <typename T>
void CheckPredicate(const std::string& op, bool (*reference)(T)) {
  for (const TensorShape& shape : Shapes()) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString());
    Tensor x = RandomWithSpecials<T>(shape);
    std::vector<bool> expected;
    for (int64_t i = 0; i < x.NumElements(); ++i) expected.push_back(reference(x.data<T>()[i]));
    OpTester tester(op);
    tester.Attr("T", DataTypeOf<T>::value).Input(x);
    Tensor out = RunOk(tester);
    ASSERT_EQ(out.dtype(), TSR_DTYPE_BOOL);
    ASSERT_EQ(out.shape(), shape);
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      EXPECT_EQ(out.data<bool>()[i], expected[static_cast<size_t>(i)]) << "at " << i;
    }
  }
}

template <typename T>
void CheckPredicates() {
  CheckPredicate<T>("IsNan", [](T v) -> bool { return std::isnan(v); });
  CheckPredicate<T>("IsInf", [](T v) -> bool { return std::isinf(v); });
  CheckPredicate<T>("IsFinite", [](T v) -> bool { return std::isfinite(v); });
}

TEST(FloatClassOpsTest, FloatPredicatesMatchTheCLibrary) { CheckPredicates<float>(); }
TEST(FloatClassOpsTest, DoublePredicatesMatchTheCLibrary) { CheckPredicates<double>(); }

template <typename T>
void CheckRint() {
  for (const TensorShape& shape : Shapes()) {
    SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString());
    Tensor x = RandomWithSpecials<T>(shape);
    // Halves, where rounding to even differs from rounding away from zero.
    for (int64_t i = 1; i < x.NumElements(); i += 3) {
      x.data<T>()[i] = std::floor(x.data<T>()[i]) + T(0.5);
    }
    std::vector<T> expected;
    for (int64_t i = 0; i < x.NumElements(); ++i)
      expected.push_back(std::nearbyint(x.data<T>()[i]));
    OpTester tester("Rint");
    tester.Attr("T", DataTypeOf<T>::value).Input(x);
    ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, 0);
  }
}

TEST(FloatClassOpsTest, FloatRintMatchesTheCLibrary) { CheckRint<float>(); }
TEST(FloatClassOpsTest, DoubleRintMatchesTheCLibrary) { CheckRint<double>(); }

// TensorFlow's documented examples: rint(-1.5) = -2, rint(0.5000001) = 1, and halves to even.
TEST(FloatClassOpsTest, RintRoundsHalvesToEven) {
  const float inf = std::numeric_limits<float>::infinity();
  OpTester tester("Rint");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({10}),
                         {-1.5f, 0.5000001f, 0.5f, 1.5f, 2.5f, -2.5f, -0.5f, 1.7f, inf, -inf}));
  Tensor out = RunOk(tester);
  ExpectTensorNear<float>(out, TSR_DTYPE_FLOAT, Shape({10}),
                          {-2, 1, 0, 2, 2, -2, -0.0f, 2, inf, -inf}, 0);
  EXPECT_TRUE(std::signbit(out.data<float>()[6]));  // -0.5 rounds to -0
}

TEST(FloatClassOpsTest, KnownPredicateValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> x = {0, -1, inf, -inf, nan, 5e-324};
  const std::vector<std::pair<std::string, std::vector<bool>>> cases = {
      {"IsNan", {false, false, false, false, true, false}},
      {"IsInf", {false, false, true, true, false, false}},
      {"IsFinite", {true, true, false, false, false, true}},
  };
  for (const auto& [op, expected] : cases) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_DOUBLE).Input(Make<double>(Shape({6}), x));
    Tensor out = RunOk(tester);
    ASSERT_EQ(out.NumElements(), 6) << op;
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(out.data<bool>()[i], expected[i]) << op << " at " << i;
    }
  }
}

}  // namespace
}  // namespace tessera::cpu::test
