// Softmax and LogSoftmax over the last axis against a reference (max-subtracted) for float and
// double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckSoftmax(const TensorShape& shape, double scale, bool log = false) {
  SCOPED_TRACE(shape.DebugString() + (log ? " LogSoftmax" : " Softmax"));
  Tensor logits = Random<T>(shape, -scale, scale);
  const int64_t depth = shape.dim(shape.rank() - 1);
  std::vector<T> expected(static_cast<size_t>(logits.NumElements()));
  const T* x = logits.data<T>();
  for (int64_t row = 0; depth > 0 && row < logits.NumElements() / depth; ++row) {
    double max = x[row * depth];
    for (int64_t j = 0; j < depth; ++j) max = std::max<double>(max, x[row * depth + j]);
    double sum = 0;
    for (int64_t j = 0; j < depth; ++j) sum += std::exp(x[row * depth + j] - max);
    for (int64_t j = 0; j < depth; ++j) {
      expected[row * depth + j] = static_cast<T>(log ? x[row * depth + j] - max - std::log(sum)
                                                     : std::exp(x[row * depth + j] - max) / sum);
    }
  }
  OpTester tester(log ? "LogSoftmax" : "Softmax");
  tester.Attr("T", DataTypeOf<T>::value).Input(logits);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, 1e-5);
}

template <typename T>
void CheckAllShapes() {
  for (const TensorShape& shape : {Shape({1}), Shape({5}), Shape({3, 4}), Shape({2, 3, 17}),
                                   Shape({0, 4}), Shape({4, 0}), Shape({64, 1000})}) {
    CheckSoftmax<T>(shape, 5);
    // Large logits: only the max-subtracted form stays finite.
    CheckSoftmax<T>(shape, 1000);
    CheckSoftmax<T>(shape, 5, /*log=*/true);
    CheckSoftmax<T>(shape, 1000, /*log=*/true);
  }
}

TEST(SoftmaxOpTest, FloatMatchesReference) { CheckAllShapes<float>(); }
TEST(SoftmaxOpTest, DoubleMatchesReference) { CheckAllShapes<double>(); }

TEST(SoftmaxOpTest, RejectsScalarLogits) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT).Input(Make<float>(Shape({}), {1}));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "logits must have >= 1 dimension, got []");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
