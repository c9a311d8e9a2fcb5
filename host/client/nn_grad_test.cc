// Numeric checks of the neural-network gradients of nn_grad.cc: the exponential and leaky
// activations, Softplus, Softsign, BiasAddV1, LRN, FusedBatchNormV3 in training and inference in
// every data format, DepthwiseConv2dNative, Conv3D and its two gradient ops, the 3-D poolings,
// MaxPoolV2, and the second-order gradients of the activation gradient ops and BiasAddGrad.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "host/client/gradients.h"
#include "host/client/ops.h"
#include "host/session/session.h"
#include "host/testing/gradient_checker.h"

namespace tessera {
namespace {

using ::tessera::testing::ComputeGradientError;
using Xs = std::vector<Output>;
using Fn = std::function<Output(const Scope&, const Xs&)>;

// Uniform values in [lo, hi) of `dtype` (float or double), none closer to 0 than `gap` (the kinks
// of the piecewise activations, where central differences are meaningless).
Tensor RandomTensor(DataType dtype, const TensorShape& shape, double lo, double hi, double gap,
                    uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    double v = dist(rng);
    while (std::abs(v) < gap) v = dist(rng);
    if (dtype == DT_DOUBLE) {
      t.data<double>()[i] = v;
    } else {
      t.data<float>()[i] = static_cast<float>(v);
    }
  }
  return t;
}

struct Range {
  double lo = -2;
  double hi = 2;
  double gap = 0;
};

// Builds y = f(x...) on placeholders of `dtype` fed random values (x_i from ranges[i], or the
// last range given) and checks its gradient: doubles with delta 1e-5 and tolerance 1e-7, floats
// (the ops with float kernels only) with delta 1e-3 and `float_tolerance`.
void CheckGradient(DataType dtype, const std::vector<TensorShape>& shapes, const Fn& f,
                   std::vector<Range> ranges = {Range()}, double float_tolerance = 1e-3) {
  Scope root = Scope::NewRootScope();
  Xs xs;
  std::vector<Tensor> values;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Range& r = ranges[std::min(i, ranges.size() - 1)];
    xs.push_back(ops::Placeholder(root.WithOpName("x", i), dtype));
    values.push_back(RandomTensor(dtype, shapes[i], r.lo, r.hi, r.gap, 31 + uint32_t(i)));
  }
  Output y = f(root, xs);
  ASSERT_TRUE(root.ok()) << root.status();
  testing::GradientCheckOptions options;
  options.delta = dtype == DT_DOUBLE ? 1e-5 : 1e-3;
  absl::StatusOr<double> error = ComputeGradientError(root, xs, values, {y}, options);
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_LT(*error, dtype == DT_DOUBLE ? 1e-7 : float_tolerance);
}

TEST(NnGradTest, ResizeBilinearAndNearestNeighbor) {
  // The resized image is float whatever the input type: checked in float. Every mode, up and
  // down.
  for (const ops::ResizeAttrs& attrs : {ops::ResizeAttrs(), ops::ResizeAttrs().AlignCorners(true),
                                        ops::ResizeAttrs().HalfPixelCenters(true)}) {
    CheckGradient(DT_FLOAT, {{2, 3, 4, 2}}, [attrs](const Scope& s, const Xs& x) -> Output {
      return ops::ResizeBilinear(s, x[0], ops::Const(s, {5, 3}), attrs);
    });
    CheckGradient(DT_FLOAT, {{1, 4, 3, 2}}, [attrs](const Scope& s, const Xs& x) -> Output {
      return ops::ResizeNearestNeighbor(s, x[0], ops::Const(s, {7, 2}), attrs);
    });
  }
  CheckGradient(DT_DOUBLE, {{1, 2, 5, 1}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::ResizeNearestNeighbor(s, x[0], ops::Const(s, {3, 3}));
  });
}

TEST(NnGradTest, TopKV2SendsEachGradientToItsSource) {
  // Distinct random values: no ties to make the selection jump under the checker's nudges.
  CheckGradient(DT_DOUBLE, {{3, 5}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::TopK(s, x[0], 2).values;
  });
  CheckGradient(DT_DOUBLE, {{2, 1, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::TopK(s, x[0], int64_t{4}, ops::TopK::IndexType(DT_INT64)).values;
  });
  CheckGradient(DT_DOUBLE, {{6}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::TopK(s, x[0], 1).values;
  });
}

TEST(NnGradTest, EluAndSelu) {
  const Range away_from_zero{-2, 2, 0.1};
  CheckGradient(DT_DOUBLE, {{3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Elu(s, x[0]); },
                {away_from_zero});
  CheckGradient(DT_DOUBLE, {{3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Selu(s, x[0]); },
                {away_from_zero});
}

// A gradient that ignored the forward op's alpha would be off by |alpha - 0.2| below zero.
TEST(NnGradTest, LeakyReluWithDefaultAndGivenAlpha) {
  for (float alpha : {0.2f, 0.5f, 1.5f}) {
    SCOPED_TRACE(alpha);
    CheckGradient(DT_DOUBLE, {{3, 4}},
                  [alpha](const Scope& s, const Xs& x) -> Output {
                    return ops::LeakyRelu(s, x[0], ops::LeakyRelu::Alpha(alpha));
                  },
                  {{-2, 2, 0.1}});
  }
}

TEST(NnGradTest, Softplus) {
  CheckGradient(DT_DOUBLE, {{3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Softplus(s, x[0]); },
                {{-4, 4}});
}

TEST(NnGradTest, Softsign) {
  CheckGradient(DT_DOUBLE, {{3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Softsign(s, x[0]); },
                {{-4, 4}});
}

TEST(NnGradTest, LrnWithDefaultAndGivenAttrs) {
  CheckGradient(DT_FLOAT, {{2, 2, 3, 7}},
                [](const Scope& s, const Xs& x) -> Output { return ops::LRN(s, x[0]); });
  CheckGradient(DT_FLOAT, {{2, 2, 3, 7}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::LRN(s, x[0], ops::LRN::DepthRadius(2).Bias(2.0f).Alpha(0.3f).Beta(0.75f));
  });
}

// FusedBatchNormV3's y against x, scale and offset. The population statistics of inference are
// constants; in training they are fed too, and with an averaging factor below one the gradient
// must still use the batch's own statistics. The large epsilon shows that it is passed on.
void CheckBatchNorm(const std::string& format, bool is_training, const TensorShape& x_shape,
                    float exponential_avg_factor = 1.0f) {
  SCOPED_TRACE(format + (is_training ? " training" : " inference"));
  const bool channels_first = format == "NCHW" || format == "NCDHW";
  const int64_t channels = x_shape.dim(channels_first ? 1 : x_shape.rank() - 1);
  std::vector<float> mean_values;
  std::vector<float> variance_values;
  for (int64_t c = 0; c < channels; ++c) {
    mean_values.push_back(0.1f * static_cast<float>(c) - 0.2f);
    variance_values.push_back(0.5f + 0.25f * static_cast<float>(c));
  }
  const TensorShape channel_shape{channels};
  CheckGradient(
      DT_FLOAT, {x_shape, channel_shape, channel_shape},
      [&](const Scope& s, const Xs& x) -> Output {
        Output mean = ops::Const(s, Tensor::FromVector<float>(channel_shape, mean_values));
        Output variance = ops::Const(s, Tensor::FromVector<float>(channel_shape, variance_values));
        return ops::FusedBatchNormV3(s, x[0], x[1], x[2], mean, variance,
                                     ops::FusedBatchNormV3::DataFormat(format)
                                         .IsTraining(is_training)
                                         .Epsilon(0.05f)
                                         .ExponentialAvgFactor(exponential_avg_factor))
            .y;
      },
      {{-1, 1}, {0.5, 1.5}, {-1, 1}});
}

TEST(NnGradTest, FusedBatchNormTrainingAndInferenceInEveryFormat) {
  for (bool is_training : {true, false}) {
    CheckBatchNorm("NHWC", is_training, {2, 3, 2, 3});
    CheckBatchNorm("NCHW", is_training, {2, 3, 3, 2});
    CheckBatchNorm("NDHWC", is_training, {2, 2, 1, 2, 3});
    CheckBatchNorm("NCDHW", is_training, {2, 3, 2, 1, 2});
  }
  CheckBatchNorm("NHWC", /*is_training=*/true, {2, 3, 2, 3}, /*exponential_avg_factor=*/0.5f);
}

// FusedBatchNorm and FusedBatchNormV2: y against x, scale and offset, through their own
// gradient ops.
TEST(NnGradTest, FusedBatchNormV1AndV2) {
  for (bool v2 : {false, true}) {
    for (const char* format : {"NHWC", "NCHW"}) {
      for (bool is_training : {true, false}) {
        SCOPED_TRACE(std::string(v2 ? "V2 " : "V1 ") + format +
                     (is_training ? " training" : " inference"));
        const TensorShape x_shape =
            std::string(format) == "NHWC" ? TensorShape{2, 3, 2, 3} : TensorShape{2, 3, 3, 2};
        const TensorShape channel_shape{3};
        CheckGradient(
            DT_FLOAT, {x_shape, channel_shape, channel_shape},
            [&](const Scope& s, const Xs& x) -> Output {
              Output mean = ops::Const(s, {-0.2f, 0.1f, 0.3f});
              Output variance = ops::Const(s, {0.5f, 0.75f, 1.0f});
              const ops::FusedBatchNormAttrs attrs =
                  ops::FusedBatchNormAttrs().DataFormat(format).IsTraining(is_training).Epsilon(
                      0.05f);
              if (v2) return ops::FusedBatchNormV2(s, x[0], x[1], x[2], mean, variance, attrs).y;
              return ops::FusedBatchNorm(s, x[0], x[1], x[2], mean, variance, attrs).y;
            },
            {{-1, 1}, {0.5, 1.5}, {-1, 1}});
      }
    }
  }
}

// As in TensorFlow the mean and variance inputs get no gradient (zeros here), in inference too
// where y does depend on them.
TEST(NnGradTest, FusedBatchNormGivesMeanAndVarianceNoGradient) {
  for (bool is_training : {true, false}) {
    SCOPED_TRACE(is_training);
    Scope root = Scope::NewRootScope();
    Xs xs;
    for (int i = 0; i < 5; ++i) xs.push_back(ops::Placeholder(root.WithOpName("x", i), DT_FLOAT));
    Output y = ops::FusedBatchNormV3(root, xs[0], xs[1], xs[2], xs[3], xs[4],
                                     ops::FusedBatchNormV3::IsTraining(is_training))
                   .y;
    Xs grads;
    ASSERT_TRUE(AddSymbolicGradients(root, {y}, xs, &grads).ok());
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(SessionOptions(), *root.ToGraphDef());
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<std::pair<std::string, Tensor>> feeds = {
        {"x0", RandomTensor(DT_FLOAT, {2, 2, 2, 2}, -1, 1, 0, 5)},
        {"x1", Tensor::FromVector<float>({2}, {1.0f, 2.0f})},
        {"x2", Tensor::FromVector<float>({2}, {0.5f, -0.5f})},
        {"x3", Tensor::FromVector<float>({2}, {0.25f, -0.25f})},
        {"x4", Tensor::FromVector<float>({2}, {1.0f, 0.5f})}};
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->Run(feeds, {grads[3].name(), grads[4].name()}, {}, &out).ok());
    ASSERT_EQ(out.size(), 2u);
    for (const Tensor& t : out) {
      ASSERT_EQ(t.NumElements(), 2);
      EXPECT_EQ(t.data<float>()[0], 0.0f);
      EXPECT_EQ(t.data<float>()[1], 0.0f);
    }
  }
}

// The activation gradient ops against both their inputs: linear in the incoming gradient, and
// (away from the kinks) piecewise constant in the features, or linear in the outputs.
TEST(NnGradTest, ActivationGradOpsSecondOrder) {
  const Range gradients{-2, 2};
  CheckGradient(DT_DOUBLE, {{3, 4}, {3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::ReluGrad(s, x[0], x[1]); },
                {gradients, {-2, 2, 0.1}});
  CheckGradient(DT_DOUBLE, {{3, 4}, {3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Relu6Grad(s, x[0], x[1]); },
                {gradients, {-2, 5.8, 0.1}});
  CheckGradient(DT_DOUBLE, {{3, 4}, {3, 4}},
                [](const Scope& s, const Xs& x) -> Output {
                  return ops::LeakyReluGrad(s, x[0], x[1], ops::LeakyReluGrad::Alpha(0.3f));
                },
                {gradients, {-2, 2, 0.1}});
  // Elu's outputs lie above -1, Selu's above -scale * alpha (about -1.76).
  CheckGradient(DT_DOUBLE, {{3, 4}, {3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::EluGrad(s, x[0], x[1]); },
                {gradients, {-0.9, 2, 0.1}});
  CheckGradient(DT_DOUBLE, {{3, 4}, {3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::SeluGrad(s, x[0], x[1]); },
                {gradients, {-1.5, 2, 0.1}});
  CheckGradient(
      DT_DOUBLE, {{3, 4}, {3, 4}},
      [](const Scope& s, const Xs& x) -> Output { return ops::SoftplusGrad(s, x[0], x[1]); },
      {gradients, {-4, 4}});
}

// BiasAddV1 adds along the last dimension: the value gets g, the bias g summed over the rest.
TEST(NnGradTest, BiasAddV1) {
  for (const TensorShape& shape : {TensorShape{4, 3}, TensorShape{2, 2, 3}}) {
    CheckGradient(DT_DOUBLE, {shape, {3}}, [](const Scope& s, const Xs& x) -> Output {
      return ops::Square(s, ops::BiasAddV1(s, x[0], x[1]));
    });
  }
}

TEST(NnGradTest, BiasAddGradSecondOrderInBothFormats) {
  for (const char* format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    for (const TensorShape& shape : {TensorShape{2, 3, 2, 2}, TensorShape{4, 3},
                                     TensorShape{2, 3, 4}, TensorShape{1, 3, 2, 1, 2}}) {
      CheckGradient(DT_DOUBLE, {shape}, [format](const Scope& s, const Xs& x) -> Output {
        return ops::BiasAddGrad(s, x[0], ops::BiasAddGrad::DataFormat(format));
      });
    }
  }
}

// Gradients of gradients: d/d(value, bias) of d(sum((value + bias)^2))/d(bias) and
// d/d(x, w) of d(sum(relu(x) * w))/dx, through AddSymbolicGradients twice.
TEST(NnGradTest, GradientsOfGradients) {
  for (const char* format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    CheckGradient(DT_DOUBLE, {{2, 3, 2, 2}, {3}}, [format](const Scope& s, const Xs& x) -> Output {
      Output value = std::string(format) == "NCHW" ? x[0] : ops::Reshape(s, x[0], {2, 2, 2, 3});
      Output loss = ops::Square(s, ops::BiasAdd(s, value, x[1], ops::BiasAdd::DataFormat(format)));
      Xs grads;
      EXPECT_TRUE(AddSymbolicGradients(s, {loss}, {x[1]}, &grads).ok());
      return grads.empty() ? Output() : grads[0];
    });
  }
  CheckGradient(DT_DOUBLE, {{3, 4}, {3, 4}},
                [](const Scope& s, const Xs& x) -> Output {
                  Output loss = ops::Mul(s, ops::Relu(s, x[0]), x[1]);
                  Xs grads;
                  EXPECT_TRUE(AddSymbolicGradients(s, {loss}, {x[0]}, &grads).ok());
                  return grads.empty() ? Output() : grads[0];
                },
                {{-2, 2, 0.1}});
}

// DepthwiseConv2dNative against its input and filter through the two depthwise gradient ops:
// each padding, strides 1 and 2, channel multipliers 1 and 2, dilations and both data formats.
TEST(NnGradTest, DepthwiseConv2dNative) {
  struct Case {
    std::string padding;
    int64_t stride;
    int64_t multiplier;
    int64_t dilation;
    std::string format;
  };
  for (const Case& c : std::vector<Case>{{"SAME", 1, 1, 1, "NHWC"},
                                         {"VALID", 2, 2, 1, "NHWC"},
                                         {"SAME", 2, 2, 1, "NCHW"},
                                         {"VALID", 1, 1, 2, "NCHW"},
                                         {"EXPLICIT", 1, 2, 2, "NHWC"}}) {
    SCOPED_TRACE(c.padding + " " + c.format + " stride " + std::to_string(c.stride) +
                 " multiplier " + std::to_string(c.multiplier) + " dilation " +
                 std::to_string(c.dilation));
    const bool nchw = c.format == "NCHW";
    const TensorShape input = nchw ? TensorShape{2, 3, 5, 6} : TensorShape{2, 5, 6, 3};
    const std::vector<int64_t> strides = nchw ? std::vector<int64_t>{1, 1, c.stride, c.stride}
                                              : std::vector<int64_t>{1, c.stride, c.stride, 1};
    const std::vector<int64_t> dilations = nchw
                                               ? std::vector<int64_t>{1, 1, c.dilation, c.dilation}
                                               : std::vector<int64_t>{1, c.dilation, c.dilation, 1};
    ops::DepthwiseConv2dNative::Attrs attrs =
        ops::DepthwiseConv2dNative::DataFormat(c.format).Dilations(dilations);
    if (c.padding == "EXPLICIT") attrs = attrs.ExplicitPaddings({0, 0, 1, 2, 0, 1, 0, 0});
    CheckGradient(DT_DOUBLE, {input, {3, 3, 3, c.multiplier}},
                  [&](const Scope& s, const Xs& x) -> Output {
                    return ops::Square(
                        s, ops::DepthwiseConv2dNative(s, x[0], x[1], strides, c.padding, attrs));
                  });
  }
}

// Conv3D against its input and filter through Conv3DBackpropInputV2 and Conv3DBackpropFilterV2:
// each padding, strides, dilations and both data formats.
TEST(NnGradTest, Conv3D) {
  struct Case {
    std::string padding;
    int64_t stride;
    int64_t dilation;
    std::string format;
  };
  for (const Case& c : std::vector<Case>{{"SAME", 1, 1, "NDHWC"},
                                         {"VALID", 2, 1, "NCDHW"},
                                         {"SAME", 1, 2, "NCDHW"},
                                         {"VALID", 1, 2, "NDHWC"}}) {
    SCOPED_TRACE(c.padding + " " + c.format + " stride " + std::to_string(c.stride) + " dilation " +
                 std::to_string(c.dilation));
    const bool ncdhw = c.format == "NCDHW";
    const TensorShape input = ncdhw ? TensorShape{2, 2, 4, 5, 5} : TensorShape{2, 4, 5, 5, 2};
    const std::vector<int64_t> strides = ncdhw ? std::vector<int64_t>{1, 1, c.stride, c.stride, 1}
                                               : std::vector<int64_t>{1, c.stride, c.stride, 1, 1};
    const std::vector<int64_t> dilations =
        ncdhw ? std::vector<int64_t>{1, 1, 1, c.dilation, c.dilation}
              : std::vector<int64_t>{1, 1, c.dilation, c.dilation, 1};
    const ops::Conv3D::Attrs attrs = ops::Conv3D::DataFormat(c.format).Dilations(dilations);
    CheckGradient(DT_DOUBLE, {input, {2, 2, 2, 2, 3}}, [&](const Scope& s, const Xs& x) -> Output {
      return ops::Square(s, ops::Conv3D(s, x[0], x[1], strides, c.padding, attrs));
    });
  }
}

// The second-order gradients: the gradient ops are linear in each data input.
TEST(NnGradTest, Conv3DBackpropInputAndFilter) {
  const std::vector<int64_t> strides = {1, 2, 1, 1, 1};
  CheckGradient(
      DT_DOUBLE, {{2, 2, 2, 2, 3}, {1, 2, 4, 3, 3}}, [&](const Scope& s, const Xs& x) -> Output {
        return ops::Square(s, ops::Conv3DBackpropInputV2(s, ops::Const(s, {1, 4, 4, 3, 2}), x[0],
                                                         x[1], strides, "SAME"));
      });
  CheckGradient(
      DT_DOUBLE, {{1, 4, 4, 3, 2}, {1, 3, 3, 2, 3}}, [&](const Scope& s, const Xs& x) -> Output {
        return ops::Square(s, ops::Conv3DBackpropFilterV2(s, x[0], ops::Const(s, {2, 2, 2, 2, 3}),
                                                          x[1], {1, 1, 1, 1, 1}, "VALID"));
      });
}

TEST(NnGradTest, Pool3D) {
  for (const std::string format : {"NDHWC", "NCDHW"}) {
    SCOPED_TRACE(format);
    const bool ncdhw = format == "NCDHW";
    const TensorShape input = ncdhw ? TensorShape{1, 2, 3, 4, 5} : TensorShape{1, 3, 4, 5, 2};
    const std::vector<int64_t> ksize =
        ncdhw ? std::vector<int64_t>{1, 1, 2, 2, 3} : std::vector<int64_t>{1, 2, 2, 3, 1};
    const std::vector<int64_t> strides =
        ncdhw ? std::vector<int64_t>{1, 1, 1, 2, 2} : std::vector<int64_t>{1, 1, 2, 2, 1};
    for (const char* padding : {"SAME", "VALID"}) {
      SCOPED_TRACE(padding);
      CheckGradient(DT_DOUBLE, {input}, [&](const Scope& s, const Xs& x) -> Output {
        return ops::Square(s, ops::AvgPool3D(s, x[0], ksize, strides, padding,
                                             ops::AvgPool3D::DataFormat(format)));
      });
      // MaxPool3D has a float kernel only; distinct random values keep each window's maximum
      // in place under the checker's nudges.
      CheckGradient(DT_FLOAT, {input}, [&](const Scope& s, const Xs& x) -> Output {
        return ops::MaxPool3D(s, x[0], ksize, strides, padding, ops::MaxPool3D::DataFormat(format));
      });
    }
  }
  // AvgPool3DGrad is linear in its gradient input.
  CheckGradient(DT_DOUBLE, {{1, 3, 2, 3, 2}}, [&](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, ops::AvgPool3DGrad(s, ops::Const(s, {1, 3, 4, 5, 2}), x[0],
                                             {1, 2, 2, 3, 1}, {1, 1, 2, 2, 1}, "SAME"));
  });
}

TEST(NnGradTest, MaxPoolV2) {
  for (const char* padding : {"SAME", "VALID"}) {
    SCOPED_TRACE(padding);
    CheckGradient(DT_DOUBLE, {{2, 5, 4, 3}}, [&](const Scope& s, const Xs& x) -> Output {
      return ops::MaxPoolV2(s, x[0], ops::Const(s, {1, 2, 3, 1}), ops::Const(s, {1, 2, 1, 1}),
                            padding);
    });
  }
}

}  // namespace
}  // namespace tessera
