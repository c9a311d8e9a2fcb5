// MaxPool and AvgPool in NHWC and NCHW against reference loops (VALID, SAME, EXPLICIT padding,
// depth pooling), and TensorFlow's errors.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/cpu/pool_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckPool(const std::string& op, const PoolCase& c, bool nchw) {
  SCOPED_TRACE(op + " " + c.Name() + (nchw ? " NCHW" : " NHWC"));
  const PoolReference ref(c);
  const TensorShape in_shape = ref.InputShape(nchw);
  const std::vector<double> x =
      Values(FromValues<T>(in_shape, RandomValues(in_shape.num_elements(), -10, 10)));
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value);
  SetPoolAttrs(tester, c, nchw);
  tester.Input(FromValues<T>(in_shape, x));
  const std::vector<double> expected =
      op == "MaxPool" ? ref.MaxPool(x, nchw) : ref.AvgPool(x, nchw);
  ExpectValuesNear(RunOk(tester), ref.OutputShape(nchw), expected, sizeof(T) == 4 ? 1e-6 : 1e-12);
}

template <typename T>
void CheckAllCases(const std::string& op) {
  for (const PoolCase& c : PoolCases()) {
    CheckPool<T>(op, c, false);
    CheckPool<T>(op, c, true);
  }
}

TEST(MaxPoolOpTest, FloatMatchesReference) { CheckAllCases<float>("MaxPool"); }
TEST(MaxPoolOpTest, DoubleMatchesReference) { CheckAllCases<double>("MaxPool"); }
TEST(AvgPoolOpTest, FloatMatchesReference) { CheckAllCases<float>("AvgPool"); }
TEST(AvgPoolOpTest, DoubleMatchesReference) { CheckAllCases<double>("AvgPool"); }

TEST(MaxPoolOpTest, IntegersMatchReference) {
  const PoolCase c{2, 5, 7, 3, 3, 2, 2, 1, "SAME"};
  for (bool nchw : {false, true}) {
    const PoolReference ref(c);
    Tensor x = Random<int32_t>(ref.InputShape(nchw), -1000, 1000);
    OpTester tester("MaxPool");
    tester.Attr("T", TSR_DTYPE_INT32);
    SetPoolAttrs(tester, c, nchw);
    tester.Input(x);
    std::vector<double> xs;
    for (int64_t i = 0; i < x.NumElements(); ++i) xs.push_back(x.data<int32_t>()[i]);
    const std::vector<double> y = ref.MaxPool(xs, nchw);
    ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, ref.OutputShape(nchw),
                              std::vector<int32_t>(y.begin(), y.end()));
  }
}

TEST(MaxPoolOpTest, ExplicitPaddingMatchesReference) {
  for (const PoolCase& base : {PoolCase{2, 5, 6, 3, 3, 3, 2, 2, "EXPLICIT"},
                               PoolCase{1, 4, 4, 2, 3, 3, 1, 3, "EXPLICIT"}}) {
    PoolCase c = base;
    c.pads[0] = 1;
    c.pads[1] = 2;
    c.pads[2] = 0;
    c.pads[3] = 1;
    CheckPool<float>("MaxPool", c, false);
    CheckPool<float>("MaxPool", c, true);
  }
}

TEST(MaxPoolOpTest, PoolsOverDepth) {
  for (bool nchw : {false, true}) {
    const TensorShape shape = Shape4(nchw, 2, 3, 4, 6);
    Tensor x = Random<float>(shape);
    OpTester tester("MaxPool");
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("ksize", nchw ? std::vector<int64_t>{1, 3, 1, 1} : std::vector<int64_t>{1, 1, 1, 3})
        .Attr("strides", nchw ? std::vector<int64_t>{1, 3, 1, 1} : std::vector<int64_t>{1, 1, 1, 3})
        .Attr("padding", std::string("VALID"))
        .Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"))
        .Input(x);
    const Layout4 in(shape, nchw);
    const Layout4 out(Shape4(nchw, 2, 3, 4, 2), nchw);
    std::vector<float> expected(out.batch * out.rows * out.cols * out.depth);
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t h = 0; h < 3; ++h) {
        for (int64_t w = 0; w < 4; ++w) {
          for (int64_t d = 0; d < 2; ++d) {
            float best = x.data<float>()[in.At(n, h, w, 3 * d)];
            for (int64_t k = 1; k < 3; ++k)
              best = std::max(best, x.data<float>()[in.At(n, h, w, 3 * d + k)]);
            expected[out.At(n, h, w, d)] = best;
          }
        }
      }
    }
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape4(nchw, 2, 3, 4, 2), expected);
  }
}

// A pooling node over a float input of `shape` with the given attrs.
OpTester Pool(const std::string& op, const TensorShape& shape, std::vector<int64_t> ksize,
              std::vector<int64_t> strides, const std::string& padding,
              const std::string& data_format = "NHWC") {
  OpTester tester(op);
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("ksize", ksize)
      .Attr("strides", strides)
      .Attr("padding", padding)
      .Attr("data_format", data_format)
      .Input(Random<float>(shape));
  return tester;
}

TEST(PoolOpsTest, RejectBadWindows) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    OpTester zero = Pool(op, Shape({1, 4, 4, 1}), {1, 0, 2, 1}, {1, 1, 1, 1}, "VALID");
    ExpectRunError(zero, absl::StatusCode::kInvalidArgument,
                   "Sliding window ksize for dimension 1 was zero.");
    OpTester batch = Pool(op, Shape({2, 4, 4, 1}), {2, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
    ExpectRunError(batch, absl::StatusCode::kUnimplemented,
                   "Pooling is not yet supported on the batch dimension.");
    OpTester rank = Pool(op, Shape({4, 4, 1}), {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
    ExpectRunError(rank, absl::StatusCode::kInvalidArgument, "tensor_in must be 4-dimensional");
    OpTester negative = Pool(op, Shape({1, 2, 4, 1}), {1, 4, 1, 1}, {1, 1, 1, 1}, "VALID");
    ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                   "Computed output size would be negative: -1 [input_size: 2, "
                   "effective_filter_size: 4, stride: 1]");
    OpTester stride = Pool(op, Shape({1, 2, 4, 1}), {1, 1, 1, 1}, {1, 0, 1, 1}, "SAME");
    ExpectRunError(stride, absl::StatusCode::kInvalidArgument, "Stride must be > 0, but got 0");
  }
  OpTester avg_depth = Pool("AvgPool", Shape({1, 2, 2, 4}), {1, 1, 1, 2}, {1, 1, 1, 2}, "VALID");
  ExpectRunError(avg_depth, absl::StatusCode::kUnimplemented,
                 "Non-spatial pooling is not yet supported. Volunteers? :)");
  OpTester mixed = Pool("MaxPool", Shape({1, 2, 2, 4}), {1, 2, 1, 2}, {1, 1, 1, 2}, "VALID");
  ExpectRunError(mixed, absl::StatusCode::kUnimplemented,
                 "MaxPooling supports exactly one of pooling across depth or pooling across "
                 "width/height.");
  OpTester depth_stride = Pool("MaxPool", Shape({1, 2, 2, 4}), {1, 1, 1, 2}, {1, 1, 1, 1}, "VALID");
  ExpectRunError(depth_stride, absl::StatusCode::kUnimplemented,
                 "Depthwise max pooling requires the depth window to equal the depth stride");
  OpTester depth_divide = Pool("MaxPool", Shape({1, 2, 2, 5}), {1, 1, 1, 2}, {1, 1, 1, 2}, "VALID");
  ExpectRunError(depth_divide, absl::StatusCode::kUnimplemented,
                 "Depthwise max pooling requires the depth window to evenly divide the input "
                 "depth");
}

// Windows and strides beyond 2^60 are refused by name before any window arithmetic could
// overflow; a stride larger than the input within that limit is fine (one output row).
TEST(PoolOpsTest, RejectWindowsAndStridesBeyond2To60) {
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    OpTester window = Pool(op, Shape({1, 2, 2, 1}), {1, 1, kHuge, 1}, {1, 1, 1, 1}, "SAME");
    ExpectRunError(window, absl::StatusCode::kInvalidArgument,
                   "Sliding window ksize value 9223372036854775807 is larger than 2^60");
    OpTester stride = Pool(op, Shape({1, 2, 2, 1}), {1, 2, 2, 1}, {1, kHuge, 1, 1}, "SAME");
    ExpectRunError(stride, absl::StatusCode::kInvalidArgument,
                   "Sliding window strides value 9223372036854775807 is larger than 2^60");
  }
  // Rows [[1, 2], [3, 4]]: one output row; columns pooled over [0, 2) and [1, 2).
  for (const auto& [op, expected] : std::vector<std::pair<std::string, std::vector<float>>>{
           {"MaxPool", {4, 4}}, {"AvgPool", {2.5f, 3}}}) {
    OpTester large(op);
    large.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
        .Attr("strides", std::vector<int64_t>{1, int64_t{1} << 60, 1, 1})
        .Attr("padding", std::string("SAME"))
        .Attr("data_format", std::string("NHWC"))
        .Input(Make<float>(Shape({1, 2, 2, 1}), {1, 2, 3, 4}));
    ExpectTensorNear<float>(RunOk(large), TSR_DTYPE_FLOAT, Shape({1, 1, 2, 1}), expected);
  }
  // A window of 2^40 columns with SAME padding over two NCHW columns: each output column pools
  // its whole row, without a step per window column.
  for (const auto& [op, expected] : std::vector<std::pair<std::string, std::vector<float>>>{
           {"MaxPool", {2, 2, 4, 4}}, {"AvgPool", {1.5f, 1.5f, 3.5f, 3.5f}}}) {
    OpTester wide(op);
    wide.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("ksize", std::vector<int64_t>{1, 1, 1, int64_t{1} << 40})
        .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", std::string("SAME"))
        .Attr("data_format", std::string("NCHW"))
        .Input(Make<float>(Shape({1, 1, 2, 2}), {1, 2, 3, 4}));
    ExpectTensorNear<float>(RunOk(wide), TSR_DTYPE_FLOAT, Shape({1, 1, 2, 2}), expected);
  }
}

TEST(PoolOpsTest, RejectBadExplicitPaddings) {
  OpTester tester = Pool("MaxPool", Shape({1, 4, 4, 1}), {1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  tester.Attr("explicit_paddings", std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Top padding 3 needs to be smaller than the window size 3");
  OpTester right = Pool("MaxPool", Shape({1, 4, 4, 1}), {1, 3, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  right.Attr("explicit_paddings", std::vector<int64_t>{0, 0, 0, 0, 1, 2, 0, 0});
  ExpectRunError(right, absl::StatusCode::kInvalidArgument,
                 "Right padding 2 needs to be smaller than the window size 2");
}

TEST(PoolOpsTest, MaxPoolRejectsVectorizedChannels) {
  OpTester tester =
      Pool("MaxPool", Shape({1, 1, 4, 4, 4}), {1, 1, 2, 2}, {1, 1, 1, 1}, "VALID", "NCHW_VECT_C");
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "NCHW_VECT_C");
}

// MaxPoolV2 takes ksize and strides as int32 inputs: the same answers as MaxPool's reference.
TEST(MaxPoolV2OpTest, MatchesReference) {
  for (const PoolCase& c : PoolCases()) {
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(c.Name() + (nchw ? " NCHW" : " NHWC"));
      const PoolReference ref(c);
      const TensorShape in_shape = ref.InputShape(nchw);
      const std::vector<double> x =
          Values(FromValues<float>(in_shape, RandomValues(in_shape.num_elements(), -10, 10)));
      const int32_t wr = static_cast<int32_t>(c.window_rows);
      const int32_t wc = static_cast<int32_t>(c.window_cols);
      const int32_t sr = static_cast<int32_t>(c.stride_rows);
      const int32_t sc = static_cast<int32_t>(c.stride_cols);
      OpTester tester("MaxPoolV2");
      tester.Attr("T", TSR_DTYPE_FLOAT)
          .Attr("padding", c.padding)
          .Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"))
          .Input(FromValues<float>(in_shape, x))
          .Input(Tensor::Vector<int32_t>(nchw ? std::vector<int32_t>{1, 1, wr, wc}
                                              : std::vector<int32_t>{1, wr, wc, 1}))
          .Input(Tensor::Vector<int32_t>(nchw ? std::vector<int32_t>{1, 1, sr, sc}
                                              : std::vector<int32_t>{1, sr, sc, 1}));
      ExpectValuesNear(RunOk(tester), ref.OutputShape(nchw), ref.MaxPool(x, nchw), 1e-6);
    }
  }
}

TEST(MaxPoolV2OpTest, ChecksItsWindowInputs) {
  auto run = [](std::vector<int32_t> ksize, std::vector<int32_t> strides, absl::StatusCode code,
                const std::string& message) {
    OpTester tester("MaxPoolV2");
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("padding", std::string("VALID"))
        .Input(Random<float>(Shape({1, 4, 4, 2})))
        .Input(Tensor::Vector<int32_t>(ksize))
        .Input(Tensor::Vector<int32_t>(strides));
    ExpectRunError(tester, code, message);
  };
  run({1, 2, 2}, {1, 1, 1, 1}, absl::StatusCode::kInvalidArgument,
      "Sliding window ksize field must specify 4 dimensions");
  run({1, 2, 2, 1}, {1, 1, 1}, absl::StatusCode::kInvalidArgument,
      "Sliding window stride field must specify 4 dimensions");
  run({1, 0, 2, 1}, {1, 1, 1, 1}, absl::StatusCode::kInvalidArgument,
      "Sliding window ksize for dimension 1 was zero.");
  run({2, 2, 2, 1}, {1, 1, 1, 1}, absl::StatusCode::kUnimplemented,
      "Pooling is not yet supported on the batch dimension.");
  run({1, 2, 2, 2}, {1, 1, 1, 2}, absl::StatusCode::kUnimplemented,
      "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
}

}  // namespace
}  // namespace tessera::cpu::test
