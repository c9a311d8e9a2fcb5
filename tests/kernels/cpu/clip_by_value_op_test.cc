// ClipByValue against a reference on random inputs (empty, scalar, size-1 and large tensors) with
// scalar and full-shape bounds for every registered type, NaN and infinities, and the shape error.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<TensorShape>& Shapes() {
  static const auto* shapes = new std::vector<TensorShape>{
      Shape({}),        Shape({0}),       Shape({1}),       Shape({7}),
      Shape({3, 0, 2}), Shape({1, 1, 5}), Shape({4, 5, 6}), Shape({100003})};
  return *shapes;
}

template <typename T>
T ClipReference(T x, T lo, T hi) {
  return std::max(std::min(x, hi), lo);
}

template <typename T>
void CheckClip() {
  for (const TensorShape& shape : Shapes()) {
    for (bool scalar_lo : {true, false}) {
      for (bool scalar_hi : {true, false}) {
        SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString() +
                     (scalar_lo ? " scalar min" : " full min") +
                     (scalar_hi ? " scalar max" : " full max"));
        Tensor x = Random<T>(shape, -20, 20);
        Tensor lo = Random<T>(scalar_lo ? Shape({}) : shape, -10, -1);
        Tensor hi = Random<T>(scalar_hi ? Shape({}) : shape, 1, 10);
        std::vector<T> expected;
        for (int64_t i = 0; i < x.NumElements(); ++i) {
          expected.push_back(ClipReference(x.data<T>()[i], lo.data<T>()[scalar_lo ? 0 : i],
                                           hi.data<T>()[scalar_hi ? 0 : i]));
        }
        OpTester tester("ClipByValue");
        tester.Attr("T", DataTypeOf<T>::value).Input(x).Input(lo).Input(hi);
        ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, 0);
      }
    }
  }
}

TEST(ClipByValueOpTest, FloatMatchesReference) { CheckClip<float>(); }
TEST(ClipByValueOpTest, DoubleMatchesReference) { CheckClip<double>(); }
TEST(ClipByValueOpTest, Int32MatchesReference) { CheckClip<int32_t>(); }
TEST(ClipByValueOpTest, Int64MatchesReference) { CheckClip<int64_t>(); }

// TensorFlow's test values, and the special ones: NaN stays NaN, infinities are clipped.
TEST(ClipByValueOpTest, KnownAndSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  OpTester tester("ClipByValue");
  tester.Attr("T", TSR_DTYPE_DOUBLE)
      .Input(Make<double>(Shape({2, 4}), {-5, 2, 3, 4, 5, 6, inf, nan}))
      .Input(Make<double>(Shape({}), {2}))
      .Input(Make<double>(Shape({}), {5}));
  ExpectTensorNear<double>(RunOk(tester), TSR_DTYPE_DOUBLE, Shape({2, 4}),
                           {2, 2, 3, 4, 5, 5, 5, nan}, 0);
  OpTester ints("ClipByValue");
  ints.Attr("T", TSR_DTYPE_INT32)
      .Input(Make<int32_t>(Shape({2, 3}), {-5, 2, 3, 4, 5, 6}))
      .Input(Make<int32_t>(Shape({2, 3}), {2, 2, 2, 3, 3, 3}))
      .Input(Make<int32_t>(Shape({}), {4}));
  ExpectTensorNear<int32_t>(RunOk(ints), TSR_DTYPE_INT32, Shape({2, 3}), {2, 2, 3, 4, 4, 4});
}

TEST(ClipByValueOpTest, RejectsBoundsOfAnotherShape) {
  OpTester tester("ClipByValue");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3, 1})))
      .Input(Make<float>(Shape({2}), {-1, -2}))
      .Input(Make<float>(Shape({2}), {1, 2}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "clip_value_min and clip_value_max must be either of the same shape as input, or "
                 "a scalar. input shape: [2,3,1] clip_value_min shape: [2] clip_value_max shape: "
                 "[2]");
  // A one-element vector is not a scalar.
  OpTester one("ClipByValue");
  one.Attr("T", TSR_DTYPE_INT64)
      .Input(Random<int64_t>(Shape({3})))
      .Input(Make<int64_t>(Shape({}), {0}))
      .Input(Make<int64_t>(Shape({1}), {1}));
  ExpectRunError(one, absl::StatusCode::kInvalidArgument, "clip_value_max shape: [1]");
}

}  // namespace
}  // namespace tessera::cpu::test
