// NaN, +-inf, +-0 and denormal inputs through every float and double element-wise and reduction
// kernel, in runs long enough to fill the vectorized loops and alone (the scalar tail), against
// references written from TensorFlow's documented rules and the C library.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/testing/cpu_plugin_host.h"
#include "plugins/cpu/testing/fake_host.h"

namespace tessera::cpu::testing {
namespace {

using ::testing::ElementsAre;

template <typename T>
constexpr TSR_DataType DtypeOf() {
  return std::is_same_v<T, float> ? TSR_DTYPE_FLOAT : TSR_DTYPE_DOUBLE;
}

template <typename T>
FakeAttrs TypeAttr() {
  return {{"T", FakeAttr::Type(DtypeOf<T>())}};
}

// The special inputs, then ordinary ones around the points where the functions change regime.
template <typename T>
std::vector<T> SpecialInputs() {
  using L = std::numeric_limits<T>;
  const T denormal = L::denorm_min() * T(1000);
  return {L::quiet_NaN(), L::infinity(), -L::infinity(), T(0), -T(0), denormal, -denormal,
          L::min(), -L::min(), L::max(), L::lowest(), T(1), T(-1), T(0.5), T(-0.5), T(4),
          T(9), T(-3), T(20), T(-20), T(88.5), T(-88.5), T(1e-5), T(-1e-5)};
}

// Every special value at every position of a vectorized run: the specials, rotated once per
// round, so a value lands in each lane of a packet and in the tail.
template <typename T>
std::vector<T> VectorizedRun() {
  const std::vector<T> specials = SpecialInputs<T>();
  std::vector<T> run;
  for (size_t round = 0; round < 9; ++round) {
    for (size_t i = 0; i < specials.size(); ++i) {
      run.push_back(specials[(i + round) % specials.size()]);
    }
  }
  run.resize(run.size() - 3);  // a tail that is not a whole packet
  return run;
}

// Equal when both are NaN, or both are the same infinity, or both are finite and within
// `rel` of each other (zeros of either sign compare equal).
template <typename T>
bool Matches(T got, T want, T rel) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (!std::isfinite(got)) return false;
  const T scale = std::max<T>(std::abs(want), std::numeric_limits<T>::min());
  return std::abs(got - want) <= rel * scale;
}

template <typename T>
T Tolerance() {
  return std::is_same_v<T, float> ? T(4e-6) : T(1e-13);
}

template <typename T>
using Reference = std::function<long double(long double)>;

// Runs `op` on the vectorized run and on each special value alone and compares every element.
template <typename T>
void ExpectUnaryMatches(const std::string& op, const Reference<T>& reference) {
  const std::vector<T> run = VectorizedRun<T>();
  std::vector<std::vector<T>> inputs = {run};
  for (T v : SpecialInputs<T>()) inputs.push_back({v});
  for (const std::vector<T>& input : inputs) {
    RunResult r = CpuPluginHost().Run(
        op, {FakeTensor::Make(DtypeOf<T>(), {static_cast<int64_t>(input.size())}, input)},
        TypeAttr<T>());
    ASSERT_EQ(r.code, TSR_CODE_OK) << op << ": " << r.message;
    const std::vector<T> got = r.outputs[0].template values<T>();
    ASSERT_EQ(got.size(), input.size());
    for (size_t i = 0; i < input.size(); ++i) {
      const T want = static_cast<T>(reference(static_cast<long double>(input[i])));
      EXPECT_TRUE(Matches(got[i], want, Tolerance<T>()))
          << op << "(" << input[i] << ") at " << i << " of " << input.size() << ": got "
          << got[i] << ", want " << want;
    }
  }
}

long double SigmoidRef(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
long double EluRef(long double x) { return x < 0 ? std::expm1(x) : x; }
long double SeluRef(long double x) {
  const long double scale = 1.0507009873554804934193349852946L;
  const long double alpha = 1.6732632423543772848170429916717L;
  return x < 0 ? scale * alpha * std::expm1(x) : scale * x;
}
long double SoftplusRef(long double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

template <typename T>
void ExpectEveryUnaryKernelMatches() {
  ExpectUnaryMatches<T>("Exp", [](long double x) { return std::exp(x); });
  ExpectUnaryMatches<T>("Log", [](long double x) { return std::log(x); });
  ExpectUnaryMatches<T>("Log1p", [](long double x) { return std::log1p(x); });
  ExpectUnaryMatches<T>("Expm1", [](long double x) { return std::expm1(x); });
  ExpectUnaryMatches<T>("Sqrt", [](long double x) { return std::sqrt(x); });
  ExpectUnaryMatches<T>("Rsqrt", [](long double x) { return 1.0L / std::sqrt(x); });
  ExpectUnaryMatches<T>("Tanh", [](long double x) { return std::tanh(x); });
  ExpectUnaryMatches<T>("Sigmoid", SigmoidRef);
  ExpectUnaryMatches<T>("Erf", [](long double x) { return std::erf(x); });
  ExpectUnaryMatches<T>("Reciprocal", [](long double x) { return 1.0L / x; });
  ExpectUnaryMatches<T>("Neg", [](long double x) { return -x; });
  ExpectUnaryMatches<T>("Abs", [](long double x) { return std::fabs(x); });
  ExpectUnaryMatches<T>("Square", [](long double x) { return x * x; });
  ExpectUnaryMatches<T>("Floor", [](long double x) { return std::floor(x); });
  ExpectUnaryMatches<T>("Ceil", [](long double x) { return std::ceil(x); });
  ExpectUnaryMatches<T>("Round", [](long double x) { return std::nearbyint(x); });
  ExpectUnaryMatches<T>("Elu", EluRef);
  ExpectUnaryMatches<T>("Selu", SeluRef);
  ExpectUnaryMatches<T>("Softplus", SoftplusRef);
  // x / (1 + |x|) as TensorFlow evaluates it: an infinity gives inf / inf, NaN.
  ExpectUnaryMatches<T>("Softsign", [](long double x) { return x / (1.0L + std::fabs(x)); });
  ExpectUnaryMatches<T>("Sin", [](long double x) { return std::sin(x); });
  ExpectUnaryMatches<T>("Cos", [](long double x) { return std::cos(x); });
  ExpectUnaryMatches<T>("Tan", [](long double x) { return std::tan(x); });
  ExpectUnaryMatches<T>("Asin", [](long double x) { return std::asin(x); });
  ExpectUnaryMatches<T>("Acos", [](long double x) { return std::acos(x); });
  ExpectUnaryMatches<T>("Atan", [](long double x) { return std::atan(x); });
  ExpectUnaryMatches<T>("Sinh", [](long double x) { return std::sinh(x); });
  ExpectUnaryMatches<T>("Cosh", [](long double x) { return std::cosh(x); });
  ExpectUnaryMatches<T>("Rint", [](long double x) { return std::nearbyint(x); });
}

TEST(SpecialValuesTest, FloatUnaryKernelsFollowTheCLibrary) { ExpectEveryUnaryKernelMatches<float>(); }

// IsNan, IsInf and IsFinite classify every special input, in a vectorized run and alone.
template <typename T>
void ExpectFloatPredicatesMatch() {
  const std::vector<T> run = VectorizedRun<T>();
  std::vector<std::vector<T>> inputs = {run};
  for (T v : SpecialInputs<T>()) inputs.push_back({v});
  struct Predicate {
    const char* op;
    bool (*reference)(T);
  };
  const Predicate predicates[] = {
      {"IsNan", [](T v) -> bool { return std::isnan(v); }},
      {"IsInf", [](T v) -> bool { return std::isinf(v); }},
      {"IsFinite", [](T v) -> bool { return std::isfinite(v); }},
  };
  for (const Predicate& p : predicates) {
    for (const std::vector<T>& input : inputs) {
      RunResult r = CpuPluginHost().Run(
          p.op, {FakeTensor::Make(DtypeOf<T>(), {static_cast<int64_t>(input.size())}, input)},
          TypeAttr<T>(), 1, {TSR_DTYPE_BOOL});
      ASSERT_EQ(r.code, TSR_CODE_OK) << p.op << ": " << r.message;
      const std::vector<uint8_t> got = r.outputs[0].template values<uint8_t>();
      ASSERT_EQ(got.size(), input.size());
      for (size_t i = 0; i < input.size(); ++i) {
        EXPECT_EQ(got[i] != 0, p.reference(input[i])) << p.op << "(" << input[i] << ") at " << i;
      }
    }
  }
}

TEST(SpecialValuesTest, FloatPredicatesClassifyEverySpecialValue) {
  ExpectFloatPredicatesMatch<float>();
}
TEST(SpecialValuesTest, DoublePredicatesClassifyEverySpecialValue) {
  ExpectFloatPredicatesMatch<double>();
}
TEST(SpecialValuesTest, DoubleUnaryKernelsFollowTheCLibrary) {
  ExpectEveryUnaryKernelMatches<double>();
}

// The inputs of the report that found the fast-math square root: +inf in a full packet, and a
// negative denormal.
TEST(SpecialValuesTest, SqrtOfInfinityInAFullPacketIsInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  RunResult r = CpuPluginHost().Run(
      "Sqrt", {FakeTensor::Make(TSR_DTYPE_FLOAT, {8}, std::vector<float>{inf, 4, 9, 16, 25, 36, 49, 64})},
      TypeAttr<float>());
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(inf, 2, 3, 4, 5, 6, 7, 8));
  r = CpuPluginHost().Run("Sqrt", {FakeTensor::Make(TSR_DTYPE_FLOAT, {4}, std::vector<float>{-1e-40f, 1, 1, 1})},
                 TypeAttr<float>());
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_TRUE(std::isnan(r.outputs[0].values<float>()[0])) << r.outputs[0].values<float>()[0];
}

// ClipByValue of every special input between ordinary bounds and between infinite ones: NaN stays
// NaN, infinities clip, denormals and signed zeros inside the bounds pass unchanged.
template <typename T>
void ExpectClipByValueMatches() {
  using L = std::numeric_limits<T>;
  const std::vector<T> run = VectorizedRun<T>();
  const std::pair<T, T> bounds[] = {
      {T(-1), T(4)}, {-L::infinity(), L::infinity()}, {-L::min(), L::min()}};
  for (const auto& [lo, hi] : bounds) {
    RunResult r = CpuPluginHost().Run(
        "ClipByValue",
        {FakeTensor::Make(DtypeOf<T>(), {static_cast<int64_t>(run.size())}, run),
         FakeTensor::Make(DtypeOf<T>(), {}, std::vector<T>{lo}),
         FakeTensor::Make(DtypeOf<T>(), {}, std::vector<T>{hi})},
        TypeAttr<T>());
    ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
    const std::vector<T> got = r.outputs[0].template values<T>();
    ASSERT_EQ(got.size(), run.size());
    for (size_t i = 0; i < run.size(); ++i) {
      const T x = run[i];
      const T want = std::isnan(x) ? x : std::max(std::min(x, hi), lo);
      EXPECT_TRUE(Matches(got[i], want, T(0)) && std::signbit(got[i]) == std::signbit(want))
          << "ClipByValue(" << x << ", " << lo << ", " << hi << "): got " << got[i] << ", want "
          << want;
    }
  }
}

TEST(SpecialValuesTest, FloatClipByValue) { ExpectClipByValueMatches<float>(); }
TEST(SpecialValuesTest, DoubleClipByValue) { ExpectClipByValueMatches<double>(); }

// Binary kernels over every pair of special inputs, broadcast as a full [n, n] grid.
template <typename T>
void ExpectBinaryMatches(const std::string& op, const std::function<T(T, T)>& reference) {
  const std::vector<T> specials = SpecialInputs<T>();
  const int64_t n = static_cast<int64_t>(specials.size());
  std::vector<T> x;
  std::vector<T> y;
  for (T a : specials) {
    for (T b : specials) {
      x.push_back(a);
      y.push_back(b);
    }
  }
  RunResult r = CpuPluginHost().Run(op,
                           {FakeTensor::Make(DtypeOf<T>(), {n, n}, x),
                            FakeTensor::Make(DtypeOf<T>(), {n, n}, y)},
                           TypeAttr<T>());
  ASSERT_EQ(r.code, TSR_CODE_OK) << op << ": " << r.message;
  const std::vector<T> got = r.outputs[0].template values<T>();
  for (size_t i = 0; i < x.size(); ++i) {
    const T want = reference(x[i], y[i]);
    EXPECT_TRUE(Matches(got[i], want, Tolerance<T>()))
        << op << "(" << x[i] << ", " << y[i] << "): got " << got[i] << ", want " << want;
  }
}

template <typename T>
void ExpectEveryBinaryKernelMatches() {
  ExpectBinaryMatches<T>("Pow", [](T a, T b) { return std::pow(a, b); });
  ExpectBinaryMatches<T>("Atan2", [](T a, T b) { return std::atan2(a, b); });
  ExpectBinaryMatches<T>("RealDiv", [](T a, T b) { return a / b; });
  ExpectBinaryMatches<T>("Mul", [](T a, T b) { return a * b; });
  ExpectBinaryMatches<T>("Add", [](T a, T b) { return a + b; });
  ExpectBinaryMatches<T>("Sub", [](T a, T b) { return a - b; });
  ExpectBinaryMatches<T>("SquaredDifference", [](T a, T b) { return (a - b) * (a - b); });
  // TensorFlow's Maximum and Minimum propagate NaN from either side.
  ExpectBinaryMatches<T>("Maximum", [](T a, T b) {
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : std::max(a, b);
  });
  ExpectBinaryMatches<T>("Minimum", [](T a, T b) {
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : std::min(a, b);
  });
  ExpectBinaryMatches<T>("FloorDiv", [](T a, T b) { return std::floor(a / b); });
  ExpectBinaryMatches<T>("Mod", [](T a, T b) { return std::fmod(a, b); });
  ExpectBinaryMatches<T>("FloorMod", [](T a, T b) {
    const T trunc = std::fmod(a, b);
    return trunc != 0 && ((b < 0) != (trunc < 0)) ? trunc + b : trunc;
  });
}

TEST(SpecialValuesTest, FloatBinaryKernelsFollowTheCLibrary) {
  ExpectEveryBinaryKernelMatches<float>();
}
TEST(SpecialValuesTest, DoubleBinaryKernelsFollowTheCLibrary) {
  ExpectEveryBinaryKernelMatches<double>();
}

// Masked logits (-inf) get exactly zero probability, in every lane; NaN poisons its row only.
template <typename T>
void ExpectSoftmaxHandlesSpecialLogits() {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const int64_t depth = 11;
  std::vector<T> logits(static_cast<size_t>(3 * depth), T(0));
  for (int64_t c = 0; c < depth; ++c) {
    logits[static_cast<size_t>(c)] = c % 3 == 0 ? T(1) : -inf;  // row 0: 1, -inf, -inf, 1, ...
    logits[static_cast<size_t>(depth + c)] = T(c);                // row 1: ordinary
  }
  logits[static_cast<size_t>(2 * depth + 5)] = nan;               // row 2: a NaN
  RunResult r =
      CpuPluginHost().Run("Softmax", {FakeTensor::Make(DtypeOf<T>(), {3, depth}, logits)}, TypeAttr<T>());
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  std::vector<T> p = r.outputs[0].template values<T>();
  for (int64_t c = 0; c < depth; ++c) {
    EXPECT_EQ(p[static_cast<size_t>(c)], c % 3 == 0 ? T(0.25) : T(0)) << c;
    EXPECT_TRUE(std::isnan(p[static_cast<size_t>(2 * depth + c)])) << c;
  }
  r = CpuPluginHost().Run("LogSoftmax", {FakeTensor::Make(DtypeOf<T>(), {3, depth}, logits)},
                 TypeAttr<T>());
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  p = r.outputs[0].template values<T>();
  for (int64_t c = 0; c < depth; ++c) {
    if (c % 3 == 0) {
      EXPECT_NEAR(p[static_cast<size_t>(c)], std::log(T(0.25)), Tolerance<T>()) << c;
    } else {
      EXPECT_EQ(p[static_cast<size_t>(c)], -inf) << c;
    }
    EXPECT_TRUE(std::isnan(p[static_cast<size_t>(2 * depth + c)])) << c;
  }
}

TEST(SpecialValuesTest, FloatSoftmaxOfMaskedAndNaNLogits) {
  ExpectSoftmaxHandlesSpecialLogits<float>();
}
TEST(SpecialValuesTest, DoubleSoftmaxOfMaskedAndNaNLogits) {
  ExpectSoftmaxHandlesSpecialLogits<double>();
}

FakeTensor Axes(std::vector<int32_t> axes) {
  return FakeTensor::Make(TSR_DTYPE_INT32, {static_cast<int64_t>(axes.size())}, axes);
}

template <typename T>
std::vector<T> Reduce(const std::string& op, std::vector<int64_t> dims, const std::vector<T>& v,
                      std::vector<int32_t> axes) {
  FakeAttrs attrs = TypeAttr<T>();
  attrs["Tidx"] = FakeAttr::Type(TSR_DTYPE_INT32);
  RunResult r =
      CpuPluginHost().Run(op, {FakeTensor::Make(DtypeOf<T>(), std::move(dims), v), Axes(std::move(axes))},
                 attrs);
  EXPECT_EQ(r.code, TSR_CODE_OK) << op << ": " << r.message;
  if (r.code != TSR_CODE_OK) return {};
  return r.outputs[0].template values<T>();
}

// TensorFlow propagates NaN through Max and Min wherever it sits in the reduced elements.
template <typename T>
void ExpectExtremaPropagateNaN() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  for (const char* op : {"Max", "Min"}) {
    SCOPED_TRACE(op);
    std::vector<T> out = Reduce<T>(op, {3}, {1, nan, 2}, {0});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(std::isnan(out[0])) << out[0];
    // Axis 0 of [[1, 2], [NaN, 0]]: the column loop.
    out = Reduce<T>(op, {2, 2}, {1, 2, nan, 0}, {0});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(std::isnan(out[0])) << out[0];
    EXPECT_EQ(out[1], std::string(op) == "Max" ? T(2) : T(0));
    // A long row (the blocked parallel path) with the NaN far from the start, in each lane.
    for (int64_t at : {int64_t{4}, int64_t{5}, int64_t{6}, int64_t{7}, int64_t{30001}}) {
      std::vector<T> row(40000, T(1));
      row[static_cast<size_t>(at)] = nan;
      out = Reduce<T>(op, {40000}, row, {0});
      ASSERT_EQ(out.size(), 1u);
      EXPECT_TRUE(std::isnan(out[0])) << "NaN at " << at << " gave " << out[0];
    }
    // Rows of a matrix (the row loop) and a pattern the strided loop takes ([r, k, r]).
    out = Reduce<T>(op, {2, 5}, {1, 2, 3, 4, nan, 5, 6, 7, 8, 9}, {1});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(std::isnan(out[0])) << out[0];
    EXPECT_EQ(out[1], std::string(op) == "Max" ? T(9) : T(5));
    out = Reduce<T>(op, {2, 2, 2}, {1, 2, 3, 4, 5, 6, nan, 8}, {0, 2});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0], std::string(op) == "Max" ? T(6) : T(1));  // 1, 2, 5, 6 (no NaN)
    EXPECT_TRUE(std::isnan(out[1])) << out[1];
    // Infinities are ordinary extremes.
    out = Reduce<T>(op, {3}, {1, inf, -inf}, {0});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], std::string(op) == "Max" ? inf : -inf);
  }
  // Sum, Mean and Prod carry NaN and infinities as IEEE arithmetic does.
  std::vector<T> out = Reduce<T>("Sum", {3}, {1, inf, -inf}, {0});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(std::isnan(out[0]));
  out = Reduce<T>("Prod", {3}, {0, inf, 1}, {0});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(std::isnan(out[0]));
  out = Reduce<T>("Mean", {2}, {inf, 1}, {0});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], inf);
}

TEST(SpecialValuesTest, FloatMaxAndMinPropagateNaN) { ExpectExtremaPropagateNaN<float>(); }
TEST(SpecialValuesTest, DoubleMaxAndMinPropagateNaN) { ExpectExtremaPropagateNaN<double>(); }

}  // namespace
}  // namespace tessera::cpu::testing
