// BiasAddGrad in NHWC and NCHW against reference loops for every registered type, against
// central differences of BiasAdd, and its errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/nn_test_util.h"

namespace tessera::cpu::test {
namespace {

// The channel of element i, and the number of channels.
int64_t ChannelOf(const TensorShape& shape, bool nchw, int64_t i, int64_t* channels) {
  const int channel_dim = nchw ? 1 : shape.rank() - 1;
  *channels = shape.dim(channel_dim);
  int64_t inner = 1;
  for (int d = channel_dim + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
  return *channels == 0 || inner == 0 ? 0 : (i / inner) % *channels;
}

template <typename T>
void CheckBiasAddGrad(const TensorShape& shape, bool nchw) {
  SCOPED_TRACE(shape.DebugString() + (nchw ? " NCHW" : " NHWC"));
  Tensor grad = Random<T>(shape, -10, 10);
  int64_t channels = 0;
  ChannelOf(shape, nchw, 0, &channels);
  // Sums in double (the kernel's accumulator for floating types), then rounded to T.
  std::vector<double> sums(static_cast<size_t>(channels), 0.0);
  for (int64_t i = 0; i < grad.NumElements(); ++i) {
    sums[ChannelOf(shape, nchw, i, &channels)] += grad.data<T>()[i];
  }
  const std::vector<T> expected(sums.begin(), sums.end());
  OpTester tester("BiasAddGrad");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"))
      .Input(grad);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, Shape({channels}), expected, 1e-5);
}

template <typename T>
void CheckAllShapes() {
  for (const TensorShape& shape :
       {Shape({2, 3}), Shape({4, 5, 6}), Shape({2, 3, 4, 5}), Shape({2, 0, 3}), Shape({0, 4}),
        Shape({3, 7, 1, 2, 2}), Shape({1, 1}), Shape({513, 64}), Shape({2, 16, 33, 17})}) {
    CheckBiasAddGrad<T>(shape, false);
    CheckBiasAddGrad<T>(shape, true);
  }
}

TEST(BiasAddGradOpTest, FloatMatchesReference) { CheckAllShapes<float>(); }
TEST(BiasAddGradOpTest, DoubleMatchesReference) { CheckAllShapes<double>(); }
TEST(BiasAddGradOpTest, Int32MatchesReference) { CheckAllShapes<int32_t>(); }
TEST(BiasAddGradOpTest, Int64MatchesReference) { CheckAllShapes<int64_t>(); }

TEST(BiasAddGradOpTest, IsTheGradientOfBiasAdd) {
  for (bool nchw : {false, true}) {
    SCOPED_TRACE(nchw ? "NCHW" : "NHWC");
    const TensorShape shape = Shape({2, 3, 4, 5});
    int64_t channels = 0;
    ChannelOf(shape, nchw, 0, &channels);
    const std::vector<double> x = RandomValues(shape.num_elements(), -1, 1);
    const std::vector<double> g = RandomValues(shape.num_elements(), -1, 1);
    // BiasAdd(x, bias) element i is x[i] + bias[channel of i].
    auto bias_add = [&](const std::vector<double>& bias) {
      std::vector<double> y = x;
      int64_t unused;
      for (size_t i = 0; i < y.size(); ++i) y[i] += bias[ChannelOf(shape, nchw, i, &unused)];
      return y;
    };
    const std::vector<double> numeric =
        NumericGradient(Weighted(bias_add, g), RandomValues(channels, -1, 1));
    OpTester tester("BiasAddGrad");
    tester.Attr("T", TSR_DTYPE_DOUBLE)
        .Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"))
        .Input(FromValues<double>(shape, g));
    ExpectValuesNear(RunOk(tester), Shape({channels}), numeric, 1e-8);
  }
}

TEST(BiasAddGradOpTest, RejectsInputOfRankBelowTwo) {
  OpTester tester("BiasAddGrad");
  tester.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(Shape({3})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Input tensor must be at least 2D: [3]");
}

TEST(BiasAddGradOpTest, RejectsUnknownDataFormat) {
  OpTester tester("BiasAddGrad");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("data_format", std::string("NDHWC"))
      .Input(Random<float>(Shape({2, 3})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "NDHWC");
}

}  // namespace
}  // namespace tessera::cpu::test
