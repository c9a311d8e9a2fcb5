// Elu, Selu, LeakyRelu, Softplus, Softsign and the activation gradients (ReluGrad, Relu6Grad,
// LeakyReluGrad, EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad, SigmoidGrad, TanhGrad) against
// reference
// formulas, and the gradients against central differences of the forward references.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/kernels/cpu/nn_test_util.h"

namespace tessera::cpu::test {
namespace {

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

double Elu(double x) { return x < 0 ? std::expm1(x) : x; }
double Selu(double x) { return x < 0 ? kSeluScale * kSeluAlpha * std::expm1(x) : kSeluScale * x; }
double Softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double Softsign(double x) { return x / (1 + std::fabs(x)); }
double Relu6(double x) { return std::min(std::max(x, 0.0), 6.0); }

const std::vector<TensorShape>& Shapes() {
  static const auto* shapes = new std::vector<TensorShape>{
      Shape({}), Shape({0}), Shape({7}), Shape({3, 0, 2}), Shape({4, 5, 6}), Shape({50001})};
  return *shapes;
}

template <typename T>
void CheckForward(const std::string& op, const std::function<double(double)>& reference, double lo,
                  double hi, std::vector<std::pair<std::string, float>> attrs = {}) {
  for (const TensorShape& shape : Shapes()) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString());
    const std::vector<double> x = RandomValues(shape.num_elements(), lo, hi);
    Tensor input = FromValues<T>(shape, x);
    std::vector<double> expected;
    for (double v : Values(input)) expected.push_back(reference(v));
    OpTester tester(op);
    tester.Attr("T", DataTypeOf<T>::value).Input(input);
    for (const auto& [name, value] : attrs) tester.Attr(name, value);
    ExpectValuesNear(RunOk(tester), shape, expected, sizeof(T) == 4 ? 2e-6 : 1e-12);
  }
}

template <typename T>
void CheckActivations() {
  CheckForward<T>("Elu", Elu, -10, 10);
  CheckForward<T>("Selu", Selu, -10, 10);
  // alpha is a float attr: every type scales by float(0.2), as TensorFlow does.
  CheckForward<T>(
      "LeakyRelu", [](double x) { return x > 0 ? x : double(0.2f) * x; }, -10, 10);
  CheckForward<T>("LeakyRelu", [](double x) { return x > 0 ? x : 1.5 * x; }, -10, 10,
                  {{"alpha", 1.5f}});
  CheckForward<T>("LeakyRelu", [](double x) { return x > 0 ? x : -0.5 * x; }, -10, 10,
                  {{"alpha", -0.5f}});
  CheckForward<T>("Softplus", Softplus, -30, 30);
  CheckForward<T>("Softsign", Softsign, -30, 30);
}

TEST(ActivationOpsTest, FloatForwardMatchesReference) { CheckActivations<float>(); }
TEST(ActivationOpsTest, DoubleForwardMatchesReference) { CheckActivations<double>(); }

TEST(ActivationOpsTest, SoftplusIsStableAtExtremes) {
  for (DataType dtype : {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE}) {
    const std::vector<double> x = {-1000, -100, -30, 0, 30, 100, 1000};
    Tensor input = dtype == TSR_DTYPE_FLOAT ? FromValues<float>(Shape({7}), x)
                                            : FromValues<double>(Shape({7}), x);
    OpTester tester("Softplus");
    tester.Attr("T", dtype).Input(input);
    std::vector<double> expected;
    for (double v : x) expected.push_back(Softplus(v));
    ExpectValuesNear(RunOk(tester), Shape({7}), expected, 1e-6);
  }
}

// A gradient op: its inputs (a, b) from x and the upstream gradient g, and the forward function
// whose derivative it applies.
struct GradCase {
  std::string op;
  std::function<double(double)> forward;
  // The op's second (first for SigmoidGrad/TanhGrad) input: x itself or the forward's output.
  bool takes_output;
  // SigmoidGrad and TanhGrad take (y, dy) rather than (gradients, x).
  bool output_first = false;
  std::vector<std::pair<std::string, float>> attrs = {};
};

std::vector<GradCase> GradCases() {
  return {
      {"ReluGrad", [](double x) { return std::max(x, 0.0); }, false},
      {"Relu6Grad", Relu6, false},
      {"LeakyReluGrad", [](double x) { return x > 0 ? x : double(0.2f) * x; }, false},
      {"LeakyReluGrad", [](double x) { return x > 0 ? x : 3.0 * x; }, false, false, {{"alpha", 3}}},
      {"EluGrad", Elu, true},
      {"SeluGrad", Selu, true},
      {"SoftplusGrad", Softplus, false},
      {"SoftsignGrad", Softsign, false},
      {"SigmoidGrad", Sigmoid, true, true},
      {"TanhGrad", [](double x) { return std::tanh(x); }, true, true},
  };
}

// Runs the gradient op for x and upstream g; returns its output as doubles.
template <typename T>
std::vector<double> RunGrad(const GradCase& c, const TensorShape& shape,
                            const std::vector<double>& x, const std::vector<double>& g) {
  std::vector<double> second = x;
  if (c.takes_output) {
    for (double& v : second) v = c.forward(v);
  }
  Tensor grads = FromValues<T>(shape, g);
  Tensor other = FromValues<T>(shape, second);
  OpTester tester(c.op);
  tester.Attr("T", DataTypeOf<T>::value);
  for (const auto& [name, value] : c.attrs) tester.Attr(name, value);
  if (c.output_first) {
    tester.Input(other).Input(grads);
  } else {
    tester.Input(grads).Input(other);
  }
  Tensor out = RunOk(tester);
  EXPECT_EQ(out.shape(), shape);
  return Values(out);
}

// Away from the kinks at 0 and 6, so that central differences are exact enough.
std::vector<double> SmoothPoints(int64_t n) {
  std::vector<double> x = RandomValues(n, -8, 8);
  for (double& v : x) {
    if (std::fabs(v) < 0.05 || std::fabs(v - 6) < 0.05) v += 0.2;
  }
  return x;
}

TEST(ActivationGradOpsTest, DoubleMatchesCentralDifferences) {
  for (const GradCase& c : GradCases()) {
    SCOPED_TRACE(c.op);
    const TensorShape shape = Shape({3, 17});
    const std::vector<double> x = SmoothPoints(shape.num_elements());
    const std::vector<double> g = RandomValues(shape.num_elements(), -2, 2);
    const std::vector<double> actual = RunGrad<double>(c, shape, x, g);
    for (size_t i = 0; i < x.size(); ++i) {
      const double h = 1e-6;
      const double numeric = g[i] * (c.forward(x[i] + h) - c.forward(x[i] - h)) / (2 * h);
      EXPECT_NEAR(actual[i], numeric, 1e-6 * std::max(1.0, std::fabs(numeric))) << "at " << i;
    }
  }
}

// The closed forms TensorFlow uses, evaluated in double on the float-rounded inputs.
double ReferenceGrad(const GradCase& c, double g, double x) {
  const double y = c.takes_output ? c.forward(x) : x;
  if (c.op == "ReluGrad") return x > 0 ? g : 0;
  if (c.op == "Relu6Grad") return x > 0 && x < 6 ? g : 0;
  if (c.op == "LeakyReluGrad") return x > 0 ? g : g * (c.attrs.empty() ? double(0.2f) : 3.0);
  if (c.op == "EluGrad") return y < 0 ? g * (y + 1) : g;
  if (c.op == "SeluGrad") return y < 0 ? g * (y + kSeluScale * kSeluAlpha) : g * kSeluScale;
  if (c.op == "SoftplusGrad") return g * Sigmoid(x);
  if (c.op == "SoftsignGrad") return g / ((1 + std::fabs(x)) * (1 + std::fabs(x)));
  if (c.op == "SigmoidGrad") return g * y * (1 - y);
  return g * (1 - y * y);  // TanhGrad
}

template <typename T>
void CheckGradReferences() {
  for (const GradCase& c : GradCases()) {
    for (const TensorShape& shape : Shapes()) {
      SCOPED_TRACE(c.op + " " + shape.DebugString());
      const std::vector<double> x =
          Values(FromValues<T>(shape, SmoothPoints(shape.num_elements())));
      const std::vector<double> g = Values(FromValues<T>(shape, RandomValues(x.size(), -2, 2)));
      std::vector<double> expected;
      for (size_t i = 0; i < x.size(); ++i) expected.push_back(ReferenceGrad(c, g[i], x[i]));
      ExpectValuesNear(FromValues<double>(shape, RunGrad<T>(c, shape, x, g)), shape, expected,
                       sizeof(T) == 4 ? 1e-5 : 1e-12);
    }
  }
}

TEST(ActivationGradOpsTest, FloatMatchesReference) { CheckGradReferences<float>(); }
TEST(ActivationGradOpsTest, DoubleMatchesReference) { CheckGradReferences<double>(); }

// TensorFlow's Softsign values (its kernel test: softsign(x) = x / (1 + |x|)), and its gradient
// at 0, where it is the upstream gradient itself.
TEST(ActivationOpsTest, SoftsignKnownValues) {
  OpTester tester("Softsign");
  tester.Attr("T", TSR_DTYPE_FLOAT).Input(Make<float>(Shape({2, 3}), {-9, 7, -5, 3, -1, 0}));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({2, 3}),
                          {-0.9f, 0.875f, -5.0f / 6, 0.75f, -0.5f, 0});
  OpTester grad("SoftsignGrad");
  grad.Attr("T", TSR_DTYPE_DOUBLE)
      .Input(Make<double>(Shape({3}), {2, 2, 2}))
      .Input(Make<double>(Shape({3}), {0, 1, -3}));
  ExpectTensorNear<double>(RunOk(grad), TSR_DTYPE_DOUBLE, Shape({3}), {2, 0.5, 0.125});
}

TEST(ActivationGradOpsTest, ReluGradsTakeIntegersAndKeepNaNGradients) {
  OpTester relu("ReluGrad");
  relu.Attr("T", TSR_DTYPE_INT32)
      .Input(Make<int32_t>(Shape({4}), {5, 6, 7, 8}))
      .Input(Make<int32_t>(Shape({4}), {-1, 0, 1, 9}));
  ExpectTensorNear<int32_t>(RunOk(relu), TSR_DTYPE_INT32, Shape({4}), {0, 0, 7, 8});
  OpTester relu6("Relu6Grad");
  relu6.Attr("T", TSR_DTYPE_INT64)
      .Input(Make<int64_t>(Shape({4}), {5, 6, 7, 8}))
      .Input(Make<int64_t>(Shape({4}), {-1, 3, 6, 9}));
  ExpectTensorNear<int64_t>(RunOk(relu6), TSR_DTYPE_INT64, Shape({4}), {0, 6, 0, 0});
  // TensorFlow multiplies by the mask, so a NaN gradient stays NaN where the input is negative.
  OpTester nan("ReluGrad");
  nan.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({2}), {NAN, NAN}))
      .Input(Make<float>(Shape({2}), {-1, 1}));
  ExpectTensorNear<float>(RunOk(nan), TSR_DTYPE_FLOAT, Shape({2}), {NAN, NAN});
}

TEST(ActivationGradOpsTest, RejectInputsOfDifferentShapes) {
  for (const char* op : {"ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "SoftplusGrad",
                         "SoftsignGrad", "LeakyReluGrad"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Random<float>(Shape({2, 3})))
        .Input(Random<float>(Shape({3, 2})));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "g and a must be the same size");
  }
  for (const char* op : {"SigmoidGrad", "TanhGrad"}) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Random<float>(Shape({2, 3})))
        .Input(Random<float>(Shape({4})));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "The two arguments to a cwise op must have same number of elements, got 6 "
                   "and 4");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
