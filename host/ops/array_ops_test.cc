// Tests of the array ops' definitions and shape functions.
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

constexpr char kFloat[] = R"pb(attr { key: "T" value { type: DT_FLOAT } })pb";

class ArrayOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(ArrayOpsTest, ConstTakesTheValueShape) {
  auto out = InferShapes(*ops_, "Const", R"pb(
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT
                                         tensor_shape { dim { size: 2 } dim { size: 1 } } } } })pb",
                         {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 1})));
}

TEST_F(ArrayOpsTest, ConstRejectsBadValues) {
  ExpectError(InferShapes(*ops_, "Const", R"pb(
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -3 } } } } })pb",
                          {}),
              "Const: value: tensor shape has dimension -3");
  ExpectError(InferShapes(*ops_, "Const", R"pb(
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                         tensor_content: "abc" } } })pb",
                          {}),
              "value of shape [2] has 3 bytes of tensor_content, expected 8");
}

TEST_F(ArrayOpsTest, PlaceholdersUseTheShapeAttr) {
  auto out = InferShapes(*ops_, "Placeholder", R"pb(
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } })pb",
                         {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3})));
  const tensorflow::OpDef& placeholder = ops_->Find("Placeholder")->op_def;
  EXPECT_FALSE(placeholder.is_stateful());
  EXPECT_TRUE(placeholder.attr(1).default_value().shape().unknown_rank());

  constexpr char kWithDefault[] = R"pb(
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } })pb";
  out = InferShapes(*ops_, "PlaceholderWithDefault", kWithDefault, {PartialShape({4, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3})));
  ExpectError(InferShapes(*ops_, "PlaceholderWithDefault", kWithDefault, {PartialShape({4, 2})}),
              "default value of shape [4,2] is not compatible with attr shape [?,3]");
  // PlaceholderWithDefault's shape has no default.
  ExpectError(InferShapes(*ops_, "PlaceholderWithDefault",
                          R"pb(attr { key: "dtype" value { type: DT_FLOAT } })pb",
                          {PartialShape({1})}),
              "node 'n' (PlaceholderWithDefault) is missing required attr 'shape'");
}

TEST_F(ArrayOpsTest, ReshapeInfersTheWildcard) {
  Tensor shape = Tensor::Vector<int32_t>({-1, 4});
  auto out = InferShapes(*ops_, "Reshape", kFloat, {PartialShape({2, 6}), PartialShape({2})},
                         {nullptr, &shape});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, 4})));
  // Unknown input elements keep the wildcard unknown.
  out = InferShapes(*ops_, "Reshape", kFloat, {PartialShape({-1, 6}), PartialShape({2})},
                    {nullptr, &shape});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 4})));
  // Unknown shape tensor of known length.
  out = InferShapes(*ops_, "Reshape", kFloat, {PartialShape({2, 6}), PartialShape({3})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
}

TEST_F(ArrayOpsTest, ReshapeRejectsBadShapes) {
  Tensor shape = Tensor::Vector<int32_t>({5, -1});
  ExpectError(InferShapes(*ops_, "Reshape", kFloat, {PartialShape({2, 6}), PartialShape({2})},
                          {nullptr, &shape}),
              "cannot reshape a tensor with 12 elements to shape [5,?]: the number of elements "
              "is not a multiple of 5");
  Tensor two_wildcards = Tensor::Vector<int32_t>({-1, -1});
  ExpectError(InferShapes(*ops_, "Reshape", kFloat, {PartialShape({2, 6}), PartialShape({2})},
                          {nullptr, &two_wildcards}),
              "only one dimension of the new shape may be -1, got [-1,-1]");
  Tensor negative = Tensor::Vector<int32_t>({-2, 6});
  ExpectError(InferShapes(*ops_, "Reshape", kFloat, {PartialShape({2, 6}), PartialShape({2})},
                          {nullptr, &negative}),
              "dimension -2 in shape tensor (input 1) must be >= 0, or -1 for unknown");
  Tensor wrong = Tensor::Vector<int32_t>({5});
  ExpectError(InferShapes(*ops_, "Reshape", kFloat, {PartialShape({2, 6}), PartialShape({1})},
                          {nullptr, &wrong}),
              "cannot reshape a tensor with 12 elements to shape [5] (5 elements)");
  Tensor huge = Tensor::Vector<int64_t>({int64_t{1} << 40, int64_t{1} << 40});
  ExpectError(InferShapes(*ops_, "Reshape",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "Tshape" value { type: DT_INT64 } })pb",
                          {PartialShape({2}), PartialShape({2})}, {nullptr, &huge}),
              "has more elements than an int64 can count");
  Tensor floats = Tensor::Vector<float>({1});
  ExpectError(InferShapes(*ops_, "Reshape", kFloat, {PartialShape({1}), PartialShape({1})},
                          {nullptr, &floats}),
              "input 1 must be int32 or int64, got float");
}

TEST_F(ArrayOpsTest, ShapeGivesTheRank) {
  auto out = InferShapes(*ops_, "Shape", kFloat, {PartialShape({2, -1, 3})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({3})));
  out = InferShapes(*ops_, "Shape", kFloat, {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1})));
  EXPECT_EQ(ops_->Find("Shape")->op_def.attr(1).default_value().type(), tensorflow::DT_INT32);
}

TEST_F(ArrayOpsTest, ExpandDimsInsertsAOne) {
  Tensor dim = Tensor::Scalar<int32_t>(-1);
  auto out = InferShapes(*ops_, "ExpandDims", kFloat, {PartialShape({2, 3}), PartialShape({})},
                         {nullptr, &dim});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 1})));
  Tensor zero = Tensor::Scalar<int32_t>(0);
  out = InferShapes(*ops_, "ExpandDims", kFloat, {PartialShape({2, 3}), PartialShape({})},
                    {nullptr, &zero});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 2, 3})));
  out = InferShapes(*ops_, "ExpandDims", kFloat, {PartialShape({2, 3}), PartialShape({})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
  Tensor pair = Tensor::Vector<int32_t>({0, 1});
  ExpectError(InferShapes(*ops_, "ExpandDims", kFloat, {PartialShape({2, 3}), PartialShape({2})},
                          {nullptr, &pair}),
              "'dim' must hold a single value, got 2");
  Tensor big = Tensor::Scalar<int32_t>(3);
  ExpectError(InferShapes(*ops_, "ExpandDims", kFloat, {PartialShape({2, 3}), PartialShape({})},
                          {nullptr, &big}),
              "dim 3 is not in the interval [-3, 2]");
}

TEST_F(ArrayOpsTest, SqueezeRemovesOnes) {
  auto out = InferShapes(*ops_, "Squeeze", kFloat, {PartialShape({1, 2, 1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3})));
  out = InferShapes(*ops_, "Squeeze",
                    R"pb(attr { key: "T" value { type: DT_FLOAT } }
                         attr { key: "squeeze_dims" value { list { i: -2 } } })pb",
                    {PartialShape({1, 2, 1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 2, 3})));
  out = InferShapes(*ops_, "Squeeze", kFloat, {PartialShape({1, -1})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE((*out)[0].rank_known());
}

TEST_F(ArrayOpsTest, SqueezeRejectsBadDims) {
  ExpectError(InferShapes(*ops_, "Squeeze",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "squeeze_dims" value { list { i: 1 } } })pb",
                          {PartialShape({1, 3})}),
              "Squeeze: cannot squeeze dimension 1: expected a dimension of 1, got 3");
  ExpectError(InferShapes(*ops_, "Squeeze",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "squeeze_dims" value { list { i: 5 } } })pb",
                          {PartialShape({1, 3})}),
              "cannot squeeze dimension 5 of a tensor with 2 dimensions");
}

TEST_F(ArrayOpsTest, ConcatV2WithConstantAxis) {
  constexpr char kAttrs[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                 attr { key: "N" value { i: 3 } })pb";
  Tensor axis = Tensor::Scalar<int32_t>(1);
  auto out = InferShapes(*ops_, "ConcatV2", kAttrs,
                         {PartialShape({2, 3}), PartialShape({-1, 4}), PartialShape({2, 5}),
                          PartialShape::Scalar()},
                         {nullptr, nullptr, nullptr, &axis});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 12})));
  out = InferShapes(*ops_, "ConcatV2", kAttrs,
                    {PartialShape({2, 3}), PartialShape({2, -1}), PartialShape({2, 5}),
                     PartialShape::Scalar()});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
  Tensor bad_axis = Tensor::Scalar<int32_t>(2);
  ExpectError(InferShapes(*ops_, "ConcatV2", kAttrs,
                          {PartialShape({2, 3}), PartialShape({2, 4}), PartialShape({2, 5}),
                           PartialShape::Scalar()},
                          {nullptr, nullptr, nullptr, &bad_axis}),
              "expected the concatenation axis in the range [-2, 2), but got 2");
  ExpectError(InferShapes(*ops_, "ConcatV2", kAttrs,
                          {PartialShape({2, 3}), PartialShape({3, 4}), PartialShape({2, 5}),
                           PartialShape::Scalar()},
                          {nullptr, nullptr, nullptr, &axis}),
              "dimension 0 of input 1 is 3, but earlier inputs have 2");
  Tensor two_axes = Tensor::Vector<int32_t>({0, 1});
  ExpectError(InferShapes(*ops_, "ConcatV2", kAttrs,
                          {PartialShape({2, 3}), PartialShape({2, 4}), PartialShape({2, 5}),
                           PartialShape({2})},
                          {nullptr, nullptr, nullptr, &two_axes}),
              "axis must hold a single value, got 2");
  Tensor zero_axis = Tensor::Scalar<int32_t>(0);
  ExpectError(InferShapes(*ops_, "ConcatV2", kAttrs,
                          {PartialShape::Scalar(), PartialShape::Scalar(),
                           PartialShape::Scalar(), PartialShape::Scalar()},
                          {nullptr, nullptr, nullptr, &zero_axis}),
              "cannot concatenate scalars (use Pack)");
  const int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
  ExpectError(InferShapes(*ops_, "ConcatV2", kAttrs,
                          {PartialShape({2, big}), PartialShape({2, big}), PartialShape({2, 5}),
                           PartialShape::Scalar()},
                          {nullptr, nullptr, nullptr, &axis}),
              "the concatenated dimension 1 overflows int64");
  ExpectError(InferShapes(*ops_, "ConcatV2", kAttrs,
                          {PartialShape({2, 3}), PartialShape({3}), PartialShape({2, 5}),
                           PartialShape::Scalar()}),
              "but input 0 has rank 2 and input 1 has rank 1");
}

TEST_F(ArrayOpsTest, FillUsesTheDimsValue) {
  Tensor dims = Tensor::Vector<int64_t>({2, 3});
  auto out = InferShapes(*ops_, "Fill",
                         R"pb(attr { key: "T" value { type: DT_FLOAT } }
                              attr { key: "index_type" value { type: DT_INT64 } })pb",
                         {PartialShape({2}), PartialShape::Scalar()}, {&dims, nullptr});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3})));
  ExpectError(InferShapes(*ops_, "Fill", kFloat, {PartialShape({2}), PartialShape({1})}),
              "Fill: shape must be rank 0 but is rank 1 (input 1)");
}

TEST_F(ArrayOpsTest, PackStacksAlongTheAxis) {
  constexpr char kAttrs[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                 attr { key: "N" value { i: 2 } }
                                 attr { key: "axis" value { i: -1 } })pb";
  auto out = InferShapes(*ops_, "Pack", kAttrs, {PartialShape({2, 3}), PartialShape({-1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 2})));
  ExpectError(InferShapes(*ops_, "Pack", kAttrs, {PartialShape({2, 3}), PartialShape({2, 4})}),
              "shapes of all inputs must match: values[0].shape = [2,3] != values[1].shape = "
              "[2,4]");
  ExpectError(InferShapes(*ops_, "Pack",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "N" value { i: 1 } }
                               attr { key: "axis" value { i: 4 } })pb",
                          {PartialShape({2, 3})}),
              "invalid axis 4; must be in [-3, 3)");
}

TEST_F(ArrayOpsTest, IdentityAndZerosLikeKeepTheShape) {
  for (const char* op : {"Identity", "ZerosLike"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({4})});
    ASSERT_TRUE(out.ok()) << op;
    EXPECT_THAT(*out, ElementsAre(PartialShape({4})));
  }
}

TEST_F(ArrayOpsTest, IdentityFamilyKeepsShapes) {
  for (const char* op : {"OnesLike", "StopGradient", "Snapshot"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, -1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1})));
  }
  constexpr char kTypes[] =
      R"pb(attr { key: "T" value { list { type: DT_FLOAT type: DT_INT32 } } })pb";
  auto out = InferShapes(*ops_, "IdentityN", kTypes, {PartialShape({3}), PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3}), PartialShape::Unknown()));
  // OnesLike takes TensorFlow's numeric types and bool, not string.
  const tensorflow::OpDef& ones_like = ops_->Find("OnesLike")->op_def;
  EXPECT_EQ(ones_like.attr(0).allowed_values().list().type_size(), 15);
  ExpectError(InferShapes(*ops_, "OnesLike", R"pb(attr { key: "T" value { type: DT_STRING } })pb",
                          {PartialShape({1})}),
              "string");
}

TEST_F(ArrayOpsTest, PreventGradientKeepsTheShapeAndDefaultsItsMessage) {
  auto out = InferShapes(*ops_, "PreventGradient", kFloat, {PartialShape({2, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1})));
  const tensorflow::OpDef& def = ops_->Find("PreventGradient")->op_def;
  ASSERT_EQ(def.attr_size(), 2);
  EXPECT_EQ(def.attr(1).name(), "message");
  EXPECT_EQ(def.attr(1).default_value().s(), "");
}

TEST_F(ArrayOpsTest, ShapeNGivesOneVectorPerInput) {
  constexpr char kThree[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                 attr { key: "N" value { i: 3 } })pb";
  auto out = InferShapes(*ops_, "ShapeN", kThree,
                         {PartialShape({-1, 2, 3, 4, 5}), PartialShape::Unknown(),
                          PartialShape({1, -1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({5}), PartialShape({-1}), PartialShape({3})));
  out = InferShapes(*ops_, "ShapeN", kThree,
                    {PartialShape::Scalar(), PartialShape({-1}), PartialShape({-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({0}), PartialShape({1}), PartialShape({1})));
  const tensorflow::OpDef& def = ops_->Find("ShapeN")->op_def;
  EXPECT_EQ(def.attr(0).name(), "N");
  EXPECT_EQ(def.attr(0).minimum(), 1);
  EXPECT_EQ(def.attr(2).default_value().type(), tensorflow::DT_INT32);
  ExpectError(InferShapes(*ops_, "ShapeN",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "N" value { i: 1 } }
                               attr { key: "out_type" value { type: DT_FLOAT } })pb",
                          {PartialShape({2})}),
              "out_type");
}

TEST_F(ArrayOpsTest, ConcatOffsetGivesEachOffsetTheShapeOfItsShapeInput) {
  auto out = InferShapes(*ops_, "ConcatOffset", R"pb(attr { key: "N" value { i: 3 } })pb",
                         {PartialShape::Scalar(), PartialShape({3}), PartialShape::Unknown(),
                          PartialShape({-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3}), PartialShape::Unknown(), PartialShape({-1})));
  const tensorflow::OpDef& def = ops_->Find("ConcatOffset")->op_def;
  EXPECT_EQ(def.input_arg(0).type(), tensorflow::DT_INT32);
  EXPECT_EQ(def.attr(0).minimum(), 2);
  EXPECT_EQ(def.attr(1).name(), "shape_type");
  EXPECT_EQ(def.attr(1).default_value().type(), tensorflow::DT_INT32);
  ExpectError(InferShapes(*ops_, "ConcatOffset", R"pb(attr { key: "N" value { i: 1 } })pb",
                          {PartialShape::Scalar(), PartialShape({3})}),
              "N");
}

TEST_F(ArrayOpsTest, ConcatTakesTheAxisFirst) {
  constexpr char kTwo[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "N" value { i: 2 } })pb";
  Tensor axis = Tensor::Scalar<int32_t>(-1);
  auto out = InferShapes(*ops_, "Concat", kTwo,
                         {PartialShape::Scalar(), PartialShape({2, 3}), PartialShape({-1, 4})},
                         {&axis});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 7})));
  out = InferShapes(*ops_, "Concat", kTwo,
                    {PartialShape::Scalar(), PartialShape({2, 3}), PartialShape({-1, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
  Tensor far = Tensor::Scalar<int32_t>(2);
  ExpectError(InferShapes(*ops_, "Concat", kTwo,
                          {PartialShape::Scalar(), PartialShape({2, 3}), PartialShape({2, 4})},
                          {&far}),
              "expected the concatenation axis in the range [-2, 2), but got 2");
  const tensorflow::OpDef& def = ops_->Find("Concat")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "concat_dim");
  EXPECT_EQ(def.input_arg(0).type(), tensorflow::DT_INT32);
  EXPECT_EQ(def.attr(0).minimum(), 2);
}

TEST_F(ArrayOpsTest, SizeRankAndBroadcastGradientArgs) {
  for (const char* op : {"Size", "Rank"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 3})});
    ASSERT_TRUE(out.ok()) << op;
    EXPECT_THAT(*out, ElementsAre(PartialShape::Scalar()));
  }
  EXPECT_EQ(ops_->Find("Size")->op_def.attr(1).default_value().type(), tensorflow::DT_INT32);
  EXPECT_EQ(ops_->Find("Rank")->op_def.output_arg(0).type(), tensorflow::DT_INT32);
  constexpr char kInt64[] = R"pb(attr { key: "T" value { type: DT_INT64 } })pb";
  auto out = InferShapes(*ops_, "BroadcastGradientArgs", kInt64,
                         {PartialShape({3}), PartialShape({-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1}), PartialShape({-1})));
  ExpectError(InferShapes(*ops_, "BroadcastGradientArgs", kInt64,
                          {PartialShape({3, 1}), PartialShape({2})}),
              "BroadcastGradientArgs: shape must be rank 1 but is rank 2 (input 0)");
}

TEST_F(ArrayOpsTest, WhereGivesOneRowPerTrueElement) {
  auto out = InferShapes(*ops_, "Where", "", {PartialShape({2, -1, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3})));
  out = InferShapes(*ops_, "Where", kFloat, {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
  EXPECT_EQ(ops_->Find("Where")->op_def.attr(0).default_value().type(), tensorflow::DT_BOOL);
}

TEST_F(ArrayOpsTest, CheckNumericsIsStatefulAndKeepsTheShape) {
  constexpr char kAttrs[] = R"pb(attr {
                                   key: "T"
                                   value { type: DT_DOUBLE }
                                 }
                                 attr {
                                   key: "message"
                                   value { s: "logits" }
                                 })pb";
  auto out = InferShapes(*ops_, "CheckNumerics", kAttrs, {PartialShape({-1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3})));
  const tensorflow::OpDef& def = ops_->Find("CheckNumerics")->op_def;
  EXPECT_TRUE(def.is_stateful());
  EXPECT_EQ(def.input_arg(0).name(), "tensor");
  EXPECT_EQ(def.output_arg(0).name(), "output");
  ASSERT_EQ(def.attr_size(), 2);
  EXPECT_EQ(def.attr(1).name(), "message");
  EXPECT_EQ(def.attr(1).type(), "string");
  out = InferShapes(*ops_, "CheckNumerics",
                    R"pb(attr {
                           key: "T"
                           value { type: DT_INT32 }
                         }
                         attr {
                           key: "message"
                           value { s: "" }
                         })pb",
                    {PartialShape({2})});
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
}

TEST_F(ArrayOpsTest, RangeLengthFromConstants) {
  Tensor start = Tensor::Scalar<int32_t>(2);
  Tensor limit = Tensor::Scalar<int32_t>(11);
  Tensor delta = Tensor::Scalar<int32_t>(3);
  const std::vector<PartialShape> scalars(3, PartialShape::Scalar());
  auto out = InferShapes(*ops_, "Range", "", scalars, {&start, &limit, &delta});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3})));
  Tensor fstart = Tensor::Scalar<float>(1.f);
  Tensor flimit = Tensor::Scalar<float>(0.f);
  Tensor fdelta = Tensor::Scalar<float>(-0.25f);
  out = InferShapes(*ops_, "Range", R"pb(attr { key: "Tidx" value { type: DT_FLOAT } })pb",
                    scalars, {&fstart, &flimit, &fdelta});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4})));
  // The length in float, as the kernel computes it (in double 1.2f / 0.4f is above 3).
  Tensor flimit2 = Tensor::Scalar<float>(1.2f);
  Tensor fdelta2 = Tensor::Scalar<float>(0.4f);
  Tensor fzero = Tensor::Scalar<float>(0.f);
  out = InferShapes(*ops_, "Range", R"pb(attr { key: "Tidx" value { type: DT_FLOAT } })pb",
                    scalars, {&fzero, &flimit2, &fdelta2});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3})));
  out = InferShapes(*ops_, "Range", "", scalars, {&start, nullptr, &delta});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1})));
  ExpectError(InferShapes(*ops_, "Range", "", scalars, {&limit, &start, &delta}),
              "Range: Requires start <= limit when delta > 0: 11/2");
  Tensor zero = Tensor::Scalar<int32_t>(0);
  ExpectError(InferShapes(*ops_, "Range", "", scalars, {&start, &limit, &zero}),
              "Requires delta != 0");
  Tensor negative = Tensor::Scalar<int32_t>(-1);
  ExpectError(InferShapes(*ops_, "Range", "", scalars, {&start, &limit, &negative}),
              "Requires start >= limit when delta < 0: 2/11");
  ExpectError(InferShapes(*ops_, "Range", "",
                          {PartialShape({2}), PartialShape::Scalar(), PartialShape::Scalar()}),
              "shape must be rank 0 but is rank 1 (input 0)");
  EXPECT_EQ(ops_->Find("Range")->op_def.attr(0).default_value().type(), tensorflow::DT_INT32);
}

}  // namespace
}  // namespace tessera
