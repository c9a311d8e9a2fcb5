// MatMul against a triple loop for every transpose combination, empty dimensions, products large
// enough to be cut into blocks on the pool, every registered type, run-to-run determinism, plus
// TensorFlow's shape errors.
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/gemm/sanitizer_options.h"
#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckMatMul(int64_t m, int64_t k, int64_t n, bool transpose_a, bool transpose_b) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " m=" + std::to_string(m) +
               " k=" + std::to_string(k) + " n=" + std::to_string(n) +
               " ta=" + std::to_string(transpose_a) + " tb=" + std::to_string(transpose_b));
  const TensorShape a_shape = transpose_a ? Shape({k, m}) : Shape({m, k});
  const TensorShape b_shape = transpose_b ? Shape({n, k}) : Shape({k, n});
  Tensor a = Random<T>(a_shape, -3, 3);
  Tensor b = Random<T>(b_shape, -3, 3);
  std::vector<T> expected(static_cast<size_t>(m * n), T(0));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const T av = transpose_a ? a.data<T>()[p * m + i] : a.data<T>()[i * k + p];
        const T bv = transpose_b ? b.data<T>()[j * k + p] : b.data<T>()[p * n + j];
        sum += static_cast<double>(av) * static_cast<double>(bv);
      }
      expected[i * n + j] = static_cast<T>(sum);
    }
  }
  OpTester tester("MatMul");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("transpose_a", transpose_a)
      .Attr("transpose_b", transpose_b)
      .Input(a)
      .Input(b);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, Shape({m, n}), expected, 1e-4);
}

template <typename T>
void CheckAllSizes() {
  std::vector<std::tuple<int64_t, int64_t, int64_t>> sizes = {
      {1, 1, 1}, {2, 3, 4}, {5, 1, 7}, {17, 33, 9}, {64, 128, 32},
      {0, 3, 4}, {3, 0, 4}, {3, 4, 0}, {1, 300, 1}};
  if constexpr (std::is_floating_point_v<T>) {
    // Large enough for the GEMM layer to cut the product into blocks on the intra-op pool.
    sizes.insert(sizes.end(), {{150, 200, 130}, {1, 200, 20000}, {20000, 200, 1}, {257, 64, 129}});
  }
  for (const auto& [m, k, n] : sizes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) CheckMatMul<T>(m, k, n, ta, tb);
    }
  }
}

TEST(MatMulOpTest, FloatMatchesReference) { CheckAllSizes<float>(); }
TEST(MatMulOpTest, DoubleMatchesReference) { CheckAllSizes<double>(); }
TEST(MatMulOpTest, Int32MatchesReference) { CheckAllSizes<int32_t>(); }
TEST(MatMulOpTest, Int64MatchesReference) { CheckAllSizes<int64_t>(); }

// Integer products wrap around in two's complement, as in TensorFlow.
TEST(MatMulOpTest, IntegerProductsWrapAround) {
  OpTester tester("MatMul");
  tester.Attr("T", TSR_DTYPE_INT32)
      .Input(Make<int32_t>(Shape({1, 2}), {65536, std::numeric_limits<int32_t>::max()}))
      .Input(Make<int32_t>(Shape({2, 1}), {65536, 1}));
  // 2^32 wraps to 0; 0 + INT32_MAX.
  ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, Shape({1, 1}),
                            {std::numeric_limits<int32_t>::max()});
}

TEST(MatMulOpTest, FloatResultsAreTheSameOnEveryRun) {
  Tensor a = Random<float>(Shape({300, 256}), -3, 3);
  Tensor b = Random<float>(Shape({256, 200}), -3, 3);
  std::vector<Tensor> results;
  for (int run = 0; run < 3; ++run) {
    OpTester tester("MatMul");
    tester.Attr("T", TSR_DTYPE_FLOAT).Input(a).Input(b);
    results.push_back(RunOk(tester));
  }
  for (int run = 1; run < 3; ++run) {
    ASSERT_EQ(results[run].NumElements(), results[0].NumElements());
    EXPECT_EQ(0, std::memcmp(results[run].data<float>(), results[0].data<float>(),
                             sizeof(float) * results[0].NumElements()));
  }
}

OpTester MatMul(const TensorShape& a, const TensorShape& b, bool ta = false, bool tb = false) {
  OpTester tester("MatMul");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("transpose_a", ta)
      .Attr("transpose_b", tb)
      .Input(Random<float>(a))
      .Input(Random<float>(b));
  return tester;
}

TEST(MatMulOpTest, RejectsMismatchedInnerDimensions) {
  OpTester tester = MatMul(Shape({2, 3}), Shape({4, 5}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  OpTester transposed = MatMul(Shape({2, 3}), Shape({2, 3}), false, true);
  RunOk(transposed);
  OpTester transposed_bad = MatMul(Shape({2, 3}), Shape({3, 2}), true, false);
  ExpectRunError(transposed_bad, absl::StatusCode::kInvalidArgument,
                 "Matrix size-incompatible: In[0]: [2,3], In[1]: [3,2]");
}

TEST(MatMulOpTest, RejectsNonMatrices) {
  OpTester a_vector = MatMul(Shape({3}), Shape({3, 2}));
  ExpectRunError(a_vector, absl::StatusCode::kInvalidArgument,
                 "In[0] is not a matrix. Instead it has shape [3]");
  OpTester b_rank3 = MatMul(Shape({2, 3}), Shape({3, 2, 1}));
  ExpectRunError(b_rank3, absl::StatusCode::kInvalidArgument,
                 "In[1] is not a matrix. Instead it has shape [3,2,1]");
}

}  // namespace
}  // namespace tessera::cpu::test
