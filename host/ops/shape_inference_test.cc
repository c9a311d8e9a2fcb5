// Tests of ShapeInferenceContext's helpers and their errors.
#include "host/ops/shape_inference.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

class ShapeInferenceContextTest : public ::testing::Test {
 protected:
  ShapeInferenceContext Make(std::vector<PartialShape> shapes,
                             std::vector<const Tensor*> tensors = {}) {
    node_.set_name("node");
    node_.set_op("Op");
    std::vector<DataType> types(shapes.size(), TSR_DTYPE_INT32);
    return ShapeInferenceContext(node_, op_def_, types, {TSR_DTYPE_FLOAT}, std::move(shapes),
                                 std::move(tensors));
  }

  void ExpectInvalid(const absl::Status& status, const std::string& message) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(message));
  }

  tensorflow::NodeDef node_;
  tensorflow::OpDef op_def_;
};

TEST_F(ShapeInferenceContextTest, OutputsStartUnknown) {
  ShapeInferenceContext ctx = Make({PartialShape({1})});
  EXPECT_EQ(ctx.num_outputs(), 1);
  EXPECT_FALSE(ctx.output(0).rank_known());
  EXPECT_EQ(ctx.input_tensor(0), nullptr);
  EXPECT_EQ(ctx.input_tensor(5), nullptr);
  ctx.set_output(0, PartialShape({3}));
  EXPECT_EQ(ctx.output(0), PartialShape({3}));
}

TEST_F(ShapeInferenceContextTest, RankChecks) {
  ShapeInferenceContext ctx = Make({PartialShape({1, 2}), PartialShape::Unknown()});
  EXPECT_EQ(*ctx.WithRank(1, 3), PartialShape({-1, -1, -1}));
  ExpectInvalid(ctx.WithRank(0, 1).status(),
                "Op: shape must be rank 1 but is rank 2 (input 0) for 'node' with input "
                "shapes: [1,2], <unknown>");
  ExpectInvalid(ctx.WithRankAtLeast(0, 3).status(), "shape must be at least rank 3 but is rank 2");
  ExpectInvalid(ctx.WithRankAtMost(0, 1).status(), "shape must be at most rank 1 but is rank 2");
  ExpectInvalid(ctx.MergeDims(2, 3).status(), "dimensions must be equal, but are 2 and 3");
  ExpectInvalid(ctx.MergeShapes(PartialShape({1}), PartialShape({2})).status(),
                "Op: dimension 0 in both shapes must be equal");
  EXPECT_EQ(*ctx.MergeDims(-1, 3), 3);
}

TEST_F(ShapeInferenceContextTest, ShapeTensors) {
  Tensor matrix = Tensor::FromVector<int32_t>(TensorShape({1, 1}), {2});
  Tensor too_long = Tensor::Vector<int64_t>({1, 1, 1, 1, 1, 1, 1, 1, 1});
  ShapeInferenceContext ctx =
      Make({PartialShape({1, 1}), PartialShape({9}), PartialShape({12}), PartialShape({2})},
           {&matrix, &too_long, nullptr, nullptr});
  ExpectInvalid(ctx.MakeShapeFromShapeTensor(0).status(),
                "shape must be at most rank 1 but is rank 2 (input 0)");
  ExpectInvalid(ctx.MakeShapeFromShapeTensor(1).status(),
                "shape tensor (input 1) has 9 dimensions, above the maximum 8");
  ExpectInvalid(ctx.MakeShapeFromShapeTensor(2).status(),
                "shape tensor (input 2) has 12 elements, above the maximum rank 8");
  EXPECT_EQ(*ctx.MakeShapeFromShapeTensor(3), PartialShape({-1, -1}));

  Tensor scalar = Tensor::Scalar<int32_t>(4);
  ShapeInferenceContext scalar_ctx = Make({PartialShape::Scalar()}, {&scalar});
  ExpectInvalid(scalar_ctx.MakeShapeFromShapeTensor(0).status(),
                "shape tensor (input 0) must be a vector, got shape []");
}

TEST_F(ShapeInferenceContextTest, ErrorWithoutInputsOmitsShapes) {
  ShapeInferenceContext ctx = Make({});
  EXPECT_EQ(ctx.Error("bad").message(), "Op: bad for 'node'");
}

}  // namespace
}  // namespace tessera
