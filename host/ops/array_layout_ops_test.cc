// Tests of the definitions and shape functions of SpaceToBatchND, BatchToSpaceND, SpaceToBatch,
// BatchToSpace, SpaceToDepth and DepthToSpace.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

constexpr char kFloat[] = R"(attr { key: "T" value { type: DT_FLOAT } })";

class ArrayLayoutOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }
  const tensorflow::OpDef::AttrDef* FindAttr(const std::string& op, const std::string& attr) {
    for (const auto& a : ops_->Find(op)->op_def.attr()) {
      if (a.name() == attr) return &a;
    }
    return nullptr;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(ArrayLayoutOpsTest, SpaceToBatchNdPadsAndDividesKnownDimensions) {
  Tensor block = Tensor::Vector<int32_t>({2, 3});
  Tensor paddings = Tensor::FromVector<int64_t>(TensorShape{2, 2}, {0, 1, 2, 1});
  auto out = InferShapes(*ops_, "SpaceToBatchND", kFloat,
                         {PartialShape({2, 5, 3, 7}), PartialShape({2}), PartialShape({2, 2})},
                         {nullptr, &block, &paddings});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({12, 3, 2, 7})));
  // Unknown block values: the rank only, the remaining dimensions kept.
  out = InferShapes(*ops_, "SpaceToBatchND", kFloat,
                    {PartialShape({2, 5, 3, 7}), PartialShape({2}), PartialShape({2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1, 7})));
  out = InferShapes(*ops_, "SpaceToBatchND", kFloat,
                    {PartialShape::Unknown(), PartialShape({2}), PartialShape({2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  EXPECT_EQ(FindAttr("SpaceToBatchND", "Tblock_shape")->default_value().type(),
            tensorflow::DT_INT32);
  EXPECT_EQ(FindAttr("SpaceToBatchND", "Tpaddings")->default_value().type(), tensorflow::DT_INT32);
}

TEST_F(ArrayLayoutOpsTest, SpaceToBatchNdRejectsBadArguments) {
  Tensor block = Tensor::Vector<int32_t>({2, 3});
  Tensor paddings = Tensor::FromVector<int32_t>(TensorShape{2, 2}, {0, 0, 0, 1});
  ExpectError(InferShapes(*ops_, "SpaceToBatchND", kFloat,
                          {PartialShape({2, 4, 3, 7}), PartialShape({2}), PartialShape({2, 2})},
                          {nullptr, &block, &paddings}),
              "padded_shape[1]=4 is not divisible by block_shape[1]=3");
  ExpectError(InferShapes(*ops_, "SpaceToBatchND", kFloat,
                          {PartialShape({2, 4}), PartialShape({2}), PartialShape({2, 2})}),
              "input rank should be >= 3 instead of 2");
  ExpectError(InferShapes(*ops_, "SpaceToBatchND", kFloat,
                          {PartialShape({2, 4, 3}), PartialShape({2}), PartialShape({3, 2})}),
              "dimensions must be equal, but are 2 and 3");
  Tensor zero = Tensor::Vector<int32_t>({2, 0});
  ExpectError(InferShapes(*ops_, "SpaceToBatchND", kFloat,
                          {PartialShape({2, 4, 3}), PartialShape({2}), PartialShape({2, 2})},
                          {nullptr, &zero, nullptr}),
              "block_shape must be positive, got 0 at index 1");
}

TEST_F(ArrayLayoutOpsTest, BatchToSpaceNdMultipliesAndCrops) {
  Tensor block = Tensor::Vector<int64_t>({2, 3});
  Tensor crops = Tensor::FromVector<int32_t>(TensorShape{2, 2}, {0, 1, 2, 1});
  auto out = InferShapes(*ops_, "BatchToSpaceND", kFloat,
                         {PartialShape({12, 3, 2, 7}), PartialShape({2}), PartialShape({2, 2})},
                         {nullptr, &block, &crops});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 3, 7})));
  ExpectError(InferShapes(*ops_, "BatchToSpaceND", kFloat,
                          {PartialShape({10, 3, 2, 7}), PartialShape({2}), PartialShape({2, 2})},
                          {nullptr, &block, &crops}),
              "batch size 10 is not divisible by the product of block sizes 6");
  Tensor big = Tensor::FromVector<int32_t>(TensorShape{2, 2}, {0, 0, 4, 3});
  ExpectError(InferShapes(*ops_, "BatchToSpaceND", kFloat,
                          {PartialShape({12, 3, 2, 7}), PartialShape({2}), PartialShape({2, 2})},
                          {nullptr, &block, &big}),
              "crops must not exceed the block-expanded size 6 of dimension 2");
  EXPECT_EQ(FindAttr("BatchToSpaceND", "Tcrops")->default_value().type(), tensorflow::DT_INT32);
}

TEST_F(ArrayLayoutOpsTest, FirstVersionsUseOneBlockSize) {
  constexpr char kAttrs[] = R"pb(attr {
                                   key: "T"
                                   value { type: DT_FLOAT }
                                 }
                                 attr {
                                   key: "block_size"
                                   value { i: 2 }
                                 })pb";
  Tensor paddings = Tensor::FromVector<int32_t>(TensorShape{2, 2}, {1, 1, 0, 0});
  auto out = InferShapes(*ops_, "SpaceToBatch", kAttrs,
                         {PartialShape({1, 2, 4, 3}), PartialShape({2, 2})}, {nullptr, &paddings});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 2, 2, 3})));
  out = InferShapes(*ops_, "BatchToSpace", kAttrs,
                    {PartialShape({4, 2, 2, 3}), PartialShape({2, 2})}, {nullptr, &paddings});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 2, 4, 3})));
  ExpectError(
      InferShapes(*ops_, "SpaceToBatch", kAttrs, {PartialShape({1, 2, 4}), PartialShape({2, 2})}),
      "must be rank 4");
  EXPECT_EQ(FindAttr("SpaceToBatch", "block_size")->minimum(), 2);
  EXPECT_EQ(FindAttr("BatchToSpace", "Tidx")->default_value().type(), tensorflow::DT_INT32);
}

TEST_F(ArrayLayoutOpsTest, SpaceToDepthAndDepthToSpaceMoveBlocks) {
  constexpr char kNhwc[] = R"pb(attr {
                                  key: "T"
                                  value { type: DT_FLOAT }
                                }
                                attr {
                                  key: "block_size"
                                  value { i: 2 }
                                })pb";
  constexpr char kNchw[] = R"pb(attr {
                                  key: "T"
                                  value { type: DT_FLOAT }
                                }
                                attr {
                                  key: "block_size"
                                  value { i: 2 }
                                }
                                attr {
                                  key: "data_format"
                                  value { s: "NCHW" }
                                })pb";
  auto out = InferShapes(*ops_, "SpaceToDepth", kNhwc, {PartialShape({1, 4, 6, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 2, 3, 12})));
  out = InferShapes(*ops_, "SpaceToDepth", kNchw, {PartialShape({1, 3, 4, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 12, 2, -1})));
  out = InferShapes(*ops_, "DepthToSpace", kNhwc, {PartialShape({1, 2, 3, 12})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 4, 6, 3})));
  out = InferShapes(*ops_, "DepthToSpace", kNchw, {PartialShape({-1, 8, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 2, 4, 6})));
  ExpectError(InferShapes(*ops_, "DepthToSpace", kNhwc, {PartialShape({1, 2, 3, 6})}),
              "Dimension size must be evenly divisible by 4 but is 6");
  ExpectError(InferShapes(*ops_, "SpaceToDepth", kNhwc, {PartialShape({1, 3, 4, 6})}),
              "Dimension size must be evenly divisible by 2 but is 3");
  ExpectError(InferShapes(*ops_, "SpaceToDepth", kNhwc, {PartialShape({3, 4, 6})}),
              "must be rank 4");
  const tensorflow::OpDef::AttrDef* format = FindAttr("DepthToSpace", "data_format");
  EXPECT_EQ(format->default_value().s(), "NHWC");
  EXPECT_EQ(FindAttr("SpaceToDepth", "block_size")->minimum(), 2);
}

}  // namespace
}  // namespace tessera
