// BatchMatMulV2 against reference loops: broadcast batch dimensions, adjoints, empty sizes,
// products large enough to be cut over the pool, every registered type, and TensorFlow's errors;
// BatchMatMul (equal batch dimensions only) and BatchMatMulV3 (Ta, Tb, Tout) through the same
// kernel.
#include <string>
#include <vector>

#include "plugins/cpu/kernels/gemm/sanitizer_options.h"
#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckBatchMatMul(const TensorShape& x_shape, const TensorShape& y_shape, bool adj_x,
                      bool adj_y, const std::string& op = "BatchMatMulV2") {
  SCOPED_TRACE(op + " " + DataTypeString(DataTypeOf<T>::value) + " x=" + x_shape.DebugString() +
               " y=" + y_shape.DebugString() + " adj_x=" + std::to_string(adj_x) +
               " adj_y=" + std::to_string(adj_y));
  Tensor x = Random<T>(x_shape, -3, 3);
  Tensor y = Random<T>(y_shape, -3, 3);
  const int xr = x_shape.rank(), yr = y_shape.rank();
  const int64_t x_rows = x_shape.dim(xr - 2), x_cols = x_shape.dim(xr - 1);
  const int64_t y_rows = y_shape.dim(yr - 2), y_cols = y_shape.dim(yr - 1);
  const int64_t m = adj_x ? x_cols : x_rows, k = adj_x ? x_rows : x_cols;
  const int64_t n = adj_y ? y_rows : y_cols;
  TensorShape x_batch, y_batch;
  for (int d = 0; d < xr - 2; ++d) x_batch.AddDim(x_shape.dim(d));
  for (int d = 0; d < yr - 2; ++d) y_batch.AddDim(y_shape.dim(d));
  const TensorShape batch = BroadcastShape(x_batch, y_batch);
  TensorShape out_shape = batch;
  out_shape.AddDim(m);
  out_shape.AddDim(n);
  std::vector<T> expected(static_cast<size_t>(out_shape.num_elements()), T(0));
  for (int64_t i = 0; i < batch.num_elements(); ++i) {
    const T* a = x.data<T>() + BroadcastIndex(batch, x_batch, i) * x_rows * x_cols;
    const T* b = y.data<T>() + BroadcastIndex(batch, y_batch, i) * y_rows * y_cols;
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double av = adj_x ? a[p * x_cols + r] : a[r * x_cols + p];
          const double bv = adj_y ? b[c * y_cols + p] : b[p * y_cols + c];
          sum += av * bv;
        }
        expected[(i * m + r) * n + c] = static_cast<T>(sum);
      }
    }
  }
  OpTester tester(op);
  if (op == "BatchMatMulV3") {
    tester.Attr("Ta", DataTypeOf<T>::value)
        .Attr("Tb", DataTypeOf<T>::value)
        .Attr("Tout", DataTypeOf<T>::value);
  } else {
    tester.Attr("T", DataTypeOf<T>::value);
  }
  tester.Attr("adj_x", adj_x).Attr("adj_y", adj_y).Input(x).Input(y);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape, expected, 1e-4);
}

template <typename T>
void CheckShapes(const std::string& op = "BatchMatMulV2") {
  struct Case {
    TensorShape x, y;
  };
  // Shapes before adjoints; the adjoint variants swap the last two dimensions.
  std::vector<Case> cases = {
      {Shape({2, 3}), Shape({3, 4})},          {Shape({3, 2, 3}), Shape({3, 3, 4})},
      {Shape({2, 1, 3, 4}), Shape({5, 4, 6})}, {Shape({1, 4, 2}), Shape({3, 2, 5})},
      {Shape({2, 3}), Shape({7, 3, 5})},       {Shape({4, 1, 1}), Shape({1, 1})},
      {Shape({0, 3, 4}), Shape({4, 5})},       {Shape({2, 0, 4}), Shape({2, 4, 5})},
      {Shape({2, 3, 0}), Shape({2, 0, 5})},    {Shape({3, 1, 2, 2}), Shape({1, 4, 2, 2})},
  };
  if constexpr (std::is_floating_point_v<T>) {
    // Fewer products than threads (each cut into blocks) and many small ones.
    cases.push_back({Shape({1, 150, 200}), Shape({1, 200, 130})});
    cases.push_back({Shape({3, 100, 120}), Shape({3, 120, 90})});
    cases.push_back({Shape({64, 8, 9}), Shape({9, 7})});
  }
  if (op == "BatchMatMul") {
    // No broadcasting: the operands have one rank and the same batch dimensions.
    cases = {{Shape({2, 3}), Shape({3, 4})},
             {Shape({3, 2, 3}), Shape({3, 3, 4})},
             {Shape({2, 1, 3, 4}), Shape({2, 1, 4, 6})},
             {Shape({1, 1, 1}), Shape({1, 1, 1})},
             {Shape({0, 3, 4}), Shape({0, 4, 5})},
             {Shape({2, 0, 4}), Shape({2, 4, 5})},
             {Shape({2, 3, 0}), Shape({2, 0, 5})}};
    if constexpr (std::is_floating_point_v<T>) {
      cases.push_back({Shape({3, 100, 120}), Shape({3, 120, 90})});
    }
  }
  for (const Case& c : cases) {
    for (bool adj_x : {false, true}) {
      for (bool adj_y : {false, true}) {
        TensorShape x = c.x, y = c.y;
        if (adj_x) {
          const int r = x.rank();
          const int64_t rows = x.dim(r - 2);
          x.set_dim(r - 2, x.dim(r - 1));
          x.set_dim(r - 1, rows);
        }
        if (adj_y) {
          const int r = y.rank();
          const int64_t rows = y.dim(r - 2);
          y.set_dim(r - 2, y.dim(r - 1));
          y.set_dim(r - 1, rows);
        }
        CheckBatchMatMul<T>(x, y, adj_x, adj_y, op);
      }
    }
  }
}

TEST(BatchMatMulV2OpTest, FloatMatchesReference) { CheckShapes<float>(); }
TEST(BatchMatMulV2OpTest, DoubleMatchesReference) { CheckShapes<double>(); }
TEST(BatchMatMulV2OpTest, Int32MatchesReference) { CheckShapes<int32_t>(); }
TEST(BatchMatMulV2OpTest, Int64MatchesReference) { CheckShapes<int64_t>(); }
TEST(BatchMatMulOpTest, FloatMatchesReference) { CheckShapes<float>("BatchMatMul"); }
TEST(BatchMatMulOpTest, DoubleMatchesReference) { CheckShapes<double>("BatchMatMul"); }
TEST(BatchMatMulOpTest, Int32MatchesReference) { CheckShapes<int32_t>("BatchMatMul"); }
TEST(BatchMatMulOpTest, Int64MatchesReference) { CheckShapes<int64_t>("BatchMatMul"); }
TEST(BatchMatMulV3OpTest, FloatMatchesReference) { CheckShapes<float>("BatchMatMulV3"); }
TEST(BatchMatMulV3OpTest, DoubleMatchesReference) { CheckShapes<double>("BatchMatMulV3"); }
TEST(BatchMatMulV3OpTest, Int32MatchesReference) { CheckShapes<int32_t>("BatchMatMulV3"); }
TEST(BatchMatMulV3OpTest, Int64MatchesReference) { CheckShapes<int64_t>("BatchMatMulV3"); }

OpTester BatchMatMul(const TensorShape& x, const TensorShape& y) {
  OpTester tester("BatchMatMulV2");
  tester.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(x)).Input(Random<float>(y));
  return tester;
}

TEST(BatchMatMulV2OpTest, RejectsBadShapes) {
  OpTester vector = BatchMatMul(Shape({3}), Shape({3, 2}));
  ExpectRunError(vector, absl::StatusCode::kInvalidArgument, "In[0] ndims must be >= 2: 1");
  OpTester y_vector = BatchMatMul(Shape({2, 3}), Shape({3}));
  ExpectRunError(y_vector, absl::StatusCode::kInvalidArgument, "In[1] ndims must be >= 2: 1");
  OpTester batch = BatchMatMul(Shape({2, 2, 3}), Shape({3, 3, 4}));
  ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                 "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,4]");
  OpTester inner = BatchMatMul(Shape({2, 2, 3}), Shape({2, 4, 4}));
  ExpectRunError(inner, absl::StatusCode::kInvalidArgument,
                 "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,4]");
}

OpTester BatchMatMulV1(const TensorShape& x, const TensorShape& y) {
  OpTester tester("BatchMatMul");
  tester.Attr("T", TSR_DTYPE_DOUBLE).Input(Random<double>(x)).Input(Random<double>(y));
  return tester;
}

TEST(BatchMatMulOpTest, RejectsBroadcastingAndBadShapes) {
  OpTester ranks = BatchMatMulV1(Shape({2, 2, 3}), Shape({3, 4}));
  ExpectRunError(ranks, absl::StatusCode::kInvalidArgument,
                 "In[0] and In[1] has different ndims: [2,2,3] vs. [3,4]");
  OpTester vectors = BatchMatMulV1(Shape({3}), Shape({3}));
  ExpectRunError(vectors, absl::StatusCode::kInvalidArgument,
                 "In[0] and In[1] ndims must be >= 2: 1");
  OpTester batch = BatchMatMulV1(Shape({2, 1, 2, 3}), Shape({2, 4, 3, 4}));
  ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                 "In[0].dim(1) and In[1].dim(1) must be the same: [2,1,2,3] vs [2,4,3,4]");
  OpTester inner = BatchMatMulV1(Shape({2, 2, 3}), Shape({2, 4, 4}));
  ExpectRunError(inner, absl::StatusCode::kInvalidArgument,
                 "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,4]");
}

TEST(BatchMatMulV3OpTest, BroadcastsAndRejectsMixedTypes) {
  CheckBatchMatMul<float>(Shape({2, 1, 3, 4}), Shape({5, 4, 6}), false, false, "BatchMatMulV3");
  OpTester mixed("BatchMatMulV3");
  mixed.Attr("Ta", TSR_DTYPE_FLOAT)
      .Attr("Tb", TSR_DTYPE_FLOAT)
      .Attr("Tout", TSR_DTYPE_DOUBLE)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({3, 2})));
  ExpectRunError(mixed, absl::StatusCode::kUnimplemented,
                 "(BatchMatMulV3) has no CPU kernel for Ta=float, Tb=float, Tout=double: the three "
                 "types must be the same");
  OpTester batch("BatchMatMulV3");
  batch.Attr("Ta", TSR_DTYPE_INT64)
      .Attr("Tb", TSR_DTYPE_INT64)
      .Attr("Tout", TSR_DTYPE_INT64)
      .Input(Random<int64_t>(Shape({2, 2, 3})))
      .Input(Random<int64_t>(Shape({3, 3, 4})));
  ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                 "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,4]");
}

}  // namespace
}  // namespace tessera::cpu::test
