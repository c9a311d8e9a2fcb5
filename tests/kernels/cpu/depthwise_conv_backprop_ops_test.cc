// DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter against reference
// loops (channel multipliers, strides, dilations, paddings, NHWC and NCHW, float and double),
// empty operands, and TensorFlow's errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/conv_test_util.h"

namespace tessera::cpu::test {
namespace {

// d(input) of ReferenceDepthwise for out_backprop `dy` (NHWC), filter [rows, cols, depth, m].
template <typename T>
std::vector<T> ReferenceInputGrad(const ConvCase& k, const Tensor& filter, const Tensor& dy) {
  const int64_t multiplier = k.out_depth / k.depth;
  std::vector<double> dx(static_cast<size_t>(k.batch * k.rows * k.cols * k.depth));
  k.ForEachTap(
      [&](int64_t b, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t kh, int64_t kw) {
        const T* g = dy.data<T>() + ((b * k.OutRows() + oy) * k.OutCols() + ox) * k.out_depth;
        const T* f = filter.data<T>() + (kh * k.filter_cols + kw) * k.out_depth;
        double* d = &dx[((b * k.rows + iy) * k.cols + ix) * k.depth];
        for (int64_t c = 0; c < k.depth; ++c) {
          for (int64_t q = 0; q < multiplier; ++q) {
            d[c] += static_cast<double>(g[c * multiplier + q]) * f[c * multiplier + q];
          }
        }
      });
  return std::vector<T>(dx.begin(), dx.end());
}

// d(filter) of ReferenceDepthwise for input `input` and out_backprop `dy` (NHWC).
template <typename T>
std::vector<T> ReferenceFilterGrad(const ConvCase& k, const Tensor& input, const Tensor& dy) {
  const int64_t multiplier = k.out_depth / k.depth;
  std::vector<double> dw(static_cast<size_t>(k.filter_rows * k.filter_cols * k.out_depth));
  k.ForEachTap(
      [&](int64_t b, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t kh, int64_t kw) {
        const T* g = dy.data<T>() + ((b * k.OutRows() + oy) * k.OutCols() + ox) * k.out_depth;
        const T* in = input.data<T>() + ((b * k.rows + iy) * k.cols + ix) * k.depth;
        double* d = &dw[(kh * k.filter_cols + kw) * k.out_depth];
        for (int64_t c = 0; c < k.depth; ++c) {
          for (int64_t q = 0; q < multiplier; ++q) {
            d[c * multiplier + q] += static_cast<double>(in[c]) * g[c * multiplier + q];
          }
        }
      });
  return std::vector<T>(dw.begin(), dw.end());
}

template <typename T>
double Tolerance(const ConvCase& k) {
  const double terms = static_cast<double>(k.filter_rows * k.filter_cols * k.out_depth +
                                           k.batch * k.OutRows() * k.OutCols());
  return std::is_same_v<T, float> ? 2e-6 * terms : 1e-10;
}

std::vector<int32_t> Sizes(std::initializer_list<int64_t> dims) {
  std::vector<int32_t> sizes;
  for (int64_t d : dims) sizes.push_back(static_cast<int32_t>(d));
  return sizes;
}

template <typename T>
void CheckInputGrad(const ConvCase& k) {
  SCOPED_TRACE(k.Name());
  Tensor filter =
      Random<T>(Shape({k.filter_rows, k.filter_cols, k.depth, k.out_depth / k.depth}), -1, 1);
  Tensor dy = Random<T>(Shape({k.batch, k.OutRows(), k.OutCols(), k.out_depth}), -1, 1);
  std::vector<T> expected = ReferenceInputGrad<T>(k, filter, dy);
  if (k.nchw) expected = NhwcValuesToNchw(expected, k.batch, k.rows, k.cols, k.depth);
  const TensorShape input_shape = k.Format(k.batch, k.rows, k.cols, k.depth);
  OpTester tester("DepthwiseConv2dNativeBackpropInput");
  tester.Attr("T", DataTypeOf<T>::value);
  k.SetAttrs(tester);
  tester
      .Input(Tensor::Vector<int32_t>(
          Sizes({input_shape.dim(0), input_shape.dim(1), input_shape.dim(2), input_shape.dim(3)})))
      .Input(filter)
      .Input(k.nchw ? ToNchw<T>(dy) : dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, input_shape, expected, Tolerance<T>(k));
}

template <typename T>
void CheckFilterGrad(const ConvCase& k) {
  SCOPED_TRACE(k.Name());
  Tensor input = Random<T>(Shape({k.batch, k.rows, k.cols, k.depth}), -1, 1);
  Tensor dy = Random<T>(Shape({k.batch, k.OutRows(), k.OutCols(), k.out_depth}), -1, 1);
  const std::vector<T> expected = ReferenceFilterGrad<T>(k, input, dy);
  const int64_t multiplier = k.depth == 0 ? 0 : k.out_depth / k.depth;
  const TensorShape filter_shape({k.filter_rows, k.filter_cols, k.depth, multiplier});
  OpTester tester("DepthwiseConv2dNativeBackpropFilter");
  tester.Attr("T", DataTypeOf<T>::value);
  k.SetAttrs(tester);
  tester.Input(k.nchw ? ToNchw<T>(input) : input)
      .Input(Tensor::Vector<int32_t>(Sizes({k.filter_rows, k.filter_cols, k.depth, multiplier})))
      .Input(k.nchw ? ToNchw<T>(dy) : dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, filter_shape, expected, Tolerance<T>(k));
}

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  ConvCase base;
  base.out_depth = 3;  // multiplier 1
  cases.push_back(base);
  ConvCase multiplied = base;
  multiplied.out_depth = 6;  // multiplier 2
  multiplied.batch = 2;
  cases.push_back(multiplied);
  for (const char* padding : {"SAME", "VALID"}) {
    for (const ConvCase& from : {base, multiplied}) {
      ConvCase k = from;
      k.padding = padding;
      k.rows = 9;
      k.cols = 8;
      k.stride_rows = k.stride_cols = 2;
      cases.push_back(k);
    }
  }
  ConvCase dilated = multiplied;
  dilated.rows = 10;
  dilated.cols = 9;
  dilated.dilation_rows = 2;
  dilated.dilation_cols = 3;
  cases.push_back(dilated);
  dilated.padding = "VALID";
  dilated.stride_rows = dilated.stride_cols = 2;
  cases.push_back(dilated);
  ConvCase explicit_pads = multiplied;
  explicit_pads.padding = "EXPLICIT";
  explicit_pads.pads = {1, 0, 2, 3};
  explicit_pads.stride_rows = explicit_pads.stride_cols = 2;
  cases.push_back(explicit_pads);
  ConvCase wide = base;  // Several channel blocks of the filter gradient, multiplier 3.
  wide.depth = 70;
  wide.out_depth = 210;
  wide.filter_rows = 2;
  cases.push_back(wide);
  ConvCase big = base;  // Enough work for the pool.
  big.batch = 2;
  big.rows = big.cols = 40;
  big.depth = big.out_depth = 32;
  cases.push_back(big);
  std::vector<ConvCase> with_nchw = cases;
  for (ConvCase k : cases) {
    k.nchw = true;
    with_nchw.push_back(k);
  }
  return with_nchw;
}

TEST(DepthwiseConv2dNativeBackpropInputOpTest, MatchesReference) {
  for (const ConvCase& k : Cases()) {
    CheckInputGrad<float>(k);
    CheckInputGrad<double>(k);
  }
}

TEST(DepthwiseConv2dNativeBackpropFilterOpTest, MatchesReference) {
  for (const ConvCase& k : Cases()) {
    CheckFilterGrad<float>(k);
    CheckFilterGrad<double>(k);
  }
}

// An empty out_backprop contributes nothing: the filter gradient is zeros, not stale memory.
TEST(DepthwiseConv2dNativeBackpropFilterOpTest, EmptyBatchGivesZeros) {
  ConvCase k;
  k.batch = 0;
  k.out_depth = 6;
  CheckFilterGrad<float>(k);
  k.nchw = true;
  CheckFilterGrad<double>(k);
}

TEST(DepthwiseConv2dNativeBackpropInputOpTest, EmptyOperands) {
  ConvCase k;
  k.batch = 0;
  k.out_depth = 6;
  CheckInputGrad<float>(k);
  ConvCase no_rows;  // 0 input rows: out_backprop has 0 rows too and the gradient is empty.
  no_rows.rows = 0;
  no_rows.out_depth = 3;
  CheckInputGrad<double>(no_rows);
}

OpTester InputGrad(std::vector<int32_t> sizes, const TensorShape& filter, const TensorShape& dy,
                   std::vector<int64_t> strides = {1, 1, 1, 1}) {
  OpTester tester("DepthwiseConv2dNativeBackpropInput");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", strides)
      .Attr("padding", std::string("VALID"))
      .Input(Tensor::Vector<int32_t>(sizes))
      .Input(Random<float>(filter))
      .Input(Random<float>(dy));
  return tester;
}

OpTester FilterGrad(std::vector<int32_t> sizes, const TensorShape& input, const TensorShape& dy,
                    std::vector<int64_t> strides = {1, 1, 1, 1}) {
  OpTester tester("DepthwiseConv2dNativeBackpropFilter");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", strides)
      .Attr("padding", std::string("VALID"))
      .Input(Random<float>(input))
      .Input(Tensor::Vector<int32_t>(sizes))
      .Input(Random<float>(dy));
  return tester;
}

TEST(DepthwiseConv2dNativeBackpropInputOpTest, RejectsBadShapes) {
  const char* kLabel = "DepthwiseConv2DBackpropInput: ";
  struct Case {
    std::vector<int32_t> sizes;
    TensorShape filter, dy;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{5, 5, 3}, Shape({3, 3, 3, 2}), Shape({1, 3, 3, 6}), "input must be 4-dimensional"},
           {{1, 5, 5, 3}, Shape({3, 3, 3}), Shape({1, 3, 3, 6}), "filter must be 4-dimensional"},
           {{1, 5, 5, 3},
            Shape({3, 3, 3, 2}),
            Shape({3, 3, 6}),
            "out_backprop must be 4-dimensional"},
           {{2, 5, 5, 3},
            Shape({3, 3, 3, 2}),
            Shape({1, 3, 3, 6}),
            "input and out_backprop must have the same batch size"},
           {{1, 5, 5, 4},
            Shape({3, 3, 3, 2}),
            Shape({1, 3, 3, 6}),
            "input and filter must have the same in_depth"},
           {{1, 5, 5, 3},
            Shape({3, 3, 3, 2}),
            Shape({1, 3, 3, 5}),
            "depth_multiplier * in_depth not equal to out_depth"},
           {{1, 5, 5, 3},
            Shape({3, 3, 3, 2}),
            Shape({1, 4, 3, 6}),
            "Number of rows of out_backprop doesn't match computed: actual = 4, computed = 3"},
           {{1, 5, 5, 3},
            Shape({3, 3, 3, 2}),
            Shape({1, 3, 2, 6}),
            "Number of cols of out_backprop doesn't match computed: actual = 2, computed = 3"},
       }) {
    SCOPED_TRACE(c.message);
    OpTester tester = InputGrad(c.sizes, c.filter, c.dy);
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument, kLabel + c.message);
  }
  OpTester negative = InputGrad({1, -5, 5, 3}, Shape({3, 3, 3, 2}), Shape({1, 3, 3, 6}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Dimension 1 of input_sizes must be >= 0");
  OpTester too_small = InputGrad({1, 1, 5, 3}, Shape({3, 3, 3, 2}), Shape({1, 0, 3, 6}));
  ExpectRunError(too_small, absl::StatusCode::kInvalidArgument,
                 "Computed output size would be negative: -1 [input_size: 1, "
                 "effective_filter_size: 3, stride: 1]");
  OpTester matrix("DepthwiseConv2dNativeBackpropInput");
  matrix.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", std::string("VALID"))
      .Input(Make<int32_t>(Shape({2, 2}), {1, 5, 5, 3}))
      .Input(Random<float>(Shape({3, 3, 3, 2})))
      .Input(Random<float>(Shape({1, 3, 3, 6})));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "Conv2DBackpropInput: input_sizes input must be 1-dim, not 2");
}

TEST(DepthwiseConv2dNativeBackpropFilterOpTest, RejectsBadShapes) {
  const char* kLabel = "DepthwiseConv2DBackpropFilter: ";
  struct Case {
    std::vector<int32_t> sizes;
    TensorShape input, dy;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{3, 3, 3, 2}, Shape({5, 5, 3}), Shape({1, 3, 3, 6}), "input must be 4-dimensional"},
           {{3, 3, 3}, Shape({1, 5, 5, 3}), Shape({1, 3, 3, 6}), "filter must be 4-dimensional"},
           {{3, 3, 3, 2},
            Shape({1, 5, 5, 3}),
            Shape({3, 3, 6}),
            "out_backprop must be 4-dimensional"},
           {{3, 3, 3, 2},
            Shape({1, 5, 5, 3}),
            Shape({2, 3, 3, 6}),
            "input and out_backprop must have the same batch size"},
           {{3, 3, 4, 2},
            Shape({1, 5, 5, 3}),
            Shape({1, 3, 3, 6}),
            "input and filter must have the same in_depth"},
           {{3, 3, 3, 3},
            Shape({1, 5, 5, 3}),
            Shape({1, 3, 3, 6}),
            "depth_multiplier * in_depth not equal to out_depth"},
           {{3, 3, 3, 2},
            Shape({1, 5, 5, 3}),
            Shape({1, 3, 4, 6}),
            "Number of cols of out_backprop doesn't match computed: actual = 4, computed = 3"},
       }) {
    SCOPED_TRACE(c.message);
    OpTester tester = FilterGrad(c.sizes, c.input, c.dy);
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument, kLabel + c.message);
  }
  OpTester negative = FilterGrad({3, 3, -3, 2}, Shape({1, 5, 5, 3}), Shape({1, 3, 3, 6}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Dimension 2 of filter_sizes must be >= 0");
  OpTester matrix("DepthwiseConv2dNativeBackpropFilter");
  matrix.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", std::string("VALID"))
      .Input(Random<float>(Shape({1, 5, 5, 3})))
      .Input(Make<int32_t>(Shape({2, 2}), {3, 3, 3, 2}))
      .Input(Random<float>(Shape({1, 3, 3, 6})));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "Conv2DBackpropFilter: filter_sizes input must be 1-dim, not 2");
}

TEST(DepthwiseConv2dNativeBackpropOpTest, RejectsBadStridesAndPaddings) {
  for (bool filter : {false, true}) {
    SCOPED_TRACE(filter ? "filter" : "input");
    auto run = [filter](std::vector<int64_t> strides) {
      return filter ? FilterGrad({3, 3, 3, 2}, Shape({1, 5, 5, 3}), Shape({1, 3, 3, 6}), strides)
                    : InputGrad({1, 5, 5, 3}, Shape({3, 3, 3, 2}), Shape({1, 3, 3, 6}), strides);
    };
    OpTester unequal = run({1, 1, 2, 1});
    ExpectRunError(unequal, absl::StatusCode::kInvalidArgument,
                   "Current implementation only supports equal length strides in the row and "
                   "column dimensions.");
    OpTester batch = run({2, 1, 1, 1});
    ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                   "Current implementation does not yet support strides in the batch and depth "
                   "dimensions.");
    OpTester three = run({1, 1, 1});
    ExpectRunError(three, absl::StatusCode::kInvalidArgument,
                   "Sliding window strides field must specify 4 dimensions");
  }
  OpTester paddings = InputGrad({1, 5, 5, 3}, Shape({3, 3, 3, 2}), Shape({1, 3, 3, 6}));
  paddings.Attr("explicit_paddings", std::vector<int64_t>{0, 0, 1, 1, 1, 1, 0, 0});
  ExpectRunError(
      paddings, absl::StatusCode::kInvalidArgument,
      "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
}

}  // namespace
}  // namespace tessera::cpu::test
