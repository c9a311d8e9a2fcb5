// UnsortedSegmentSum against a reference loop: segment_ids of rank 0 to 3 (with repeated,
// missing and negative ids), each real type and both index widths, and TensorFlow's errors.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

Tensor Ids(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& values) {
  return IndexVector(dtype, values).Reshaped(shape);
}

Tensor NumSegments(DataType dtype, int64_t n) {
  return dtype == TSR_DTYPE_INT32 ? Tensor::Scalar<int32_t>(static_cast<int32_t>(n))
                                  : Tensor::Scalar<int64_t>(n);
}

template <typename T>
void CheckSegmentSum(const TensorShape& data_shape, int ids_rank, int64_t num_segments,
                     DataType index_type, DataType count_type) {
  TensorShape ids_shape;
  for (int d = 0; d < ids_rank; ++d) ids_shape.AddDim(data_shape.dim(d));
  SCOPED_TRACE(data_shape.DebugString() + " ids " + ids_shape.DebugString() + " segments " +
               std::to_string(num_segments));
  const Tensor data = Random<T>(data_shape, -4, 4);
  std::vector<int64_t> ids(static_cast<size_t>(ids_shape.num_elements()));
  // Ids from -1 (dropped) to num_segments - 1, so some segments get several rows and some none.
  for (int64_t& id : ids) id = static_cast<int64_t>(Rng()() % (num_segments + 1)) - 1;
  TensorShape out_shape{num_segments};
  int64_t row = 1;
  for (int d = ids_rank; d < data_shape.rank(); ++d) {
    out_shape.AddDim(data_shape.dim(d));
    row *= data_shape.dim(d);
  }
  std::vector<T> expected(static_cast<size_t>(out_shape.num_elements()), T(0));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) continue;
    for (int64_t c = 0; c < row; ++c) {
      expected[ids[i] * row + c] += data.data<T>()[static_cast<int64_t>(i) * row + c];
    }
  }
  OpTester tester("UnsortedSegmentSum");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tindices", index_type)
      .Attr("Tnumsegments", count_type)
      .Input(data)
      .Input(Ids(index_type, ids_shape, ids))
      .Input(NumSegments(count_type, num_segments));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape, expected);
}

TEST(UnsortedSegmentSumOpTest, RandomIdsOfRanksZeroToThree) {
  for (int trial = 0; trial < 64; ++trial) {
    const TensorShape shape = RandomShape(trial % 5, 0, 4);
    const int ids_rank = shape.rank() == 0 ? 0 : static_cast<int>(Rng()() % (shape.rank() + 1));
    const int64_t segments = static_cast<int64_t>(Rng()() % 5);
    const DataType index_type = trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64;
    const DataType count_type = trial % 3 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32;
    switch (trial % 4) {
      case 0:
        CheckSegmentSum<float>(shape, ids_rank, segments, index_type, count_type);
        break;
      case 1:
        CheckSegmentSum<double>(shape, ids_rank, segments, index_type, count_type);
        break;
      case 2:
        CheckSegmentSum<int32_t>(shape, ids_rank, segments, index_type, count_type);
        break;
      default:
        CheckSegmentSum<int64_t>(shape, ids_rank, segments, index_type, count_type);
    }
  }
}

TEST(UnsortedSegmentSumOpTest, LargeRowsAreSummedInParallel) {
  CheckSegmentSum<float>(Shape({40, 3000}), 1, 7, TSR_DTYPE_INT32, TSR_DTYPE_INT32);
  CheckSegmentSum<double>(Shape({3000, 2}), 1, 50, TSR_DTYPE_INT64, TSR_DTYPE_INT64);
}

TEST(UnsortedSegmentSumOpTest, KnownValues) {
  OpTester tester("UnsortedSegmentSum");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tindices", TSR_DTYPE_INT32)
      .Input(Make<float>(Shape({4, 2}), {1, 2, 3, 4, 5, 6, 7, 8}))
      .Input(Tensor::Vector<int32_t>({2, 0, 2, -1}))
      .Input(Tensor::Scalar<int32_t>(3));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({3, 2}), {3, 4, 0, 0, 6, 8});
}

OpTester SegmentSumOf(const TensorShape& data, const Tensor& ids, const Tensor& num_segments) {
  OpTester tester("UnsortedSegmentSum");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tindices", ids.dtype())
      .Attr("Tnumsegments", num_segments.dtype())
      .Input(Random<float>(data))
      .Input(ids)
      .Input(num_segments);
  return tester;
}

TEST(UnsortedSegmentSumOpTest, RejectsBadArguments) {
  OpTester vector_count =
      SegmentSumOf(Shape({3}), Tensor::Vector<int32_t>({0, 1, 2}), Tensor::Vector<int32_t>({3}));
  ExpectRunError(vector_count, absl::StatusCode::kInvalidArgument,
                 "num_segments should be a scalar, not shape [1]");
  OpTester prefix = SegmentSumOf(Shape({3, 4}), Tensor::Vector<int32_t>({0, 1, 2, 0}),
                                 Tensor::Scalar<int32_t>(3));
  ExpectRunError(prefix, absl::StatusCode::kInvalidArgument,
                 "data.shape = [3,4] does not start with segment_ids.shape = [4]");
  OpTester negative =
      SegmentSumOf(Shape({3}), Tensor::Vector<int64_t>({0, 1, 2}), Tensor::Scalar<int64_t>(-1));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Input num_segments == -1 must not be negative.");
  OpTester range = SegmentSumOf(Shape({2, 2}), Ids(TSR_DTYPE_INT32, Shape({2, 2}), {0, 1, 3, 0}),
                                Tensor::Scalar<int32_t>(3));
  ExpectRunError(range, absl::StatusCode::kInvalidArgument,
                 "segment_ids[1,0] = 3 is out of range [0, 3)");
  // Out-of-range ids of an empty data tensor are never looked at, as in TensorFlow.
  OpTester empty =
      SegmentSumOf(Shape({2, 0}), Tensor::Vector<int32_t>({5, 9}), Tensor::Scalar<int32_t>(2));
  ExpectTensorNear<float>(RunOk(empty), TSR_DTYPE_FLOAT, Shape({2, 0}), {});
}

}  // namespace
}  // namespace tessera::cpu::test
