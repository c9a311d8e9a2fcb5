// BatchMatMulV2 against reference loops: broadcast batch dimensions, adjoints, empty sizes,
// products large enough to be cut over the pool, every registered type, and TensorFlow's errors.
#include <string>
#include <vector>

#include "plugins/cpu/kernels/gemm/sanitizer_options.h"
#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckBatchMatMul(const TensorShape& x_shape, const TensorShape& y_shape, bool adj_x,
                      bool adj_y) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " x=" + x_shape.DebugString() +
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
  OpTester tester("BatchMatMulV2");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("adj_x", adj_x)
      .Attr("adj_y", adj_y)
      .Input(x)
      .Input(y);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape, expected, 1e-4);
}

template <typename T>
void CheckShapes() {
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
        CheckBatchMatMul<T>(x, y, adj_x, adj_y);
      }
    }
  }
}

TEST(BatchMatMulV2OpTest, FloatMatchesReference) { CheckShapes<float>(); }
TEST(BatchMatMulV2OpTest, DoubleMatchesReference) { CheckShapes<double>(); }
TEST(BatchMatMulV2OpTest, Int32MatchesReference) { CheckShapes<int32_t>(); }
TEST(BatchMatMulV2OpTest, Int64MatchesReference) { CheckShapes<int64_t>(); }

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

}  // namespace
}  // namespace tessera::cpu::test
