// Conv2DBackpropInput and Conv2DBackpropFilter against reference loops (paddings, strides,
// dilations, groups, 1x1 products, NHWC and NCHW, float and double), input_sizes with 2 or 4
// values, and TensorFlow's errors.
#include <string>
#include <vector>

#include "plugins/cpu/kernels/gemm/sanitizer_options.h"
#include "tests/kernels/cpu/conv_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
double Tolerance(const ConvCase& k) {
  const double terms = static_cast<double>(k.filter_rows * k.filter_cols * k.out_depth +
                                           k.batch * k.OutRows() * k.OutCols());
  return std::is_same_v<T, float> ? 2e-6 * terms : 1e-10;
}

template <typename T>
void CheckInputGrad(const ConvCase& k, bool spatial_sizes) {
  SCOPED_TRACE(k.Name() + (spatial_sizes ? " (2 sizes)" : ""));
  Tensor filter =
      Random<T>(Shape({k.filter_rows, k.filter_cols, k.FilterDepth(), k.out_depth}), -1, 1);
  Tensor dy = Random<T>(Shape({k.batch, k.OutRows(), k.OutCols(), k.out_depth}), -1, 1);
  std::vector<T> expected = ReferenceConvInputGrad<T>(k, filter, dy);
  if (k.nchw) expected = NhwcValuesToNchw(expected, k.batch, k.rows, k.cols, k.depth);
  const TensorShape input_shape = k.Format(k.batch, k.rows, k.cols, k.depth);
  std::vector<int32_t> sizes;
  if (spatial_sizes) {
    sizes = {static_cast<int32_t>(k.rows), static_cast<int32_t>(k.cols)};
  } else {
    for (int d = 0; d < 4; ++d) sizes.push_back(static_cast<int32_t>(input_shape.dim(d)));
  }
  OpTester tester("Conv2DBackpropInput");
  tester.Attr("T", DataTypeOf<T>::value);
  k.SetAttrs(tester);
  tester.Input(Tensor::Vector<int32_t>(sizes)).Input(filter).Input(k.nchw ? ToNchw<T>(dy) : dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, input_shape, expected, Tolerance<T>(k));
}

template <typename T>
void CheckFilterGrad(const ConvCase& k) {
  SCOPED_TRACE(k.Name());
  Tensor input = Random<T>(Shape({k.batch, k.rows, k.cols, k.depth}), -1, 1);
  Tensor dy = Random<T>(Shape({k.batch, k.OutRows(), k.OutCols(), k.out_depth}), -1, 1);
  const std::vector<T> expected = ReferenceConvFilterGrad<T>(k, input, dy);
  const TensorShape filter_shape({k.filter_rows, k.filter_cols, k.FilterDepth(), k.out_depth});
  OpTester tester("Conv2DBackpropFilter");
  tester.Attr("T", DataTypeOf<T>::value);
  k.SetAttrs(tester);
  tester.Input(k.nchw ? ToNchw<T>(input) : input)
      .Input(Tensor::Vector<int32_t>(
          {static_cast<int32_t>(k.filter_rows), static_cast<int32_t>(k.filter_cols),
           static_cast<int32_t>(k.FilterDepth()), static_cast<int32_t>(k.out_depth)}))
      .Input(k.nchw ? ToNchw<T>(dy) : dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, filter_shape, expected, Tolerance<T>(k));
}

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  ConvCase base;
  cases.push_back(base);
  for (const char* padding : {"SAME", "VALID"}) {
    for (int64_t stride : {2, 3}) {
      ConvCase k = base;
      k.padding = padding;
      k.rows = 9;
      k.cols = 8;
      k.stride_rows = stride;
      k.stride_cols = 2;
      cases.push_back(k);
    }
  }
  ConvCase dilated = base;
  dilated.rows = 10;
  dilated.cols = 9;
  dilated.dilation_rows = 2;
  dilated.dilation_cols = 3;
  cases.push_back(dilated);
  ConvCase explicit_pads = base;
  explicit_pads.padding = "EXPLICIT";
  explicit_pads.pads = {2, 0, 1, 3};
  explicit_pads.stride_rows = 2;
  cases.push_back(explicit_pads);
  ConvCase grouped = base;
  grouped.batch = 2;
  grouped.depth = 4;
  grouped.groups = 2;
  grouped.out_depth = 6;
  cases.push_back(grouped);
  ConvCase pointwise = base;
  pointwise.filter_rows = pointwise.filter_cols = 1;
  pointwise.depth = 8;
  pointwise.out_depth = 12;
  cases.push_back(pointwise);
  pointwise.groups = 2;
  cases.push_back(pointwise);
  ConvCase big = base;  // Several column chunks and enough work for the pool.
  big.batch = 3;
  big.rows = 30;
  big.cols = 26;
  big.depth = 24;
  big.out_depth = 32;
  cases.push_back(big);
  std::vector<ConvCase> with_nchw = cases;
  for (ConvCase k : cases) {
    k.nchw = true;
    with_nchw.push_back(k);
  }
  return with_nchw;
}

TEST(Conv2DBackpropInputOpTest, MatchesReference) {
  for (const ConvCase& k : Cases()) {
    CheckInputGrad<float>(k, false);
    CheckInputGrad<double>(k, false);
  }
}

TEST(Conv2DBackpropInputOpTest, TakesTwoSpatialSizes) {
  ConvCase k;
  k.batch = 2;
  k.stride_rows = 2;
  CheckInputGrad<float>(k, true);
  k.nchw = true;
  CheckInputGrad<double>(k, true);
}

TEST(Conv2DBackpropFilterOpTest, MatchesReference) {
  for (const ConvCase& k : Cases()) {
    CheckFilterGrad<float>(k);
    CheckFilterGrad<double>(k);
  }
}

TEST(Conv2DBackpropFilterOpTest, EmptyBatchGivesZeros) {
  ConvCase k;
  k.batch = 0;
  CheckFilterGrad<float>(k);
}

OpTester InputGrad(std::vector<int32_t> sizes, const TensorShape& filter, const TensorShape& dy,
                   std::vector<int64_t> strides = {1, 1, 1, 1}) {
  OpTester tester("Conv2DBackpropInput");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", strides)
      .Attr("padding", std::string("VALID"))
      .Input(Tensor::Vector<int32_t>(sizes))
      .Input(Random<float>(filter))
      .Input(Random<float>(dy));
  return tester;
}

TEST(Conv2DBackpropInputOpTest, RejectsBadShapes) {
  OpTester three = InputGrad({5, 5, 3}, Shape({3, 3, 3, 4}), Shape({1, 3, 3, 4}));
  ExpectRunError(three, absl::StatusCode::kInvalidArgument,
                 "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but "
                 "got: 3");
  OpTester mismatch = InputGrad({1, 5, 5, 3}, Shape({3, 3, 3, 4}), Shape({1, 4, 3, 4}));
  ExpectRunError(mismatch, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual "
                 "= 4, computed = 3 spatial_dim: 1 input: 5 filter: 3 output: 4 stride: 1 "
                 "dilation: 1");
  OpTester batch = InputGrad({2, 5, 5, 3}, Shape({3, 3, 3, 4}), Shape({1, 3, 3, 4}));
  ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropInput: input and out_backprop must have the same batch size. "
                 "Input batch: 2, outbackprop batch: 1, batch_dim: 0");
  OpTester out_depth = InputGrad({1, 5, 5, 3}, Shape({3, 3, 3, 4}), Shape({1, 3, 3, 5}));
  ExpectRunError(out_depth, absl::StatusCode::kInvalidArgument,
                 "filter and out_backprop must have the same out_depth");
  OpTester in_depth = InputGrad({1, 5, 5, 5}, Shape({3, 3, 3, 4}), Shape({1, 3, 3, 4}));
  ExpectRunError(in_depth, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropInput: input depth must be evenly divisible by filter depth");
  OpTester negative = InputGrad({1, -5, 5, 3}, Shape({3, 3, 3, 4}), Shape({1, 3, 3, 4}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "Dimension -5 must be >= 0");
  OpTester filter_rank = InputGrad({5, 5}, Shape({3, 3, 3}), Shape({1, 3, 3, 4}));
  ExpectRunError(filter_rank, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropInput: filter must be 4-dimensional");
}

TEST(Conv2DBackpropInputOpTest, RejectsInputSizesThatAreNotAVector) {
  OpTester tester("Conv2DBackpropInput");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", std::string("VALID"))
      .Input(Make<int32_t>(Shape({2, 2}), {1, 5, 5, 3}))
      .Input(Random<float>(Shape({3, 3, 3, 4})))
      .Input(Random<float>(Shape({1, 3, 3, 4})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Conv2DBackpropInput: input_sizes input must be 1-dim, not 2");
}

TEST(Conv2DBackpropFilterOpTest, RejectsBadShapes) {
  auto filter_grad = [](std::vector<int32_t> sizes, const TensorShape& input,
                        const TensorShape& dy) {
    OpTester tester("Conv2DBackpropFilter");
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", std::string("VALID"))
        .Input(Random<float>(input))
        .Input(Tensor::Vector<int32_t>(sizes))
        .Input(Random<float>(dy));
    return tester;
  };
  OpTester mismatch = filter_grad({3, 3, 3, 4}, Shape({1, 5, 5, 3}), Shape({1, 3, 2, 4}));
  ExpectRunError(mismatch, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropFilter: Size of out_backprop doesn't match computed: "
                 "actual = 2, computed = 3 spatial_dim: 2");
  OpTester three = filter_grad({3, 3, 3}, Shape({1, 5, 5, 3}), Shape({1, 3, 3, 4}));
  ExpectRunError(three, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropFilter: filter must be 4-dimensional");
  OpTester input_rank = filter_grad({3, 3, 3, 4}, Shape({5, 5, 3}), Shape({1, 3, 3, 4}));
  ExpectRunError(input_rank, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropFilter: input must be 4-dimensional");
  OpTester dy_rank = filter_grad({3, 3, 3, 4}, Shape({1, 5, 5, 3}), Shape({3, 3, 4}));
  ExpectRunError(dy_rank, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropFilter: out_backprop must be 4-dimensional");
  OpTester zero_depth = filter_grad({3, 3, 0, 4}, Shape({1, 5, 5, 3}), Shape({1, 3, 3, 4}));
  ExpectRunError(zero_depth, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropFilter: filter depth must be strictly greated than zero");
  OpTester groups = filter_grad({3, 3, 2, 3}, Shape({1, 5, 5, 4}), Shape({1, 3, 3, 3}));
  ExpectRunError(groups, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropFilter: output depth must be evenly divisible by number of "
                 "groups: 3 vs 2");
  OpTester tester("Conv2DBackpropFilter");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", std::string("VALID"))
      .Input(Random<float>(Shape({1, 5, 5, 3})))
      .Input(Make<int32_t>(Shape({2, 2}), {3, 3, 3, 4}))
      .Input(Random<float>(Shape({1, 3, 3, 4})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Conv2DCustomBackpropFilter: filter_sizes input must be 1-dim, not 2");
}

}  // namespace
}  // namespace tessera::cpu::test
