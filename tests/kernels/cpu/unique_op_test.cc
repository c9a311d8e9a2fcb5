// Unique against a reference loop on random vectors (with many repeats, empty and of one
// element) for the real types, both idx widths, TensorFlow's known answer, the numeric
// comparison of floats, and its error for inputs that are not vectors.
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckUnique(int64_t n, DataType index_type) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " n=" + std::to_string(n) + " idx " +
               DataTypeString(index_type));
  // Few distinct values (whole numbers in [-3, 3]), so that most of them repeat.
  std::vector<T> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(static_cast<T>(int(Rng()() % 7) - 3));
  const Tensor x = Make<T>(Shape({n}), values);
  std::vector<T> expected_y;
  std::vector<int64_t> expected_idx;
  for (int64_t i = 0; i < n; ++i) {
    const T v = x.data<T>()[i];
    size_t k = 0;
    while (k < expected_y.size() && !(expected_y[k] == v)) ++k;
    if (k == expected_y.size()) expected_y.push_back(v);
    expected_idx.push_back(static_cast<int64_t>(k));
  }
  OpTester tester("Unique");
  tester.Attr("T", DataTypeOf<T>::value).Attr("out_idx", index_type).Input(x);
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ExpectTensorNear<T>((*outputs)[0], DataTypeOf<T>::value,
                      Shape({static_cast<int64_t>(expected_y.size())}), expected_y, 0);
  ExpectSameBytes((*outputs)[1], IndexVector(index_type, expected_idx));
}

TEST(UniqueOpTest, MatchesTheReferenceOnRandomVectors) {
  for (int64_t n : {0, 1, 2, 7, 50, 1000}) {
    for (DataType index_type : {TSR_DTYPE_INT32, TSR_DTYPE_INT64}) {
      CheckUnique<float>(n, index_type);
      CheckUnique<double>(n, index_type);
      CheckUnique<int32_t>(n, index_type);
      CheckUnique<int64_t>(n, index_type);
    }
  }
}

TEST(UniqueOpTest, KnownValues) {
  OpTester tester("Unique");
  tester.Attr("T", TSR_DTYPE_INT32).Input(Tensor::Vector<int32_t>({1, 1, 2, 4, 4, 4, 7, 8, 8}));
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ExpectSameBytes((*outputs)[0], Tensor::Vector<int32_t>({1, 2, 4, 7, 8}));
  ExpectSameBytes((*outputs)[1], Tensor::Vector<int32_t>({0, 0, 1, 2, 2, 2, 3, 4, 4}));

  OpTester booleans("Unique");
  booleans.Attr("T", TSR_DTYPE_BOOL)
      .Attr("out_idx", TSR_DTYPE_INT64)
      .Input(Make<bool>(Shape({4}), {true, true, false, true}));
  outputs = booleans.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ExpectSameBytes((*outputs)[0], Make<bool>(Shape({2}), {true, false}));
  ExpectSameBytes((*outputs)[1], Tensor::Vector<int64_t>({0, 0, 1, 0}));
}

TEST(UniqueOpTest, ComparesFloatsAsNumbers) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester tester("Unique");
  tester.Attr("T", TSR_DTYPE_FLOAT).Input(Make<float>(Shape({5}), {0.0f, -0.0f, nan, nan, 1.5f}));
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  // 0 and -0 are one element; each NaN differs from every value, itself included.
  const Tensor& y = (*outputs)[0];
  ASSERT_EQ(y.shape(), Shape({4}));
  EXPECT_EQ(y.data<float>()[0], 0.0f);
  EXPECT_TRUE(std::isnan(y.data<float>()[1]));
  EXPECT_TRUE(std::isnan(y.data<float>()[2]));
  EXPECT_EQ(y.data<float>()[3], 1.5f);
  ExpectSameBytes((*outputs)[1], Tensor::Vector<int32_t>({0, 0, 1, 2, 3}));
}

TEST(UniqueOpTest, RejectsInputsThatAreNotVectors) {
  OpTester matrix("Unique");
  matrix.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(Shape({2, 3})));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "unique expects a 1D vector, got shape [2,3]");
  OpTester scalar("Unique");
  scalar.Attr("T", TSR_DTYPE_INT64).Input(Tensor::Scalar<int64_t>(3));
  ExpectRunError(scalar, absl::StatusCode::kInvalidArgument,
                 "unique expects a 1D vector, got shape []");
}

}  // namespace
}  // namespace tessera::cpu::test
