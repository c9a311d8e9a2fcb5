// MaxPoolGrad and AvgPoolGrad in NHWC and NCHW against reference loops and against central
// differences of the forward references, TensorFlow's tie rule, and the errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/pool_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
Tensor RunMaxPoolGrad(const PoolCase& c, bool nchw, const std::vector<double>& x,
                      const std::vector<double>& dy) {
  const PoolReference ref(c);
  OpTester tester("MaxPoolGrad");
  tester.Attr("T", DataTypeOf<T>::value);
  SetPoolAttrs(tester, c, nchw);
  tester.Input(FromValues<T>(ref.InputShape(nchw), x))
      .Input(FromValues<T>(ref.OutputShape(nchw), ref.MaxPool(x, nchw)))
      .Input(FromValues<T>(ref.OutputShape(nchw), dy));
  return RunOk(tester);
}

template <typename T>
Tensor RunAvgPoolGrad(const PoolCase& c, bool nchw, const std::vector<double>& dy) {
  const PoolReference ref(c);
  const TensorShape in_shape = ref.InputShape(nchw);
  Tensor orig_shape(TSR_DTYPE_INT32, Shape({4}));
  for (int i = 0; i < 4; ++i) orig_shape.data<int32_t>()[i] = static_cast<int32_t>(in_shape.dim(i));
  OpTester tester("AvgPoolGrad");
  tester.Attr("T", DataTypeOf<T>::value);
  SetPoolAttrs(tester, c, nchw);
  tester.Input(orig_shape).Input(FromValues<T>(ref.OutputShape(nchw), dy));
  return RunOk(tester);
}

template <typename T>
void CheckGrads(const PoolCase& c, bool nchw) {
  SCOPED_TRACE(c.Name() + (nchw ? " NCHW" : " NHWC"));
  const PoolReference ref(c);
  const TensorShape in_shape = ref.InputShape(nchw);
  const TensorShape out_shape = ref.OutputShape(nchw);
  const std::vector<double> x =
      Values(FromValues<T>(in_shape, RandomValues(in_shape.num_elements(), -10, 10)));
  const std::vector<double> dy =
      Values(FromValues<T>(out_shape, RandomValues(out_shape.num_elements(), -2, 2)));
  const double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-12;
  ExpectValuesNear(RunMaxPoolGrad<T>(c, nchw, x, dy), in_shape, ref.MaxPoolGrad(x, dy, nchw),
                   tolerance);
  if (c.padding != "EXPLICIT") {
    ExpectValuesNear(RunAvgPoolGrad<T>(c, nchw, dy), in_shape, ref.AvgPoolGrad(dy, nchw),
                     tolerance);
  }
}

TEST(PoolGradOpsTest, FloatMatchesReference) {
  for (const PoolCase& c : PoolCases()) {
    CheckGrads<float>(c, false);
    CheckGrads<float>(c, true);
  }
}

TEST(PoolGradOpsTest, DoubleMatchesReference) {
  for (const PoolCase& c : PoolCases()) {
    CheckGrads<double>(c, false);
    CheckGrads<double>(c, true);
  }
}

TEST(PoolGradOpsTest, MaxPoolGradWithExplicitPadding) {
  PoolCase c{2, 5, 6, 3, 3, 3, 2, 2, "EXPLICIT"};
  c.pads[0] = 2;
  c.pads[1] = 1;
  c.pads[2] = 1;
  c.pads[3] = 0;
  CheckGrads<float>(c, false);
  CheckGrads<double>(c, true);
}

TEST(PoolGradOpsTest, MatchCentralDifferences) {
  for (const PoolCase& c :
       {PoolCase{1, 5, 7, 2, 3, 2, 2, 1, "SAME"}, PoolCase{2, 6, 5, 1, 2, 3, 2, 2, "VALID"},
        PoolCase{1, 4, 4, 3, 3, 3, 1, 1, "SAME"}}) {
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(c.Name() + (nchw ? " NCHW" : " NHWC"));
      const PoolReference ref(c);
      const TensorShape in_shape = ref.InputShape(nchw);
      const TensorShape out_shape = ref.OutputShape(nchw);
      // Distinct values: the maximum of each window is unique, so MaxPool is smooth there.
      const std::vector<double> x = RandomValues(in_shape.num_elements(), -10, 10);
      const std::vector<double> dy = RandomValues(out_shape.num_elements(), -2, 2);
      const std::vector<double> max_numeric = NumericGradient(
          Weighted([&](const std::vector<double>& v) { return ref.MaxPool(v, nchw); }, dy), x);
      ExpectValuesNear(RunMaxPoolGrad<double>(c, nchw, x, dy), in_shape, max_numeric, 1e-7);
      const std::vector<double> avg_numeric = NumericGradient(
          Weighted([&](const std::vector<double>& v) { return ref.AvgPool(v, nchw); }, dy), x);
      ExpectValuesNear(RunAvgPoolGrad<double>(c, nchw, dy), in_shape, avg_numeric, 1e-7);
    }
  }
}

TEST(PoolGradOpsTest, MaxPoolGradSendsTiesToTheFirstMaximum) {
  // One 3x3 image of equal values in 2x2 windows with stride 1: each window's gradient goes to
  // its top-left element.
  const PoolCase c{1, 3, 3, 1, 2, 2, 1, 1, "VALID"};
  const std::vector<double> x(9, 1.0);
  const std::vector<double> dy = {1, 2, 3, 4};
  ExpectValuesNear(RunMaxPoolGrad<float>(c, false, x, dy), Shape({1, 3, 3, 1}),
                   {1, 2, 0, 3, 4, 0, 0, 0, 0}, 0);
  // The first window ties (0,1) with (1,0): row-major order picks (0,1), which also wins the
  // second window; the third has (1,0) alone; the last is all zeros and picks (1,1).
  const std::vector<double> x2 = {0, 5, 0, 5, 0, 0, 0, 0, 0};
  ExpectValuesNear(RunMaxPoolGrad<double>(c, true, x2, dy), Shape({1, 1, 3, 3}),
                   {0, 1 + 2, 0, 3, 4, 0, 0, 0, 0}, 0);
}

OpTester MaxPoolGrad(const TensorShape& in, const TensorShape& out, const TensorShape& grad,
                     std::vector<int64_t> ksize = {1, 2, 2, 1}) {
  OpTester tester("MaxPoolGrad");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("ksize", ksize)
      .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("padding", std::string("VALID"))
      .Input(Random<float>(in))
      .Input(Random<float>(out))
      .Input(Random<float>(grad));
  return tester;
}

TEST(PoolGradOpsTest, MaxPoolGradErrors) {
  const TensorShape in = Shape({1, 4, 4, 1});
  const TensorShape out = Shape({1, 2, 2, 1});
  OpTester t1 = MaxPoolGrad(Shape({4, 4, 1}), out, out);
  ExpectRunError(t1, absl::StatusCode::kInvalidArgument, "tensor_in must be 4-dimensional");
  OpTester t2 = MaxPoolGrad(in, Shape({2, 2, 1}), out);
  ExpectRunError(t2, absl::StatusCode::kInvalidArgument, "tensor_out must be 4-dimensional");
  OpTester t3 = MaxPoolGrad(in, out, Shape({2, 2, 1}));
  ExpectRunError(t3, absl::StatusCode::kInvalidArgument, "out_backprop must be 4-dimensional");
  OpTester t4 = MaxPoolGrad(in, Shape({1, 3, 2, 1}), out);
  ExpectRunError(t4, absl::StatusCode::kInvalidArgument,
                 "Expected orig_output shape to be [1,2,2,1], but got [1,3,2,1]");
  OpTester t5 = MaxPoolGrad(in, out, Shape({1, 2, 2, 2}));
  ExpectRunError(t5, absl::StatusCode::kInvalidArgument,
                 "Expected grad shape to be [1,2,2,1], but got [1,2,2,2]");
  OpTester t6 = MaxPoolGrad(in, out, out, {1, 2, 2, 2});
  ExpectRunError(t6, absl::StatusCode::kUnimplemented,
                 "MaxPoolingGrad is not yet supported on the depth dimension.");
}

OpTester AvgPoolGrad(const Tensor& orig_shape, const TensorShape& grad,
                     std::vector<int64_t> ksize = {1, 2, 2, 1}) {
  OpTester tester("AvgPoolGrad");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("ksize", ksize)
      .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("padding", std::string("VALID"))
      .Input(orig_shape)
      .Input(Random<float>(grad));
  return tester;
}

TEST(PoolGradOpsTest, AvgPoolGradErrors) {
  const TensorShape out = Shape({1, 2, 2, 1});
  OpTester t1 = AvgPoolGrad(Make<int32_t>(Shape({3}), {1, 4, 4}), out);
  ExpectRunError(t1, absl::StatusCode::kInvalidArgument,
                 "orig_input_shape must be 1-dimensional and 4 elements, got [3]");
  OpTester t2 = AvgPoolGrad(Make<int32_t>(Shape({4}), {1, 4, 4, 1}), Shape({2, 2, 1}));
  ExpectRunError(t2, absl::StatusCode::kInvalidArgument, "out_backprop must be 4-dimensional");
  OpTester t3 = AvgPoolGrad(Make<int32_t>(Shape({4}), {1, -4, 4, 1}), out);
  ExpectRunError(t3, absl::StatusCode::kInvalidArgument, "Dimension -4 must be >= 0");
  OpTester t4 = AvgPoolGrad(Make<int32_t>(Shape({4}), {1, 6, 4, 1}), out);
  ExpectRunError(t4, absl::StatusCode::kInvalidArgument,
                 "Expected grad shape to be [1,3,2,1], but got [1,2,2,1]");
  OpTester t5 = AvgPoolGrad(Make<int32_t>(Shape({4}), {1, 4, 4, 2}), out, {1, 2, 2, 2});
  ExpectRunError(t5, absl::StatusCode::kUnimplemented,
                 "Non-spatial pooling is not yet supported. Volunteers? :)");
}

// MaxPoolGradV2 takes ksize and strides as int32 inputs: the same answers as MaxPoolGrad's
// reference, and its checks of them.
TEST(PoolGradOpsTest, MaxPoolGradV2MatchesReference) {
  for (const PoolCase& c : PoolCases()) {
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(c.Name() + (nchw ? " NCHW" : " NHWC"));
      const PoolReference ref(c);
      const TensorShape in_shape = ref.InputShape(nchw);
      const TensorShape out_shape = ref.OutputShape(nchw);
      const std::vector<double> x =
          Values(FromValues<double>(in_shape, RandomValues(in_shape.num_elements(), -10, 10)));
      const std::vector<double> dy =
          Values(FromValues<double>(out_shape, RandomValues(out_shape.num_elements(), -2, 2)));
      const int32_t wr = static_cast<int32_t>(c.window_rows);
      const int32_t wc = static_cast<int32_t>(c.window_cols);
      const int32_t sr = static_cast<int32_t>(c.stride_rows);
      const int32_t sc = static_cast<int32_t>(c.stride_cols);
      OpTester tester("MaxPoolGradV2");
      tester.Attr("T", TSR_DTYPE_DOUBLE)
          .Attr("padding", c.padding)
          .Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"))
          .Input(FromValues<double>(in_shape, x))
          .Input(FromValues<double>(out_shape, ref.MaxPool(x, nchw)))
          .Input(FromValues<double>(out_shape, dy))
          .Input(Tensor::Vector<int32_t>(nchw ? std::vector<int32_t>{1, 1, wr, wc}
                                              : std::vector<int32_t>{1, wr, wc, 1}))
          .Input(Tensor::Vector<int32_t>(nchw ? std::vector<int32_t>{1, 1, sr, sc}
                                              : std::vector<int32_t>{1, sr, sc, 1}));
      ExpectValuesNear(RunOk(tester), in_shape, ref.MaxPoolGrad(x, dy, nchw), 1e-12);
    }
  }
  OpTester depth("MaxPoolGradV2");
  depth.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("padding", std::string("VALID"))
      .Input(Random<float>(Shape({1, 2, 2, 4})))
      .Input(Random<float>(Shape({1, 2, 2, 2})))
      .Input(Random<float>(Shape({1, 2, 2, 2})))
      .Input(Tensor::Vector<int32_t>({1, 1, 1, 2}))
      .Input(Tensor::Vector<int32_t>({1, 1, 1, 2}));
  ExpectRunError(depth, absl::StatusCode::kUnimplemented,
                 "MaxPoolingGrad is not yet supported on the depth dimension.");
  OpTester short_ksize("MaxPoolGradV2");
  short_ksize.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("padding", std::string("VALID"))
      .Input(Random<float>(Shape({1, 2, 2, 4})))
      .Input(Random<float>(Shape({1, 2, 2, 4})))
      .Input(Random<float>(Shape({1, 2, 2, 4})))
      .Input(Tensor::Vector<int32_t>({1, 1, 1}))
      .Input(Tensor::Vector<int32_t>({1, 1, 1, 1}));
  ExpectRunError(short_ksize, absl::StatusCode::kInvalidArgument,
                 "Sliding window ksize field must specify 4 dimensions");
}

}  // namespace
}  // namespace tessera::cpu::test
