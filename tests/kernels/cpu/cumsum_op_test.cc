// Cumsum and Cumprod against a reference loop over shapes, axes (negative too), the exclusive and
// reverse attrs, both axis types and every registered type, plus the axis errors.
#include <string>
#include <type_traits>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

// a + b or a * b; integers wrap around, as the kernels' do.
template <typename T>
T Combine(bool product, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(product ? static_cast<U>(a) * static_cast<U>(b)
                                  : static_cast<U>(a) + static_cast<U>(b));
  } else {
    return product ? a * b : a + b;
  }
}

template <typename T>
std::vector<T> ScanReference(const std::string& op, const Tensor& x, int axis, bool exclusive,
                             bool reverse) {
  const bool product = op == "Cumprod";
  const TensorShape& shape = x.shape();
  int64_t outer = 1;
  int64_t inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape.dim(d);
  for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
  const int64_t n = shape.dim(axis);
  std::vector<T> out(static_cast<size_t>(x.NumElements()));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      T acc = product ? T(1) : T(0);
      for (int64_t step = 0; step < n; ++step) {
        const int64_t r = reverse ? n - 1 - step : step;
        const int64_t at = (o * n + r) * inner + i;
        if (exclusive) {
          out[at] = acc;
          acc = Combine(product, acc, x.data<T>()[at]);
        } else {
          acc = Combine(product, acc, x.data<T>()[at]);
          out[at] = acc;
        }
      }
    }
  }
  return out;
}

template <typename T, typename Index>
void CheckScan(const std::string& op, const TensorShape& shape, Index axis, bool exclusive,
               bool reverse) {
  SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString() +
               " axis " + std::to_string(axis) + (exclusive ? " exclusive" : "") +
               (reverse ? " reverse" : ""));
  // Products of factors near 1 stay finite; integer factors 1 to 3 wrap around in long runs.
  Tensor x = op == "Cumprod" ? Random<T>(shape, std::is_integral_v<T> ? 1 : 0.9,
                                         std::is_integral_v<T> ? 3 : 1.1)
                             : Random<T>(shape, -50, 50);
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tidx", DataTypeOf<Index>::value)
      .Attr("exclusive", exclusive)
      .Attr("reverse", reverse)
      .Input(x)
      .Input(Tensor::Scalar<Index>(axis));
  const int a = static_cast<int>(axis < 0 ? axis + shape.rank() : axis);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape,
                      ScanReference<T>(op, x, a, exclusive, reverse), 1e-5);
}

template <typename T>
void CheckAll(const std::string& op) {
  struct Case {
    TensorShape shape;
    int axis;
  };
  const std::vector<Case> cases = {
      {Shape({7}), 0},       {Shape({7}), -1},         {Shape({1}), 0},      {Shape({0}), 0},
      {Shape({3, 4}), 0},    {Shape({3, 4}), 1},       {Shape({3, 4}), -2},  {Shape({2, 3, 4}), 1},
      {Shape({2, 1, 4}), 1}, {Shape({3, 0, 2}), 2},    {Shape({100000}), 0}, {Shape({300, 70}), 0},
      {Shape({70, 300}), 1}, {Shape({4, 2, 3, 5}), 2},
  };
  for (const Case& c : cases) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        CheckScan<T, int32_t>(op, c.shape, c.axis, exclusive, reverse);
      }
    }
    CheckScan<T, int64_t>(op, c.shape, c.axis, false, false);
  }
}

TEST(CumsumOpTest, FloatMatchesReference) { CheckAll<float>("Cumsum"); }
TEST(CumsumOpTest, DoubleMatchesReference) { CheckAll<double>("Cumsum"); }
TEST(CumsumOpTest, Int32MatchesReference) { CheckAll<int32_t>("Cumsum"); }
TEST(CumsumOpTest, Int64MatchesReference) { CheckAll<int64_t>("Cumsum"); }
TEST(CumprodOpTest, FloatMatchesReference) { CheckAll<float>("Cumprod"); }
TEST(CumprodOpTest, DoubleMatchesReference) { CheckAll<double>("Cumprod"); }
TEST(CumprodOpTest, Int32MatchesReference) { CheckAll<int32_t>("Cumprod"); }
TEST(CumprodOpTest, Int64MatchesReference) { CheckAll<int64_t>("Cumprod"); }

// TensorFlow's examples: cumprod([a, b, c]) is [a, a*b, a*b*c]; exclusive starts from 1.
TEST(CumprodOpTest, ExclusiveAndReverse) {
  const std::vector<std::pair<std::pair<bool, bool>, std::vector<double>>> cases = {
      {{false, false}, {2, 6, 24, 120}},
      {{true, false}, {1, 2, 6, 24}},
      {{false, true}, {120, 60, 20, 5}},
      {{true, true}, {60, 20, 5, 1}},
  };
  for (const auto& [attrs, expected] : cases) {
    OpTester tester("Cumprod");
    tester.Attr("T", TSR_DTYPE_DOUBLE)
        .Attr("exclusive", attrs.first)
        .Attr("reverse", attrs.second)
        .Input(Make<double>(Shape({4}), {2, 3, 4, 5}))
        .Input(Tensor::Scalar<int32_t>(0));
    ExpectTensorNear<double>(RunOk(tester), TSR_DTYPE_DOUBLE, Shape({4}), expected);
  }
}

TEST(CumprodOpTest, RejectsBadAxes) {
  OpTester too_big("Cumprod");
  too_big.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Tensor::Scalar<int32_t>(-3));
  ExpectRunError(too_big, absl::StatusCode::kInvalidArgument,
                 "ScanOp: Expected scan axis in the range [-2, 2), but got -1");
  OpTester vector_axis("Cumprod");
  vector_axis.Attr("T", TSR_DTYPE_INT32)
      .Input(Random<int32_t>(Shape({2, 3})))
      .Input(Tensor::Vector<int32_t>({0}));
  ExpectRunError(vector_axis, absl::StatusCode::kInvalidArgument,
                 "ScanOp: axis must be a scalar, not [1]");
}

TEST(CumsumOpTest, ExclusiveAndReverse) {
  const std::vector<std::pair<std::pair<bool, bool>, std::vector<float>>> cases = {
      {{false, false}, {1, 3, 6, 10}},
      {{true, false}, {0, 1, 3, 6}},
      {{false, true}, {10, 9, 7, 4}},
      {{true, true}, {9, 7, 4, 0}},
  };
  for (const auto& [attrs, expected] : cases) {
    OpTester tester("Cumsum");
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("exclusive", attrs.first)
        .Attr("reverse", attrs.second)
        .Input(Make<float>(Shape({4}), {1, 2, 3, 4}))
        .Input(Tensor::Scalar<int32_t>(0));
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({4}), expected);
  }
}

TEST(CumsumOpTest, RejectsBadAxes) {
  OpTester too_big("Cumsum");
  too_big.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Tensor::Scalar<int32_t>(2));
  ExpectRunError(too_big, absl::StatusCode::kInvalidArgument,
                 "ScanOp: Expected scan axis in the range [-2, 2), but got 2");
  // TensorFlow reports a negative axis after adding the rank.
  OpTester too_small("Cumsum");
  too_small.Attr("T", TSR_DTYPE_INT64)
      .Attr("Tidx", TSR_DTYPE_INT64)
      .Input(Random<int64_t>(Shape({2, 3})))
      .Input(Tensor::Scalar<int64_t>(-3));
  ExpectRunError(too_small, absl::StatusCode::kInvalidArgument,
                 "ScanOp: Expected scan axis in the range [-2, 2), but got -1");
  OpTester scalar("Cumsum");
  scalar.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({}), {1}))
      .Input(Tensor::Scalar<int32_t>(0));
  ExpectRunError(scalar, absl::StatusCode::kInvalidArgument,
                 "ScanOp: Expected scan axis in the range [0, 0), but got 0");
  OpTester vector_axis("Cumsum");
  vector_axis.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Tensor::Vector<int32_t>({0, 1}));
  ExpectRunError(vector_axis, absl::StatusCode::kInvalidArgument,
                 "ScanOp: axis must be a scalar, not [2]");
}

}  // namespace
}  // namespace tessera::cpu::test
