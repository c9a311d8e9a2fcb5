// BiasAdd in NHWC and NCHW, and BiasAddV1 (NHWC without the attr), against reference loops, for
// every registered type, and their errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckBiasAdd(const TensorShape& shape, bool nchw, bool v1 = false) {
  SCOPED_TRACE(shape.DebugString() + (nchw ? " NCHW" : " NHWC") + (v1 ? " BiasAddV1" : ""));
  const int channel_dim = nchw ? 1 : shape.rank() - 1;
  const int64_t channels = shape.dim(channel_dim);
  int64_t inner = 1;
  for (int d = channel_dim + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
  Tensor x = Random<T>(shape, -10, 10);
  Tensor bias = Random<T>(Shape({channels}), -10, 10);
  std::vector<T> expected(static_cast<size_t>(x.NumElements()));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    expected[i] = x.data<T>()[i] + bias.data<T>()[(i / inner) % channels];
  }
  OpTester tester(v1 ? "BiasAddV1" : "BiasAdd");
  tester.Attr("T", DataTypeOf<T>::value);
  if (!v1) tester.Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"));
  tester.Input(x).Input(bias);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected);
}

template <typename T>
void CheckAllShapes() {
  for (const TensorShape& shape : {Shape({2, 3}), Shape({4, 5, 6}), Shape({2, 3, 4, 5}),
                                   Shape({2, 0, 3}), Shape({0, 4}), Shape({3, 7, 1, 2, 2})}) {
    CheckBiasAdd<T>(shape, false);
    CheckBiasAdd<T>(shape, true);
    CheckBiasAdd<T>(shape, false, /*v1=*/true);
  }
  CheckBiasAdd<T>(Shape({1, 1}), false, /*v1=*/true);
}

TEST(BiasAddOpTest, FloatMatchesReference) { CheckAllShapes<float>(); }
TEST(BiasAddOpTest, DoubleMatchesReference) { CheckAllShapes<double>(); }
TEST(BiasAddOpTest, Int32MatchesReference) { CheckAllShapes<int32_t>(); }
TEST(BiasAddOpTest, Int64MatchesReference) { CheckAllShapes<int64_t>(); }

OpTester BiasAdd(const TensorShape& x, const TensorShape& bias, const std::string& format) {
  OpTester tester("BiasAdd");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("data_format", format)
      .Input(Random<float>(x))
      .Input(Random<float>(bias));
  return tester;
}

TEST(BiasAddOpTest, RejectsInputOfRankBelowTwo) {
  OpTester tester = BiasAdd(Shape({3}), Shape({3}), "NHWC");
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Input tensor must be at least 2D: [3]");
}

TEST(BiasAddOpTest, RejectsBiasOfRankOtherThanOne) {
  OpTester tester = BiasAdd(Shape({2, 3}), Shape({1, 3}), "NHWC");
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "Biases must be 1D: [1,3]");
}

TEST(BiasAddOpTest, RejectsBiasOfWrongLength) {
  OpTester nhwc = BiasAdd(Shape({2, 3}), Shape({2}), "NHWC");
  ExpectRunError(nhwc, absl::StatusCode::kInvalidArgument,
                 "Must provide as many biases as the last dimension of the input tensor: [2] vs. "
                 "[2,3]");
  OpTester nchw = BiasAdd(Shape({2, 3, 4}), Shape({4}), "NCHW");
  ExpectRunError(nchw, absl::StatusCode::kInvalidArgument,
                 "Must provide as many biases as the last dimension of the input tensor: [4] vs. "
                 "[2,3,4]");
}

TEST(BiasAddOpTest, V1RejectsBadShapesAsBiasAddDoes) {
  OpTester rank("BiasAddV1");
  rank.Attr("T", TSR_DTYPE_DOUBLE)
      .Input(Random<double>(Shape({3})))
      .Input(Random<double>(Shape({3})));
  ExpectRunError(rank, absl::StatusCode::kInvalidArgument, "Input tensor must be at least 2D: [3]");
  OpTester length("BiasAddV1");
  length.Attr("T", TSR_DTYPE_INT32)
      .Input(Random<int32_t>(Shape({2, 3, 4})))
      .Input(Random<int32_t>(Shape({3})));
  ExpectRunError(length, absl::StatusCode::kInvalidArgument,
                 "Must provide as many biases as the last dimension of the input tensor: [3] vs. "
                 "[2,3,4]");
}

TEST(BiasAddOpTest, RejectsUnknownDataFormat) {
  // The op definition's allowed values or the kernel refuse it; either names the value.
  OpTester tester = BiasAdd(Shape({2, 3}), Shape({3}), "NDHWC");
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "NDHWC");
}

}  // namespace
}  // namespace tessera::cpu::test
