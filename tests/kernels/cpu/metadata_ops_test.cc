// Size, Rank and BroadcastGradientArgs against reference rules, and their errors.
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
