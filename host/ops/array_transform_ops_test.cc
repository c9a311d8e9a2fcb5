// Tests of the definitions and shape functions of Transpose, ReverseV2, Tile, BroadcastTo, Pad,
// PadV2, MirrorPad, GatherV2 and OneHot.
#include "absl/strings/str_cat.h"
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

class ArrayTransformOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }
  // The default of attr `attr` of `op`.
  tensorflow::DataType DefaultType(const std::string& op, const std::string& attr) {
    for (const auto& a : ops_->Find(op)->op_def.attr()) {
      if (a.name() == attr) return a.default_value().type();
    }
    return tensorflow::DT_INVALID;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(ArrayTransformOpsTest, TransposePermutesKnownDimensions) {
  Tensor perm = Tensor::Vector<int32_t>({2, 0, -2});
  auto out = InferShapes(*ops_, "Transpose", kFloat, {PartialShape({4, -1, 6}), PartialShape({3})},
                         {nullptr, &perm});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({6, 4, -1})));
  out = InferShapes(*ops_, "Transpose", kFloat, {PartialShape::Unknown(), PartialShape({3})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
  // One permutation entry fits a scalar and a vector alike.
  out = InferShapes(*ops_, "Transpose", kFloat, {PartialShape::Unknown(), PartialShape({1})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE((*out)[0].rank_known());
  Tensor bad = Tensor::Vector<int32_t>({0, 3});
  ExpectError(InferShapes(*ops_, "Transpose", kFloat, {PartialShape({2, 3}), PartialShape({2})},
                          {nullptr, &bad}),
              "Transpose: perm dim 3 is out of range of input rank 2");
  ExpectError(InferShapes(*ops_, "Transpose", kFloat, {PartialShape({2, 3}), PartialShape({3})}),
              "perm has 3 entries, but the input has rank 2");
  EXPECT_EQ(DefaultType("Transpose", "Tperm"), tensorflow::DT_INT32);
}

TEST_F(ArrayTransformOpsTest, ReverseV2ChecksAxes) {
  Tensor axes = Tensor::Vector<int64_t>({-1, 0});
  constexpr char kAttrs[] = R"(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "Tidx" value { type: DT_INT64 } })";
  auto out = InferShapes(*ops_, "ReverseV2", kAttrs, {PartialShape({2, -1}), PartialShape({2})},
                         {nullptr, &axes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1})));
  Tensor far = Tensor::Vector<int64_t>({2});
  ExpectError(InferShapes(*ops_, "ReverseV2", kAttrs, {PartialShape({2, 3}), PartialShape({1})},
                          {nullptr, &far}),
              "'axis'[0] = 2 is out of valid range [0, 1]");
  Tensor twice = Tensor::Vector<int64_t>({1, -1});
  ExpectError(InferShapes(*ops_, "ReverseV2", kAttrs, {PartialShape({2, 3}), PartialShape({2})},
                          {nullptr, &twice}),
              "axis 1 specified more than once.");
  ExpectError(InferShapes(*ops_, "ReverseV2", R"(attr { key: "T" value { type: DT_UINT32 } })",
                          {PartialShape({2}), PartialShape({1})}),
              "uint32");
}

TEST_F(ArrayTransformOpsTest, TileMultipliesDimensions) {
  Tensor multiples = Tensor::Vector<int32_t>({2, 1, 3});
  auto out = InferShapes(*ops_, "Tile", kFloat, {PartialShape({4, -1, 0}), PartialShape({3})},
                         {nullptr, &multiples});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({8, -1, 0})));
  out = InferShapes(*ops_, "Tile", kFloat, {PartialShape({4, 5}), PartialShape({-1})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
  ExpectError(InferShapes(*ops_, "Tile", kFloat, {PartialShape({4, 5}), PartialShape({3})}),
              "Expected multiples argument to be a vector of length 2 but got length 3");
  EXPECT_EQ(DefaultType("Tile", "Tmultiples"), tensorflow::DT_INT32);
}

TEST_F(ArrayTransformOpsTest, BroadcastToMergesTrailingDimensions) {
  Tensor shape = Tensor::Vector<int32_t>({4, -1, 3});
  auto out = InferShapes(*ops_, "BroadcastTo", kFloat, {PartialShape({5, 1}), PartialShape({3})},
                         {nullptr, &shape});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 5, 3})));
  ExpectError(InferShapes(*ops_, "BroadcastTo", kFloat,
                          {PartialShape({1, 2, 3, 4}), PartialShape({3})}, {nullptr, &shape}),
              "Rank of input (4) must be no greater than rank of output shape (3).");
  ExpectError(InferShapes(*ops_, "BroadcastTo", kFloat, {PartialShape({2}), PartialShape({3})},
                          {nullptr, &shape}),
              "dimensions must be equal, but are 2 and 3");
}

TEST_F(ArrayTransformOpsTest, PadFamilyAddsPaddings) {
  Tensor paddings = Tensor::FromVector<int64_t>(TensorShape{2, 2}, {1, 2, 0, 3});
  constexpr char kInt64Paddings[] = R"(attr { key: "T" value { type: DT_FLOAT } }
                                       attr { key: "Tpaddings" value { type: DT_INT64 } })";
  for (const char* op : {"Pad", "PadV2", "MirrorPad"}) {
    const std::string attrs = absl::StrCat(
        kInt64Paddings,
        std::string(op) == "MirrorPad" ? R"( attr { key: "mode" value { s: "REFLECT" } })" : "");
    std::vector<PartialShape> shapes = {PartialShape({4, -1}), PartialShape({2, 2})};
    std::vector<const Tensor*> values = {nullptr, &paddings};
    if (std::string(op) == "PadV2") {
      shapes.push_back(PartialShape::Scalar());
      values.push_back(nullptr);
    }
    auto out = InferShapes(*ops_, op, attrs, shapes, values);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({7, -1})));
    values[1] = nullptr;
    out = InferShapes(*ops_, op, attrs, shapes, values);
    ASSERT_TRUE(out.ok());
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
  }
  Tensor negative = Tensor::FromVector<int32_t>(TensorShape{1, 2}, {-1, 0});
  ExpectError(InferShapes(*ops_, "Pad", kFloat, {PartialShape({4}), PartialShape({1, 2})},
                          {nullptr, &negative}),
              "Pad: Paddings must be non-negative");
  ExpectError(InferShapes(*ops_, "Pad", kFloat, {PartialShape({4}), PartialShape({1, 3})}),
              "dimensions must be equal, but are 3 and 2");
  ExpectError(InferShapes(*ops_, "Pad", kFloat, {PartialShape({4}), PartialShape({2, 2})}),
              "The first dimension of paddings must be the rank of inputs: 2 vs. 1");
  ExpectError(InferShapes(*ops_, "MirrorPad", R"(attr { key: "T" value { type: DT_FLOAT } }
                                                 attr { key: "mode" value { s: "EDGE" } })",
                          {PartialShape({4}), PartialShape({1, 2})}),
              "EDGE");
  EXPECT_EQ(DefaultType("Pad", "Tpaddings"), tensorflow::DT_INT32);
}

constexpr char kGatherAttrs[] = R"(attr { key: "Tparams" value { type: DT_FLOAT } }
                                   attr { key: "Tindices" value { type: DT_INT32 } }
                                   attr { key: "Taxis" value { type: DT_INT32 } })";

TEST_F(ArrayTransformOpsTest, GatherV2ReplacesTheAxis) {
  Tensor axis = Tensor::Scalar<int32_t>(-2);
  auto out = InferShapes(*ops_, "GatherV2", kGatherAttrs,
                         {PartialShape({4, 5, 6}), PartialShape({2, 3}), PartialShape::Scalar()},
                         {nullptr, nullptr, &axis});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 2, 3, 6})));
  const std::string batched =
      absl::StrCat(kGatherAttrs, R"( attr { key: "batch_dims" value { i: 1 } })");
  Tensor one = Tensor::Scalar<int32_t>(1);
  out = InferShapes(*ops_, "GatherV2", batched,
                    {PartialShape({-1, 5, 6}), PartialShape({4, 3}), PartialShape::Scalar()},
                    {nullptr, nullptr, &one});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 3, 6})));
  out = InferShapes(*ops_, "GatherV2", kGatherAttrs,
                    {PartialShape({4, 5}), PartialShape({2, 3}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
  Tensor zero = Tensor::Scalar<int32_t>(0);
  ExpectError(InferShapes(*ops_, "GatherV2", batched,
                          {PartialShape({4, 5}), PartialShape({4, 3}), PartialShape::Scalar()},
                          {nullptr, nullptr, &zero}),
              "batch_dims (1) must be less than or equal to axis (0).");
  ExpectError(InferShapes(*ops_, "GatherV2", batched,
                          {PartialShape({4, 5}), PartialShape({3, 3}), PartialShape::Scalar()},
                          {nullptr, nullptr, &one}),
              "dimensions must be equal, but are 4 and 3");
  ExpectError(InferShapes(*ops_, "GatherV2", batched,
                          {PartialShape({4}), PartialShape({4, 3}), PartialShape::Scalar()},
                          {nullptr, nullptr, &zero}),
              "batch_dims (1) must be less than rank(params) (1).");
  // An axis far beyond any rank is refused by the rank check, never cast or negated past int.
  for (int32_t huge : {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}) {
    Tensor huge_axis = Tensor::Scalar<int32_t>(huge);
    ExpectError(InferShapes(*ops_, "GatherV2", kGatherAttrs,
                            {PartialShape({4, 5}), PartialShape({3}), PartialShape::Scalar()},
                            {nullptr, nullptr, &huge_axis}),
                "shape must be at least rank 104857");
  }
  Tensor far = Tensor::Scalar<int32_t>(2);
  ExpectError(InferShapes(*ops_, "GatherV2", kGatherAttrs,
                          {PartialShape({4, 5}), PartialShape({3}), PartialShape::Scalar()},
                          {nullptr, nullptr, &far}),
              "shape must be at least rank 3 but is rank 2 (input 0)");
  EXPECT_FALSE(ops_->Find("GatherV2")->op_def.attr(1).has_default_value());
}

constexpr char kOneHotAttrs[] = R"(attr { key: "T" value { type: DT_FLOAT } })";

TEST_F(ArrayTransformOpsTest, OneHotInsertsTheDepth) {
  Tensor depth = Tensor::Scalar<int32_t>(10);
  const std::vector<PartialShape> shapes = {PartialShape({2, 3}), PartialShape::Scalar(),
                                            PartialShape::Scalar(), PartialShape::Scalar()};
  auto out = InferShapes(*ops_, "OneHot", kOneHotAttrs, shapes, {nullptr, &depth});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 10})));
  out = InferShapes(*ops_, "OneHot",
                    absl::StrCat(kOneHotAttrs, R"( attr { key: "axis" value { i: 0 } })"), shapes);
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 2, 3})));
  ExpectError(
      InferShapes(*ops_, "OneHot",
                  absl::StrCat(kOneHotAttrs, R"( attr { key: "axis" value { i: -2 } })"), shapes),
      "axis must be >= -1");
  ExpectError(
      InferShapes(*ops_, "OneHot",
                  absl::StrCat(kOneHotAttrs, R"( attr { key: "axis" value { i: 3 } })"), shapes),
      "Expected axis to be -1 or between [0, 3).  But received: 3");
  Tensor negative = Tensor::Scalar<int32_t>(-3);
  ExpectError(InferShapes(*ops_, "OneHot", kOneHotAttrs, shapes, {nullptr, &negative}),
              "depth must be non-negative, got: -3");
  const tensorflow::OpDef& def = ops_->Find("OneHot")->op_def;
  EXPECT_EQ(DefaultType("OneHot", "TI"), tensorflow::DT_INT64);
  EXPECT_EQ(def.attr(0).name(), "axis");
  EXPECT_EQ(def.attr(0).default_value().i(), -1);
}

TEST_F(ArrayTransformOpsTest, ReverseSequenceMergesTheBatchDimension) {
  constexpr char kAttrs[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                 attr { key: "seq_dim" value { i: 1 } }
                                 attr { key: "batch_dim" value { i: 2 } })pb";
  auto out =
      InferShapes(*ops_, "ReverseSequence", kAttrs, {PartialShape({3, 4, -1}), PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, 4, 5})));
  out = InferShapes(*ops_, "ReverseSequence", kAttrs, {PartialShape::Unknown(), PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  const tensorflow::OpDef& def = ops_->Find("ReverseSequence")->op_def;
  EXPECT_EQ(def.attr(0).name(), "seq_dim");
  EXPECT_FALSE(def.attr(0).has_default_value());
  EXPECT_EQ(def.attr(1).default_value().i(), 0);
  EXPECT_EQ(def.attr(3).name(), "Tlen");
  EXPECT_EQ(def.attr(3).default_value().type(), tensorflow::DT_INT64);
}

TEST_F(ArrayTransformOpsTest, ReverseSequenceRejectsBadDimensions) {
  constexpr char kAttrs[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                 attr { key: "seq_dim" value { i: 1 } }
                                 attr { key: "batch_dim" value { i: 0 } })pb";
  ExpectError(
      InferShapes(*ops_, "ReverseSequence", kAttrs, {PartialShape({3, 4}), PartialShape({4})}),
      "dimensions must be equal, but are 3 and 4");
  ExpectError(
      InferShapes(*ops_, "ReverseSequence", kAttrs, {PartialShape({3, 4}), PartialShape({3, 1})}),
      "must be rank 1");
  ExpectError(InferShapes(*ops_, "ReverseSequence",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "seq_dim" value { i: 2 } })pb",
                          {PartialShape({3, 4}), PartialShape({3})}),
              "seq_dim must be < input rank: 2 vs. 2");
  ExpectError(InferShapes(*ops_, "ReverseSequence",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "seq_dim" value { i: 0 } }
                               attr { key: "batch_dim" value { i: 3 } })pb",
                          {PartialShape({3, 4}), PartialShape({3})}),
              "batch_dim must be < input rank: 3 vs. 2");
}

TEST_F(ArrayTransformOpsTest, ReverseNeedsOneBoolPerDimension) {
  auto out = InferShapes(*ops_, "Reverse", kFloat, {PartialShape({2, -1}), PartialShape({2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1})));
  out = InferShapes(*ops_, "Reverse", kFloat, {PartialShape::Unknown(), PartialShape({3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
  ExpectError(InferShapes(*ops_, "Reverse", kFloat, {PartialShape({2, 3}), PartialShape({3})}),
              "must be rank 3 but is rank 2");
  ExpectError(InferShapes(*ops_, "Reverse", kFloat, {PartialShape({2, 3}), PartialShape({1, 2})}),
              "must be rank 1");
  ExpectError(InferShapes(*ops_, "Reverse", kFloat,
                          {PartialShape::UnknownOfRank(9), PartialShape({-1})}),
              "reverse does not work on tensors with more than 8 dimensions");
  EXPECT_EQ(ops_->Find("Reverse")->op_def.input_arg(1).type(), tensorflow::DT_BOOL);
}

TEST_F(ArrayTransformOpsTest, GatherPutsTheIndicesShapeFirst) {
  constexpr char kAttrs[] = R"pb(attr { key: "Tparams" value { type: DT_FLOAT } }
                                 attr { key: "Tindices" value { type: DT_INT32 } })pb";
  auto out = InferShapes(*ops_, "Gather", kAttrs, {PartialShape({5, 3, -1}), PartialShape({2, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3, -1})));
  out = InferShapes(*ops_, "Gather", kAttrs, {PartialShape({5}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape::Scalar()));
  ExpectError(InferShapes(*ops_, "Gather", kAttrs, {PartialShape::Scalar(), PartialShape({2})}),
              "must be at least rank 1");
  const tensorflow::OpDef& def = ops_->Find("Gather")->op_def;
  EXPECT_EQ(def.attr(0).name(), "validate_indices");
  EXPECT_TRUE(def.attr(0).default_value().b());
}

TEST_F(ArrayTransformOpsTest, MatrixBandPartKeepsTheShape) {
  auto out = InferShapes(*ops_, "MatrixBandPart", kFloat,
                         {PartialShape({2, -1, 3}), PartialShape::Scalar(), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1, 3})));
  EXPECT_EQ(ops_->Find("MatrixBandPart")->op_def.attr(1).default_value().type(),
            tensorflow::DT_INT64);
}

}  // namespace
}  // namespace tessera
