// CheckNumerics: finite inputs (empty, scalar, size-1 and large) pass through unchanged; an
// infinity, a NaN or both fail with TensorFlow's message naming the `message` attr.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckPassesFiniteValues() {
  for (const TensorShape& shape : {Shape({}), Shape({0}), Shape({1}), Shape({3, 0, 2}),
                                   Shape({1, 1, 5}), Shape({4, 5, 6}), Shape({100003})}) {
    SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString());
    Tensor x = Random<T>(shape, -1e3, 1e3);
    // Denormals and the extremes are finite too.
    if (x.NumElements() > 2) {
      x.data<T>()[0] = std::numeric_limits<T>::denorm_min();
      x.data<T>()[1] = std::numeric_limits<T>::max();
      x.data<T>()[2] = std::numeric_limits<T>::lowest();
    }
    std::vector<T> expected(x.data<T>(), x.data<T>() + x.NumElements());
    OpTester tester("CheckNumerics");
    tester.Attr("T", DataTypeOf<T>::value).Attr("message", std::string("checked")).Input(x);
    ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, 0);
  }
}

TEST(CheckNumericsOpTest, FloatPassesFiniteValues) { CheckPassesFiniteValues<float>(); }
TEST(CheckNumericsOpTest, DoublePassesFiniteValues) { CheckPassesFiniteValues<double>(); }

template <typename T>
void ExpectFailure(const std::vector<T>& values, const std::string& expected) {
  SCOPED_TRACE(expected);
  std::vector<T> long_run(10000, T(1));
  for (size_t i = 0; i < values.size(); ++i) long_run[7919 + i] = values[i];
  for (const std::vector<T>& input : {values, long_run}) {
    OpTester tester("CheckNumerics");
    tester.Attr("T", DataTypeOf<T>::value)
        .Attr("message", std::string("the logits"))
        .Input(Make<T>(Shape({static_cast<int64_t>(input.size())}), input));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument, expected);
  }
}

template <typename T>
void CheckFailures() {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  ExpectFailure<T>({1, inf, 2}, "the logits : Tensor had Inf values");
  ExpectFailure<T>({-inf}, "the logits : Tensor had Inf values");
  ExpectFailure<T>({nan, 0}, "the logits : Tensor had NaN values");
  ExpectFailure<T>({1, nan, -inf}, "the logits : Tensor had Inf and NaN values");
}

TEST(CheckNumericsOpTest, FloatReportsInfAndNaN) { CheckFailures<float>(); }
TEST(CheckNumericsOpTest, DoubleReportsInfAndNaN) { CheckFailures<double>(); }

}  // namespace
}  // namespace tessera::cpu::test
