// The reducing GPU kernels (reduce_kernels.cu, softmax_kernels.cu) on the CPU emulation against
// reference loops, with the plans reduce_plan.cc makes.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cuda/gpu_kernels.h"
#include "plugins/cuda/reduce_kernels.h"
#include "plugins/cuda/test_host_api.h"

namespace tessera::gpu {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> Values(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

ReducePlan Plan(const sdk::Shape& input, const std::vector<int64_t>& axes, sdk::Shape* out) {
  ReducePlan plan;
  sdk::Status status = MakeReducePlan(input, axes, /*keep_dims=*/false, out, &plan);
  EXPECT_TRUE(status.ok()) << status.message();
  return plan;
}

// The reference: for each output element (row-major over the kept dimensions), the reduced
// elements' values in row-major order.
std::vector<std::vector<float>> Groups(const sdk::Shape& input, const std::vector<int64_t>& axes,
                                       const std::vector<float>& x) {
  const int rank = input.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
  int64_t outputs = 1;
  for (int d = 0; d < rank; ++d) outputs *= reduced[d] ? 1 : input.dim(d);
  std::vector<std::vector<float>> groups(static_cast<size_t>(outputs));
  for (int64_t i = 0; i < input.num_elements(); ++i) {
    int64_t rest = i;
    int64_t o = 0;
    int64_t o_stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % input.dim(d);
      rest /= input.dim(d);
      if (!reduced[d]) {
        o += c * o_stride;
        o_stride *= input.dim(d);
      }
    }
    groups[o].push_back(x[i]);
  }
  return groups;
}

TEST(EmulatedReduceKernelsTest, FloatReductionsOverAnyAxes) {
  const sdk::Shape input{3, 4, 5};
  std::vector<float> x = Values(60, 5);
  x[17] = kNaN;
  for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{
           {0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}, {-1, 0}}) {
    sdk::Shape out_shape;
    const ReducePlan plan = Plan(input, axes, &out_shape);
    const auto groups = Groups(input, axes, x);
    ASSERT_EQ(static_cast<int64_t>(groups.size()), plan.outputs);
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMax, ReduceOp::kMin,
                        ReduceOp::kProd}) {
      std::vector<float> out(groups.size(), -7);
      ASSERT_EQ(LaunchReduce(op, ElementType::kFloat, x.data(), out.data(), plan, nullptr),
                gpuSuccess);
      for (size_t o = 0; o < groups.size(); ++o) {
        double sum = 0;
        double product = 1;
        float max = -INFINITY;
        float min = INFINITY;
        bool nan = false;
        for (float v : groups[o]) {
          sum += v;
          product *= v;
          nan = nan || std::isnan(v);
          max = std::max(max, v);
          min = std::min(min, v);
        }
        double expected = 0;
        switch (op) {
          case ReduceOp::kSum: expected = sum; break;
          case ReduceOp::kMean: expected = sum / static_cast<double>(groups[o].size()); break;
          case ReduceOp::kMax: expected = nan ? kNaN : max; break;
          case ReduceOp::kMin: expected = nan ? kNaN : min; break;
          default: expected = product; break;
        }
        if (std::isnan(expected)) {
          EXPECT_TRUE(std::isnan(out[o])) << static_cast<int>(op) << " output " << o;
        } else {
          EXPECT_NEAR(out[o], expected, 1e-4 * (1 + std::fabs(expected)))
              << static_cast<int>(op) << " output " << o << " axes " << axes.size();
        }
      }
    }
  }
}

TEST(EmulatedReduceKernelsTest, IntegersWrapAndEmptyReductionsGiveIdentities) {
  const std::vector<int32_t> x = {std::numeric_limits<int32_t>::max(), 1, 7, -7};
  sdk::Shape out_shape;
  const ReducePlan all = Plan(sdk::Shape{4}, {0}, &out_shape);
  int32_t out = 0;
  ASSERT_EQ(LaunchReduce(ReduceOp::kSum, ElementType::kInt32, x.data(), &out, all, nullptr),
            gpuSuccess);
  EXPECT_EQ(out, std::numeric_limits<int32_t>::min());
  ASSERT_EQ(LaunchReduce(ReduceOp::kMean, ElementType::kInt32, x.data(), &out, all, nullptr),
            gpuSuccess);
  EXPECT_EQ(out, std::numeric_limits<int32_t>::min() / 4);  // the wrapped sum, divided
  ASSERT_EQ(LaunchReduce(ReduceOp::kMin, ElementType::kInt32, x.data(), &out, all, nullptr),
            gpuSuccess);
  EXPECT_EQ(out, -7);
  // Reducing a dimension of 0: each output is the fold's identity.
  const ReducePlan empty = Plan(sdk::Shape{2, 0}, {1}, &out_shape);
  EXPECT_EQ(empty.outputs, 2);
  EXPECT_EQ(empty.reduced, 0);
  std::vector<float> outs(2, 5);
  const float* none = nullptr;
  ASSERT_EQ(LaunchReduce(ReduceOp::kSum, ElementType::kFloat, none, outs.data(), empty, nullptr),
            gpuSuccess);
  EXPECT_EQ(outs, (std::vector<float>{0, 0}));
  ASSERT_EQ(LaunchReduce(ReduceOp::kMax, ElementType::kFloat, none, outs.data(), empty, nullptr),
            gpuSuccess);
  EXPECT_EQ(outs[0], -INFINITY);
  ASSERT_EQ(LaunchReduce(ReduceOp::kMean, ElementType::kFloat, none, outs.data(), empty, nullptr),
            gpuSuccess);
  EXPECT_TRUE(std::isnan(outs[1]));
  std::vector<int64_t> products(2, 5);
  ASSERT_EQ(LaunchReduce(ReduceOp::kProd, ElementType::kInt64, none, products.data(), empty,
                         nullptr),
            gpuSuccess);
  EXPECT_EQ(products, (std::vector<int64_t>{1, 1}));
}

TEST(EmulatedReduceKernelsTest, ArgMaxAndArgMinTakeTheFirstExtremeNeverNaN) {
  // [3, 4]: ties, NaN, negative values.
  const std::vector<float> x = {1, 5, 5, kNaN,  //
                                -1, -3, -3, kNaN,  //
                                kNaN, 0, 0, kNaN};
  sdk::Shape out_shape;
  const ReducePlan rows = Plan(sdk::Shape{3, 4}, {1}, &out_shape);
  std::vector<int64_t> arg(3, -1);
  ASSERT_EQ(LaunchReduce(ReduceOp::kArgMax, ElementType::kFloat, x.data(), arg.data(), rows,
                         nullptr),
            gpuSuccess);
  EXPECT_EQ(arg, (std::vector<int64_t>{1, 0, 1}));
  ASSERT_EQ(LaunchReduce(ReduceOp::kArgMin, ElementType::kFloat, x.data(), arg.data(), rows,
                         nullptr),
            gpuSuccess);
  EXPECT_EQ(arg, (std::vector<int64_t>{0, 1, 1}));
  const ReducePlan columns = Plan(sdk::Shape{3, 4}, {0}, &out_shape);
  std::vector<int32_t> arg32(4, -1);
  ASSERT_EQ(LaunchReduce(ReduceOp::kArgMax, ElementType::kFloat, x.data(), arg32.data(), columns,
                         nullptr, ElementType::kInt32),
            gpuSuccess);
  // The last column is only NaN: its first index.
  EXPECT_EQ(arg32, (std::vector<int32_t>{0, 0, 0, 0}));
}

TEST(EmulatedReduceKernelsTest, ArgMaxOfLargeIntegersIsExact) {
  // Above 2^24 neighbouring int32 values are one float: the comparison must stay in integers.
  const std::vector<int32_t> x32 = {16777217, 16777216, 16777218, 16777217};
  const std::vector<int64_t> x64 = {(int64_t{1} << 53) + 1, int64_t{1} << 53,
                                    (int64_t{1} << 53) + 3, (int64_t{1} << 53) + 2};
  sdk::Shape out_shape;
  const ReducePlan all = Plan(sdk::Shape{4}, {0}, &out_shape);
  int64_t arg = -1;
  ASSERT_EQ(LaunchReduce(ReduceOp::kArgMax, ElementType::kInt32, x32.data(), &arg, all, nullptr),
            gpuSuccess);
  EXPECT_EQ(arg, 2);
  ASSERT_EQ(LaunchReduce(ReduceOp::kArgMin, ElementType::kInt32, x32.data(), &arg, all, nullptr),
            gpuSuccess);
  EXPECT_EQ(arg, 1);
  ASSERT_EQ(LaunchReduce(ReduceOp::kArgMax, ElementType::kInt64, x64.data(), &arg, all, nullptr),
            gpuSuccess);
  EXPECT_EQ(arg, 2);
}

TEST(EmulatedReduceKernelsTest, CrossEntropyOfLargeLogitsKeepsItsDigits) {
  // Logits near 1e4 (float spacing 1e-3): the loss of the winning class is about 4.5e-5, which
  // lse - x would lose entirely.
  const std::vector<float> logits = {10000.0f, 9990.0f, 9990.0f};
  const std::vector<int32_t> label = {0};
  float loss = -1;
  std::vector<float> backprop(3);
  ASSERT_EQ(LaunchSparseSoftmaxCrossEntropy(ElementType::kFloat, ElementType::kInt32,
                                            logits.data(), label.data(), &loss, backprop.data(), 1,
                                            3, nullptr),
            gpuSuccess);
  const double expected = std::log1p(2 * std::exp(-10.0));
  EXPECT_NEAR(loss, expected, 1e-3 * expected);
}

TEST(EmulatedReduceKernelsTest, ReducePlansMergeAndCheckAxes) {
  sdk::Shape out;
  ReducePlan plan;
  // [2, 1, 3, 4] over {1, 2}: the kept 2 and 4 stay apart (a reduced 3 between them).
  ASSERT_TRUE(MakeReducePlan(sdk::Shape{2, 1, 3, 4}, {1, 2}, true, &out, &plan).ok());
  EXPECT_EQ(out, (sdk::Shape{2, 1, 1, 4}));
  EXPECT_EQ(plan.kept_rank, 2);
  EXPECT_EQ(plan.reduced_rank, 1);
  EXPECT_EQ(plan.reduced_strides[0], 4);
  // [2, 3, 1, 4] over {0, 1}: the reduced 2 and 3 merge (stride 12 -> 4 for the merged group).
  ASSERT_TRUE(MakeReducePlan(sdk::Shape{2, 3, 1, 4}, {0, 1}, false, &out, &plan).ok());
  EXPECT_EQ(out, (sdk::Shape{1, 4}));
  EXPECT_EQ(plan.reduced_rank, 1);
  EXPECT_EQ(plan.reduced_dims[0], 6);
  EXPECT_EQ(plan.reduced_strides[0], 4);
  sdk::Status status = MakeReducePlan(sdk::Shape{2, 3}, {2}, false, &out, &plan);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(), std::string("Invalid reduction dimension (2 for input with 2 "
                                          "dimension(s)"));
  status = MakeReducePlan(sdk::Shape{2, 3}, {1, -1}, false, &out, &plan);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            std::string("Invalid reduction arguments: Axes contains duplicate dimension: 1"));
}

TEST(EmulatedReduceKernelsTest, SoftmaxFamily) {
  const int64_t rows = 5;
  const int64_t depth = 70;  // more than the emulated block's 32 threads
  std::vector<float> logits = Values(rows * depth, 9);
  logits[3] = 40.0f;  // a large logit: the max shift keeps exp finite
  std::vector<float> softmax(logits.size());
  std::vector<float> log_softmax(logits.size());
  ASSERT_EQ(LaunchSoftmax(SoftmaxOp::kSoftmax, ElementType::kFloat, logits.data(), softmax.data(),
                          rows, depth, nullptr),
            gpuSuccess);
  ASSERT_EQ(LaunchSoftmax(SoftmaxOp::kLogSoftmax, ElementType::kFloat, logits.data(),
                          log_softmax.data(), rows, depth, nullptr),
            gpuSuccess);
  const std::vector<int64_t> labels = {3, 0, 69, 12, 70};  // the last is out of range
  std::vector<float> loss(rows);
  std::vector<float> backprop(logits.size());
  ASSERT_EQ(LaunchSparseSoftmaxCrossEntropy(ElementType::kFloat, ElementType::kInt64,
                                            logits.data(), labels.data(), loss.data(),
                                            backprop.data(), rows, depth, nullptr),
            gpuSuccess);
  std::vector<float> dense_labels(logits.size(), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    dense_labels[r * depth + (r * 7) % depth] = 0.75f;
    dense_labels[r * depth + (r * 11 + 1) % depth] = 0.25f;
  }
  std::vector<float> dense_loss(rows);
  std::vector<float> dense_backprop(logits.size());
  ASSERT_EQ(LaunchSoftmaxCrossEntropy(ElementType::kFloat, logits.data(), dense_labels.data(),
                                      dense_loss.data(), dense_backprop.data(), rows, depth,
                                      nullptr),
            gpuSuccess);
  for (int64_t r = 0; r < rows; ++r) {
    double max = -INFINITY;
    for (int64_t j = 0; j < depth; ++j) max = std::max<double>(max, logits[r * depth + j]);
    double sum = 0;
    for (int64_t j = 0; j < depth; ++j) sum += std::exp(logits[r * depth + j] - max);
    const double lse = max + std::log(sum);
    double dense = 0;
    for (int64_t j = 0; j < depth; ++j) {
      const size_t i = static_cast<size_t>(r * depth + j);
      const double p = std::exp(logits[i] - lse);
      EXPECT_NEAR(softmax[i], p, 1e-6) << r << "," << j;
      EXPECT_NEAR(log_softmax[i], logits[i] - lse, 1e-5) << r << "," << j;
      if (labels[r] < depth) {
        EXPECT_NEAR(backprop[i], p - (j == labels[r] ? 1 : 0), 1e-6) << r << "," << j;
      } else {
        EXPECT_TRUE(std::isnan(backprop[i]));
      }
      EXPECT_NEAR(dense_backprop[i], p - dense_labels[i], 1e-6) << r << "," << j;
      dense += dense_labels[i] * (lse - logits[i]);
    }
    if (labels[r] < depth) {
      EXPECT_NEAR(loss[r], lse - logits[r * depth + labels[r]], 1e-5) << r;
    } else {
      EXPECT_TRUE(std::isnan(loss[r]));
    }
    EXPECT_NEAR(dense_loss[r], dense, 1e-5) << r;
  }
}

}  // namespace
}  // namespace tessera::gpu
