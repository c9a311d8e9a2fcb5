// TopKV2 against a reference (a stable sort by descending value) on random rows with many ties,
// empty and size-1 dimensions, k from 0 to the row length, the real types, every k and index
// type; TensorFlow's tie order (lower index first), NaN, and its errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

Tensor IntegerScalar(DataType dtype, int64_t value) {
  if (dtype == TSR_DTYPE_INT16) return Tensor::Scalar<int16_t>(static_cast<int16_t>(value));
  if (dtype == TSR_DTYPE_INT32) return Tensor::Scalar<int32_t>(static_cast<int32_t>(value));
  return Tensor::Scalar<int64_t>(value);
}

std::vector<int64_t> IntegersIn(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (t.dtype() == TSR_DTYPE_INT16) {
      out.push_back(t.data<int16_t>()[i]);
    } else if (t.dtype() == TSR_DTYPE_INT32) {
      out.push_back(t.data<int32_t>()[i]);
    } else {
      out.push_back(t.data<int64_t>()[i]);
    }
  }
  return out;
}

template <typename T>
void CheckTopK(const TensorShape& shape, int64_t k, DataType k_type, DataType index_type,
               bool sorted) {
  SCOPED_TRACE(shape.DebugString() + " k=" + std::to_string(k) + " " +
               DataTypeString(DataTypeOf<T>::value));
  // Whole numbers in [-3, 3]: most rows hold ties.
  std::vector<T> values;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    values.push_back(static_cast<T>(static_cast<int>(Rng()() % 7) - 3));
  }
  const Tensor input = Make<T>(shape, values);
  const int64_t cols = shape.dim(shape.rank() - 1);
  const int64_t rows = cols == 0 ? 0 : shape.num_elements() / cols;
  std::vector<T> expected_values;
  std::vector<int64_t> expected_indices;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(static_cast<size_t>(cols));
    for (int64_t c = 0; c < cols; ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return values[r * cols + a] > values[r * cols + b];
    });
    for (int64_t j = 0; j < k; ++j) {
      expected_values.push_back(values[r * cols + order[j]]);
      expected_indices.push_back(order[j]);
    }
  }
  TensorShape out_shape = shape;
  out_shape.set_dim(shape.rank() - 1, k);
  OpTester tester("TopKV2");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tk", k_type)
      .Attr("index_type", index_type)
      .Attr("sorted", sorted)
      .Input(input)
      .Input(IntegerScalar(k_type, k));
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ExpectTensorNear<T>((*outputs)[0], DataTypeOf<T>::value, out_shape, expected_values, 0);
  ASSERT_EQ((*outputs)[1].dtype(), index_type);
  ASSERT_EQ((*outputs)[1].shape(), out_shape);
  EXPECT_EQ(IntegersIn((*outputs)[1]), expected_indices);
}

TEST(TopKV2OpTest, MatchesAStableSortOnRandomRows) {
  const std::vector<DataType> index_types = {TSR_DTYPE_INT16, TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  for (int trial = 0; trial < 64; ++trial) {
    const TensorShape shape = RandomShape(1 + trial % 3, trial % 9 == 0 ? 0 : 1, 6);
    const int64_t cols = shape.dim(shape.rank() - 1);
    const int64_t k = static_cast<int64_t>(Rng()() % (cols + 1));
    const DataType k_type = index_types[trial % 3];
    const DataType index_type = index_types[(trial / 3) % 3];
    const bool sorted = trial % 5 != 0;
    switch (trial % 4) {
      case 0:
        CheckTopK<float>(shape, k, k_type, index_type, sorted);
        break;
      case 1:
        CheckTopK<double>(shape, k, k_type, index_type, sorted);
        break;
      case 2:
        CheckTopK<int32_t>(shape, k, k_type, index_type, sorted);
        break;
      default:
        CheckTopK<int64_t>(shape, k, k_type, index_type, sorted);
    }
  }
  // Long rows, sharded over the pool.
  CheckTopK<float>(Shape({64, 300}), 17, TSR_DTYPE_INT32, TSR_DTYPE_INT32, true);
}

TEST(TopKV2OpTest, KnownValuesTiesAndNaN) {
  OpTester tester("TopKV2");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({2, 4}), {1, 3, 3, 2, 5, 5, 5, 5}))
      .Input(Tensor::Scalar<int32_t>(3));
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ExpectTensorNear<float>((*outputs)[0], TSR_DTYPE_FLOAT, Shape({2, 3}), {3, 3, 2, 5, 5, 5});
  ExpectSameBytes((*outputs)[1],
                  Tensor::FromVector<int32_t>(TensorShape{2, 3}, {1, 2, 3, 0, 1, 2}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester with_nan("TopKV2");
  with_nan.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({4}), {1, nan, 7, nan}))
      .Input(Tensor::Scalar<int32_t>(3));
  outputs = with_nan.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ExpectTensorNear<float>((*outputs)[0], TSR_DTYPE_FLOAT, Shape({3}), {nan, nan, 7});
  ExpectSameBytes((*outputs)[1], Tensor::Vector<int32_t>({1, 3, 2}));
}

OpTester TopKOf(const Tensor& input, const Tensor& k) {
  OpTester tester("TopKV2");
  tester.Attr("T", input.dtype()).Attr("Tk", k.dtype()).Input(input).Input(k);
  return tester;
}

TEST(TopKV2OpTest, RejectsBadArguments) {
  OpTester vector_k = TopKOf(Random<float>(Shape({3, 5})), Tensor::Vector<int32_t>({1}));
  ExpectRunError(vector_k, absl::StatusCode::kInvalidArgument, "k must be scalar, got shape [1]");
  OpTester negative = TopKOf(Random<float>(Shape({3, 5})), Tensor::Scalar<int64_t>(-1));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "Need k >= 0, got -1");
  OpTester scalar = TopKOf(Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0));
  ExpectRunError(scalar, absl::StatusCode::kInvalidArgument, "input must be >= 1-D, got shape []");
  OpTester too_many = TopKOf(Random<double>(Shape({3, 5})), Tensor::Scalar<int32_t>(6));
  ExpectRunError(too_many, absl::StatusCode::kInvalidArgument,
                 "input must have at least k columns. Had 5, needed 6");
  OpTester narrow("TopKV2");
  narrow.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("index_type", TSR_DTYPE_INT16)
      .Input(Random<float>(Shape({40000})))
      .Input(Tensor::Scalar<int32_t>(1));
  ExpectRunError(narrow, absl::StatusCode::kInvalidArgument,
                 "input has 40000 columns, more than int16 indices can number");
}

}  // namespace
}  // namespace tessera::cpu::test
