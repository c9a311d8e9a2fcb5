// Tests of the definitions and shape functions of StridedSliceGrad, MirrorPadGrad,
// UnsortedSegmentSum and InvertPermutation.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

class ArrayGradOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

constexpr char kStridedSliceGradAttrs[] = R"pb(attr {
                                                 key: "T"
                                                 value { type: DT_FLOAT }
                                               }
                                               attr {
                                                 key: "Index"
                                                 value { type: DT_INT32 }
                                               })pb";

TEST_F(ArrayGradOpsTest, StridedSliceGradTakesTheShapeInput) {
  const OpRegistration* registration = ops_->Find("StridedSliceGrad");
  ASSERT_NE(registration, nullptr);
  EXPECT_EQ(registration->op_def.input_arg_size(), 5);
  Tensor shape = Tensor::Vector<int32_t>({4, 1, 6});
  const std::vector<PartialShape> inputs = {PartialShape({3}), PartialShape({2}), PartialShape({2}),
                                            PartialShape({2}), PartialShape({2, 3})};
  auto out = InferShapes(*ops_, "StridedSliceGrad", kStridedSliceGradAttrs, inputs, {&shape});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 1, 6})));
  out = InferShapes(*ops_, "StridedSliceGrad", kStridedSliceGradAttrs, inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
}

TEST_F(ArrayGradOpsTest, StridedSliceGradDefaultsItsMasksToZero) {
  const OpRegistration* registration = ops_->Find("StridedSliceGrad");
  ASSERT_NE(registration, nullptr);
  int masks = 0;
  for (const auto& attr : registration->op_def.attr()) {
    if (attr.type() != "int") continue;
    ++masks;
    EXPECT_EQ(attr.default_value().i(), 0) << attr.name();
  }
  EXPECT_EQ(masks, 5);
}

constexpr char kMirrorPadGradAttrs[] = R"pb(attr {
                                              key: "T"
                                              value { type: DT_FLOAT }
                                            }
                                            attr {
                                              key: "mode"
                                              value { s: "REFLECT" }
                                            })pb";

TEST_F(ArrayGradOpsTest, MirrorPadGradSubtractsThePaddings) {
  Tensor paddings = Tensor::FromVector<int64_t>(TensorShape{3, 2}, {1, 10, 2, 20, 3, 30});
  auto out =
      InferShapes(*ops_, "MirrorPadGrad", kMirrorPadGradAttrs,
                  {PartialShape({111, -1, 333}), PartialShape({3, 2})}, {nullptr, &paddings});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({100, -1, 300})));
  out = InferShapes(*ops_, "MirrorPadGrad", kMirrorPadGradAttrs,
                    {PartialShape::Unknown(), PartialShape({3, 2})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
  out = InferShapes(*ops_, "MirrorPadGrad", kMirrorPadGradAttrs,
                    {PartialShape({4, 5}), PartialShape({-1, 2})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  // Tpaddings defaults to int32.
  EXPECT_EQ(ops_->Find("MirrorPadGrad")->op_def.attr(1).default_value().type(),
            tensorflow::DT_INT32);
}

TEST_F(ArrayGradOpsTest, MirrorPadGradRejectsBadPaddings) {
  ExpectError(InferShapes(*ops_, "MirrorPadGrad", kMirrorPadGradAttrs,
                          {PartialShape({4, 5}), PartialShape({3, 2})}),
              "must be rank 3 but is rank 2");
  ExpectError(InferShapes(*ops_, "MirrorPadGrad", kMirrorPadGradAttrs,
                          {PartialShape({4, 5}), PartialShape({2, 3})}),
              "dimensions must be equal, but are 3 and 2");
  Tensor negative = Tensor::FromVector<int32_t>(TensorShape{1, 2}, {-1, 0});
  ExpectError(InferShapes(*ops_, "MirrorPadGrad",
                          std::string(kMirrorPadGradAttrs) + R"pb(attr {
                                                                    key: "Tpaddings"
                                                                    value { type: DT_INT32 }
                                                                  })pb",
                          {PartialShape({4}), PartialShape({1, 2})}, {nullptr, &negative}),
              "Paddings must be non-negative");
  Tensor large = Tensor::FromVector<int32_t>(TensorShape{1, 2}, {3, 2});
  ExpectError(InferShapes(*ops_, "MirrorPadGrad", kMirrorPadGradAttrs,
                          {PartialShape({4}), PartialShape({1, 2})}, {nullptr, &large}),
              "Negative dimension size caused by subtracting 5 from 4");
  ExpectError(InferShapes(*ops_, "MirrorPadGrad",
                          R"pb(attr {
                                 key: "T"
                                 value { type: DT_FLOAT }
                               }
                               attr {
                                 key: "mode"
                                 value { s: "EDGE" }
                               })pb",
                          {PartialShape({4}), PartialShape({1, 2})}),
              "EDGE");
}

constexpr char kSegmentSumAttrs[] = R"pb(attr {
                                           key: "T"
                                           value { type: DT_FLOAT }
                                         }
                                         attr {
                                           key: "Tindices"
                                           value { type: DT_INT32 }
                                         })pb";

TEST_F(ArrayGradOpsTest, UnsortedSegmentSumReplacesTheIdDimensions) {
  Tensor rows = Tensor::Scalar<int32_t>(7);
  auto out = InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                         {PartialShape({2, 3, 4, 5}), PartialShape({2, -1}), PartialShape({})},
                         {nullptr, nullptr, &rows});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({7, 4, 5})));
  out = InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                    {PartialShape::Unknown(), PartialShape({3}), PartialShape({})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  out = InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                    {PartialShape({3, 2}), PartialShape({3}), PartialShape({})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 2})));
  out = InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                    {PartialShape({3, 2}), PartialShape::Unknown(), PartialShape({})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  // Tnumsegments defaults to int32; T is a number type.
  EXPECT_EQ(ops_->Find("UnsortedSegmentSum")->op_def.attr(2).default_value().type(),
            tensorflow::DT_INT32);
}

TEST_F(ArrayGradOpsTest, UnsortedSegmentSumRejectsMismatchedShapes) {
  ExpectError(InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                          {PartialShape({3, 2}), PartialShape({4}), PartialShape({})}),
              "dimensions must be equal, but are 3 and 4");
  ExpectError(InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                          {PartialShape({3}), PartialShape({3, 1}), PartialShape({})}),
              "must be at least rank 2");
  ExpectError(InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                          {PartialShape({3}), PartialShape({3}), PartialShape({1})}),
              "must be rank 0");
  Tensor negative = Tensor::Scalar<int32_t>(-2);
  ExpectError(InferShapes(*ops_, "UnsortedSegmentSum", kSegmentSumAttrs,
                          {PartialShape({3}), PartialShape({3}), PartialShape({})},
                          {nullptr, nullptr, &negative}),
              "given by scalar input 2, must be non-negative but is -2");
  ExpectError(InferShapes(*ops_, "UnsortedSegmentSum",
                          R"pb(attr {
                                 key: "T"
                                 value { type: DT_BOOL }
                               }
                               attr {
                                 key: "Tindices"
                                 value { type: DT_INT32 }
                               })pb",
                          {PartialShape({3}), PartialShape({3}), PartialShape({})}),
              "bool");
}

TEST_F(ArrayGradOpsTest, InvertPermutationKeepsItsVector) {
  auto out = InferShapes(*ops_, "InvertPermutation", "", {PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({5})));
  out = InferShapes(*ops_, "InvertPermutation", "", {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1})));
  ExpectError(InferShapes(*ops_, "InvertPermutation", "", {PartialShape({2, 2})}),
              "must be rank 1 but is rank 2");
  ExpectError(InferShapes(*ops_, "InvertPermutation", R"pb(attr {
                                                             key: "T"
                                                             value { type: DT_FLOAT }
                                                           })pb",
                          {PartialShape({2})}),
              "float");
}

TEST_F(ArrayGradOpsTest, SegmentReductionsShapes) {
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax"}) {
    SCOPED_TRACE(op);
    auto out = InferShapes(*ops_, op, kSegmentSumAttrs, {PartialShape({5, 3}), PartialShape({5})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3})));
    ExpectError(InferShapes(*ops_, op, kSegmentSumAttrs, {PartialShape::Scalar(), PartialShape({5})}),
                "must be at least rank 1");
    ExpectError(InferShapes(*ops_, op, kSegmentSumAttrs, {PartialShape({5}), PartialShape({5, 1})}),
                "must be rank 1");
  }
  Tensor four = Tensor::Scalar<int32_t>(4);
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    SCOPED_TRACE(op);
    auto out = InferShapes(*ops_, op, kSegmentSumAttrs,
                           {PartialShape({5, 3}), PartialShape({5}), PartialShape::Scalar()},
                           {nullptr, nullptr, &four});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({4, 3})));
  }
  // Max and min take the real types; sums, means and products every number type.
  EXPECT_LT(ops_->Find("SegmentMax")->op_def.attr(0).allowed_values().list().type_size(),
            ops_->Find("SegmentSum")->op_def.attr(0).allowed_values().list().type_size());
}

}  // namespace
}  // namespace tessera
