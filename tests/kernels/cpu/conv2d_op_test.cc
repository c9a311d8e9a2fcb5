// Conv2D against reference loops: paddings (SAME with TensorFlow's split, VALID, EXPLICIT),
// strides, dilations, groups, 1x1 products, NHWC and NCHW, float (oneDNN, cut into pieces over
// the pool) and double (im2col and the GEMM layer), determinism, and TensorFlow's errors.
#include <dirent.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "google/protobuf/text_format.h"
#include "host/session/session.h"
#include "plugins/cpu/kernels/gemm/sanitizer_options.h"
#include "tests/kernels/cpu/conv_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
Tensor RunConv(const ConvCase& k, const Tensor& input, const Tensor& filter) {
  OpTester tester("Conv2D");
  tester.Attr("T", DataTypeOf<T>::value);
  k.SetAttrs(tester);
  tester.Input(k.nchw ? ToNchw<T>(input) : input).Input(filter);
  return RunOk(tester);
}

int ThreadsOfThisProcess() {
  int count = 0;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count;
}

TEST(Conv2DOpTest, StartsNoThreadOfItsOwn) {
  // oneDNN runs on OpenMP: every call must stay on the pool thread that makes it. A first op
  // that does not reach oneDNN starts the session's pools (they live as long as the process);
  // the convolutions and products after it must start nothing more. First in this file, before
  // any other test has called into oneDNN.
  OpTester warm_up("Relu");
  warm_up.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(Shape({4})));
  RunOk(warm_up);
  const int before = ThreadsOfThisProcess();
  if (before < 0) GTEST_SKIP() << "skipped: no /proc/self/task";
  ConvCase k;
  k.rows = k.cols = 40;
  k.depth = 32;
  k.out_depth = 64;
  Tensor input = Random<float>(Shape({1, 40, 40, 32}), -1, 1);
  Tensor filter = Random<float>(Shape({3, 3, 32, 64}), -1, 1);
  RunConv<float>(k, input, filter);
  OpTester matmul("MatMul");
  matmul.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({256, 256})))
      .Input(Random<float>(Shape({256, 256})));
  RunOk(matmul);
  EXPECT_EQ(ThreadsOfThisProcess(), before);
}

template <typename T>
void CheckConv(const ConvCase& k) {
  SCOPED_TRACE(k.Name());
  Tensor input = Random<T>(Shape({k.batch, k.rows, k.cols, k.depth}), -1, 1);
  Tensor filter =
      Random<T>(Shape({k.filter_rows, k.filter_cols, k.FilterDepth(), k.out_depth}), -1, 1);
  std::vector<T> expected = ReferenceConv<T>(k, input, filter);
  if (k.nchw) expected = NhwcValuesToNchw(expected, k.batch, k.OutRows(), k.OutCols(), k.out_depth);
  const double tolerance =
      std::is_same_v<T, float> ? 2e-5 * (k.filter_rows * k.filter_cols * k.FilterDepth()) : 1e-10;
  ExpectTensorNear<T>(RunConv<T>(k, input, filter), DataTypeOf<T>::value,
                      k.Format(k.batch, k.OutRows(), k.OutCols(), k.out_depth), expected,
                      tolerance);
}

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  ConvCase base;
  cases.push_back(base);
  for (const char* padding : {"SAME", "VALID"}) {
    for (int64_t stride : {1, 2, 3}) {
      ConvCase k = base;
      k.padding = padding;
      k.rows = 8;
      k.cols = 7;
      k.stride_rows = stride;
      k.stride_cols = stride == 3 ? 1 : stride;
      cases.push_back(k);
    }
  }
  ConvCase even = base;  // SAME with an even window: the extra padding goes to the end.
  even.filter_rows = 2;
  even.filter_cols = 4;
  even.rows = 6;
  even.cols = 9;
  cases.push_back(even);
  ConvCase dilated = base;
  dilated.rows = 11;
  dilated.cols = 9;
  dilated.dilation_rows = 2;
  dilated.dilation_cols = 3;
  cases.push_back(dilated);
  dilated.padding = "VALID";
  dilated.stride_rows = 2;
  cases.push_back(dilated);
  ConvCase explicit_pads = base;
  explicit_pads.padding = "EXPLICIT";
  explicit_pads.pads = {1, 2, 0, 3};
  explicit_pads.stride_cols = 2;
  cases.push_back(explicit_pads);
  ConvCase wide_pads = base;  // Rows of the output see only padding.
  wide_pads.padding = "EXPLICIT";
  wide_pads.pads = {5, 4, 1, 1};
  cases.push_back(wide_pads);
  ConvCase grouped = base;
  grouped.depth = 6;
  grouped.groups = 3;
  grouped.out_depth = 9;
  cases.push_back(grouped);
  ConvCase pointwise = base;
  pointwise.filter_rows = pointwise.filter_cols = 1;
  pointwise.depth = 16;
  pointwise.out_depth = 24;
  pointwise.batch = 2;
  cases.push_back(pointwise);
  pointwise.groups = 4;
  cases.push_back(pointwise);
  ConvCase strided_pointwise = pointwise;
  strided_pointwise.groups = 1;
  strided_pointwise.stride_rows = strided_pointwise.stride_cols = 2;
  cases.push_back(strided_pointwise);
  ConvCase window_larger_than_input = base;  // SAME with a window wider than the image.
  window_larger_than_input.rows = 2;
  window_larger_than_input.cols = 3;
  window_larger_than_input.filter_rows = 5;
  window_larger_than_input.filter_cols = 4;
  cases.push_back(window_larger_than_input);
  // Large enough to be cut into pieces over the pool: bands of rows of one image, whole images.
  ConvCase big = base;
  big.rows = 33;
  big.cols = 30;
  big.depth = 32;
  big.out_depth = 48;
  cases.push_back(big);
  big.batch = 3;
  big.stride_rows = 2;
  big.padding = "VALID";
  cases.push_back(big);
  big.batch = 13;
  big.rows = big.cols = 12;
  cases.push_back(big);
  // A filter larger than the image but within a core's cache: one image is cut by output
  // channels too, each group reordering its own part of the filter.
  ConvCase channels = base;
  channels.rows = channels.cols = 16;
  channels.depth = 32;
  channels.out_depth = 192;
  cases.push_back(channels);
  // A filter larger than a core's cache: one image is cut by output channels (the last group
  // narrower), three images too so that the threads end together.
  ConvCase wide = base;
  wide.rows = 10;
  wide.cols = 9;
  wide.depth = 128;
  wide.out_depth = 320;
  cases.push_back(wide);
  wide.batch = 3;
  wide.stride_rows = 2;
  wide.padding = "VALID";
  cases.push_back(wide);
  std::vector<ConvCase> with_nchw = cases;
  for (ConvCase k : cases) {
    k.nchw = true;
    with_nchw.push_back(k);
  }
  return with_nchw;
}

TEST(Conv2DOpTest, FloatMatchesReference) {
  for (const ConvCase& k : Cases()) CheckConv<float>(k);
}

TEST(Conv2DOpTest, DoubleMatchesReference) {
  for (const ConvCase& k : Cases()) CheckConv<double>(k);
}

TEST(Conv2DOpTest, EmptyTensorsGiveEmptyOutputs) {
  ConvCase k;
  k.batch = 0;
  CheckConv<float>(k);
  k.batch = 2;
  k.rows = 0;
  CheckConv<double>(k);
  // A window one row taller than the input leaves no output rows (VALID).
  k.rows = 2;
  k.padding = "VALID";
  CheckConv<float>(k);
}

TEST(Conv2DOpTest, ResultsAreTheSameOnEveryRun) {
  ConvCase k;
  k.rows = 40;
  k.cols = 24;
  k.depth = 32;
  k.out_depth = 64;
  Tensor input = Random<float>(Shape({1, 40, 24, 32}), -1, 1);
  Tensor filter = Random<float>(Shape({3, 3, 32, 64}), -1, 1);
  Tensor first = RunConv<float>(k, input, filter);
  for (int run = 0; run < 2; ++run) {
    Tensor again = RunConv<float>(k, input, filter);
    ASSERT_EQ(again.NumElements(), first.NumElements());
    EXPECT_EQ(0, std::memcmp(again.data<float>(), first.data<float>(),
                             sizeof(float) * first.NumElements()));
  }
}

// x, w -> Conv2D (SAME, unit strides) -> y.
constexpr char kConvGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "w"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "Conv2D"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "SAME" }
    }
  }
)pb";

TEST(Conv2DOpTest, ConcurrentStepsOfOneKernelEachGetTheirOwnResult) {
  // One session, so one Conv2D kernel: steps running at once share its plans, and each takes its
  // own run memory (reordered filter, scratchpads, stagings). Channel groups, as cut for a
  // filter larger than the image.
  tensorflow::GraphDef graph;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kConvGraph, &graph));
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), graph);
  ASSERT_TRUE(session.ok()) << session.status();
  ConvCase k;
  k.rows = k.cols = 16;
  k.depth = 32;
  k.out_depth = 192;
  constexpr int kThreads = 3;
  constexpr int kSteps = 8;
  // Inputs and expected outputs first: the random generator is not shared across threads.
  std::vector<Tensor> inputs, filters;
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < kThreads * kSteps; ++i) {
    inputs.push_back(Random<float>(Shape({1, 16, 16, 32}), -1, 1));
    filters.push_back(Random<float>(Shape({3, 3, 32, 192}), -1, 1));
    expected.push_back(ReferenceConv<float>(k, inputs.back(), filters.back()));
  }
  std::vector<std::vector<Tensor>> results(kThreads * kSteps);
  std::vector<absl::Status> statuses(kThreads * kSteps);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int step = 0; step < kSteps; ++step) {
        const int i = t * kSteps + step;
        statuses[i] =
            (*session)->Run({{"x", inputs[i]}, {"w", filters[i]}}, {"y"}, {}, &results[i]);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads * kSteps; ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    ASSERT_TRUE(statuses[i].ok()) << statuses[i];
    ExpectTensorNear<float>(results[i][0], TSR_DTYPE_FLOAT, Shape({1, 16, 16, 192}), expected[i],
                            2e-5 * 9 * 32);
  }
}

OpTester Conv(const TensorShape& input, const TensorShape& filter, std::vector<int64_t> strides,
              const std::string& padding = "VALID", std::vector<int64_t> dilations = {1, 1, 1, 1}) {
  OpTester tester("Conv2D");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", strides)
      .Attr("dilations", dilations)
      .Attr("padding", padding)
      .Input(Random<float>(input))
      .Input(Random<float>(filter));
  return tester;
}

TEST(Conv2DOpTest, RejectsBadShapes) {
  OpTester rank3 = Conv(Shape({5, 5, 3}), Shape({3, 3, 3, 4}), {1, 1, 1, 1});
  ExpectRunError(rank3, absl::StatusCode::kInvalidArgument, "input must be 4-dimensional[5,5,3]");
  OpTester filter_rank3 = Conv(Shape({1, 5, 5, 3}), Shape({3, 3, 3}), {1, 1, 1, 1});
  ExpectRunError(filter_rank3, absl::StatusCode::kInvalidArgument,
                 "filter must be 4-dimensional: [3,3,3]");
  OpTester depth = Conv(Shape({1, 5, 5, 5}), Shape({3, 3, 2, 4}), {1, 1, 1, 1});
  ExpectRunError(depth, absl::StatusCode::kInvalidArgument,
                 "input depth must be evenly divisible by filter depth: 5 vs 2");
  OpTester groups = Conv(Shape({1, 5, 5, 6}), Shape({3, 3, 2, 4}), {1, 1, 1, 1});
  ExpectRunError(groups, absl::StatusCode::kInvalidArgument,
                 "output depth must be evenly divisible by number of groups: 4 vs 3");
  OpTester zero_depth = Conv(Shape({1, 5, 5, 0}), Shape({3, 3, 0, 4}), {1, 1, 1, 1});
  ExpectRunError(zero_depth, absl::StatusCode::kInvalidArgument,
                 "filter depth must be stricly positive, got 0");
  OpTester no_outputs = Conv(Shape({1, 5, 5, 3}), Shape({3, 3, 3, 0}), {1, 1, 1, 1});
  ExpectRunError(no_outputs, absl::StatusCode::kInvalidArgument,
                 "output depth must be evenly divisible by number of groups: 0 vs 1");
  OpTester too_small = Conv(Shape({1, 1, 5, 3}), Shape({3, 3, 3, 4}), {1, 1, 1, 1});
  ExpectRunError(too_small, absl::StatusCode::kInvalidArgument,
                 "Computed output size would be negative: -1 [input_size: 1, "
                 "effective_filter_size: 3, stride: 1]");
}

TEST(Conv2DOpTest, RejectsBadAttributes) {
  OpTester batch_stride = Conv(Shape({1, 5, 5, 3}), Shape({3, 3, 3, 4}), {2, 1, 1, 1});
  ExpectRunError(batch_stride, absl::StatusCode::kUnimplemented,
                 "Current implementation does not yet support strides in the batch and depth "
                 "dimensions.");
  OpTester depth_dilation =
      Conv(Shape({1, 5, 5, 3}), Shape({3, 3, 3, 4}), {1, 1, 1, 1}, "VALID", {1, 1, 1, 2});
  ExpectRunError(depth_dilation, absl::StatusCode::kUnimplemented,
                 "Current implementation does not yet support dilations in the batch and depth "
                 "dimensions.");
  OpTester three_strides = Conv(Shape({1, 5, 5, 3}), Shape({3, 3, 3, 4}), {1, 1, 1});
  ExpectRunError(three_strides, absl::StatusCode::kInvalidArgument,
                 "requires the stride attribute to contain 4 values, but got: 3");
  OpTester pads = Conv(Shape({1, 5, 5, 3}), Shape({3, 3, 3, 4}), {1, 1, 1, 1}, "EXPLICIT");
  ExpectRunError(pads, absl::StatusCode::kInvalidArgument,
                 "explicit_paddings attribute must contain 8 values, but got: 0");
}

}  // namespace
}  // namespace tessera::cpu::test
