// Size, Rank, ShapeN, BroadcastGradientArgs and ConcatOffset against reference rules, and their
// errors.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

TEST(SizeAndRankOpTest, CountElementsAndDimensions) {
  for (const TensorShape& shape :
       {Shape({}), Shape({0, 3}), Shape({2, 3, 4}), Shape({1, 1, 1, 1, 5})}) {
    SCOPED_TRACE(shape.DebugString());
    for (DataType out_type : {TSR_DTYPE_INT32, TSR_DTYPE_INT64}) {
      OpTester size("Size");
      size.Attr("T", TSR_DTYPE_BOOL).Attr("out_type", out_type).Input(Random<bool>(shape));
      const Tensor out = RunOk(size);
      ASSERT_EQ(out.shape(), Shape({}));
      ASSERT_EQ(out.dtype(), out_type);
      EXPECT_EQ(out_type == TSR_DTYPE_INT32 ? out.data<int32_t>()[0] : out.data<int64_t>()[0],
                shape.num_elements());
    }
    OpTester rank("Rank");
    rank.Attr("T", TSR_DTYPE_COMPLEX128).Input(RandomOfType(TSR_DTYPE_COMPLEX128, shape));
    ExpectTensorNear<int32_t>(RunOk(rank), TSR_DTYPE_INT32, Shape({}), {shape.rank()});
  }
}

TEST(ShapeNOpTest, GivesEachInputsShape) {
  const std::vector<TensorShape> shapes = {Shape({}), Shape({0, 3}), Shape({2, 3, 4}),
                                           Shape({1, 1, 1, 1, 5})};
  for (DataType dtype : {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32, TSR_DTYPE_INT64}) {
    for (DataType out_type : {TSR_DTYPE_INT32, TSR_DTYPE_INT64}) {
      SCOPED_TRACE(DataTypeString(dtype) + " " + DataTypeString(out_type));
      OpTester tester("ShapeN");
      tester.Attr("T", dtype)
          .Attr("out_type", out_type)
          .Attr("N", static_cast<int64_t>(shapes.size()));
      for (const TensorShape& shape : shapes) tester.Input(RandomOfType(dtype, shape));
      absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(static_cast<int>(shapes.size()));
      ASSERT_TRUE(outputs.ok()) << outputs.status();
      for (size_t i = 0; i < shapes.size(); ++i) {
        std::vector<int64_t> dims;
        for (int d = 0; d < shapes[i].rank(); ++d) dims.push_back(shapes[i].dim(d));
        ExpectSameBytes((*outputs)[i], IndexVector(out_type, dims));
      }
    }
  }
  // One input: the same as Shape.
  OpTester one("ShapeN");
  one.Attr("T", TSR_DTYPE_BOOL).Attr("N", int64_t{1}).Input(Random<bool>(Shape({7, 1})));
  ExpectSameBytes(RunOk(one), IndexVector(TSR_DTYPE_INT32, {7, 1}));
}

// Reference: offset i is zero but along `axis`, where it sums the earlier shapes' sizes.
std::vector<std::vector<int64_t>> ReferenceOffsets(const std::vector<std::vector<int64_t>>& shapes,
                                                   int64_t axis) {
  std::vector<std::vector<int64_t>> offsets;
  int64_t along = 0;
  for (const std::vector<int64_t>& shape : shapes) {
    std::vector<int64_t> offset(shape.size(), 0);
    offset[axis] = along;
    along += shape[axis];
    offsets.push_back(offset);
  }
  return offsets;
}

TEST(ConcatOffsetOpTest, MatchesTheReferenceOnRandomShapes) {
  for (int trial = 0; trial < 40; ++trial) {
    const int rank = 1 + trial % 4;
    const int n = 2 + trial % 3;
    const int64_t axis = static_cast<int64_t>(Rng()() % rank);
    const TensorShape base = RandomShape(rank, 0, 4);
    std::vector<std::vector<int64_t>> shapes;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> shape;
      for (int d = 0; d < rank; ++d) shape.push_back(base.dim(d));
      shape[axis] = static_cast<int64_t>(Rng()() % 4);
      shapes.push_back(shape);
    }
    const DataType dtype = trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64;
    // Negative concat_dim counts from the end, as in TensorFlow.
    const int32_t concat_dim = static_cast<int32_t>(trial % 3 == 0 ? axis - rank : axis);
    SCOPED_TRACE(ShapeString(shapes[0]) + " axis " + std::to_string(concat_dim));
    OpTester tester("ConcatOffset");
    tester.Attr("N", static_cast<int64_t>(n)).Attr("shape_type", dtype);
    tester.Input(Tensor::Scalar<int32_t>(concat_dim));
    for (const std::vector<int64_t>& shape : shapes) tester.Input(IndexVector(dtype, shape));
    absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(n);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const std::vector<std::vector<int64_t>> expected = ReferenceOffsets(shapes, axis);
    for (int i = 0; i < n; ++i) ExpectSameBytes((*outputs)[i], IndexVector(dtype, expected[i]));
  }
}

TEST(ConcatOffsetOpTest, KnownValues) {
  OpTester tester("ConcatOffset");
  tester.Attr("N", int64_t{3})
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Vector<int32_t>({2, 2, 5, 7}))
      .Input(Tensor::Vector<int32_t>({2, 3, 5, 7}))
      .Input(Tensor::Vector<int32_t>({2, 5, 5, 7}));
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(3);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ExpectSameBytes((*outputs)[0], Tensor::Vector<int32_t>({0, 0, 0, 0}));
  ExpectSameBytes((*outputs)[1], Tensor::Vector<int32_t>({0, 2, 0, 0}));
  ExpectSameBytes((*outputs)[2], Tensor::Vector<int32_t>({0, 5, 0, 0}));
}

OpTester ConcatOffsetOf(const Tensor& concat_dim, const std::vector<Tensor>& shapes) {
  OpTester tester("ConcatOffset");
  tester.Attr("N", static_cast<int64_t>(shapes.size())).Input(concat_dim);
  for (const Tensor& shape : shapes) tester.Input(shape);
  return tester;
}

TEST(ConcatOffsetOpTest, RejectsBadArguments) {
  const Tensor a = Tensor::Vector<int32_t>({2, 3, 5});
  OpTester range = ConcatOffsetOf(Tensor::Scalar<int32_t>(3), {a, a});
  ExpectRunError(range, absl::StatusCode::kInvalidArgument, "Concat dim is out of range: 3 vs. 3");
  OpTester negative = ConcatOffsetOf(Tensor::Scalar<int32_t>(-4), {a, a});
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Concat dim is out of range: -4 vs. 3");
  OpTester vector_dim = ConcatOffsetOf(Tensor::Vector<int32_t>({0}), {a, a});
  ExpectRunError(vector_dim, absl::StatusCode::kInvalidArgument,
                 "Concat dim tensor should be a scalar integer, but got shape [1]");
  OpTester matrix = ConcatOffsetOf(Tensor::Scalar<int32_t>(0),
                                   {a, Tensor::FromVector<int32_t>(TensorShape{1, 3}, {2, 3, 5})});
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "input 1 should be a vector, but got shape [1,3]");
  OpTester length = ConcatOffsetOf(Tensor::Scalar<int32_t>(0), {a, Tensor::Vector<int32_t>({2, 3})});
  ExpectRunError(length, absl::StatusCode::kInvalidArgument,
                 "input 1 should contain 3 elements, but got 2");
  OpTester mismatch =
      ConcatOffsetOf(Tensor::Scalar<int32_t>(1), {a, Tensor::Vector<int32_t>({2, 7, 6})});
  ExpectRunError(mismatch, absl::StatusCode::kInvalidArgument,
                 "All dimensions except 1 must match. Input 1 has shape [2 7 6] and doesn't match "
                 "input 0 with shape [2 3 5].");
}

// Reference: the dimensions where an input, padded with leading ones, has size 1.
std::vector<int64_t> ReduceIndices(const std::vector<int64_t>& shape, size_t rank) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < rank; ++d) {
    const size_t lead = rank - shape.size();
    if (d < lead || shape[d - lead] == 1) out.push_back(static_cast<int64_t>(d));
  }
  return out;
}

void CheckGradientArgs(const std::vector<int64_t>& s0, const std::vector<int64_t>& s1,
                       DataType dtype) {
  SCOPED_TRACE(ShapeString(s0) + " and " + ShapeString(s1));
  OpTester tester("BroadcastGradientArgs");
  tester.Attr("T", dtype).Input(IndexVector(dtype, s0)).Input(IndexVector(dtype, s1));
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const size_t rank = std::max(s0.size(), s1.size());
  const std::vector<int64_t> r0 = ReduceIndices(s0, rank);
  const std::vector<int64_t> r1 = ReduceIndices(s1, rank);
  ExpectSameBytes((*outputs)[0], IndexVector(dtype, r0));
  ExpectSameBytes((*outputs)[1], IndexVector(dtype, r1));
}

TEST(BroadcastGradientArgsOpTest, ReductionIndices) {
  CheckGradientArgs({2, 3, 5}, {1}, TSR_DTYPE_INT32);     // r1 = [0, 1, 2]
  CheckGradientArgs({2, 3, 5}, {3, 1}, TSR_DTYPE_INT64);  // r1 = [0, 2]
  CheckGradientArgs({4, 1, 6}, {5, 1}, TSR_DTYPE_INT32);  // r0 = [1], r1 = [0, 2]
  CheckGradientArgs({2, 1}, {2, 1}, TSR_DTYPE_INT32);     // both reduce the unit dimension
  CheckGradientArgs({}, {}, TSR_DTYPE_INT64);
  CheckGradientArgs({}, {2, 2}, TSR_DTYPE_INT32);
  CheckGradientArgs({0, 3}, {1, 3}, TSR_DTYPE_INT32);
  CheckGradientArgs({1, 1, 1}, {1}, TSR_DTYPE_INT64);
}

TEST(BroadcastGradientArgsOpTest, RejectsIncompatibleShapes) {
  OpTester tester("BroadcastGradientArgs");
  tester.Input(Tensor::Vector<int32_t>({2, 3})).Input(Tensor::Vector<int32_t>({4}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "Incompatible shapes: [2,3] vs. [4]");
  OpTester matrix("BroadcastGradientArgs");
  matrix.Input(Make<int32_t>(Shape({1, 2}), {2, 3})).Input(Tensor::Vector<int32_t>({3}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument, "In[0] must be a vector.[1,2]");
}

}  // namespace
}  // namespace tessera::cpu::test
