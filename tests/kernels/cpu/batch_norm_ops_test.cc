// FusedBatchNormV3 and FusedBatchNormGradV3 against reference loops (training and inference,
// channels last and first, 4-D and 5-D, exponential averaging, empty batches), the gradient
// against central differences of the forward reference, and TensorFlow's errors.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/kernels/cpu/nn_test_util.h"

namespace tessera::cpu::test {
namespace {

constexpr float kEpsilon = 0.001f;

struct BnCase {
  TensorShape shape;
  std::string data_format;
  bool channels_first() const { return data_format == "NCHW" || data_format == "NCDHW"; }
  int64_t channels() const { return shape.dim(channels_first() ? 1 : shape.rank() - 1); }
  // The channel of element i.
  int64_t ChannelOf(int64_t i) const {
    int64_t inner = 1;
    if (channels_first()) {
      for (int d = 2; d < shape.rank(); ++d) inner *= shape.dim(d);
    }
    return (i / inner) % channels();
  }
};

std::vector<BnCase> Cases() {
  return {{Shape({2, 3, 4, 5}), "NHWC"},     {Shape({2, 5, 3, 4}), "NCHW"},
          {Shape({1, 1, 1, 1}), "NHWC"},     {Shape({3, 2, 2, 3, 4}), "NDHWC"},
          {Shape({3, 4, 2, 2, 3}), "NCDHW"}, {Shape({8, 16, 16, 32}), "NHWC"},
          {Shape({4, 32, 9, 9}), "NCHW"}};
}

// Per-channel mean and biased variance.
void Moments(const BnCase& c, const std::vector<double>& x, std::vector<double>* mean,
             std::vector<double>* var) {
  const int64_t channels = c.channels();
  const double count = double(x.size()) / channels;
  mean->assign(channels, 0);
  var->assign(channels, 0);
  for (size_t i = 0; i < x.size(); ++i) (*mean)[c.ChannelOf(i)] += x[i] / count;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - (*mean)[c.ChannelOf(i)];
    (*var)[c.ChannelOf(i)] += d * d / count;
  }
}

// y with the given statistics.
std::vector<double> Normalize(const BnCase& c, const std::vector<double>& x,
                              const std::vector<double>& mean, const std::vector<double>& var,
                              const std::vector<double>& scale, const std::vector<double>& offset) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t ch = c.ChannelOf(i);
    y[i] = (x[i] - mean[ch]) / std::sqrt(var[ch] + double(kEpsilon)) * scale[ch] + offset[ch];
  }
  return y;
}

// y of training mode: normalized with the batch's own statistics.
std::vector<double> TrainingForward(const BnCase& c, const std::vector<double>& x,
                                    const std::vector<double>& scale,
                                    const std::vector<double>& offset) {
  std::vector<double> mean, var;
  Moments(c, x, &mean, &var);
  return Normalize(c, x, mean, var, scale, offset);
}

void SetAttrs(OpTester& tester, const std::string& data_format, bool is_training) {
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("U", TSR_DTYPE_FLOAT)
      .Attr("epsilon", kEpsilon)
      .Attr("data_format", data_format)
      .Attr("is_training", is_training);
}

std::vector<double> FloatValues(int64_t n, double lo, double hi) {
  return Values(FromValues<float>(Shape({n}), RandomValues(n, lo, hi)));
}

void CheckForward(const BnCase& c, bool is_training, float factor) {
  SCOPED_TRACE(c.shape.DebugString() + " " + c.data_format + (is_training ? " training" : "") +
               " factor " + std::to_string(factor));
  const int64_t channels = c.channels();
  const TensorShape channel_shape = Shape({channels});
  const std::vector<double> x = FloatValues(c.shape.num_elements(), -3, 5);
  const std::vector<double> scale = FloatValues(channels, 0.5, 2);
  const std::vector<double> offset = FloatValues(channels, -1, 1);
  const std::vector<double> old_mean = FloatValues(channels, -1, 1);
  const std::vector<double> old_var = FloatValues(channels, 0.5, 2);
  OpTester tester("FusedBatchNormV3");
  SetAttrs(tester, c.data_format, is_training);
  tester.Attr("exponential_avg_factor", factor)
      .Input(FromValues<float>(c.shape, x))
      .Input(FromValues<float>(channel_shape, scale))
      .Input(FromValues<float>(channel_shape, offset))
      .Input(FromValues<float>(channel_shape, old_mean))
      .Input(FromValues<float>(channel_shape, old_var));
  std::vector<Tensor> out = RunAll(tester, 6);
  ASSERT_EQ(out.size(), 6u);
  std::vector<double> mean = old_mean;
  std::vector<double> var = old_var;
  std::vector<double> batch_mean = old_mean;
  std::vector<double> batch_var = old_var;
  if (is_training) {
    Moments(c, x, &mean, &var);
    const double count = double(x.size()) / channels;
    const double bessel = count / std::max(count - 1, 1.0);
    for (int64_t ch = 0; ch < channels; ++ch) {
      batch_mean[ch] = (1 - factor) * old_mean[ch] + factor * mean[ch];
      batch_var[ch] = (1 - factor) * old_var[ch] + factor * var[ch] * bessel;
    }
  }
  ExpectValuesNear(out[0], c.shape, Normalize(c, x, mean, var, scale, offset), 2e-5);
  ExpectValuesNear(out[1], channel_shape, batch_mean, 2e-5);
  ExpectValuesNear(out[2], channel_shape, batch_var, 2e-5);
  ExpectValuesNear(out[3], channel_shape, mean, 2e-5);
  ExpectValuesNear(out[4], channel_shape, var, 2e-5);
  EXPECT_EQ(out[5].shape(), Shape({}));
}

TEST(FusedBatchNormOpTest, TrainingMatchesReference) {
  for (const BnCase& c : Cases()) {
    CheckForward(c, /*is_training=*/true, 1.0f);
    CheckForward(c, /*is_training=*/true, 0.25f);
  }
}

TEST(FusedBatchNormOpTest, InferenceMatchesReference) {
  for (const BnCase& c : Cases()) CheckForward(c, /*is_training=*/false, 1.0f);
}

TEST(FusedBatchNormOpTest, TrainingAcceptsEmptyMeanAndVariance) {
  const BnCase c{Shape({2, 2, 2, 3}), "NHWC"};
  const std::vector<double> x = FloatValues(24, -1, 1);
  OpTester tester("FusedBatchNormV3");
  SetAttrs(tester, c.data_format, true);
  tester.Input(FromValues<float>(c.shape, x))
      .Input(Make<float>(Shape({3}), {1, 1, 1}))
      .Input(Make<float>(Shape({3}), {0, 0, 0}))
      .Input(Make<float>(Shape({0}), {}))
      .Input(Make<float>(Shape({0}), {}));
  std::vector<Tensor> out = RunAll(tester, 3);
  ASSERT_EQ(out.size(), 3u);
  ExpectValuesNear(out[0], c.shape, TrainingForward(c, x, {1, 1, 1}, {0, 0, 0}), 2e-5);
}

TEST(FusedBatchNormOpTest, EmptyBatchGivesNaNStatistics) {
  for (bool is_training : {true, false}) {
    OpTester tester("FusedBatchNormV3");
    SetAttrs(tester, "NHWC", is_training);
    tester.Input(Make<float>(Shape({0, 2, 2, 2}), {}));
    for (int i = 0; i < 4; ++i) tester.Input(Make<float>(Shape({2}), {1, 1}));
    std::vector<Tensor> out = RunAll(tester, 3);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].shape(), Shape({0, 2, 2, 2}));
    ExpectTensorNear<float>(out[1], TSR_DTYPE_FLOAT, Shape({2}), {NAN, NAN});
    ExpectTensorNear<float>(out[2], TSR_DTYPE_FLOAT, Shape({2}), {NAN, NAN});
  }
}

// Runs FusedBatchNormGradV3 and returns x_backprop, scale_backprop, offset_backprop.
std::vector<Tensor> RunGrad(const BnCase& c, bool is_training, const std::vector<double>& dy,
                            const std::vector<double>& x, const std::vector<double>& scale,
                            const std::vector<double>& mean, const std::vector<double>& var) {
  const TensorShape channel_shape = Shape({c.channels()});
  OpTester tester("FusedBatchNormGradV3");
  SetAttrs(tester, c.data_format, is_training);
  tester.Input(FromValues<float>(c.shape, dy))
      .Input(FromValues<float>(c.shape, x))
      .Input(FromValues<float>(channel_shape, scale))
      .Input(FromValues<float>(channel_shape, mean))
      .Input(FromValues<float>(channel_shape, var))
      .Input(Make<float>(Shape({}), {0}));
  std::vector<Tensor> out = RunAll(tester, 5);
  EXPECT_EQ(out.size(), 5u);
  if (out.size() == 5) {
    EXPECT_EQ(out[3].shape(), Shape({0}));
    EXPECT_EQ(out[4].shape(), Shape({0}));
  }
  return out;
}

TEST(FusedBatchNormGradOpTest, MatchesCentralDifferences) {
  for (const BnCase& c : Cases()) {
    if (c.shape.num_elements() > 1000) continue;  // one forward pass per coordinate
    for (bool is_training : {true, false}) {
      SCOPED_TRACE(c.shape.DebugString() + " " + c.data_format +
                   (is_training ? " training" : " inference"));
      const int64_t channels = c.channels();
      const std::vector<double> x = FloatValues(c.shape.num_elements(), -3, 5);
      const std::vector<double> dy = FloatValues(c.shape.num_elements(), -1, 1);
      const std::vector<double> scale = FloatValues(channels, 0.5, 2);
      const std::vector<double> offset = FloatValues(channels, -1, 1);
      // Training passes the batch's statistics (reserve_space_1/2); inference the population's.
      std::vector<double> mean = FloatValues(channels, -1, 1);
      std::vector<double> var = FloatValues(channels, 0.5, 2);
      if (is_training) {
        Moments(c, x, &mean, &var);
        mean = Values(FromValues<float>(Shape({channels}), mean));
        var = Values(FromValues<float>(Shape({channels}), var));
      }
      auto forward = [&](const std::vector<double>& xs, const std::vector<double>& s,
                         const std::vector<double>& o) {
        return is_training ? TrainingForward(c, xs, s, o) : Normalize(c, xs, mean, var, s, o);
      };
      const std::vector<double> dx = NumericGradient(
          Weighted([&](const std::vector<double>& v) { return forward(v, scale, offset); }, dy), x,
          1e-5);
      const std::vector<double> dscale = NumericGradient(
          Weighted([&](const std::vector<double>& v) { return forward(x, v, offset); }, dy), scale,
          1e-5);
      const std::vector<double> doffset = NumericGradient(
          Weighted([&](const std::vector<double>& v) { return forward(x, scale, v); }, dy), offset,
          1e-5);
      std::vector<Tensor> out = RunGrad(c, is_training, dy, x, scale, mean, var);
      ASSERT_EQ(out.size(), 5u);
      ExpectValuesNear(out[0], c.shape, dx, 1e-4);
      ExpectValuesNear(out[1], Shape({channels}), dscale, 1e-4);
      ExpectValuesNear(out[2], Shape({channels}), doffset, 1e-4);
    }
  }
}

TEST(FusedBatchNormGradOpTest, LargeInputsMatchTheClosedForm) {
  for (const BnCase& c : Cases()) {
    SCOPED_TRACE(c.shape.DebugString() + " " + c.data_format);
    const int64_t channels = c.channels();
    const std::vector<double> x = FloatValues(c.shape.num_elements(), -3, 5);
    const std::vector<double> dy = FloatValues(c.shape.num_elements(), -1, 1);
    const std::vector<double> scale = FloatValues(channels, 0.5, 2);
    std::vector<double> mean, var;
    Moments(c, x, &mean, &var);
    mean = Values(FromValues<float>(Shape({channels}), mean));
    var = Values(FromValues<float>(Shape({channels}), var));
    // x_backprop = scale * rstd * (dy - mean(dy) - (x - m) * rstd^2 * mean(dy * (x - m))).
    const double count = double(x.size()) / channels;
    std::vector<double> sum_dy(channels, 0), sum_dy_xc(channels, 0);
    for (size_t i = 0; i < x.size(); ++i) {
      sum_dy[c.ChannelOf(i)] += dy[i];
      sum_dy_xc[c.ChannelOf(i)] += dy[i] * (x[i] - mean[c.ChannelOf(i)]);
    }
    std::vector<double> dx(x.size()), dscale(channels);
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t ch = c.ChannelOf(i);
      const double rstd = 1 / std::sqrt(var[ch] + double(kEpsilon));
      dx[i] =
          scale[ch] * rstd *
          (dy[i] - sum_dy[ch] / count - (x[i] - mean[ch]) * rstd * rstd * sum_dy_xc[ch] / count);
    }
    for (int64_t ch = 0; ch < channels; ++ch) {
      dscale[ch] = sum_dy_xc[ch] / std::sqrt(var[ch] + double(kEpsilon));
    }
    std::vector<Tensor> out = RunGrad(c, true, dy, x, scale, mean, var);
    ASSERT_EQ(out.size(), 5u);
    ExpectValuesNear(out[0], c.shape, dx, 2e-5);
    ExpectValuesNear(out[1], Shape({channels}), dscale, 2e-5);
    ExpectValuesNear(out[2], Shape({channels}), sum_dy, 2e-5);
  }
}

TEST(FusedBatchNormGradOpTest, EmptyBatchGivesZeroGradients) {
  const BnCase c{Shape({0, 2, 2, 3}), "NHWC"};
  std::vector<Tensor> out = RunGrad(c, true, {}, {}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].shape(), c.shape);
  ExpectTensorNear<float>(out[1], TSR_DTYPE_FLOAT, Shape({3}), {0, 0, 0});
  ExpectTensorNear<float>(out[2], TSR_DTYPE_FLOAT, Shape({3}), {0, 0, 0});
}

OpTester Forward(const TensorShape& x, const TensorShape& scale, const TensorShape& offset,
                 const TensorShape& mean, const TensorShape& var, bool is_training = true,
                 float factor = 1.0f) {
  OpTester tester("FusedBatchNormV3");
  SetAttrs(tester, "NHWC", is_training);
  tester.Attr("exponential_avg_factor", factor);
  for (const TensorShape& shape : {x, scale, offset, mean, var}) {
    tester.Input(Random<float>(shape, 0.5, 1));
  }
  return tester;
}

// Whether two float tensors of one shape hold the same bits (empty ones have no buffer).
bool SameBits(const Tensor& a, const Tensor& b) {
  return a.NumElements() == 0 ||
         std::memcmp(a.data<float>(), b.data<float>(), sizeof(float) * a.NumElements()) == 0;
}

// FusedBatchNorm and FusedBatchNormV2 (and their gradients) are V3 without reserve_space_3: the
// same outputs, bit for bit, on 4-D inputs in both formats, training and inference.
TEST(FusedBatchNormOpTest, V1AndV2MatchV3) {
  for (const BnCase& c : Cases()) {
    if (c.shape.rank() != 4) continue;
    for (bool is_training : {true, false}) {
      SCOPED_TRACE(c.data_format + (is_training ? " training" : " inference"));
      const int64_t channels = c.channels();
      const TensorShape channel_shape = Shape({channels});
      const std::vector<double> x = FloatValues(c.shape.num_elements(), -3, 5);
      const std::vector<double> dy = FloatValues(c.shape.num_elements(), -1, 1);
      std::vector<std::vector<double>> stats;
      for (int i = 0; i < 4; ++i) stats.push_back(FloatValues(channels, 0.5, 2));
      // FusedBatchNorm and its gradient have no U attr (every tensor is T).
      auto set_attrs = [&](OpTester& tester, const std::string& op) {
        if (op == "FusedBatchNorm" || op == "FusedBatchNormGrad") {
          tester.Attr("T", TSR_DTYPE_FLOAT)
              .Attr("epsilon", kEpsilon)
              .Attr("data_format", c.data_format)
              .Attr("is_training", is_training);
        } else {
          SetAttrs(tester, c.data_format, is_training);
        }
      };
      auto forward = [&](const char* op, int outputs) {
        OpTester tester(op);
        set_attrs(tester, op);
        tester.Input(FromValues<float>(c.shape, x));
        for (const auto& values : stats) tester.Input(FromValues<float>(channel_shape, values));
        return RunAll(tester, outputs);
      };
      const std::vector<Tensor> v3 = forward("FusedBatchNormV3", 6);
      ASSERT_EQ(v3.size(), 6u);
      for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2"}) {
        SCOPED_TRACE(op);
        const std::vector<Tensor> out = forward(op, 5);
        ASSERT_EQ(out.size(), 5u);
        for (int i = 0; i < 5; ++i) {
          ASSERT_EQ(out[i].shape(), v3[i].shape()) << i;
          EXPECT_TRUE(SameBits(out[i], v3[i])) << "output " << i;
        }
      }
      auto backward = [&](const char* op, bool with_reserve_3) {
        OpTester tester(op);
        set_attrs(tester, op);
        tester.Input(FromValues<float>(c.shape, dy))
            .Input(FromValues<float>(c.shape, x))
            .Input(FromValues<float>(channel_shape, stats[0]))
            .Input(v3[3])
            .Input(v3[4]);
        if (with_reserve_3) tester.Input(v3[5]);
        return RunAll(tester, 5);
      };
      const std::vector<Tensor> grad_v3 = backward("FusedBatchNormGradV3", true);
      ASSERT_EQ(grad_v3.size(), 5u);
      for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2"}) {
        SCOPED_TRACE(op);
        const std::vector<Tensor> out = backward(op, false);
        ASSERT_EQ(out.size(), 5u);
        for (int i = 0; i < 5; ++i) {
          ASSERT_EQ(out[i].shape(), grad_v3[i].shape()) << i;
          EXPECT_TRUE(SameBits(out[i], grad_v3[i])) << "output " << i;
        }
      }
    }
  }
}

TEST(FusedBatchNormOpTest, Errors) {
  const TensorShape x = Shape({1, 2, 2, 3});
  const TensorShape v = Shape({3});
  struct Case {
    OpTester tester;
    std::string message;
  };
  std::vector<Case> cases;
  cases.push_back({Forward(Shape({2, 3}), v, v, v, v), "input must be 4 or 5-dimensional[2,3]"});
  cases.push_back({Forward(x, Shape({1, 3}), v, v, v), "scale must be 1-dimensional[1,3]"});
  cases.push_back({Forward(x, v, Shape({}), v, v), "offset must be 1-dimensional[]"});
  cases.push_back({Forward(x, v, v, Shape({3, 1}), v), "estimated_mean must be 1-dimensional"});
  cases.push_back({Forward(x, v, v, v, Shape({3, 1})), "estimated_variance must be 1-dimensional"});
  cases.push_back({Forward(x, Shape({2}), v, v, v),
                   "scale must have the same number of elements as the channels of x, got 2 "
                   "and 3"});
  cases.push_back({Forward(x, v, Shape({4}), v, v),
                   "offset must have the same number of elements as the channels of x, got 4 "
                   "and 3"});
  cases.push_back({Forward(x, v, v, Shape({0}), v, false),
                   "When is_training=false, mean must have the same number of elements as the "
                   "channels of x, got 0 and 3"});
  cases.push_back({Forward(x, v, v, v, Shape({2}), true, 0.5f),
                   "When exponential_avg_factor != 1, variance must have the same number of "
                   "elements as the channels of x, got 2 and 3"});
  for (Case& c : cases) {
    ExpectRunError(c.tester, absl::StatusCode::kInvalidArgument, c.message);
  }
}

OpTester Backward(const TensorShape& dy, const TensorShape& x, const TensorShape& scale,
                  const TensorShape& mean, const TensorShape& var) {
  OpTester tester("FusedBatchNormGradV3");
  SetAttrs(tester, "NHWC", true);
  for (const TensorShape& shape : {dy, x, scale, mean, var, Shape({})}) {
    tester.Input(Random<float>(shape, 0.5, 1));
  }
  return tester;
}

TEST(FusedBatchNormGradOpTest, Errors) {
  const TensorShape x = Shape({1, 2, 2, 3});
  const TensorShape v = Shape({3});
  struct Case {
    OpTester tester;
    std::string message;
  };
  std::vector<Case> cases;
  cases.push_back({Backward(Shape({2, 3}), x, v, v, v), "input must be 4 or 5-dimensional[2,3]"});
  cases.push_back({Backward(x, Shape({2, 3}), v, v, v), "input must be 4 or 5-dimensional[2,3]"});
  cases.push_back({Backward(x, x, Shape({1, 3}), v, v), "scale must be 1-dimensional[1,3]"});
  cases.push_back({Backward(x, x, v, Shape({1, 3}), v), "saved mean must be 1-dimensional[1,3]"});
  cases.push_back(
      {Backward(x, x, v, v, Shape({1, 3})), "saved variance must be 1-dimensional[1,3]"});
  cases.push_back({Backward(Shape({1, 2, 1, 3}), x, v, v, v),
                   "x and y_backprop must have same shape, but x has shape [1,2,2,3] and "
                   "y_backprop has shape [1,2,1,3]"});
  cases.push_back({Backward(x, x, Shape({2}), v, v),
                   "scale must have the same number of elements as the channels of x, got 2 "
                   "and 3"});
  cases.push_back({Backward(x, x, v, Shape({4}), v),
                   "reserve_space_1 must have the same number of elements as the channels of x, "
                   "got 4 and 3"});
  cases.push_back({Backward(x, x, v, v, Shape({1})),
                   "reserve_space_2 must have the same number of elements as the channels of x, "
                   "got 1 and 3"});
  for (Case& c : cases) {
    ExpectRunError(c.tester, absl::StatusCode::kInvalidArgument, c.message);
  }
}

}  // namespace
}  // namespace tessera::cpu::test
