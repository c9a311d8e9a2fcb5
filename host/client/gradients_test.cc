// AddSymbolicGradients: numeric checks of every standard gradient, summing over several paths,
// unreached inputs, and the errors.
#include "host/client/gradients.h"

#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/grad_util.h"
#include "host/client/ops.h"
#include "host/session/session.h"
#include "host/testing/gradient_checker.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::tessera::testing::ComputeGradientError;

Tensor RandomDoubles(const TensorShape& shape, double lo, double hi, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(TSR_DTYPE_DOUBLE, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(rng);
  return t;
}

// Builds y = f(x...) on double placeholders of the given shapes and checks its gradient.
void CheckGradient(const std::vector<TensorShape>& shapes,
                   const std::function<Output(const Scope&, const std::vector<Output>&)>& f,
                   double lo = -2, double hi = 2, double tolerance = 1e-7) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> xs;
  std::vector<Tensor> values;
  for (size_t i = 0; i < shapes.size(); ++i) {
    xs.push_back(ops::Placeholder(root.WithOpName("x", i), DT_DOUBLE));
    values.push_back(RandomDoubles(shapes[i], lo, hi, 11 + static_cast<uint32_t>(i)));
  }
  Output y = f(root, xs);
  testing::GradientCheckOptions options;
  options.delta = 1e-5;
  absl::StatusOr<double> error = ComputeGradientError(root, xs, values, {y}, options);
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_LT(*error, tolerance);
}

using Xs = std::vector<Output>;

TEST(MathGradTest, BroadcastingArithmetic) {
  CheckGradient({{2, 3}, {3}}, [](const Scope& s, const Xs& x) { return ops::Add(s, x[0], x[1]); });
  CheckGradient({{2, 1}, {1, 3}},
                [](const Scope& s, const Xs& x) { return ops::AddV2(s, x[0], x[1]); });
  CheckGradient({{}, {4}}, [](const Scope& s, const Xs& x) { return ops::Sub(s, x[0], x[1]); });
  CheckGradient({{3, 1, 2}, {4, 1}},
                [](const Scope& s, const Xs& x) { return ops::Mul(s, x[0], x[1]); });
  CheckGradient(
      {{2, 3}, {3}}, [](const Scope& s, const Xs& x) { return ops::RealDiv(s, x[0], x[1]); }, 0.5,
      2);
  CheckGradient({{5}, {5}, {5}},
                [](const Scope& s, const Xs& x) { return ops::AddN(s, {x[0], x[1], x[2]}); });
}

TEST(MathGradTest, UnaryFunctions) {
  using Fn = std::function<Output(const Scope&, const Xs&)>;
  const std::vector<std::pair<Fn, std::pair<double, double>>> cases = {
      {[](const Scope& s, const Xs& x) -> Output { return ops::Neg(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Square(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Exp(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Log(s, x[0]); }, {0.5, 3}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Sqrt(s, x[0]); }, {0.5, 3}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Rsqrt(s, x[0]); }, {0.5, 3}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Tanh(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Sigmoid(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Cast(s, x[0], DT_DOUBLE); },
       {-2, 2}},
  };
  for (const auto& [fn, range] : cases) CheckGradient({{2, 3}}, fn, range.first, range.second);
}

TEST(MathGradTest, MatMulEveryTranspose) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
      CheckGradient({ta ? TensorShape{4, 2} : TensorShape{2, 4},
                     tb ? TensorShape{3, 4} : TensorShape{4, 3}},
                    [ta, tb](const Scope& s, const Xs& x) -> Output {
                      return ops::MatMul(s, x[0], x[1], ops::MatMul::TransposeA(ta).TransposeB(tb));
                    });
    }
  }
}

TEST(MathGradTest, Reductions) {
  for (bool keep : {false, true}) {
    CheckGradient({{2, 3, 4}}, [keep](const Scope& s, const Xs& x) -> Output {
      return ops::Sum(s, x[0], {1}, ops::Sum::KeepDims(keep));
    });
    CheckGradient({{2, 3, 4}}, [keep](const Scope& s, const Xs& x) -> Output {
      return ops::Sum(s, x[0], {0, -1}, ops::Sum::KeepDims(keep));
    });
    CheckGradient({{2, 3, 4}}, [keep](const Scope& s, const Xs& x) -> Output {
      return ops::Mean(s, x[0], {-2}, ops::Mean::KeepDims(keep));
    });
    CheckGradient({{3, 4}}, [keep](const Scope& s, const Xs& x) -> Output {
      return ops::Max(s, x[0], {1}, ops::Max::KeepDims(keep));
    });
  }
}

TEST(NnGradTest, ActivationsBiasAndSoftmax) {
  // Away from the kinks at 0 and 6.
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output { return ops::Relu(s, x[0]); },
                0.2, 1);
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output { return ops::Relu(s, x[0]); },
                -1, -0.2);
  CheckGradient({{3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Relu6(s, x[0]); }, 0.5,
                5.5);
  for (const char* format : {"NHWC", "NCHW"}) {
    CheckGradient({{2, 3, 2, 2}, {3}}, [format](const Scope& s, const Xs& x) -> Output {
      const bool nchw = std::string(format) == "NCHW";
      Output value = nchw ? x[0] : ops::Reshape(s, x[0], {2, 2, 2, 3});
      return ops::BiasAdd(s, value, x[1], ops::BiasAdd::DataFormat(format));
    });
  }
  CheckGradient({{3, 5}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Softmax(s, x[0]); });
}

// Forward nn ops built generically (attrs as TensorFlow writes them).
Output NnNode(const Scope& s, const std::string& op, const std::vector<Output>& inputs,
              const std::function<void(OpBuilder&)>& attrs, int num_outputs = 1) {
  std::vector<DataType> types(num_outputs, DT_DOUBLE);
  return grad_util::Node(s, op, inputs, attrs, types)[0];
}

TEST(NnGradTest, LossesAndLogSoftmax) {
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    Output labels = ops::Const(s, {1, 0, 3});
    return grad_util::Node(
        s, "SparseSoftmaxCrossEntropyWithLogits", {x[0], labels},
        [](OpBuilder& b) { b.AttrType("T", DT_DOUBLE).AttrType("Tlabels", DT_INT32); },
        {DT_DOUBLE, DT_DOUBLE})[0];
  });
  CheckGradient({{3, 4}, {3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return grad_util::Node(
        s, "SoftmaxCrossEntropyWithLogits", {x[0], ops::Softmax(s, x[1])},
        [](OpBuilder& b) { b.AttrType("T", DT_DOUBLE); }, {DT_DOUBLE, DT_DOUBLE})[0];
  });
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, grad_util::UnaryT(s, "LogSoftmax", {x[0]}));
  });
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return grad_util::UnaryT(s, "L2Loss", {x[0]});
  });
}

TEST(NnGradTest, PoolingAndConvolution) {
  for (const char* padding : {"SAME", "VALID"}) {
    SCOPED_TRACE(padding);
    auto pool_attrs = [padding](OpBuilder& b) {
      b.AttrType("T", DT_DOUBLE)
          .AttrIntList("ksize", {1, 2, 2, 1})
          .AttrIntList("strides", {1, 2, 2, 1})
          .AttrString("padding", padding);
    };
    CheckGradient({{2, 5, 5, 3}}, [&](const Scope& s, const Xs& x) -> Output {
      return ops::Square(s, NnNode(s, "MaxPool", {x[0]}, pool_attrs));
    });
    CheckGradient({{2, 5, 5, 3}}, [&](const Scope& s, const Xs& x) -> Output {
      return ops::Square(s, NnNode(s, "AvgPool", {x[0]}, pool_attrs));
    });
    for (int stride : {1, 2}) {
      CheckGradient({{2, 5, 6, 3}, {3, 3, 3, 4}}, [&](const Scope& s, const Xs& x) -> Output {
        return ops::Square(s, NnNode(s, "Conv2D", {x[0], x[1]}, [&](OpBuilder& b) {
                             b.AttrType("T", DT_DOUBLE)
                                 .AttrIntList("strides", {1, stride, stride, 1})
                                 .AttrString("padding", padding);
                           }));
      });
    }
  }
}

TEST(ArrayGradTest, ReshapesAndIdentity) {
  CheckGradient({{2, 6}},
                [](const Scope& s, const Xs& x) -> Output { return ops::Identity(s, x[0]); });
  CheckGradient({{2, 6}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, ops::Reshape(s, x[0], {3, 4}));
  });
  CheckGradient({{2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, ops::Squeeze(s, ops::ExpandDims(s, x[0], 1)));
  });
}

// A small MLP's loss: matmul, bias, relu, softmax, mean, all together.
TEST(GradientsTest, TwoLayerNetwork) {
  CheckGradient({{4, 3}, {3, 5}, {5}, {5, 2}}, [](const Scope& s, const Xs& x) -> Output {
    Output hidden = ops::Tanh(s, ops::BiasAdd(s, ops::MatMul(s, x[0], x[1]), x[2]));
    Output probs = ops::Softmax(s, ops::MatMul(s, hidden, x[3]));
    return ops::Mean(s, ops::Square(s, probs), {0, 1});
  }, -1, 1);
}

TEST(GradientsTest, SumsPathsAndZerosUnreachedInputs) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto unused = ops::Placeholder(root.WithOpName("unused"), DT_FLOAT);
  // y = x*x + 3x, dy/dx = 2x + 3 through two paths into x.
  Output y = ops::Add(root, ops::Mul(root, x, x), ops::Mul(root, 3.0f, x));
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x, unused}, &grads).ok());
  ASSERT_EQ(grads.size(), 2u);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SessionOptions(), *root.ToGraphDef());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({{"x", Tensor::FromVector<float>(TensorShape{2}, {1, -2})},
                         {"unused", Tensor::FromVector<float>(TensorShape{3}, {1, 2, 3})}},
                        {grads[0].name(), grads[1].name()}, {}, &out)
                  .ok());
  EXPECT_EQ(out[0].data<float>()[0], 5);
  EXPECT_EQ(out[0].data<float>()[1], -1);
  ASSERT_EQ(out[1].NumElements(), 3);
  EXPECT_EQ(out[1].data<float>()[2], 0);
}

TEST(GradientsTest, ReportsOpsWithoutGradientsAndBadArguments) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = ops::Square(root.WithOpName("sq"), x);
  std::vector<Output> grads;
  GradientRegistry empty;
  absl::Status missing =
      AddSymbolicGradients(root, {y}, {x}, {grad_util::OnesLike(root, y)}, &grads, empty);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.message()), HasSubstr("no gradient is defined for op 'Square'"));
  EXPECT_THAT(std::string(missing.message()),
              HasSubstr("while computing the gradient through node 'sq'"));

  absl::Status sizes = AddSymbolicGradients(root, {y}, {x}, {}, &grads);
  EXPECT_EQ(sizes.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sizes.message()), HasSubstr("got 1 outputs but 0 output gradients"));

  Scope other = Scope::NewRootScope();
  auto z = ops::Placeholder(other.WithOpName("z"), DT_FLOAT);
  absl::Status foreign = AddSymbolicGradients(root, {y}, {z}, &grads);
  EXPECT_EQ(foreign.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(foreign.message()),
              HasSubstr("'z:0' is not a valid output of this scope's graph"));
}

TEST(GradientRegistryTest, RejectsDuplicatesAndListsOps) {
  GradientRegistry registry;
  ASSERT_TRUE(registry.RegisterNoGradient("Foo").ok());
  absl::Status again = registry.RegisterNoGradient("Foo");
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.message()), HasSubstr("op 'Foo' already has a gradient"));
  EXPECT_TRUE(registry.Has("Foo"));
  EXPECT_TRUE(GradientRegistry::Standard().Has("MatMul"));
}

// The checker itself fails a wrong gradient: Square's registered as 3x instead of 2x.
TEST(GradientCheckerTest, DetectsAWrongGradient) {
  GradientRegistry wrong;
  ASSERT_TRUE(wrong
                  .Register("Square",
                            [](const Scope& s, const GradOp& op, const std::vector<Output>& g,
                               std::vector<Output>* out) {
                              *out = {ops::Mul(s, g[0], ops::Mul(s, 3.0, op.inputs[0]))};
                              return absl::OkStatus();
                            })
                  .ok());
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  testing::GradientCheckOptions options;
  options.registry = &wrong;
  absl::StatusOr<double> error = ComputeGradientError(
      root, {x}, {Tensor::FromVector<double>(TensorShape{2}, {1.0, -2.0})},
      {ops::Square(root, x)}, options);
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_NEAR(*error, 2.0, 1e-6);  // |3x - 2x| at x = -2
}

TEST(GradientCheckerTest, RejectsIntegerOutputs) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  absl::StatusOr<double> error =
      ComputeGradientError(root, {x}, {Tensor::Scalar<int32_t>(1)}, {x});
  EXPECT_EQ(error.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(error.status().message()),
              HasSubstr("gradient checks need float or double"));
}

}  // namespace
}  // namespace tessera
