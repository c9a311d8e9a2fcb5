// Cumsum against a reference loop over shapes, axes (negative too), the exclusive and reverse
// attrs, both axis types and every registered type, plus the axis errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
std::vector<T> CumsumReference(const Tensor& x, int axis, bool exclusive, bool reverse) {
  const TensorShape& shape = x.shape();
  int64_t outer = 1;
  int64_t inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape.dim(d);
  for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
  const int64_t n = shape.dim(axis);
  std::vector<T> out(static_cast<size_t>(x.NumElements()));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      T sum = 0;
      for (int64_t step = 0; step < n; ++step) {
        const int64_t r = reverse ? n - 1 - step : step;
        const int64_t at = (o * n + r) * inner + i;
        if (exclusive) {
          out[at] = sum;
          sum += x.data<T>()[at];
        } else {
          sum += x.data<T>()[at];
          out[at] = sum;
        }
      }
    }
  }
  return out;
}

template <typename T, typename Index>
void CheckCumsum(const TensorShape& shape, Index axis, bool exclusive, bool reverse) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString() + " axis " +
               std::to_string(axis) + (exclusive ? " exclusive" : "") +
               (reverse ? " reverse" : ""));
  Tensor x = Random<T>(shape, -50, 50);
  OpTester tester("Cumsum");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tidx", DataTypeOf<Index>::value)
      .Attr("exclusive", exclusive)
      .Attr("reverse", reverse)
      .Input(x)
      .Input(Tensor::Scalar<Index>(axis));
  const int a = static_cast<int>(axis < 0 ? axis + shape.rank() : axis);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape,
                      CumsumReference<T>(x, a, exclusive, reverse), 1e-5);
}

template <typename T>
void CheckAll() {
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
        CheckCumsum<T, int32_t>(c.shape, c.axis, exclusive, reverse);
      }
    }
    CheckCumsum<T, int64_t>(c.shape, c.axis, false, false);
  }
}

TEST(CumsumOpTest, FloatMatchesReference) { CheckAll<float>(); }
TEST(CumsumOpTest, DoubleMatchesReference) { CheckAll<double>(); }
TEST(CumsumOpTest, Int32MatchesReference) { CheckAll<int32_t>(); }
TEST(CumsumOpTest, Int64MatchesReference) { CheckAll<int64_t>(); }

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
