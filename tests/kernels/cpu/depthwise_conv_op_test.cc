// DepthwiseConv2dNative against reference loops (channel multipliers, strides, dilations,
// paddings, NHWC and NCHW, float and double) and TensorFlow's errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/conv_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckDepthwise(const ConvCase& k) {
  SCOPED_TRACE(k.Name());
  Tensor input = Random<T>(Shape({k.batch, k.rows, k.cols, k.depth}), -1, 1);
  Tensor filter =
      Random<T>(Shape({k.filter_rows, k.filter_cols, k.depth, k.out_depth / k.depth}), -1, 1);
  std::vector<T> expected = ReferenceDepthwise<T>(k, input, filter);
  if (k.nchw) expected = NhwcValuesToNchw(expected, k.batch, k.OutRows(), k.OutCols(), k.out_depth);
  OpTester tester("DepthwiseConv2dNative");
  tester.Attr("T", DataTypeOf<T>::value);
  k.SetAttrs(tester);
  tester.Input(k.nchw ? ToNchw<T>(input) : input).Input(filter);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value,
                      k.Format(k.batch, k.OutRows(), k.OutCols(), k.out_depth), expected,
                      std::is_same_v<T, float> ? 1e-5 : 1e-12);
}

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  ConvCase base;
  base.out_depth = 3;  // multiplier 1
  cases.push_back(base);
  ConvCase multiplied = base;
  multiplied.out_depth = 9;
  multiplied.batch = 2;
  cases.push_back(multiplied);
  for (const char* padding : {"SAME", "VALID"}) {
    ConvCase k = multiplied;
    k.padding = padding;
    k.rows = 9;
    k.cols = 8;
    k.stride_rows = k.stride_cols = 2;
    cases.push_back(k);
  }
  ConvCase dilated = base;
  dilated.rows = dilated.cols = 10;
  dilated.dilation_rows = 2;
  dilated.dilation_cols = 3;
  cases.push_back(dilated);
  ConvCase explicit_pads = multiplied;
  explicit_pads.padding = "EXPLICIT";
  explicit_pads.pads = {1, 0, 2, 3};
  cases.push_back(explicit_pads);
  ConvCase big = base;  // Enough rows of work for the pool.
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

TEST(DepthwiseConv2dNativeOpTest, MatchesReference) {
  for (const ConvCase& k : Cases()) {
    CheckDepthwise<float>(k);
    CheckDepthwise<double>(k);
  }
}

TEST(DepthwiseConv2dNativeOpTest, RejectsMismatchedDepthAndUnequalStrides) {
  OpTester depth("DepthwiseConv2dNative");
  depth.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", std::string("SAME"))
      .Input(Random<float>(Shape({1, 5, 5, 3})))
      .Input(Random<float>(Shape({3, 3, 4, 2})));
  ExpectRunError(depth, absl::StatusCode::kInvalidArgument,
                 "input and filter must have the same depth: 3 vs 4");
  OpTester strides("DepthwiseConv2dNative");
  strides.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 2, 1})
      .Attr("padding", std::string("SAME"))
      .Input(Random<float>(Shape({1, 5, 5, 3})))
      .Input(Random<float>(Shape({3, 3, 3, 2})));
  ExpectRunError(strides, absl::StatusCode::kInvalidArgument,
                 "Current implementation only supports equal length strides in the row and "
                 "column dimensions.");
  OpTester rank("DepthwiseConv2dNative");
  rank.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", std::string("SAME"))
      .Input(Random<float>(Shape({5, 5, 3})))
      .Input(Random<float>(Shape({3, 3, 3, 2})));
  ExpectRunError(rank, absl::StatusCode::kInvalidArgument, "input must be 4-dimensional[5,5,3]");
}

}  // namespace
}  // namespace tessera::cpu::test
