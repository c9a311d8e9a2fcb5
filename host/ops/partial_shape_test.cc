// Tests of PartialShape: printing, merging, broadcasting, conversions.
#include "host/ops/partial_shape.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(PartialShapeTest, PrintsKnownUnknownAndScalar) {
  EXPECT_EQ(PartialShape({2, -1, 3}).ToString(), "[2,?,3]");
  EXPECT_EQ(PartialShape::Scalar().ToString(), "[]");
  EXPECT_EQ(PartialShape::Unknown().ToString(), "<unknown>");
  EXPECT_EQ(PartialShape::UnknownOfRank(2).ToString(), "[?,?]");
}

TEST(PartialShapeTest, KnowsWhenFullyDefined) {
  EXPECT_TRUE(PartialShape({2, 3}).IsFullyDefined());
  EXPECT_EQ(PartialShape({2, 3}).num_elements(), 6);
  EXPECT_FALSE(PartialShape({2, -1}).IsFullyDefined());
  EXPECT_EQ(PartialShape({2, -1}).num_elements(), -1);
  EXPECT_EQ(PartialShape::Unknown().rank(), -1);
  absl::StatusOr<TensorShape> shape = PartialShape({4, 5}).ToTensorShape();
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, TensorShape({4, 5}));
  EXPECT_EQ(PartialShape({-1}).ToTensorShape().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(PartialShape({-1}).ToTensorShape().status().message()),
              HasSubstr("shape [?] is not fully defined"));
}

TEST(PartialShapeTest, MergesCompatibleShapes) {
  absl::StatusOr<PartialShape> merged = PartialShape::Merge({2, -1}, {-1, 3});
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(*merged, PartialShape({2, 3}));
  EXPECT_EQ(*PartialShape::Merge(PartialShape::Unknown(), {1}), PartialShape({1}));
  EXPECT_TRUE(PartialShape({2, -1}).IsCompatibleWith({2, 7}));
  EXPECT_FALSE(PartialShape({2}).IsCompatibleWith({3}));
}

TEST(PartialShapeTest, MergeErrorsNameBothShapes) {
  absl::StatusOr<PartialShape> merged = PartialShape::Merge({2, 3}, {2, 4});
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(merged.status().message()),
              HasSubstr("dimension 1 in both shapes must be equal, but are 3 and 4 (shapes [2,3] "
                        "and [2,4])"));
  merged = PartialShape::Merge({2}, {2, 4});
  EXPECT_THAT(std::string(merged.status().message()),
              HasSubstr("shapes must be equal rank, but are 1 and 2"));
}

TEST(PartialShapeTest, BroadcastsLikeTensorFlow) {
  EXPECT_EQ(*PartialShape::Broadcast({2, 1, 3}, {4, 1}), PartialShape({2, 4, 3}));
  EXPECT_EQ(*PartialShape::Broadcast(PartialShape::Scalar(), {5}), PartialShape({5}));
  EXPECT_EQ(*PartialShape::Broadcast({-1, 3}, {1, 3}), PartialShape({-1, 3}));
  EXPECT_EQ(*PartialShape::Broadcast({-1}, {4}), PartialShape({4}));
  EXPECT_EQ(*PartialShape::Broadcast({-1}, {-1}), PartialShape({-1}));
  EXPECT_EQ(*PartialShape::Broadcast({0}, {1}), PartialShape({0}));
  EXPECT_FALSE(PartialShape::Broadcast(PartialShape::Unknown(), {2}).value().rank_known());
}

TEST(PartialShapeTest, BroadcastErrorNamesBothShapes) {
  absl::StatusOr<PartialShape> out = PartialShape::Broadcast({2, 3}, {4, 3});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("incompatible shapes for broadcasting: [2,3] and [4,3]"));
}

TEST(PartialShapeTest, ConvertsFromAndToProto) {
  tensorflow::TensorShapeProto proto;
  PartialShape({3, -1}).ToProto(&proto);
  EXPECT_EQ(proto.dim_size(), 2);
  EXPECT_EQ(*PartialShape::FromProto(proto), PartialShape({3, -1}));
  PartialShape::Unknown().ToProto(&proto);
  EXPECT_TRUE(proto.unknown_rank());
  EXPECT_FALSE(PartialShape::FromProto(proto)->rank_known());
}

TEST(PartialShapeTest, RejectsInvalidProtos) {
  tensorflow::TensorShapeProto proto;
  proto.add_dim()->set_size(-2);
  EXPECT_THAT(std::string(PartialShape::FromProto(proto).status().message()),
              HasSubstr("shape has dimension -2, expected a size >= 0 or -1 for unknown"));
  proto.Clear();
  proto.set_unknown_rank(true);
  proto.add_dim()->set_size(1);
  EXPECT_THAT(std::string(PartialShape::FromProto(proto).status().message()),
              HasSubstr("shape has unknown_rank set and 1 dimensions"));
  proto.Clear();
  for (int i = 0; i < 9; ++i) proto.add_dim()->set_size(1);
  EXPECT_THAT(std::string(PartialShape::FromProto(proto).status().message()),
              HasSubstr("shape has rank 9, above the maximum 8"));
}

TEST(PartialShapeTest, SubshapeAndConcatenate) {
  PartialShape s({1, 2, 3, 4});
  EXPECT_EQ(s.Subshape(1, 3), PartialShape({2, 3}));
  EXPECT_EQ(s.Subshape(0, -2), PartialShape({1, 2}));
  EXPECT_EQ(s.Subshape(1, 3).Concatenate({9}), PartialShape({2, 3, 9}));
  EXPECT_FALSE(PartialShape::Unknown().Concatenate({1}).rank_known());
}

}  // namespace
}  // namespace tessera
