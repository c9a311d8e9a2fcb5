// Tile and BroadcastTo against reference index maps for ranks 0 to 5, every element size,
// zero multiples, empty and size-1 dimensions, and TensorFlow's errors.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

void CheckTile(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& multiples,
               DataType multiples_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " multiples " + ShapeString(multiples));
  const Tensor input = RandomOfType(dtype, shape);
  TensorShape out_shape;
  for (int d = 0; d < shape.rank(); ++d) out_shape.AddDim(shape.dim(d) * multiples[d]);
  const Tensor expected = ReferenceCopy(input, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(c);
    for (int d = 0; d < shape.rank(); ++d) in[d] %= shape.dim(d);
    return FlatIndex(shape, in);
  });
  OpTester tester("Tile");
  tester.Attr("T", dtype)
      .Attr("Tmultiples", multiples_type)
      .Input(input)
      .Input(IndexVector(multiples_type, multiples));
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(TileOpTest, RandomMultiplesOfRanksZeroToFive) {
  for (int trial = 0; trial < 48; ++trial) {
    const int rank = trial % 6;
    const TensorShape shape = RandomShape(rank, 1, 3);
    std::vector<int64_t> multiples;
    for (int d = 0; d < rank; ++d) multiples.push_back(static_cast<int64_t>(Rng()() % 4));
    if (trial % 4 != 0) {
      for (int64_t& m : multiples) m = m == 0 ? 1 : m;  // mostly non-empty results
    }
    CheckTile(ByteMovingTypes()[trial % ByteMovingTypes().size()], shape, multiples,
              trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64);
  }
}

TEST(TileOpTest, EdgeCases) {
  CheckTile(TSR_DTYPE_FLOAT, Shape({2, 3}), {1, 1});
  CheckTile(TSR_DTYPE_FLOAT, Shape({0, 3}), {4, 2});
  CheckTile(TSR_DTYPE_INT64, Shape({1, 1, 1}), {2, 3, 4});
  CheckTile(TSR_DTYPE_INT64, Shape({}), {});
  CheckTile(TSR_DTYPE_UINT8, Shape({129}), {3});
}

OpTester TileOf(const TensorShape& shape, const Tensor& multiples) {
  OpTester tester("Tile");
  tester.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(shape)).Input(multiples);
  return tester;
}

TEST(TileOpTest, RejectsBadMultiples) {
  OpTester length = TileOf(Shape({2, 3}), Tensor::Vector<int32_t>({2}));
  ExpectRunError(length, absl::StatusCode::kInvalidArgument,
                 "Expected multiples argument to be a vector of length 2 but got length 1");
  OpTester negative = TileOf(Shape({2, 3}), Tensor::Vector<int32_t>({2, -1}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Expected multiples[1] >= 0, but got -1");
  OpTester matrix = TileOf(Shape({2}), Make<int32_t>(Shape({1, 1}), {2}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "Expected multiples to be 1-D, but got shape [1,1]");
}

void CheckBroadcastTo(DataType dtype, const TensorShape& shape, const TensorShape& out_shape,
                      DataType shape_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " to " + out_shape.DebugString());
  const Tensor input = RandomOfType(dtype, shape);
  const int offset = out_shape.rank() - shape.rank();
  const Tensor expected = ReferenceCopy(input, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(static_cast<size_t>(shape.rank()));
    for (int d = 0; d < shape.rank(); ++d) in[d] = shape.dim(d) == 1 ? 0 : c[d + offset];
    return FlatIndex(shape, in);
  });
  std::vector<int64_t> dims(out_shape.dims().begin(), out_shape.dims().end());
  OpTester tester("BroadcastTo");
  tester.Attr("T", dtype)
      .Attr("Tidx", shape_type)
      .Input(input)
      .Input(IndexVector(shape_type, dims));
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(BroadcastToOpTest, RandomBroadcasts) {
  for (int trial = 0; trial < 40; ++trial) {
    const int out_rank = trial % 6;
    const TensorShape out_shape = RandomShape(out_rank, 1, 4);
    const int in_rank = static_cast<int>(Rng()() % (out_rank + 1));
    TensorShape shape;
    for (int d = out_rank - in_rank; d < out_rank; ++d) {
      shape.AddDim(Rng()() % 2 == 0 ? 1 : out_shape.dim(d));
    }
    CheckBroadcastTo(ByteMovingTypes()[trial % ByteMovingTypes().size()], shape, out_shape,
                     trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64);
  }
}

TEST(BroadcastToOpTest, EdgeCases) {
  CheckBroadcastTo(TSR_DTYPE_FLOAT, Shape({}), Shape({2, 3}));
  CheckBroadcastTo(TSR_DTYPE_FLOAT, Shape({3}), Shape({3}));
  CheckBroadcastTo(TSR_DTYPE_FLOAT, Shape({1, 3}), Shape({0, 3}));
  CheckBroadcastTo(TSR_DTYPE_INT64, Shape({2, 1, 3}), Shape({4, 2, 5, 3}));
}

OpTester BroadcastToOf(const TensorShape& shape, const std::vector<int64_t>& out) {
  OpTester tester("BroadcastTo");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(shape))
      .Input(IndexVector(TSR_DTYPE_INT32, out));
  return tester;
}

TEST(BroadcastToOpTest, RejectsShapesThatDoNotBroadcast) {
  OpTester incompatible = BroadcastToOf(Shape({3}), {4});
  ExpectRunError(incompatible, absl::StatusCode::kInvalidArgument,
                 "Incompatible shapes: [3] vs. [4]");
  OpTester shrink = BroadcastToOf(Shape({3}), {2, 1});
  ExpectRunError(shrink, absl::StatusCode::kInvalidArgument,
                 "Unable to broadcast tensor of shape [3] to tensor of shape [2,1]");
  OpTester rank = BroadcastToOf(Shape({2, 3}), {3});
  ExpectRunError(rank, absl::StatusCode::kInvalidArgument,
                 "Rank of input (2) must be no greater than rank of output shape (1).");
  OpTester matrix("BroadcastTo");
  matrix.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({3})))
      .Input(Make<int32_t>(Shape({1, 1}), {3}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "shape must be a vector of {int32,int64}, got shape [1,1]");
  OpTester rank_nine = BroadcastToOf(Shape({1}), {1, 1, 1, 1, 1, 1, 1, 1, 1});
  ExpectRunError(rank_nine, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
  OpTester negative = BroadcastToOf(Shape({3}), {-1, 3});
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "Dimension -1 must be >= 0");
}

}  // namespace
}  // namespace tessera::cpu::test
