// StridedSliceGrad against a reference scatter on random specs (every mask, negative strides,
// out-of-range bounds): the elements it writes are those StridedSlice reads from an index tensor
// with the same spec, every other element is zero; invalid specs fail as StridedSlice does.
#include <cstring>
#include <string>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

struct Spec {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  int64_t masks[5] = {0, 0, 0, 0, 0};  // begin, end, ellipsis, new_axis, shrink_axis

  std::string ToString() const {
    return "begin " + ShapeString(begin) + " end " + ShapeString(end) + " strides " +
           ShapeString(strides) + " masks " +
           ShapeString({masks[0], masks[1], masks[2], masks[3], masks[4]});
  }
};

void SetMasks(OpTester& tester, const Spec& spec) {
  tester.Attr("begin_mask", spec.masks[0])
      .Attr("end_mask", spec.masks[1])
      .Attr("ellipsis_mask", spec.masks[2])
      .Attr("new_axis_mask", spec.masks[3])
      .Attr("shrink_axis_mask", spec.masks[4]);
}

// StridedSlice of the flat element indices of `shape`: which input element each output reads.
absl::StatusOr<std::vector<Tensor>> SourcesOf(const TensorShape& shape, const Spec& spec,
                                              DataType index_type) {
  Tensor iota(TSR_DTYPE_INT64, shape);
  for (int64_t i = 0; i < iota.NumElements(); ++i) iota.data<int64_t>()[i] = i;
  OpTester tester("StridedSlice");
  tester.Attr("T", TSR_DTYPE_INT64).Attr("Index", index_type);
  SetMasks(tester, spec);
  tester.Input(iota)
      .Input(IndexVector(index_type, spec.begin))
      .Input(IndexVector(index_type, spec.end))
      .Input(IndexVector(index_type, spec.strides));
  return tester.Run();
}

OpTester GradOf(const TensorShape& shape, const Spec& spec, const Tensor& dy, DataType index_type) {
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  OpTester tester("StridedSliceGrad");
  tester.Attr("T", dy.dtype()).Attr("Index", index_type);
  SetMasks(tester, spec);
  tester.Input(IndexVector(index_type, dims))
      .Input(IndexVector(index_type, spec.begin))
      .Input(IndexVector(index_type, spec.end))
      .Input(IndexVector(index_type, spec.strides))
      .Input(dy);
  return tester;
}

// Checks one spec; returns whether it was valid.
bool CheckSpec(DataType dtype, const TensorShape& shape, const Spec& spec,
               DataType index_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " " + spec.ToString());
  absl::StatusOr<std::vector<Tensor>> sources = SourcesOf(shape, spec, index_type);
  if (!sources.ok()) {
    // The same spec is just as invalid for the gradient (dy's shape is never looked at first).
    OpTester grad = GradOf(shape, spec, RandomOfType(dtype, TensorShape{}), index_type);
    // Compare the kernel's own words, past the context that names the op.
    const std::string message(sources.status().message());
    const std::string marker = "from plugin 'cpu': ";
    const size_t at = message.find(marker);
    ExpectRunError(grad, sources.status().code(),
                   at == std::string::npos ? message : message.substr(at + marker.size()));
    return false;
  }
  const Tensor& read = (*sources)[0];
  const Tensor dy = RandomOfType(dtype, read.shape());
  Tensor expected(dtype, shape);
  if (expected.TotalBytes() > 0) std::memset(expected.data(), 0, expected.TotalBytes());
  const size_t size = DataTypeSize(dtype);
  for (int64_t k = 0; k < read.NumElements(); ++k) {
    std::memcpy(static_cast<char*>(expected.data()) + read.data<int64_t>()[k] * size,
                static_cast<const char*>(dy.data()) + k * size, size);
  }
  OpTester grad = GradOf(shape, spec, dy, index_type);
  ExpectSameBytes(RunOk(grad), expected);
  return true;
}

// A random spec of up to rank + 2 entries with random bounds (in and out of range), steps and
// masks; at most one ellipsis most of the time.
Spec RandomSpec(const TensorShape& shape) {
  Spec spec;
  const int n = static_cast<int>(Rng()() % (shape.rank() + 3));
  static const int64_t kSteps[] = {1, 1, 2, 3, -1, -2, -3};
  for (int j = 0; j < n; ++j) {
    const int64_t extent = 2 * shape.rank() + 8;
    spec.begin.push_back(static_cast<int64_t>(Rng()() % extent) - extent / 2);
    spec.end.push_back(static_cast<int64_t>(Rng()() % extent) - extent / 2);
    spec.strides.push_back(kSteps[Rng()() % 7]);
  }
  const int64_t all = (int64_t{1} << n) - 1;
  for (int m = 0; m < 5; ++m) spec.masks[m] = static_cast<int64_t>(Rng()()) & all;
  if (n > 0 && Rng()() % 8 != 0) spec.masks[2] = int64_t{1} << (Rng()() % n);
  // Shrinking a dimension needs stride 1 and an index in range more often than chance gives.
  for (int j = 0; j < n; ++j) {
    if ((spec.masks[4] >> j & 1) != 0 && Rng()() % 2 == 0) {
      spec.strides[j] = 1;
      spec.begin[j] = static_cast<int64_t>(Rng()() % 3) - 1;
    }
  }
  if (Rng()() % 2 == 0) spec.masks[3] = 0;
  return spec;
}

TEST(StridedSliceGradOpTest, RandomSpecsScatterWhatStridedSliceReads) {
  int valid = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = trial % 6;
    const TensorShape shape = RandomShape(rank, 0, 5);
    valid += CheckSpec(ByteMovingTypes()[trial % ByteMovingTypes().size()], shape,
                       RandomSpec(shape), trial % 3 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32);
  }
  // Most specs are valid, so the scatter itself is what gets tested.
  EXPECT_GT(valid, 150);
}

TEST(StridedSliceGradOpTest, CommonSpecs) {
  Spec whole;  // x[:] of a matrix: dy is the gradient itself
  whole.begin = {0};
  whole.end = {0};
  whole.strides = {1};
  whole.masks[0] = whole.masks[1] = 1;
  CheckSpec(TSR_DTYPE_FLOAT, Shape({3, 4}), whole);
  Spec reversed_rows;  // x[::-2, 1]
  reversed_rows.begin = {0, 1};
  reversed_rows.end = {0, 2};
  reversed_rows.strides = {-2, 1};
  reversed_rows.masks[0] = reversed_rows.masks[1] = 1;
  reversed_rows.masks[4] = 2;
  CheckSpec(TSR_DTYPE_DOUBLE, Shape({5, 4}), reversed_rows, TSR_DTYPE_INT64);
  Spec new_axes;  // x[None, ..., -1, None]
  new_axes.begin = {0, 0, -1, 0};
  new_axes.end = {0, 0, 0, 0};
  new_axes.strides = {1, 1, 1, 1};
  new_axes.masks[2] = 2;
  new_axes.masks[3] = 9;
  new_axes.masks[4] = 4;
  CheckSpec(TSR_DTYPE_INT32, Shape({2, 3, 4}), new_axes);
  Spec scalar;  // a scalar's x[...]
  scalar.begin = scalar.end = {0};
  scalar.strides = {1};
  scalar.masks[2] = 1;
  CheckSpec(TSR_DTYPE_INT64, Shape({}), scalar);
  Spec empty;  // x[3:1]
  empty.begin = {3};
  empty.end = {1};
  empty.strides = {1};
  CheckSpec(TSR_DTYPE_FLOAT, Shape({4, 2}), empty);
}

OpTester GradWithShapeInput(const Tensor& shape, const TensorShape& dy_shape) {
  OpTester tester("StridedSliceGrad");
  tester.Attr("T", TSR_DTYPE_FLOAT).Attr("Index", TSR_DTYPE_INT32);
  tester.Input(shape)
      .Input(IndexVector(TSR_DTYPE_INT32, {0}))
      .Input(IndexVector(TSR_DTYPE_INT32, {2}))
      .Input(IndexVector(TSR_DTYPE_INT32, {1}))
      .Input(Random<float>(dy_shape));
  return tester;
}

TEST(StridedSliceGradOpTest, RejectsBadArguments) {
  OpTester matrix_shape =
      GradWithShapeInput(Tensor::FromVector<int32_t>(TensorShape{1, 2}, {4, 4}), Shape({2, 4}));
  ExpectRunError(matrix_shape, absl::StatusCode::kInvalidArgument,
                 "shape must be 1-D, got shape.shape = [1,2]");
  OpTester negative = GradWithShapeInput(Tensor::Vector<int32_t>({4, -1}), Shape({2, 4}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "Dimension -1 must be >= 0");
  OpTester dy_shape = GradWithShapeInput(Tensor::Vector<int32_t>({4, 4}), Shape({2, 3}));
  ExpectRunError(dy_shape, absl::StatusCode::kInvalidArgument,
                 "shape of dy was [2,3] instead of [2,4]");
  OpTester rank_nine =
      GradWithShapeInput(Tensor::Vector<int32_t>({1, 1, 1, 1, 1, 1, 1, 1, 1}), Shape({1}));
  ExpectRunError(rank_nine, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
  // A new axis on a rank-8 input: the forward slice itself would have rank 9.
  Spec new_axis;
  new_axis.begin = new_axis.end = {0};
  new_axis.strides = {1};
  new_axis.masks[3] = 1;
  OpTester sliced_rank_nine =
      GradOf(Shape({1, 1, 1, 1, 1, 1, 1, 1}), new_axis, Random<float>(Shape({1})), TSR_DTYPE_INT32);
  ExpectRunError(sliced_rank_nine, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
  OpTester lengths("StridedSliceGrad");
  lengths.Attr("T", TSR_DTYPE_FLOAT).Attr("Index", TSR_DTYPE_INT32);
  lengths.Input(Tensor::Vector<int32_t>({4, 5}))
      .Input(IndexVector(TSR_DTYPE_INT32, {0, 0}))
      .Input(IndexVector(TSR_DTYPE_INT32, {1, 1, 1}))
      .Input(IndexVector(TSR_DTYPE_INT32, {1, 1}))
      .Input(Random<float>(Shape({1, 1})));
  ExpectRunError(lengths, absl::StatusCode::kInvalidArgument,
                 "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                 "[2], [3], and [2] instead.");
}

}  // namespace
}  // namespace tessera::cpu::test
