// Sum, Mean, Max, Min, Prod, All and Any against reference loops over many shapes and axis sets
// (negative axes, keep_dims, empty axis sets, empty tensors), for every registered type and index
// type, plus the identities of empty reductions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

enum class Kind { kSum, kMean, kMax, kMin, kProd, kAll, kAny };

const char* OpName(Kind kind) {
  switch (kind) {
    case Kind::kSum:
      return "Sum";
    case Kind::kMean:
      return "Mean";
    case Kind::kMax:
      return "Max";
    case Kind::kMin:
      return "Min";
    case Kind::kProd:
      return "Prod";
    case Kind::kAll:
      return "All";
    case Kind::kAny:
      return "Any";
  }
  return "?";
}

template <typename T>
T Initial(Kind kind) {
  if (kind == Kind::kMax) {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  if (kind == Kind::kMin) {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  return kind == Kind::kProd || kind == Kind::kAll ? T(1) : T(0);
}

// a * b in T, wrapping for integers (the product of many small integers overflows).
template <typename T>
T Multiply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <typename T>
T Accumulate(Kind kind, T acc, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return kind == Kind::kAll ? acc && v : acc || v;
  } else {
    switch (kind) {
      case Kind::kMax:
        return std::max(acc, v);
      case Kind::kMin:
        return std::min(acc, v);
      case Kind::kProd:
        return Multiply(acc, v);
      default:
        return acc + v;
    }
  }
}

// Reference: visit every input element, add it into its output slot.
template <typename T>
std::vector<T> Reference(Kind kind, const Tensor& x, const std::vector<bool>& reduced,
                         int64_t* count, TensorShape* kept_shape) {
  const TensorShape& shape = x.shape();
  TensorShape kept;
  *count = 1;
  for (int d = 0; d < shape.rank(); ++d) {
    if (reduced[d]) {
      *count *= shape.dim(d);
    } else {
      kept.AddDim(shape.dim(d));
    }
  }
  // Sums accumulate in double (the kernel's order differs); the others are exact in T.
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  std::vector<Acc> acc(static_cast<size_t>(kept.num_elements()),
                       static_cast<Acc>(Initial<T>(kind)));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    int64_t rest = i;
    int64_t out = 0;
    int64_t stride = 1;
    for (int d = shape.rank() - 1; d >= 0; --d) {
      const int64_t c = rest % shape.dim(d);
      rest /= shape.dim(d);
      if (reduced[d]) continue;
      out += c * stride;
      stride *= shape.dim(d);
    }
    acc[out] = Accumulate<Acc>(kind, acc[out], static_cast<Acc>(x.data<T>()[i]));
  }
  std::vector<T> result(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    if (kind == Kind::kMean) {
      if constexpr (std::is_integral_v<T>) {
        result[i] = *count == 0 ? T(0) : static_cast<T>(acc[i] / *count);
      } else {
        result[i] = static_cast<T>(acc[i] / static_cast<double>(*count));
      }
    } else {
      result[i] = static_cast<T>(acc[i]);
    }
  }
  *kept_shape = kept;
  return result;
}

template <typename T, typename Index>
void CheckReduction(Kind kind, const TensorShape& shape, const std::vector<Index>& axes,
                    bool keep_dims, double lo = -20, double hi = 20, double tolerance = 1e-4) {
  std::string axes_text;
  for (Index a : axes) axes_text += std::to_string(a) + " ";
  SCOPED_TRACE(std::string(OpName(kind)) + " " + DataTypeString(DataTypeOf<T>::value) + " " +
               shape.DebugString() + " axes " + axes_text + (keep_dims ? "keep" : ""));
  Tensor x = Random<T>(shape, lo, hi);
  std::vector<bool> reduced(static_cast<size_t>(shape.rank()), false);
  for (Index a : axes) reduced[a < 0 ? a + shape.rank() : a] = true;
  int64_t count = 0;
  TensorShape out_shape;
  std::vector<T> expected = Reference<T>(kind, x, reduced, &count, &out_shape);
  if (keep_dims) {
    std::vector<int64_t> dims;
    for (int d = 0; d < shape.rank(); ++d) dims.push_back(reduced[d] ? 1 : shape.dim(d));
    out_shape = TensorShape(absl::MakeConstSpan(dims));
  }
  OpTester tester(OpName(kind));
  if (kind != Kind::kAll && kind != Kind::kAny) tester.Attr("T", DataTypeOf<T>::value);
  tester.Attr("Tidx", DataTypeOf<Index>::value)
      .Attr("keep_dims", keep_dims)
      .Input(x)
      .Input(Tensor::Vector<Index>(axes));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape, expected, tolerance);
}

const std::vector<std::pair<TensorShape, std::vector<int32_t>>>& Cases() {
  static const auto* cases = new std::vector<std::pair<TensorShape, std::vector<int32_t>>>{
      {Shape({}), {}},
      {Shape({7}), {0}},
      {Shape({7}), {}},
      {Shape({7}), {-1}},
      {Shape({3, 4}), {0}},
      {Shape({3, 4}), {1}},
      {Shape({3, 4}), {0, 1}},
      {Shape({3, 4}), {-1, 0}},
      {Shape({2, 3, 4}), {1}},
      {Shape({2, 3, 4}), {0, 2}},
      {Shape({2, 3, 4}), {2, 1}},
      {Shape({2, 1, 4}), {1}},
      {Shape({2, 3, 4, 5}), {0, 2}},
      {Shape({2, 3, 4, 5}), {1, 3}},
      {Shape({2, 3, 4, 5}), {0, 1, 2, 3}},
      {Shape({2, 3, 4, 5, 2}), {0, 2, 4}},
      {Shape({0, 3}), {0}},
      {Shape({0, 3}), {1}},
      {Shape({3, 0}), {1}},
      {Shape({100000}), {0}},
      {Shape({300, 70}), {0}},
      {Shape({70, 300}), {1}},
  };
  return *cases;
}

template <typename T>
void CheckAll() {
  for (Kind kind : {Kind::kSum, Kind::kMean, Kind::kMax, Kind::kMin, Kind::kProd}) {
    // Products stay finite and well conditioned with factors near 1 (integers: -1, 0 and 1, so
    // that no product overflows, which is undefined for signed integers).
    const bool prod = kind == Kind::kProd;
    const bool integral = std::is_integral_v<T>;
    const double lo = prod ? (integral ? -1 : 0.999) : -20;
    const double hi = prod ? (integral ? 1 : 1.001) : 20;
    const double tolerance = prod ? 1e-3 : 1e-4;
    for (const auto& [shape, axes] : Cases()) {
      for (bool keep_dims : {false, true}) {
        CheckReduction<T, int32_t>(kind, shape, axes, keep_dims, lo, hi, tolerance);
      }
      std::vector<int64_t> axes64(axes.begin(), axes.end());
      CheckReduction<T, int64_t>(kind, shape, axes64, false, lo, hi, tolerance);
    }
  }
}

TEST(ReductionOpsTest, FloatMatchesReference) { CheckAll<float>(); }
TEST(ReductionOpsTest, DoubleMatchesReference) { CheckAll<double>(); }
TEST(ReductionOpsTest, Int32MatchesReference) { CheckAll<int32_t>(); }
TEST(ReductionOpsTest, Int64MatchesReference) { CheckAll<int64_t>(); }

// Integer sums and products wrap around in two's complement, as in TensorFlow, along rows and
// across them.
TEST(ReductionOpsTest, IntegerSumsAndProductsWrapAround) {
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  for (const std::vector<int32_t>& axes : {std::vector<int32_t>{1}, std::vector<int32_t>{0}}) {
    OpTester sum("Sum");
    sum.Attr("T", TSR_DTYPE_INT32)
        .Attr("Tidx", TSR_DTYPE_INT32)
        .Attr("keep_dims", false)
        .Input(Make<int32_t>(axes[0] == 1 ? Shape({1, 2}) : Shape({2, 1}), {kMax32, 1}))
        .Input(Tensor::Vector<int32_t>(axes));
    ExpectTensorNear<int32_t>(RunOk(sum), TSR_DTYPE_INT32, Shape({1}),
                              {std::numeric_limits<int32_t>::min()});
    OpTester prod("Prod");
    prod.Attr("T", TSR_DTYPE_INT64)
        .Attr("Tidx", TSR_DTYPE_INT32)
        .Attr("keep_dims", false)
        .Input(Make<int64_t>(axes[0] == 1 ? Shape({1, 2}) : Shape({2, 1}), {kMax64, 2}))
        .Input(Tensor::Vector<int32_t>(axes));
    ExpectTensorNear<int64_t>(RunOk(prod), TSR_DTYPE_INT64, Shape({1}), {-2});
  }
}

TEST(ReductionOpsTest, AllAndAnyMatchReference) {
  for (Kind kind : {Kind::kAll, Kind::kAny}) {
    for (const auto& [shape, axes] : Cases()) {
      for (bool keep_dims : {false, true}) {
        CheckReduction<bool, int32_t>(kind, shape, axes, keep_dims);
      }
      std::vector<int64_t> axes64(axes.begin(), axes.end());
      CheckReduction<bool, int64_t>(kind, shape, axes64, false);
    }
  }
}

// Long rows of one value with a single exception: All and Any must look at every element.
TEST(ReductionOpsTest, AllAndAnyFindASingleException) {
  for (int64_t at : {int64_t{0}, int64_t{4095}, int64_t{99999}}) {
    Tensor ones(TSR_DTYPE_BOOL, Shape({100000}));
    Tensor zeros(TSR_DTYPE_BOOL, Shape({100000}));
    for (int64_t i = 0; i < 100000; ++i) {
      ones.data<bool>()[i] = i != at;
      zeros.data<bool>()[i] = i == at;
    }
    OpTester all("All");
    all.Input(ones).Input(Tensor::Vector<int32_t>({0}));
    ExpectTensorNear<bool>(RunOk(all), TSR_DTYPE_BOOL, Shape({}), {false});
    OpTester any("Any");
    any.Input(zeros).Input(Tensor::Vector<int32_t>({0}));
    ExpectTensorNear<bool>(RunOk(any), TSR_DTYPE_BOOL, Shape({}), {true});
  }
}

TEST(ReductionOpsTest, IntegerMeanTruncates) {
  OpTester tester("Mean");
  tester.Attr("T", TSR_DTYPE_INT32)
      .Attr("Tidx", TSR_DTYPE_INT32)
      .Input(Make<int32_t>(Shape({2, 2}), {1, 2, -3, -4}))
      .Input(Tensor::Vector<int32_t>({1}));
  ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, Shape({2}), {1, -3});
}

TEST(ReductionOpsTest, EmptyReductionsGiveIdentities) {
  OpTester max("Max");
  max.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tidx", TSR_DTYPE_INT32)
      .Input(Tensor(TSR_DTYPE_FLOAT, Shape({0})))
      .Input(Tensor::Vector<int32_t>({0}));
  ExpectTensorNear<float>(RunOk(max), TSR_DTYPE_FLOAT, Shape({}), {-INFINITY});
  OpTester max_int("Max");
  max_int.Attr("T", TSR_DTYPE_INT32)
      .Attr("Tidx", TSR_DTYPE_INT32)
      .Input(Tensor(TSR_DTYPE_INT32, Shape({0})))
      .Input(Tensor::Vector<int32_t>({0}));
  ExpectTensorNear<int32_t>(RunOk(max_int), TSR_DTYPE_INT32, Shape({}),
                            {std::numeric_limits<int32_t>::lowest()});
  OpTester mean("Mean");
  mean.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tidx", TSR_DTYPE_INT32)
      .Input(Tensor(TSR_DTYPE_FLOAT, Shape({0})))
      .Input(Tensor::Vector<int32_t>({0}));
  ExpectTensorNear<float>(RunOk(mean), TSR_DTYPE_FLOAT, Shape({}), {NAN});

  OpTester min("Min");
  min.Attr("T", TSR_DTYPE_DOUBLE)
      .Input(Tensor(TSR_DTYPE_DOUBLE, Shape({2, 0})))
      .Input(Tensor::Vector<int32_t>({1}));
  ExpectTensorNear<double>(RunOk(min), TSR_DTYPE_DOUBLE, Shape({2}), {INFINITY, INFINITY});
  OpTester min_int("Min");
  min_int.Attr("T", TSR_DTYPE_INT64)
      .Input(Tensor(TSR_DTYPE_INT64, Shape({0})))
      .Input(Tensor::Vector<int32_t>({-1}));
  ExpectTensorNear<int64_t>(RunOk(min_int), TSR_DTYPE_INT64, Shape({}),
                            {std::numeric_limits<int64_t>::max()});
  OpTester prod("Prod");
  prod.Attr("T", TSR_DTYPE_INT32)
      .Input(Tensor(TSR_DTYPE_INT32, Shape({0, 3})))
      .Input(Tensor::Vector<int32_t>({0}));
  ExpectTensorNear<int32_t>(RunOk(prod), TSR_DTYPE_INT32, Shape({3}), {1, 1, 1});
  OpTester all("All");
  all.Input(Tensor(TSR_DTYPE_BOOL, Shape({0}))).Input(Tensor::Vector<int32_t>({0}));
  ExpectTensorNear<bool>(RunOk(all), TSR_DTYPE_BOOL, Shape({}), {true});
  OpTester any("Any");
  any.Input(Tensor(TSR_DTYPE_BOOL, Shape({0}))).Input(Tensor::Vector<int32_t>({0}));
  ExpectTensorNear<bool>(RunOk(any), TSR_DTYPE_BOOL, Shape({}), {false});
}

OpTester Sum(const TensorShape& shape, const std::vector<int32_t>& axes) {
  OpTester tester("Sum");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tidx", TSR_DTYPE_INT32)
      .Input(Random<float>(shape))
      .Input(Tensor::Vector<int32_t>(axes));
  return tester;
}

TEST(ReductionOpsTest, RejectsAxisOutOfRange) {
  OpTester too_big = Sum(Shape({2, 3}), {2});
  ExpectRunError(too_big, absl::StatusCode::kInvalidArgument,
                 "Invalid reduction dimension (2 for input with 2 dimension(s)");
  OpTester too_small = Sum(Shape({2, 3}), {-3});
  ExpectRunError(too_small, absl::StatusCode::kInvalidArgument,
                 "Invalid reduction dimension (-3 for input with 2 dimension(s)");
}

TEST(ReductionOpsTest, RejectsDuplicateAxes) {
  OpTester tester = Sum(Shape({2, 3}), {1, -1});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Invalid reduction arguments: Axes contains duplicate dimension: 1");
}

TEST(ReductionOpsTest, NewReductionsRejectBadAxes) {
  for (const char* op : {"Min", "Prod", "All", "Any"}) {
    const bool logical = std::string(op) == "All" || std::string(op) == "Any";
    OpTester tester(op);
    if (logical) {
      tester.Input(Random<bool>(Shape({2, 3})));
    } else {
      tester.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(Shape({2, 3})));
    }
    tester.Input(Tensor::Vector<int32_t>({0, 2}));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Invalid reduction dimension (2 for input with 2 dimension(s)");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
