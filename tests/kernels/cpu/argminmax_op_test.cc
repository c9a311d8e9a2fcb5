// ArgMax and ArgMin against a reference loop over shapes, axes (negative too), dimension and
// output types and every registered input type, plus ties, NaN, and the dimension errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

// Index of the first best value along `axis`; NaN loses to any number.
template <typename T, typename Out>
std::vector<Out> ArgReference(bool max, const Tensor& x, int axis, TensorShape* out_shape) {
  const TensorShape& shape = x.shape();
  int64_t outer = 1;
  int64_t inner = 1;
  TensorShape kept;
  for (int d = 0; d < shape.rank(); ++d) {
    if (d < axis) outer *= shape.dim(d);
    if (d > axis) inner *= shape.dim(d);
    if (d != axis) kept.AddDim(shape.dim(d));
  }
  *out_shape = kept;
  const int64_t n = shape.dim(axis);
  std::vector<Out> result;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = -1;
      for (int64_t r = 0; r < n; ++r) {
        const T v = x.data<T>()[(o * n + r) * inner + i];
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(v)) continue;
        }
        if (best < 0) {
          best = r;
          continue;
        }
        const T b = x.data<T>()[(o * n + best) * inner + i];
        if (max ? v > b : v < b) best = r;
      }
      result.push_back(static_cast<Out>(best < 0 ? 0 : best));
    }
  }
  return result;
}

template <typename T, typename Index, typename Out>
void CheckArg(bool max, const TensorShape& shape, Index dimension, double lo, double hi) {
  const int axis = static_cast<int>(dimension < 0 ? dimension + shape.rank() : dimension);
  SCOPED_TRACE(std::string(max ? "ArgMax " : "ArgMin ") + DataTypeString(DataTypeOf<T>::value) +
               " " + shape.DebugString() + " dimension " + std::to_string(dimension) + " -> " +
               DataTypeString(DataTypeOf<Out>::value));
  Tensor x = Random<T>(shape, lo, hi);
  TensorShape out_shape;
  std::vector<Out> expected = ArgReference<T, Out>(max, x, axis, &out_shape);
  OpTester tester(max ? "ArgMax" : "ArgMin");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tidx", DataTypeOf<Index>::value)
      .Attr("output_type", DataTypeOf<Out>::value)
      .Input(x)
      .Input(Tensor::Scalar<Index>(dimension));
  ExpectTensorNear<Out>(RunOk(tester), DataTypeOf<Out>::value, out_shape, expected);
}

template <typename T>
void CheckAll(double lo, double hi) {
  struct Case {
    TensorShape shape;
    int dimension;
  };
  const std::vector<Case> cases = {
      {Shape({7}), 0},       {Shape({7}), -1},       {Shape({1}), 0},
      {Shape({3, 4}), 0},    {Shape({3, 4}), 1},     {Shape({3, 4}), -2},
      {Shape({2, 3, 4}), 1}, {Shape({2, 3, 4}), -1}, {Shape({2, 1, 4}), 1},
      {Shape({0, 3}), 1},    {Shape({3, 0, 2}), 0},  {Shape({100000}), 0},
      {Shape({300, 70}), 0}, {Shape({70, 300}), 1},  {Shape({5, 2, 3, 4, 2}), 3},
  };
  for (bool max : {true, false}) {
    for (const Case& c : cases) {
      CheckArg<T, int32_t, int64_t>(max, c.shape, c.dimension, lo, hi);
      CheckArg<T, int64_t, int32_t>(max, c.shape, c.dimension, lo, hi);
    }
  }
}

// Small integer ranges make ties frequent: the first index must win.
TEST(ArgMinMaxOpTest, FloatMatchesReference) { CheckAll<float>(-100, 100); }
TEST(ArgMinMaxOpTest, DoubleMatchesReference) { CheckAll<double>(-100, 100); }
TEST(ArgMinMaxOpTest, Int32MatchesReference) { CheckAll<int32_t>(-3, 3); }
TEST(ArgMinMaxOpTest, Int64MatchesReference) { CheckAll<int64_t>(-1000, 1000); }
TEST(ArgMinMaxOpTest, BoolMatchesReference) { CheckAll<bool>(0, 1); }

template <typename T>
Tensor RunArg(const char* op, const TensorShape& shape, const std::vector<T>& values,
              int32_t dimension) {
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value)
      .Input(Make<T>(shape, values))
      .Input(Tensor::Scalar<int32_t>(dimension));
  return RunOk(tester);
}

TEST(ArgMinMaxOpTest, FirstIndexWinsTiesAndNanLoses) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // output_type defaults to int64.
  ExpectTensorNear<int64_t>(RunArg<float>("ArgMax", Shape({5}), {1, 3, 3, 2, 3}, 0),
                            TSR_DTYPE_INT64, Shape({}), {1});
  ExpectTensorNear<int64_t>(RunArg<float>("ArgMin", Shape({5}), {2, 1, 3, 1, 1}, 0),
                            TSR_DTYPE_INT64, Shape({}), {1});
  ExpectTensorNear<int64_t>(
      RunArg<float>("ArgMax", Shape({2, 3}), {nan, 1, nan, -inf, -inf, nan}, 1), TSR_DTYPE_INT64,
      Shape({2}), {1, 0});
  ExpectTensorNear<int64_t>(RunArg<float>("ArgMin", Shape({3}), {nan, nan, nan}, 0),
                            TSR_DTYPE_INT64, Shape({}), {0});
  ExpectTensorNear<int64_t>(RunArg<float>("ArgMin", Shape({3}), {nan, inf, 5}, -1), TSR_DTYPE_INT64,
                            Shape({}), {2});
}

TEST(ArgMinMaxOpTest, RejectsBadDimensions) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    OpTester out_of_range(op);
    out_of_range.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Random<float>(Shape({2, 3})))
        .Input(Tensor::Scalar<int32_t>(-3));
    ExpectRunError(out_of_range, absl::StatusCode::kInvalidArgument,
                   "Expected dimension in the range [-2, 2), but got -3");
    OpTester scalar(op);
    scalar.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Make<float>(Shape({}), {1}))
        .Input(Tensor::Scalar<int32_t>(0));
    ExpectRunError(scalar, absl::StatusCode::kInvalidArgument,
                   "Expected dimension in the range [0, 0), but got 0");
    OpTester empty(op);
    empty.Attr("T", TSR_DTYPE_INT32)
        .Attr("Tidx", TSR_DTYPE_INT64)
        .Input(Tensor(TSR_DTYPE_INT32, Shape({3, 0})))
        .Input(Tensor::Scalar<int64_t>(-1));
    ExpectRunError(empty, absl::StatusCode::kInvalidArgument,
                   "Reduction axis -1 is empty in shape [3,0]");
    OpTester vector_dimension(op);
    vector_dimension.Attr("T", TSR_DTYPE_FLOAT)
        .Input(Random<float>(Shape({2, 3})))
        .Input(Tensor::Vector<int32_t>({0}));
    ExpectRunError(vector_dimension, absl::StatusCode::kInvalidArgument,
                   "dim must be a scalar, but received tensor of shape: [1]");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
