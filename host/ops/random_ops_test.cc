// Tests of the random ops' definitions (attrs, defaults, statefulness) and shape functions.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

constexpr char kFloatInt32[] = R"pb(
  attr {
    key: "dtype"
    value { type: DT_FLOAT }
  }
  attr {
    key: "T"
    value { type: DT_INT32 }
  })pb";
constexpr char kInt64Int32[] = R"pb(
  attr {
    key: "Tout"
    value { type: DT_INT64 }
  }
  attr {
    key: "T"
    value { type: DT_INT32 }
  })pb";

class RandomOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }

  std::vector<std::string> AttrNames(const std::string& op) {
    std::vector<std::string> names;
    for (const auto& attr : ops_->Find(op)->op_def.attr()) names.push_back(attr.name());
    return names;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(RandomOpsTest, DefinitionsFollowTensorFlow) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_TRUE(def.is_stateful()) << op;
    EXPECT_THAT(AttrNames(op), ElementsAre("seed", "seed2", "dtype", "T")) << op;
    EXPECT_EQ(def.attr(0).default_value().i(), 0);
    EXPECT_EQ(def.attr(1).default_value().i(), 0);
    EXPECT_FALSE(def.attr(2).has_default_value());
    EXPECT_FALSE(def.attr(3).has_default_value());
    EXPECT_THAT(def.attr(2).allowed_values().list().type(),
                ElementsAre(tensorflow::DT_HALF, tensorflow::DT_BFLOAT16, tensorflow::DT_FLOAT,
                            tensorflow::DT_DOUBLE));
    EXPECT_THAT(def.attr(3).allowed_values().list().type(),
                ElementsAre(tensorflow::DT_INT32, tensorflow::DT_INT64));
    ASSERT_EQ(def.input_arg_size(), 1);
    EXPECT_EQ(def.input_arg(0).name(), "shape");
    EXPECT_EQ(def.output_arg(0).type_attr(), "dtype");
  }
  const tensorflow::OpDef& uniform_int = ops_->Find("RandomUniformInt")->op_def;
  EXPECT_TRUE(uniform_int.is_stateful());
  EXPECT_THAT(AttrNames("RandomUniformInt"), ElementsAre("seed", "seed2", "Tout", "T"));
  EXPECT_THAT(uniform_int.attr(2).allowed_values().list().type(),
              ElementsAre(tensorflow::DT_INT32, tensorflow::DT_INT64));
  ASSERT_EQ(uniform_int.input_arg_size(), 3);
  EXPECT_EQ(uniform_int.input_arg(1).name(), "minval");
  EXPECT_EQ(uniform_int.input_arg(2).type_attr(), "Tout");
}

TEST_F(RandomOpsTest, ShapeComesFromTheShapeTensor) {
  Tensor dims = Tensor::Vector<int32_t>({2, 3});
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    auto out = InferShapes(*ops_, op, kFloatInt32, {PartialShape({2})}, {&dims});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3}))) << op;
  }
  // Unknown values of a known length give the rank.
  auto out = InferShapes(*ops_, "RandomUniform", kFloatInt32, {PartialShape({3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
  out = InferShapes(*ops_, "RandomUniform", kFloatInt32, {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].rank_known());
}

TEST_F(RandomOpsTest, RejectsAShapeThatIsNotAVector) {
  ExpectError(InferShapes(*ops_, "TruncatedNormal", kFloatInt32, {PartialShape({2, 2})}),
              "shape must be rank 1 but is rank 2");
  ExpectError(InferShapes(*ops_, "RandomUniform", kFloatInt32, {PartialShape::Scalar()}),
              "shape must be rank 1 but is rank 0");
}

TEST_F(RandomOpsTest, RejectsANegativeConstantDimension) {
  Tensor dims = Tensor::Vector<int64_t>({2, -3});
  ExpectError(InferShapes(*ops_, "RandomStandardNormal",
                          R"pb(attr {
                                 key: "dtype"
                                 value { type: DT_DOUBLE }
                               }
                               attr {
                                 key: "T"
                                 value { type: DT_INT64 }
                               })pb",
                          {PartialShape({2})}, {&dims}),
              "dimension -3 in shape tensor (input 0) must be >= 0");
}

TEST_F(RandomOpsTest, RejectsDtypesOutsideTheFloatingTypes) {
  auto out = InferShapes(*ops_, "RandomUniform",
                         R"pb(attr {
                                key: "dtype"
                                value { type: DT_INT32 }
                              }
                              attr {
                                key: "T"
                                value { type: DT_INT32 }
                              })pb",
                         {PartialShape({1})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("dtype"));
}

TEST_F(RandomOpsTest, UniformIntNeedsScalarBounds) {
  Tensor dims = Tensor::Vector<int32_t>({4});
  auto out =
      InferShapes(*ops_, "RandomUniformInt", kInt64Int32,
                  {PartialShape({1}), PartialShape::Scalar(), PartialShape::Scalar()}, {&dims});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4})));
  ExpectError(InferShapes(*ops_, "RandomUniformInt", kInt64Int32,
                          {PartialShape({1}), PartialShape({2}), PartialShape::Scalar()}),
              "minval must be a scalar; got a tensor of shape [2]");
  ExpectError(InferShapes(*ops_, "RandomUniformInt", kInt64Int32,
                          {PartialShape({1}), PartialShape::Scalar(), PartialShape({1, 1})}),
              "maxval must be a scalar; got a tensor of shape [1,1]");
  ExpectError(InferShapes(*ops_, "RandomUniformInt", kInt64Int32,
                          {PartialShape({1, 2}), PartialShape::Scalar(), PartialShape::Scalar()}),
              "shape must be rank 1 but is rank 2");
}

}  // namespace
}  // namespace tessera
