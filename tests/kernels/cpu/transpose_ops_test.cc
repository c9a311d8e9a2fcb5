// Transpose, ReverseV2 and Reverse against reference index maps for ranks 0 to 5, every element
// size, int32/int64 index arguments, negative axes, empty and size-1 dimensions, and their
// errors.
#include <algorithm>
#include <numeric>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

void CheckTranspose(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& perm,
                    DataType perm_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " perm " + ShapeString(perm));
  const Tensor input = RandomOfType(dtype, shape);
  const int rank = shape.rank();
  std::vector<int64_t> positive(perm);
  for (int64_t& p : positive) p = p < 0 ? p + rank : p;
  TensorShape out_shape;
  for (int64_t p : positive) out_shape.AddDim(shape.dim(static_cast<int>(p)));
  const Tensor expected = ReferenceCopy(input, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) in[positive[d]] = c[d];
    return FlatIndex(shape, in);
  });
  OpTester tester("Transpose");
  tester.Attr("T", dtype).Attr("Tperm", perm_type).Input(input).Input(IndexVector(perm_type, perm));
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(TransposeOpTest, EveryPermutationUpToRankThree) {
  for (DataType dtype : ByteMovingTypes()) {
    for (int rank = 0; rank <= 3; ++rank) {
      std::vector<int64_t> perm(static_cast<size_t>(rank));
      std::iota(perm.begin(), perm.end(), 0);
      do {
        CheckTranspose(dtype, RandomShape(rank, 1, 5), perm);
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

TEST(TransposeOpTest, RandomPermutationsOfRanksFourAndFive) {
  for (int trial = 0; trial < 12; ++trial) {
    const int rank = 4 + trial % 2;
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), Rng());
    CheckTranspose(ByteMovingTypes()[trial % ByteMovingTypes().size()], RandomShape(rank, 1, 4),
                   perm, trial % 3 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32);
  }
}

TEST(TransposeOpTest, NegativeEntriesEmptyAndUnitDimensions) {
  CheckTranspose(TSR_DTYPE_FLOAT, Shape({2, 3, 4}), {-1, 0, -2});
  CheckTranspose(TSR_DTYPE_FLOAT, Shape({2, 0, 4}), {2, 1, 0});
  CheckTranspose(TSR_DTYPE_INT64, Shape({1, 5, 1, 3}), {2, 3, 0, 1});  // a reshape only
  CheckTranspose(TSR_DTYPE_INT64, Shape({1, 5, 1, 3}), {3, 1, 2, 0});
  CheckTranspose(TSR_DTYPE_BOOL, Shape({64, 33}), {1, 0}, TSR_DTYPE_INT64);
}

OpTester TransposeOf(const TensorShape& shape, const std::vector<int64_t>& perm) {
  OpTester tester("Transpose");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(shape))
      .Input(IndexVector(TSR_DTYPE_INT32, perm));
  return tester;
}

TEST(TransposeOpTest, RejectsBadPermutations) {
  OpTester wrong_length = TransposeOf(Shape({2, 3}), {0});
  ExpectRunError(wrong_length, absl::StatusCode::kInvalidArgument,
                 "transpose expects a vector of size 2. But input(1) is a vector of size 1");
  OpTester out_of_range = TransposeOf(Shape({2, 3}), {0, 2});
  ExpectRunError(out_of_range, absl::StatusCode::kInvalidArgument, "2 is out of range [0 .. 2)");
  OpTester duplicated = TransposeOf(Shape({2, 3, 4}), {0, 2, -1});
  ExpectRunError(duplicated, absl::StatusCode::kInvalidArgument, "1 is missing from {0,2,2}.");
  OpTester matrix("Transpose");
  matrix.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 2})))
      .Input(Make<int32_t>(Shape({1, 2}), {1, 0}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "perm must be rank 1, got shape [1,2]");
}

void CheckReverse(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& axes,
                  DataType axis_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " axes " + ShapeString(axes));
  const Tensor input = RandomOfType(dtype, shape);
  const int rank = shape.rank();
  std::vector<bool> reversed(static_cast<size_t>(rank), false);
  for (int64_t a : axes) reversed[a < 0 ? a + rank : a] = true;
  const Tensor expected = ReferenceCopy(input, shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(c);
    for (int d = 0; d < rank; ++d) {
      if (reversed[d]) in[d] = shape.dim(d) - 1 - c[d];
    }
    return FlatIndex(shape, in);
  });
  OpTester tester("ReverseV2");
  tester.Attr("T", dtype).Attr("Tidx", axis_type).Input(input).Input(IndexVector(axis_type, axes));
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(ReverseV2OpTest, EveryAxisSubsetUpToRankFour) {
  for (DataType dtype : ByteMovingTypes()) {
    for (int rank = 0; rank <= 4; ++rank) {
      for (int mask = 0; mask < (1 << rank); ++mask) {
        std::vector<int64_t> axes;
        for (int d = 0; d < rank; ++d) {
          if ((mask >> d) & 1) axes.push_back(d % 2 == 0 ? d : d - rank);  // some negative
        }
        CheckReverse(dtype, RandomShape(rank, 1, 4), axes,
                     mask % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64);
      }
    }
  }
}

TEST(ReverseV2OpTest, RankFiveEmptyAndUnitDimensions) {
  CheckReverse(TSR_DTYPE_FLOAT, Shape({2, 3, 1, 2, 3}), {0, 2, 4});
  CheckReverse(TSR_DTYPE_FLOAT, Shape({2, 0, 3}), {0, 1});
  CheckReverse(TSR_DTYPE_INT64, Shape({1, 1}), {0, 1});
  CheckReverse(TSR_DTYPE_UINT8, Shape({3}), {});
}

OpTester ReverseOf(const TensorShape& shape, const Tensor& axes) {
  OpTester tester("ReverseV2");
  tester.Attr("T", TSR_DTYPE_FLOAT).Attr("Tidx", axes.dtype()).Input(Random<float>(shape));
  tester.Input(axes);
  return tester;
}

TEST(ReverseV2OpTest, RejectsBadAxes) {
  OpTester out_of_range = ReverseOf(Shape({2, 3}), Tensor::Vector<int32_t>({2}));
  ExpectRunError(out_of_range, absl::StatusCode::kInvalidArgument,
                 "'axis'[0] = 2 is out of valid range [0, 1");
  OpTester twice = ReverseOf(Shape({2, 3}), Tensor::Vector<int64_t>({1, -1}));
  ExpectRunError(twice, absl::StatusCode::kInvalidArgument, "axis 1 specified more than once.");
  OpTester matrix = ReverseOf(Shape({2, 3}), Make<int32_t>(Shape({1, 1}), {0}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument, "'dims' must be 1-dimension, not 2");
}

// Reverse (v1): a bool per dimension.
void CheckReverseV1(DataType dtype, const TensorShape& shape, const std::vector<bool>& dims) {
  SCOPED_TRACE(shape.DebugString());
  const Tensor input = RandomOfType(dtype, shape);
  const Tensor expected = ReferenceCopy(input, shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(c);
    for (int d = 0; d < shape.rank(); ++d) {
      if (dims[d]) in[d] = shape.dim(d) - 1 - c[d];
    }
    return FlatIndex(shape, in);
  });
  OpTester tester("Reverse");
  tester.Attr("T", dtype).Input(input).Input(Make<bool>(Shape({shape.rank()}), dims));
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(ReverseOpTest, EveryDimensionSubsetUpToRankFour) {
  for (DataType dtype : ByteMovingTypes()) {
    for (int rank = 1; rank <= 4; ++rank) {
      for (int mask = 0; mask < (1 << rank); ++mask) {
        std::vector<bool> dims;
        for (int d = 0; d < rank; ++d) dims.push_back((mask >> d) & 1);
        CheckReverseV1(dtype, RandomShape(rank, mask % 5 == 0 ? 0 : 1, 4), dims);
      }
    }
  }
  // A scalar is returned as it is, whatever `dims` holds.
  OpTester scalar("Reverse");
  scalar.Attr("T", TSR_DTYPE_FLOAT).Input(Tensor::Scalar<float>(2)).Input(Make<bool>(Shape({0}), {}));
  ExpectSameBytes(RunOk(scalar), Tensor::Scalar<float>(2));
}

TEST(ReverseOpTest, RejectsBadDims) {
  OpTester count("Reverse");
  count.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Make<bool>(Shape({3}), {true, false, true}));
  ExpectRunError(count, absl::StatusCode::kInvalidArgument,
                 "'dims' must have the same number of values as 'input' has dimensions. 'input' "
                 "has 2'dims' has 3 values");
  OpTester matrix("Reverse");
  matrix.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Make<bool>(Shape({1, 2}), {true, false}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument, "'dims' must be 1-dimension, not 2");
}

}  // namespace
}  // namespace tessera::cpu::test
