// Split, SplitV and Unpack against reference slices for ranks 1 to 5, every element size,
// negative axes, one -1 size, empty pieces, and TensorFlow's errors.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

// The piece of `input` with indices [start, start + size) along `axis`.
Tensor ReferencePiece(const Tensor& input, int axis, int64_t start, int64_t size) {
  TensorShape shape = input.shape();
  shape.set_dim(axis, size);
  return ReferenceCopy(input, shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(c);
    in[axis] += start;
    return FlatIndex(input.shape(), in);
  });
}

void ExpectPieces(OpTester& tester, const Tensor& input, int axis,
                  const std::vector<int64_t>& sizes) {
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(static_cast<int>(sizes.size()));
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    ExpectSameBytes((*outputs)[i], ReferencePiece(input, axis, start, sizes[i]));
    start += sizes[i];
  }
}

void CheckSplit(DataType dtype, const TensorShape& shape, int64_t split_dim, int num_split) {
  SCOPED_TRACE(shape.DebugString() + " split_dim " + std::to_string(split_dim) + " into " +
               std::to_string(num_split));
  const Tensor input = RandomOfType(dtype, shape);
  const int axis = static_cast<int>(split_dim < 0 ? split_dim + shape.rank() : split_dim);
  OpTester tester("Split");
  tester.Attr("T", dtype)
      .Attr("num_split", static_cast<int64_t>(num_split))
      .Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(split_dim)))
      .Input(input);
  ExpectPieces(tester, input, axis, std::vector<int64_t>(num_split, shape.dim(axis) / num_split));
}

TEST(SplitOpTest, EveryAxisOfRandomShapes) {
  int trial = 0;
  for (int rank = 1; rank <= 5; ++rank) {
    for (int axis = -rank; axis < rank; ++axis, ++trial) {
      const int num_split = 1 + trial % 3;
      TensorShape shape = RandomShape(rank, 1, 3);
      shape.set_dim(axis < 0 ? axis + rank : axis, num_split * (1 + trial % 2));
      CheckSplit(ByteMovingTypes()[trial % ByteMovingTypes().size()], shape, axis, num_split);
    }
  }
  CheckSplit(TSR_DTYPE_FLOAT, Shape({3, 0}), 0, 3);
  CheckSplit(TSR_DTYPE_FLOAT, Shape({0, 4}), 1, 2);
}

OpTester SplitOf(const TensorShape& shape, const Tensor& split_dim, int num_split) {
  OpTester tester("Split");
  tester.Attr("T", TSR_DTYPE_FLOAT).Attr("num_split", static_cast<int64_t>(num_split));
  tester.Input(split_dim).Input(Random<float>(shape));
  return tester;
}

TEST(SplitOpTest, RejectsBadArguments) {
  OpTester uneven = SplitOf(Shape({2, 5}), Tensor::Scalar<int32_t>(1), 2);
  ExpectRunError(uneven, absl::StatusCode::kInvalidArgument,
                 "Number of ways to split should evenly divide the split dimension, but got "
                 "split_dim 1 (size = 5) and num_split 2");
  OpTester far_axis = SplitOf(Shape({2, 4}), Tensor::Scalar<int32_t>(-3), 2);
  ExpectRunError(far_axis, absl::StatusCode::kInvalidArgument,
                 "-input rank(-2) <= split_dim < input rank (2), but got -3");
  OpTester vector_axis = SplitOf(Shape({2, 4}), Tensor::Vector<int32_t>({0}), 2);
  ExpectRunError(vector_axis, absl::StatusCode::kInvalidArgument,
                 "split_dim must be a scalar but has rank 1");
}

void CheckSplitV(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& sizes,
                 int64_t split_dim, DataType len_type) {
  SCOPED_TRACE(shape.DebugString() + " sizes " + ShapeString(sizes) + " split_dim " +
               std::to_string(split_dim));
  const Tensor input = RandomOfType(dtype, shape);
  const int axis = static_cast<int>(split_dim < 0 ? split_dim + shape.rank() : split_dim);
  std::vector<int64_t> resolved(sizes);
  int64_t known = 0;
  for (int64_t s : sizes) known += s == -1 ? 0 : s;
  for (int64_t& s : resolved) s = s == -1 ? shape.dim(axis) - known : s;
  Tensor size_splits(len_type, TensorShape{static_cast<int64_t>(sizes.size())});
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (len_type == TSR_DTYPE_INT8) {
      size_splits.data<int8_t>()[i] = static_cast<int8_t>(sizes[i]);
    } else if (len_type == TSR_DTYPE_INT32) {
      size_splits.data<int32_t>()[i] = static_cast<int32_t>(sizes[i]);
    } else {
      size_splits.data<int64_t>()[i] = sizes[i];
    }
  }
  OpTester tester("SplitV");
  tester.Attr("T", dtype)
      .Attr("num_split", static_cast<int64_t>(sizes.size()))
      .Attr("Tlen", len_type)
      .Input(input)
      .Input(size_splits)
      .Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(split_dim)));
  ExpectPieces(tester, input, axis, resolved);
}

TEST(SplitVOpTest, SizesWithOneWildcard) {
  CheckSplitV(TSR_DTYPE_FLOAT, Shape({7, 3}), {2, -1, 4}, 0, TSR_DTYPE_INT64);
  CheckSplitV(TSR_DTYPE_INT64, Shape({2, 7, 3}), {0, 7}, 1, TSR_DTYPE_INT32);
  CheckSplitV(TSR_DTYPE_BOOL, Shape({2, 3, 6}), {1, 2, 0, 3}, -1, TSR_DTYPE_INT8);
  CheckSplitV(TSR_DTYPE_COMPLEX128, Shape({5}), {5}, 0, TSR_DTYPE_INT64);
  CheckSplitV(TSR_DTYPE_HALF, Shape({1, 2, 3, 4, 5}), {3, -1}, 3, TSR_DTYPE_INT32);
  CheckSplitV(TSR_DTYPE_UINT8, Shape({4, 0}), {-1, 2}, 0, TSR_DTYPE_INT32);
}

OpTester SplitVOf(const TensorShape& shape, const std::vector<int64_t>& sizes, int32_t dim) {
  OpTester tester("SplitV");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("num_split", static_cast<int64_t>(sizes.size()))
      .Input(Random<float>(shape))
      .Input(IndexVector(TSR_DTYPE_INT64, sizes))
      .Input(Tensor::Scalar<int32_t>(dim));
  return tester;
}

TEST(SplitVOpTest, RejectsBadSizes) {
  OpTester two_wildcards = SplitVOf(Shape({6}), {-1, -1, 2}, 0);
  ExpectRunError(two_wildcards, absl::StatusCode::kInvalidArgument,
                 "There can only be one -1 in the input.");
  OpTester wrong_total = SplitVOf(Shape({6}), {2, 3}, 0);
  ExpectRunError(wrong_total, absl::StatusCode::kInvalidArgument,
                 "Determined shape must either match input shape along split_dim exactly if "
                 "fully specified, or be less than the size of the input along split_dim if not "
                 "fully specified.  Got: 5");
  OpTester too_big = SplitVOf(Shape({6}), {4, 3, -1}, 0);
  ExpectRunError(too_big, absl::StatusCode::kInvalidArgument, "Got: 7");
  OpTester negative = SplitVOf(Shape({6}), {8, -2}, 0);
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Split size at index 1 must be >= 0. Got: -2");
  OpTester single = SplitVOf(Shape({6}), {5}, 0);
  ExpectRunError(single, absl::StatusCode::kInvalidArgument,
                 "If there is only one output, it must have the same size as the input. Input "
                 "size: 6 output size: 5");
  OpTester matrix_sizes("SplitV");
  matrix_sizes.Attr("T", TSR_DTYPE_FLOAT).Attr("num_split", int64_t{2});
  matrix_sizes.Input(Random<float>(Shape({6})))
      .Input(Make<int64_t>(Shape({1, 2}), {3, 3}))
      .Input(Tensor::Scalar<int32_t>(0));
  ExpectRunError(matrix_sizes, absl::StatusCode::kInvalidArgument,
                 "size of the split_tensor must be 1-D and have the same elements as outputs got "
                 "2 -D and 2 elements");
  OpTester two_dims("SplitV");
  two_dims.Attr("T", TSR_DTYPE_FLOAT).Attr("num_split", int64_t{2});
  two_dims.Input(Random<float>(Shape({6})))
      .Input(Tensor::Vector<int64_t>({3, 3}))
      .Input(Tensor::Vector<int32_t>({0, 0}));
  ExpectRunError(two_dims, absl::StatusCode::kInvalidArgument,
                 "split_dim_tensor must have exactly one element.");
  OpTester axis = SplitVOf(Shape({6}), {3, 3}, 1);
  ExpectRunError(axis, absl::StatusCode::kInvalidArgument,
                 "-input rank(-1) <= split_dim < input rank (1), but got 1");
}

void CheckUnpack(DataType dtype, const TensorShape& shape, int64_t axis_attr) {
  SCOPED_TRACE(shape.DebugString() + " axis " + std::to_string(axis_attr));
  const Tensor input = RandomOfType(dtype, shape);
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + shape.rank() : axis_attr);
  const int num = static_cast<int>(shape.dim(axis));
  OpTester tester("Unpack");
  tester.Attr("T", dtype).Attr("num", static_cast<int64_t>(num)).Attr("axis", axis_attr);
  tester.Input(input);
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(num);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  TensorShape piece_shape;
  for (int d = 0; d < shape.rank(); ++d) {
    if (d != axis) piece_shape.AddDim(shape.dim(d));
  }
  for (int i = 0; i < num; ++i) {
    const Tensor piece = ReferencePiece(input, axis, i, 1);
    ExpectSameBytes((*outputs)[i], piece.Reshaped(piece_shape));
  }
}

TEST(UnpackOpTest, EveryAxis) {
  int trial = 0;
  for (int rank = 1; rank <= 5; ++rank) {
    for (int axis = -rank; axis < rank; ++axis, ++trial) {
      CheckUnpack(ByteMovingTypes()[trial % ByteMovingTypes().size()], RandomShape(rank, 1, 3),
                  axis);
    }
  }
  CheckUnpack(TSR_DTYPE_FLOAT, Shape({3, 0}), 0);
  CheckUnpack(TSR_DTYPE_FLOAT, Shape({1, 4}), 0);
}

TEST(UnpackOpTest, RejectsBadAxisAndNum) {
  OpTester far_axis("Unpack");
  far_axis.Attr("T", TSR_DTYPE_FLOAT).Attr("num", int64_t{2}).Attr("axis", int64_t{2});
  far_axis.Input(Random<float>(Shape({2, 3})));
  ExpectRunError(far_axis, absl::StatusCode::kInvalidArgument, "axis = 2 not in [-2, 2)");
  OpTester wrong_num("Unpack");
  wrong_num.Attr("T", TSR_DTYPE_FLOAT).Attr("num", int64_t{3}).Attr("axis", int64_t{-1});
  wrong_num.Input(Random<float>(Shape({2, 4})));
  ExpectRunError(wrong_num, absl::StatusCode::kInvalidArgument,
                 "Input shape axis 1 must equal 3, got shape [2,4]");
}

}  // namespace
}  // namespace tessera::cpu::test
