// Slice against a reference copy for ranks 0 to 5, every element size, size -1, empty and
// size-1 dimensions, int32/int64 begin/size, and TensorFlow's argument errors.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

void CheckSlice(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& begin,
                const std::vector<int64_t>& size, DataType index_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " begin " + ShapeString(begin) + " size " + ShapeString(size));
  const Tensor input = RandomOfType(dtype, shape);
  TensorShape out_shape;
  for (int d = 0; d < shape.rank(); ++d) {
    out_shape.AddDim(size[d] == -1 ? shape.dim(d) - begin[d] : size[d]);
  }
  const Tensor expected = ReferenceCopy(input, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(c);
    for (size_t d = 0; d < in.size(); ++d) in[d] += begin[d];
    return FlatIndex(shape, in);
  });
  OpTester tester("Slice");
  tester.Attr("T", dtype)
      .Attr("Index", index_type)
      .Input(input)
      .Input(IndexVector(index_type, begin))
      .Input(IndexVector(index_type, size));
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(SliceOpTest, RandomSlicesOfRanksZeroToFive) {
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = trial % 6;
    const TensorShape shape = RandomShape(rank, 0, 5);
    std::vector<int64_t> begin;
    std::vector<int64_t> size;
    for (int d = 0; d < rank; ++d) {
      const int64_t dim = shape.dim(d);
      const int64_t b = static_cast<int64_t>(Rng()() % (dim + 1));
      begin.push_back(b);
      const int64_t s = static_cast<int64_t>(Rng()() % (dim - b + 1));
      size.push_back(Rng()() % 4 == 0 ? -1 : s);
    }
    CheckSlice(ByteMovingTypes()[trial % ByteMovingTypes().size()], shape, begin, size,
               trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64);
  }
}

TEST(SliceOpTest, CommonCases) {
  CheckSlice(TSR_DTYPE_FLOAT, Shape({4, 5}), {1, 2}, {2, 3});
  CheckSlice(TSR_DTYPE_FLOAT, Shape({4, 5}), {0, 0}, {4, 5});  // the whole input
  CheckSlice(TSR_DTYPE_FLOAT, Shape({4, 5}), {0, 1}, {-1, -1});
  CheckSlice(TSR_DTYPE_INT64, Shape({3, 1, 4}), {2, 0, 1}, {1, 1, 2});
  CheckSlice(TSR_DTYPE_INT64, Shape({0, 3}), {0, 1}, {0, 2});
  CheckSlice(TSR_DTYPE_BOOL, Shape({5}), {5}, {0});
  CheckSlice(TSR_DTYPE_COMPLEX128, Shape({}), {}, {});
}

OpTester SliceOf(const TensorShape& shape, const Tensor& begin, const Tensor& size) {
  OpTester tester("Slice");
  tester.Attr("T", TSR_DTYPE_FLOAT).Attr("Index", begin.dtype()).Input(Random<float>(shape));
  tester.Input(begin).Input(size);
  return tester;
}

TEST(SliceOpTest, RejectsBadBeginAndSize) {
  OpTester short_begin =
      SliceOf(Shape({4, 5}), Tensor::Vector<int32_t>({1}), Tensor::Vector<int32_t>({1, 1}));
  ExpectRunError(short_begin, absl::StatusCode::kInvalidArgument,
                 "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes "
                 "[1] and [2] instead.");
  OpTester far_begin =
      SliceOf(Shape({4, 5}), Tensor::Vector<int32_t>({5, 0}), Tensor::Vector<int32_t>({0, 1}));
  ExpectRunError(far_begin, absl::StatusCode::kInvalidArgument,
                 "Expected begin[0] in [0, 4], but got 5");
  OpTester negative_begin =
      SliceOf(Shape({4, 5}), Tensor::Vector<int64_t>({0, -1}), Tensor::Vector<int64_t>({1, 1}));
  ExpectRunError(negative_begin, absl::StatusCode::kInvalidArgument,
                 "Expected begin[1] in [0, 5], but got -1");
  OpTester long_size =
      SliceOf(Shape({4, 5}), Tensor::Vector<int32_t>({1, 2}), Tensor::Vector<int32_t>({1, 4}));
  ExpectRunError(long_size, absl::StatusCode::kInvalidArgument,
                 "Expected size[1] in [0, 3], but got 4");
  OpTester negative_size =
      SliceOf(Shape({4, 5}), Tensor::Vector<int32_t>({1, 2}), Tensor::Vector<int32_t>({-2, 1}));
  ExpectRunError(negative_size, absl::StatusCode::kInvalidArgument,
                 "Expected size[0] in [0, 3], but got -2");
  OpTester empty_dim =
      SliceOf(Shape({0, 5}), Tensor::Vector<int32_t>({1, 0}), Tensor::Vector<int32_t>({0, 1}));
  ExpectRunError(empty_dim, absl::StatusCode::kInvalidArgument,
                 "Expected begin[0] == 0 (got 1) and size[0] == 0 (got 0) when "
                 "input.dim_size(0) == 0");
}

}  // namespace
}  // namespace tessera::cpu::test
