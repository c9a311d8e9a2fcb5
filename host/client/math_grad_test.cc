// Numeric checks of the math gradients (division, powers, extrema, selection, products, running
// sums and products, BatchMatMulV2, the unary and trigonometric functions, Atan2, ClipByValue,
// CheckNumerics) and of the ops that give zeros or no gradient.
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/grad_util.h"
#include "host/client/gradients.h"
#include "host/client/ops.h"
#include "host/session/session.h"
#include "host/testing/gradient_checker.h"

namespace tessera {
namespace {

using ::tessera::testing::ComputeGradientError;
using ::testing::HasSubstr;
using Xs = std::vector<Output>;
using Fn = std::function<Output(const Scope&, const Xs&)>;

Tensor RandomDoubles(const TensorShape& shape, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(TSR_DTYPE_DOUBLE, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(rng);
  return t;
}

Tensor Doubles(const TensorShape& shape, std::initializer_list<double> values) {
  return Tensor::FromVector<double>(shape, values);
}

// Builds y = f(x...) on double placeholders fed `values` and checks its gradient numerically.
void CheckGradientAt(const std::vector<Tensor>& values, const Fn& f, double tolerance = 1e-7) {
  Scope root = Scope::NewRootScope();
  Xs xs;
  for (size_t i = 0; i < values.size(); ++i) {
    xs.push_back(ops::Placeholder(root.WithOpName("x", i), DT_DOUBLE));
  }
  Output y = f(root, xs);
  testing::GradientCheckOptions options;
  options.delta = 1e-5;
  absl::StatusOr<double> error = ComputeGradientError(root, xs, values, {y}, options);
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_LT(*error, tolerance);
}

// The same on random values in [lo, hi).
void CheckGradient(const std::vector<TensorShape>& shapes, const Fn& f, double lo = -2,
                   double hi = 2) {
  std::vector<Tensor> values;
  for (size_t i = 0; i < shapes.size(); ++i) {
    values.push_back(RandomDoubles(shapes[i], lo, hi, 23 + static_cast<uint32_t>(i)));
  }
  CheckGradientAt(values, f);
}

// Runs the graph of `root`, feeding placeholders "x<i>" with `feeds`, and returns `fetches`.
std::vector<Tensor> Run(const Scope& root, const std::vector<Tensor>& feeds, const Xs& fetches) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SessionOptions(), *root.ToGraphDef());
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  std::vector<std::pair<std::string, Tensor>> inputs;
  for (size_t i = 0; i < feeds.size(); ++i) inputs.push_back({"x" + std::to_string(i), feeds[i]});
  std::vector<std::string> names;
  for (const Output& fetch : fetches) names.push_back(fetch.name());
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run(inputs, names, {}, &out);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

// d(sum of f(x...))/dx_i for every i, evaluated at `feeds` (placeholders of the feeds' types).
std::vector<Tensor> Gradients(const std::vector<Tensor>& feeds, const Fn& f) {
  Scope root = Scope::NewRootScope();
  Xs xs;
  for (size_t i = 0; i < feeds.size(); ++i) {
    xs.push_back(ops::Placeholder(root.WithOpName("x", i), feeds[i].dtype()));
  }
  Xs grads;
  absl::Status status = AddSymbolicGradients(root, {f(root, xs)}, xs, &grads);
  EXPECT_TRUE(status.ok()) << status;
  if (!status.ok()) return {};
  return Run(root, feeds, grads);
}

void ExpectValues(const Tensor& t, const std::vector<double>& expected) {
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(t.data<double>()[i], expected[i], 1e-12) << "element " << i;
  }
}

TEST(MathGradTest, DivAndSquaredDifferenceBroadcast) {
  CheckGradient(
      {{2, 3}, {3}}, [](const Scope& s, const Xs& x) { return ops::Div(s, x[0], x[1]); }, 0.5, 2);
  CheckGradient({{4, 1}, {1, 3}},
                [](const Scope& s, const Xs& x) { return ops::SquaredDifference(s, x[0], x[1]); });
  CheckGradient({{}, {2, 3}},
                [](const Scope& s, const Xs& x) { return ops::SquaredDifference(s, x[0], x[1]); });
}

TEST(MathGradTest, PowBothInputsWithBroadcasting) {
  CheckGradient(
      {{2, 3}, {3}}, [](const Scope& s, const Xs& x) { return ops::Pow(s, x[0], x[1]); }, 0.5, 2);
  CheckGradient(
      {{}, {2, 2}}, [](const Scope& s, const Xs& x) { return ops::Pow(s, x[0], x[1]); }, 0.5, 2);
  // A negative base with a constant integer exponent: only the base's gradient is defined.
  CheckGradient(
      {{2, 3}}, [](const Scope& s, const Xs& x) { return ops::Pow(s, x[0], 3.0); }, -2, -0.5);
}

// TensorFlow takes log(x) as 0 for x <= 0 in the exponent's gradient.
TEST(MathGradTest, PowExponentGradientIsZeroForNonPositiveBases) {
  std::vector<Tensor> grads =
      Gradients({Doubles({3}, {-1, 0, 2}), Doubles({3}, {2, 2, 2})},
                [](const Scope& s, const Xs& x) { return ops::Pow(s, x[0], x[1]); });
  ASSERT_EQ(grads.size(), 2u);
  ExpectValues(grads[0], {-2, 0, 4});
  ExpectValues(grads[1], {0, 0, 4 * std::log(2.0)});
}

TEST(MathGradTest, MaximumAndMinimumWithBroadcasting) {
  CheckGradient({{2, 3}, {3}},
                [](const Scope& s, const Xs& x) { return ops::Maximum(s, x[0], x[1]); });
  CheckGradient({{2, 1}, {1, 3}},
                [](const Scope& s, const Xs& x) { return ops::Minimum(s, x[0], x[1]); });
}

// On ties the whole gradient goes to x, for both ops.
TEST(MathGradTest, MaximumAndMinimumGiveTiesToX) {
  const std::vector<Tensor> feeds = {Doubles({3}, {1, 2, 5}), Doubles({3}, {1, 3, 4})};
  std::vector<Tensor> max_grads =
      Gradients(feeds, [](const Scope& s, const Xs& x) { return ops::Maximum(s, x[0], x[1]); });
  ASSERT_EQ(max_grads.size(), 2u);
  ExpectValues(max_grads[0], {1, 0, 1});
  ExpectValues(max_grads[1], {0, 1, 0});
  std::vector<Tensor> min_grads =
      Gradients(feeds, [](const Scope& s, const Xs& x) { return ops::Minimum(s, x[0], x[1]); });
  ASSERT_EQ(min_grads.size(), 2u);
  ExpectValues(min_grads[0], {1, 1, 0});
  ExpectValues(min_grads[1], {0, 0, 1});
}

TEST(MathGradTest, FloorModOnFloatsAwayFromJumps) {
  // x / y stays at least 0.2 away from an integer.
  CheckGradientAt(
      {Doubles({2, 3}, {2.3, -1.7, 5.1, 0.4, -3.3, 7.9}), Doubles({3}, {1.5, -2.2, 0.7})},
      [](const Scope& s, const Xs& x) { return ops::FloorMod(s, x[0], x[1]); });
}

Output Condition(const Scope& s, const TensorShape& shape, std::initializer_list<bool> values) {
  return ops::Const(s, Tensor::FromVector<bool>(shape, values));
}

TEST(MathGradTest, SelectWithMatchingAndVectorConditions) {
  CheckGradient({{2, 3}, {2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Select(s, Condition(s, {2, 3}, {true, false, false, true, true, false}), x[0],
                       x[1]);
  });
  CheckGradient({{2, 3}, {2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Select(s, Condition(s, {2}, {false, true}), x[0], x[1]);
  });
}

TEST(MathGradTest, SelectV2ReducesBroadcastBranches) {
  CheckGradient({{1, 3}, {3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::SelectV2(s, Condition(s, {2, 1}, {true, false}), x[0], x[1]);
  });
  CheckGradient({{2, 3}, {}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::SelectV2(s, Condition(s, {3}, {false, true, true}), x[0], x[1]);
  });
}

TEST(MathGradTest, ProdOverAxesWithAndWithoutKeptDims) {
  for (bool keep : {false, true}) {
    SCOPED_TRACE(keep);
    CheckGradient(
        {{2, 3, 4}},
        [keep](const Scope& s, const Xs& x) -> Output {
          return ops::Prod(s, x[0], {1}, ops::Prod::KeepDims(keep));
        },
        0.5, 1.5);
    CheckGradient(
        {{2, 3, 4}},
        [keep](const Scope& s, const Xs& x) -> Output {
          return ops::Prod(s, x[0], {0, -1}, ops::Prod::KeepDims(keep));
        },
        -1.5, -0.5);
    CheckGradient(
        {{3}},
        [keep](const Scope& s, const Xs& x) -> Output {
          return ops::Prod(s, x[0], 0, ops::Prod::KeepDims(keep));
        },
        0.5, 1.5);
  }
}

// Rows with no zero, one zero and two zeros: the product is multilinear, so the numeric check is
// exact at the zeros too.
TEST(MathGradTest, ProdWithZeros) {
  const Tensor values = Doubles({3, 4}, {1.5, -0.5, 2, 0.75, 1.25, 0, -2, 0.5, 0, 3, 0, 1.5});
  CheckGradientAt({values}, [](const Scope& s, const Xs& x) { return ops::Prod(s, x[0], {1}); });
  std::vector<Tensor> grads =
      Gradients({values}, [](const Scope& s, const Xs& x) { return ops::Prod(s, x[0], {1}); });
  ASSERT_EQ(grads.size(), 1u);
  ExpectValues(grads[0], {-0.75, 2.25, -0.5625, -1.5, 0, -1.25, 0, 0, 0, 0, 0, 0});
}

TEST(MathGradTest, CumsumEveryDirection) {
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      for (int axis : {0, -1}) {
        SCOPED_TRACE(std::to_string(exclusive) + std::to_string(reverse) + std::to_string(axis));
        CheckGradient({{3, 4}}, [=](const Scope& s, const Xs& x) -> Output {
          // Squared so that each output position weighs the gradient differently.
          return ops::Square(
              s, ops::Cumsum(s, x[0], axis, ops::Cumsum::Exclusive(exclusive).Reverse(reverse)));
        });
      }
    }
  }
}

TEST(MathGradTest, CumprodEveryDirection) {
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      for (int axis : {0, -1}) {
        SCOPED_TRACE(std::to_string(exclusive) + std::to_string(reverse) + std::to_string(axis));
        // Factors away from zero, of either sign.
        CheckGradientAt(
            {Doubles({3, 4}, {0.5, -1.5, 2, 1.2, -0.8, 1.1, 0.7, -1.3, 1.4, 0.9, -0.6, 1.7})},
            [=](const Scope& s, const Xs& x) -> Output {
              return ops::Square(
                  s,
                  ops::Cumprod(s, x[0], axis, ops::Cumprod::Exclusive(exclusive).Reverse(reverse)));
            });
      }
    }
  }
}

// Where a factor is zero, TensorFlow's Cumprod gradient (a division by x, made 0 there) is 0,
// not the true derivative: here d/dx1 of x0 + x0 x1 + x0 x1 x2 is 8, and the formula gives 0.
TEST(MathGradTest, CumprodGradientIsZeroAtZeroFactors) {
  std::vector<Tensor> grads = Gradients({Doubles({3}, {2, 0, 3})}, [](const Scope& s, const Xs& x) {
    return ops::Cumprod(s, x[0], 0);
  });
  ASSERT_EQ(grads.size(), 1u);
  // d/dx0 = 1 + x1 + x1 x2 = 1 and d/dx2 = x0 x1 = 0 are exact.
  ExpectValues(grads[0], {1, 0, 0});
}

// ClipByValue: t gets the gradient inside the bounds, each bound where it clipped; scalar bounds
// sum it. Values keep away from the bounds, where the function has kinks.
TEST(MathGradTest, ClipByValueWithScalarAndFullBounds) {
  const Fn clip = [](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, ops::ClipByValue(s, x[0], x[1], x[2]));
  };
  const Tensor t = Doubles({2, 3}, {-3, -0.5, 0.2, 0.9, 2.5, -1.7});
  CheckGradientAt({t, Doubles({}, {-1}), Doubles({}, {1})}, clip);
  CheckGradientAt(
      {t, Doubles({2, 3}, {-3.5, -1, 0.5, 0, 1, -1}), Doubles({2, 3}, {-2, 1, 1, 0.5, 3, 1})},
      clip);
  std::vector<Tensor> grads = Gradients(
      {Doubles({4}, {-2, 0.5, 3, 4}), Doubles({}, {-1}), Doubles({}, {1})},
      [](const Scope& s, const Xs& x) -> Output { return ops::ClipByValue(s, x[0], x[1], x[2]); });
  ASSERT_EQ(grads.size(), 3u);
  ExpectValues(grads[0], {0, 1, 0, 0});
  ExpectValues(grads[1], {1});
  ExpectValues(grads[2], {2});
}

// CheckNumerics passes the gradient through and checks it.
TEST(MathGradTest, CheckNumericsChecksTheGradient) {
  CheckGradient({{2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, ops::CheckNumerics(s, x[0], "forward"));
  });
  // y = sqrt(check(x)) at 0: the gradient is inf, and the check of it fails.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x0"), DT_DOUBLE);
  Output y = ops::Sqrt(root, ops::CheckNumerics(root, x, "x is checked"));
  Xs grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SessionOptions(), *root.ToGraphDef());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status status =
      (*session)->Run({{"x0", Doubles({2}, {0, 1})}}, {grads[0].name()}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("Not a number (NaN) or infinity (Inf) values detected in gradient. x is "
                        "checked : Tensor had Inf values"));
}

TEST(MathGradTest, UnaryFunctions) {
  const std::vector<std::pair<Fn, std::pair<double, double>>> cases = {
      {[](const Scope& s, const Xs& x) -> Output { return ops::Abs(s, x[0]); }, {0.5, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Abs(s, x[0]); }, {-2, -0.5}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Log1p(s, x[0]); }, {-0.5, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Expm1(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Erf(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Reciprocal(s, x[0]); }, {0.5, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Reciprocal(s, x[0]); }, {-2, -0.5}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Sin(s, x[0]); }, {-4, 4}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Cos(s, x[0]); }, {-4, 4}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Tan(s, x[0]); }, {-1.2, 1.2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Asin(s, x[0]); }, {-0.9, 0.9}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Acos(s, x[0]); }, {-0.9, 0.9}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Atan(s, x[0]); }, {-3, 3}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Sinh(s, x[0]); }, {-2, 2}},
      {[](const Scope& s, const Xs& x) -> Output { return ops::Cosh(s, x[0]); }, {-2, 2}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    CheckGradient({{2, 3}}, cases[i].first, cases[i].second.first, cases[i].second.second);
  }
}

// Atan2(y, x) for both inputs, with each broadcast against the other, in every quadrant.
TEST(MathGradTest, Atan2BothInputsWithBroadcasting) {
  const Fn atan2 = [](const Scope& s, const Xs& x) -> Output { return ops::Atan2(s, x[0], x[1]); };
  // Points in all four quadrants, away from the origin and from the branch cut (y = 0, x < 0).
  CheckGradientAt(
      {Doubles({2, 3}, {1, -1, 2, -2, 0.5, 1.5}), Doubles({2, 3}, {1, 1, -1, -1.5, -0.7, 0.3})},
      atan2);
  CheckGradient({{2, 3}, {3}}, atan2, 0.5, 2);
  CheckGradient({{2, 1}, {1, 3}}, atan2, 0.5, 2);
  CheckGradient({{}, {4}}, atan2, 0.5, 2);
  // d/dy atan2(y, x) = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2), at (y, x) = (1, 1), (3, -4).
  std::vector<Tensor> grads = Gradients({Doubles({2}, {1, 3}), Doubles({2}, {1, -4})}, atan2);
  ASSERT_EQ(grads.size(), 2u);
  ExpectValues(grads[0], {0.5, -4.0 / 25});
  ExpectValues(grads[1], {-0.5, -3.0 / 25});
}

// Sign gives zeros; Floor, Ceil, Round, FloorDiv and TruncateDiv give no gradient, which sums as
// zero next to the gradients of other paths.
TEST(MathGradTest, PiecewiseConstantOpsGiveZeros) {
  const Tensor values = Doubles({4}, {-1.7, -0.2, 0.3, 2.6});
  const std::vector<Fn> unary = {
      [](const Scope& s, const Xs& x) -> Output { return ops::Sign(s, x[0]); },
      [](const Scope& s, const Xs& x) -> Output { return ops::Floor(s, x[0]); },
      [](const Scope& s, const Xs& x) -> Output { return ops::Ceil(s, x[0]); },
      [](const Scope& s, const Xs& x) -> Output { return ops::Round(s, x[0]); },
      [](const Scope& s, const Xs& x) -> Output { return ops::Rint(s, x[0]); },
  };
  for (size_t i = 0; i < unary.size(); ++i) {
    SCOPED_TRACE(i);
    std::vector<Tensor> grads = Gradients({values}, unary[i]);
    ASSERT_EQ(grads.size(), 1u);
    ExpectValues(grads[0], {0, 0, 0, 0});
    CheckGradientAt({values}, unary[i]);
    // x * f(x): only the direct path contributes, giving f(x).
    const Fn& f = unary[i];
    CheckGradientAt({values}, [&f](const Scope& s, const Xs& x) -> Output {
      return ops::Mul(s, x[0], f(s, x));
    });
  }

  std::vector<Tensor> grads =
      Gradients({values, Doubles({4}, {0.7, 0.9, -1.1, 1.3})},
                [](const Scope& s, const Xs& x) { return ops::FloorDiv(s, x[0], x[1]); });
  ASSERT_EQ(grads.size(), 2u);
  ExpectValues(grads[0], {0, 0, 0, 0});
  ExpectValues(grads[1], {0, 0, 0, 0});

  grads = Gradients(
      {Tensor::FromVector<int32_t>({3}, {7, -7, 9}), Tensor::FromVector<int32_t>({3}, {2, 2, -4})},
      [](const Scope& s, const Xs& x) { return ops::TruncateDiv(s, x[0], x[1]); });
  ASSERT_EQ(grads.size(), 2u);
  for (const Tensor& grad : grads) {
    ASSERT_EQ(grad.dtype(), TSR_DTYPE_INT32);
    ASSERT_EQ(grad.NumElements(), 3);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(grad.data<int32_t>()[i], 0);
  }
}

// y = x * cast(IsFinite(x)) + cast(IsNan(x)) + cast(IsInf(x)): the predicates add nothing.
TEST(MathGradTest, FloatPredicatesGiveNoGradient) {
  std::vector<Tensor> grads =
      Gradients({Doubles({3}, {-1, 0.5, 2})}, [](const Scope& s, const Xs& x) -> Output {
        Output finite = ops::Mul(s, x[0], ops::Cast(s, ops::IsFinite(s, x[0]), DT_DOUBLE));
        return ops::Add(s, ops::Add(s, finite, ops::Cast(s, ops::IsNan(s, x[0]), DT_DOUBLE)),
                        ops::Cast(s, ops::IsInf(s, x[0]), DT_DOUBLE));
      });
  ASSERT_EQ(grads.size(), 1u);
  ExpectValues(grads[0], {1, 1, 1});
}

TEST(MathGradTest, BucketizeGivesNoGradient) {
  // y = x * cast(bucketize(x)): dy/dx = cast(bucketize(x)).
  std::vector<Tensor> grads =
      Gradients({Doubles({3}, {-1, 0.5, 2})}, [](const Scope& s, const Xs& x) -> Output {
        return ops::Mul(s, x[0], ops::Cast(s, ops::Bucketize(s, x[0], {0, 1}), DT_DOUBLE));
      });
  ASSERT_EQ(grads.size(), 1u);
  ExpectValues(grads[0], {0, 1, 2});
}

TEST(MathGradTest, ComparisonsGiveNoGradient) {
  // y = x * cast(x > 0): the comparison adds nothing, so dy/dx = cast(x > 0).
  std::vector<Tensor> grads =
      Gradients({Doubles({3}, {-1, 0.5, 2})}, [](const Scope& s, const Xs& x) -> Output {
        return ops::Mul(s, x[0], ops::Cast(s, ops::Greater(s, x[0], 0.0), DT_DOUBLE));
      });
  ASSERT_EQ(grads.size(), 1u);
  ExpectValues(grads[0], {0, 1, 1});
}

// TensorFlow defines no gradient for Mod and TruncateMod.
TEST(MathGradTest, ModAndTruncateModHaveNoGradientFunction) {
  for (const char* op : {"Mod", "TruncateMod"}) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
    Output y = std::string(op) == "Mod" ? Output(ops::Mod(root.WithOpName("m"), x, 1.5))
                                        : ops::TruncateMod(root.WithOpName("m"), x, 1.5);
    Xs grads;
    absl::Status status = AddSymbolicGradients(root, {y}, {x}, &grads);
    EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(std::string("no gradient is defined for op '") + op + "'"));
    EXPECT_THAT(std::string(status.message()), HasSubstr("through node 'm'"));
  }
}

Output BatchMatMul(const Scope& s, const Output& x, const Output& y, bool adj_x, bool adj_y) {
  return grad_util::Node(
      s, "BatchMatMulV2", {x, y},
      [&](OpBuilder& b) {
        b.AttrType("T", x.type()).AttrBool("adj_x", adj_x).AttrBool("adj_y", adj_y);
      },
      {x.type()})[0];
}

// The reason to skip the BatchMatMulV2 checks, or "" when a session runs it.
std::string BatchMatMulSkipReason() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Doubles({1, 1, 1}, {2}));
  Output product = BatchMatMul(root, x, x, false, false);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SessionOptions(), *root.ToGraphDef());
  absl::Status status = session.status();
  std::vector<Tensor> out;
  if (status.ok()) status = (*session)->Run({}, {product.name()}, {}, &out);
  if (!status.ok() && absl::StrContains(status.message(), "no kernel")) {
    return "skipped: no CPU kernel for BatchMatMulV2 (" + std::string(status.message()) + ")";
  }
  return "";
}

TEST(MathGradTest, BatchMatMulV2EveryAdjointAndBroadcastBatch) {
  const std::string skip = BatchMatMulSkipReason();
  if (!skip.empty()) GTEST_SKIP() << skip;
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      SCOPED_TRACE(std::to_string(adj_x) + std::to_string(adj_y));
      auto matrices = [](bool adj, int64_t rows, int64_t cols) {
        return adj ? std::vector<int64_t>{cols, rows} : std::vector<int64_t>{rows, cols};
      };
      std::vector<int64_t> x_dims = matrices(adj_x, 2, 3);
      std::vector<int64_t> y_dims = matrices(adj_y, 3, 4);
      // Same batch; x broadcast over y's batch; both broadcast into [2, 3]; y without batch.
      const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> batches = {
          {{2}, {2}}, {{}, {3}}, {{2, 1}, {3}}, {{2, 3}, {}}};
      for (const auto& [x_batch, y_batch] : batches) {
        std::vector<int64_t> xs = x_batch;
        xs.insert(xs.end(), x_dims.begin(), x_dims.end());
        std::vector<int64_t> ys = y_batch;
        ys.insert(ys.end(), y_dims.begin(), y_dims.end());
        CheckGradient({TensorShape(xs), TensorShape(ys)},
                      [adj_x, adj_y](const Scope& s, const Xs& x) -> Output {
                        return BatchMatMul(s, x[0], x[1], adj_x, adj_y);
                      });
      }
    }
  }
}

TEST(MathGradTest, BatchMatMulAndV3EveryAdjoint) {
  const std::string skip = BatchMatMulSkipReason();
  if (!skip.empty()) GTEST_SKIP() << skip;
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      SCOPED_TRACE(std::to_string(adj_x) + std::to_string(adj_y));
      const TensorShape xs = adj_x ? TensorShape{2, 3, 2} : TensorShape{2, 2, 3};
      const TensorShape ys = adj_y ? TensorShape{2, 4, 3} : TensorShape{2, 3, 4};
      CheckGradient({xs, ys}, [adj_x, adj_y](const Scope& s, const Xs& x) -> Output {
        return ops::BatchMatMul(s, x[0], x[1], ops::BatchMatMul::AdjX(adj_x).AdjY(adj_y));
      });
      // V3 broadcasts: y without a batch.
      const TensorShape y_matrix = adj_y ? TensorShape{4, 3} : TensorShape{3, 4};
      CheckGradient({xs, y_matrix}, [adj_x, adj_y](const Scope& s, const Xs& x) -> Output {
        return ops::BatchMatMulV3(s, x[0], x[1], DT_DOUBLE,
                                  ops::BatchMatMulV3::AdjX(adj_x).AdjY(adj_y));
      });
    }
  }
}

TEST(MathGradTest, SortedSegmentReductions) {
  // Segment 1 is empty; random values make every maximum unique.
  CheckGradient({{4, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, ops::SegmentSum(s, x[0], {0, 0, 2, 2}));
  });
  CheckGradient({{5, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Square(s, ops::SegmentMean(s, x[0], {0, 1, 1, 1, 3}));
  });
  CheckGradient({{4, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::SegmentMax(s, x[0], {0, 0, 0, 1});
  });
}

TEST(MathGradTest, UnsortedSegmentExtremaSkipNegativeIds) {
  CheckGradient({{5, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::UnsortedSegmentMax(s, x[0], {2, 0, -1, 2, 0}, 4);
  });
  CheckGradient({{2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::UnsortedSegmentMin(s, x[0], ops::Const(s, {{1, -1, 1}, {0, 1, 0}}), 2);
  });
  CheckGradient({{5, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::UnsortedSegmentProd(s, x[0], {2, 0, -1, 2, 2}, 4);
  });
  // Zeros: one in a segment takes the product of the others; two or more pass nothing.
  CheckGradientAt(
      {Tensor::Vector<double>({0, 3, 2, 0, 0, 5})},
      [](const Scope& s, const Xs& x) {
        return ops::Mul(s, ops::UnsortedSegmentProd(s, x[0], {0, 0, 0, 1, 1, 2}, 3), 1.0);
      },
      1e-7);
  // Ties split the gradient evenly, as in TensorFlow.
  CheckGradientAt(
      {Tensor::Vector<double>({1, 3, 3, 2})},
      [](const Scope& s, const Xs& x) {
        return ops::Mul(s, ops::UnsortedSegmentMax(s, x[0], {0, 0, 0, 0}, 1), 1.0);
      },
      1e-7);
}

TEST(MathGradTest, NewGradientsAreInTheStandardRegistry) {
  for (const char* op : {"Div",
                         "Pow",
                         "SquaredDifference",
                         "Maximum",
                         "Minimum",
                         "Select",
                         "SelectV2",
                         "Prod",
                         "Cumsum",
                         "Abs",
                         "Sign",
                         "Floor",
                         "Ceil",
                         "Round",
                         "Log1p",
                         "Expm1",
                         "Erf",
                         "Reciprocal",
                         "FloorDiv",
                         "FloorMod",
                         "TruncateDiv",
                         "BatchMatMulV2",
                         "Sin",
                         "Cos",
                         "Tan",
                         "Asin",
                         "Acos",
                         "Atan",
                         "Sinh",
                         "Cosh",
                         "Atan2",
                         "Rint",
                         "IsNan",
                         "IsInf",
                         "IsFinite",
                         "Cumprod",
                         "ClipByValue",
                         "CheckNumerics",
                         "Bucketize",
                         "BatchMatMul",
                         "BatchMatMulV3",
                         "SegmentSum",
                         "SegmentMean",
                         "SegmentMax",
                         "UnsortedSegmentMax",
                         "UnsortedSegmentMin",
                         "UnsortedSegmentProd"}) {
    EXPECT_TRUE(GradientRegistry::Standard().Has(op)) << op;
  }
  EXPECT_FALSE(GradientRegistry::Standard().Has("Mod"));
  EXPECT_FALSE(GradientRegistry::Standard().Has("TruncateMod"));
}

}  // namespace
}  // namespace tessera
