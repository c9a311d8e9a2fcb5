// Tests of the math ops' definitions and shape functions.
#include <string>
#include <vector>

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

constexpr char kFloat[] = R"pb(attr { key: "T" value { type: DT_FLOAT } })pb";

class MathOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(MathOpsTest, BinaryOpsBroadcast) {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 1, 3}), PartialShape({4, 1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3}))) << op;
  }
}

TEST_F(MathOpsTest, BinaryOpsRejectIncompatibleShapes) {
  auto out = InferShapes(*ops_, "AddV2", kFloat, {PartialShape({2, 3}), PartialShape({4, 3})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("AddV2: incompatible shapes for broadcasting: [2,3] and [4,3]"));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("for 'n' with input shapes: [2,3], [4,3]"));
}

TEST_F(MathOpsTest, UnaryOpsKeepTheShape) {
  for (const char* op : {"Neg", "Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Tanh",
                         "Sigmoid"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({-1, 7})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 7}))) << op;
  }
}

TEST_F(MathOpsTest, DefinitionsFollowTensorFlow) {
  const tensorflow::OpDef& add_v2 = ops_->Find("AddV2")->op_def;
  EXPECT_TRUE(add_v2.is_commutative());
  EXPECT_TRUE(add_v2.is_aggregate());
  EXPECT_FALSE(ops_->Find("Add")->op_def.is_commutative());
  EXPECT_TRUE(ops_->Find("Mul")->op_def.is_commutative());
  EXPECT_EQ(add_v2.input_arg(0).name(), "x");
  EXPECT_EQ(add_v2.output_arg(0).name(), "z");
  const tensorflow::OpDef& sum = ops_->Find("Sum")->op_def;
  EXPECT_EQ(sum.input_arg(1).name(), "reduction_indices");
  EXPECT_EQ(sum.attr(0).name(), "keep_dims");
  EXPECT_FALSE(sum.attr(0).default_value().b());
  const tensorflow::OpDef& cast = ops_->Find("Cast")->op_def;
  EXPECT_EQ(cast.attr(2).name(), "Truncate");
  EXPECT_FALSE(cast.is_stateful());
}

TEST_F(MathOpsTest, AddAcceptsStringsButAddV2DoesNot) {
  constexpr char kString[] = R"pb(attr { key: "T" value { type: DT_STRING } })pb";
  EXPECT_TRUE(InferShapes(*ops_, "Add", kString, {PartialShape({1}), PartialShape({1})}).ok());
  auto out = InferShapes(*ops_, "AddV2", kString, {PartialShape({1}), PartialShape({1})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("attr 'T' of node 'n' (AddV2): value string is not in the allowed list"));
}

TEST_F(MathOpsTest, MatMulHandlesTransposes) {
  auto out = InferShapes(*ops_, "MatMul", kFloat, {PartialShape({2, 3}), PartialShape({3, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5})));
  out = InferShapes(*ops_, "MatMul",
                    R"pb(attr { key: "T" value { type: DT_FLOAT } }
                         attr { key: "transpose_a" value { b: true } }
                         attr { key: "transpose_b" value { b: true } })pb",
                    {PartialShape({3, 2}), PartialShape({5, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5})));
  out = InferShapes(*ops_, "MatMul", kFloat, {PartialShape::Unknown(), PartialShape({-1, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 4})));
}

TEST_F(MathOpsTest, MatMulRejectsInnerMismatchAndWrongRank) {
  auto out = InferShapes(*ops_, "MatMul", kFloat, {PartialShape({2, 3}), PartialShape({4, 5})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "MatMul: dimensions must be equal, but are 3 and 4 for 'n' with input shapes: "
            "[2,3], [4,5]");
  out = InferShapes(*ops_, "MatMul", kFloat, {PartialShape({2, 3, 1}), PartialShape({3, 5})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("MatMul: shape must be rank 2 but is rank 3 (input 0)"));
}

TEST_F(MathOpsTest, ReductionsWithConstantIndicesAndKeepDims) {
  Tensor axes = Tensor::Vector<int32_t>({1, -1});
  auto out = InferShapes(*ops_, "Sum", kFloat, {PartialShape({2, 3, 4}), PartialShape({2})},
                         {nullptr, &axes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2})));
  out = InferShapes(*ops_, "Mean",
                    R"pb(attr { key: "T" value { type: DT_FLOAT } }
                         attr { key: "keep_dims" value { b: true } })pb",
                    {PartialShape({2, 3, 4}), PartialShape({2})}, {nullptr, &axes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 1, 1})));
  Tensor scalar_axis = Tensor::Scalar<int64_t>(0);
  out = InferShapes(*ops_, "Max",
                    R"pb(attr { key: "T" value { type: DT_FLOAT } }
                         attr { key: "Tidx" value { type: DT_INT64 } })pb",
                    {PartialShape({5, 6}), PartialShape::Scalar()}, {nullptr, &scalar_axis});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({6})));
}

TEST_F(MathOpsTest, ReductionsWithUnknownIndices) {
  auto out = InferShapes(*ops_, "Sum",
                         R"pb(attr { key: "T" value { type: DT_FLOAT } }
                              attr { key: "keep_dims" value { b: true } })pb",
                         {PartialShape({2, 3}), PartialShape({1})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
  out = InferShapes(*ops_, "Sum", kFloat, {PartialShape({2, 3}), PartialShape({1})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE((*out)[0].rank_known());
}

TEST_F(MathOpsTest, ReductionsRejectOutOfRangeAxes) {
  Tensor axes = Tensor::Vector<int32_t>({2});
  auto out = InferShapes(*ops_, "Sum", kFloat, {PartialShape({2, 3}), PartialShape({1})},
                         {nullptr, &axes});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("Sum: invalid reduction dimension 2 for input with 2 dimensions"));
  out = InferShapes(*ops_, "Sum", kFloat, {PartialShape({2, 3}), PartialShape({1, 1})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("shape must be at most rank 1 but is rank 2 (input 1)"));
}

TEST_F(MathOpsTest, CastKeepsTheShape) {
  auto out = InferShapes(*ops_, "Cast",
                         R"pb(attr { key: "SrcT" value { type: DT_INT32 } }
                              attr { key: "DstT" value { type: DT_FLOAT } })pb",
                         {PartialShape({3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3})));
}

// ---- Comparison and logical ops ----------------------------------------------------------

constexpr char kLenient[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                 attr { key: "incompatible_shape_error" value { b: false } })pb";

TEST_F(MathOpsTest, ComparisonsBroadcastToBool) {
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 1, 3}), PartialShape({4, 1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3}))) << op;
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    ASSERT_EQ(def.input_arg_size(), 2) << op;
    EXPECT_EQ(def.input_arg(0).name(), "x");
    EXPECT_EQ(def.input_arg(1).name(), "y");
    EXPECT_EQ(def.input_arg(0).type_attr(), "T");
    ASSERT_EQ(def.output_arg_size(), 1) << op;
    EXPECT_EQ(def.output_arg(0).name(), "z");
    EXPECT_EQ(def.output_arg(0).type(), tensorflow::DT_BOOL) << op;
    EXPECT_FALSE(def.is_stateful()) << op;
  }
}

TEST_F(MathOpsTest, ComparisonDefinitionsFollowTensorFlow) {
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_FALSE(def.is_commutative()) << op;
    ASSERT_EQ(def.attr_size(), 1) << op;
    EXPECT_EQ(def.attr(0).name(), "T");
    // realnumbertype: twelve types, neither bool nor complex.
    EXPECT_EQ(def.attr(0).allowed_values().list().type_size(), 12) << op;
  }
  for (const char* op : {"Equal", "NotEqual"}) {
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_TRUE(def.is_commutative()) << op;
    ASSERT_EQ(def.attr_size(), 2) << op;
    EXPECT_EQ(def.attr(0).name(), "T");
    EXPECT_FALSE(def.attr(0).has_allowed_values()) << op;  // `T: type`
    EXPECT_EQ(def.attr(1).name(), "incompatible_shape_error");
    EXPECT_EQ(def.attr(1).type(), "bool");
    EXPECT_TRUE(def.attr(1).default_value().b()) << op;
  }
}

TEST_F(MathOpsTest, OrderingComparisonsRejectBoolAndComplex) {
  for (const char* type : {"DT_BOOL", "DT_COMPLEX64", "DT_STRING"}) {
    auto out = InferShapes(*ops_, "Less",
                           absl::StrCat("attr { key: 'T' value { type: ", type, " } }"),
                           {PartialShape({1}), PartialShape({1})});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << type;
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr("attr 'T' of node 'n' (Less): value "))
        << type;
    EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
  }
}

TEST_F(MathOpsTest, EqualityAcceptsEveryType) {
  for (const char* type : {"DT_BOOL", "DT_STRING", "DT_COMPLEX128", "DT_HALF", "DT_UINT64"}) {
    for (const char* op : {"Equal", "NotEqual"}) {
      auto out = InferShapes(*ops_, op,
                             absl::StrCat("attr { key: 'T' value { type: ", type, " } }"),
                             {PartialShape({3}), PartialShape::Scalar()});
      ASSERT_TRUE(out.ok()) << op << " " << type << ": " << out.status();
      EXPECT_THAT(*out, ElementsAre(PartialShape({3})));
    }
  }
}

TEST_F(MathOpsTest, ComparisonsRejectIncompatibleShapes) {
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 3}), PartialShape({4, 3})});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << op;
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr(absl::StrCat(op, ": incompatible shapes for broadcasting: [2,3] and "
                                           "[4,3] (dimensions 2 and 4) for 'n' with input "
                                           "shapes: [2,3], [4,3]")));
  }
}

TEST_F(MathOpsTest, EqualityWithoutShapeErrorIsScalarForIncompatibleShapes) {
  for (const char* op : {"Equal", "NotEqual"}) {
    auto out = InferShapes(*ops_, op, kLenient, {PartialShape({2, 3}), PartialShape({4, 3})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape::Scalar())) << op;
    // Shapes that broadcast still do.
    out = InferShapes(*ops_, op, kLenient, {PartialShape({2, 1, 3}), PartialShape({4, 1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3}))) << op;
  }
}

TEST_F(MathOpsTest, EqualityWithoutShapeErrorAndUnknownDimensions) {
  struct Case {
    PartialShape x;
    PartialShape y;
    PartialShape expected;
  };
  const std::vector<Case> cases = {
      {PartialShape({-1, 3}), PartialShape({1, 3}), PartialShape({-1, 3})},
      {PartialShape({-1}), PartialShape({-1}), PartialShape({-1})},
      {PartialShape({-1}), PartialShape::Scalar(), PartialShape({-1})},
      // An unknown dimension against a known one other than 1 may not broadcast: unknown.
      {PartialShape({-1, 3}), PartialShape({4, 3}), PartialShape::Unknown()},
      {PartialShape({2, 3}), PartialShape({2, -1}), PartialShape::Unknown()},
      {PartialShape({0}), PartialShape({-1}), PartialShape::Unknown()},
      {PartialShape::Unknown(), PartialShape({2}), PartialShape::Unknown()},
      // Known dimensions that conflict win over a later unknown one.
      {PartialShape({2, -1}), PartialShape({3, 5}), PartialShape::Scalar()},
  };
  for (const Case& c : cases) {
    auto out = InferShapes(*ops_, "Equal", kLenient, {c.x, c.y});
    ASSERT_TRUE(out.ok()) << c.x << " vs " << c.y << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(c.expected)) << c.x << " vs " << c.y;
  }
  // With the default (true), an unknown dimension is assumed to broadcast.
  auto out = InferShapes(*ops_, "Equal", kFloat, {PartialShape({-1, 3}), PartialShape({4, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 3})));
}

TEST_F(MathOpsTest, EqualityRejectsNonBoolShapeErrorAttr) {
  auto out = InferShapes(*ops_, "Equal",
                         R"pb(attr { key: "T" value { type: DT_FLOAT } }
                              attr { key: "incompatible_shape_error" value { i: 1 } })pb",
                         {PartialShape({1}), PartialShape({1})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("incompatible_shape_error"));
}

TEST_F(MathOpsTest, LogicalOps) {
  for (const char* op : {"LogicalAnd", "LogicalOr"}) {
    auto out = InferShapes(*ops_, op, "", {PartialShape({3, 1}), PartialShape({1, 4})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({3, 4}))) << op;
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_TRUE(def.is_commutative()) << op;
    EXPECT_EQ(def.attr_size(), 0) << op;
    EXPECT_EQ(def.input_arg(0).type(), tensorflow::DT_BOOL);
    EXPECT_EQ(def.input_arg(1).type(), tensorflow::DT_BOOL);
    EXPECT_EQ(def.output_arg(0).name(), "z");
    EXPECT_EQ(def.output_arg(0).type(), tensorflow::DT_BOOL);
    out = InferShapes(*ops_, op, "", {PartialShape({2}), PartialShape({3})});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << op;
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr(absl::StrCat(op, ": incompatible shapes for broadcasting: [2] and [3]")));
  }
  const tensorflow::OpDef& logical_not = ops_->Find("LogicalNot")->op_def;
  EXPECT_EQ(logical_not.input_arg(0).name(), "x");
  EXPECT_EQ(logical_not.input_arg(0).type(), tensorflow::DT_BOOL);
  EXPECT_EQ(logical_not.output_arg(0).name(), "y");
  EXPECT_EQ(logical_not.output_arg(0).type(), tensorflow::DT_BOOL);
  auto out = InferShapes(*ops_, "LogicalNot", "", {PartialShape({-1, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 5})));
}

}  // namespace
}  // namespace tessera
