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

constexpr char kFloat[] = R"pb(attr {
                                 key: "T"
                                 value { type: DT_FLOAT }
                               })pb";

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
  for (const char* op :
       {"Neg", "Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Tanh", "Sigmoid"}) {
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
  constexpr char kString[] = R"pb(attr {
                                    key: "T"
                                    value { type: DT_STRING }
                                  })pb";
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
                    R"pb(attr {
                           key: "T"
                           value { type: DT_FLOAT }
                         }
                         attr {
                           key: "transpose_a"
                           value { b: true }
                         }
                         attr {
                           key: "transpose_b"
                           value { b: true }
                         })pb",
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
                    R"pb(attr {
                           key: "T"
                           value { type: DT_FLOAT }
                         }
                         attr {
                           key: "keep_dims"
                           value { b: true }
                         })pb",
                    {PartialShape({2, 3, 4}), PartialShape({2})}, {nullptr, &axes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 1, 1})));
  Tensor scalar_axis = Tensor::Scalar<int64_t>(0);
  out = InferShapes(*ops_, "Max",
                    R"pb(attr {
                           key: "T"
                           value { type: DT_FLOAT }
                         }
                         attr {
                           key: "Tidx"
                           value { type: DT_INT64 }
                         })pb",
                    {PartialShape({5, 6}), PartialShape::Scalar()}, {nullptr, &scalar_axis});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({6})));
}

TEST_F(MathOpsTest, ReductionsWithUnknownIndices) {
  auto out = InferShapes(*ops_, "Sum",
                         R"pb(attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                              attr {
                                key: "keep_dims"
                                value { b: true }
                              })pb",
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
                         R"pb(attr {
                                key: "SrcT"
                                value { type: DT_INT32 }
                              }
                              attr {
                                key: "DstT"
                                value { type: DT_FLOAT }
                              })pb",
                         {PartialShape({3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3})));
}

// ---- Comparison and logical ops ----------------------------------------------------------

constexpr char kLenient[] = R"pb(attr {
                                   key: "T"
                                   value { type: DT_FLOAT }
                                 }
                                 attr {
                                   key: "incompatible_shape_error"
                                   value { b: false }
                                 })pb";

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
    auto out =
        InferShapes(*ops_, "Less", absl::StrCat("attr { key: 'T' value { type: ", type, " } }"),
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
      auto out =
          InferShapes(*ops_, op, absl::StrCat("attr { key: 'T' value { type: ", type, " } }"),
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
                HasSubstr(absl::StrCat(op,
                                       ": incompatible shapes for broadcasting: [2,3] and "
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
                         R"pb(attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                              attr {
                                key: "incompatible_shape_error"
                                value { i: 1 }
                              })pb",
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

// ---- Division, modulo, powers, rounding ----------------------------------------------------

std::string TypeAttr(const char* type) {
  return absl::StrCat("attr { key: 'T' value { type: ", type, " } }");
}

TEST_F(MathOpsTest, DivisionModuloAndPowerBroadcast) {
  for (const char* op : {"Div", "FloorDiv", "TruncateDiv", "FloorMod", "TruncateMod", "Mod", "Pow",
                         "SquaredDifference"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 1, 3}), PartialShape({4, 1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3}))) << op;
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_EQ(def.input_arg(0).name(), "x") << op;
    EXPECT_EQ(def.input_arg(1).name(), "y") << op;
    EXPECT_EQ(def.output_arg(0).name(), "z") << op;
    EXPECT_EQ(def.is_commutative(), std::string(op) == "SquaredDifference") << op;
    out = InferShapes(*ops_, op, kFloat, {PartialShape({2}), PartialShape({3})});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << op;
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr(absl::StrCat(op, ": incompatible shapes for broadcasting: [2] and [3]")));
  }
}

TEST_F(MathOpsTest, DivisionModuloAndPowerTypeLists) {
  struct Case {
    const char* op;
    const char* type;
    bool allowed;
  };
  const std::vector<Case> cases = {
      {"Div", "DT_UINT32", true},
      {"Div", "DT_COMPLEX64", true},
      {"Div", "DT_BOOL", false},
      {"FloorDiv", "DT_INT8", true},
      {"TruncateDiv", "DT_UINT16", true},
      {"FloorMod", "DT_UINT64", true},
      {"FloorMod", "DT_COMPLEX64", false},
      {"TruncateMod", "DT_UINT8", false},
      {"TruncateMod", "DT_HALF", true},
      {"Mod", "DT_INT8", false},
      {"Mod", "DT_BFLOAT16", true},
      {"Pow", "DT_INT8", true},
      {"Pow", "DT_UINT8", false},
      {"Pow", "DT_COMPLEX128", true},
      {"SquaredDifference", "DT_INT8", false},
      {"SquaredDifference", "DT_INT64", true},
  };
  for (const Case& c : cases) {
    auto out = InferShapes(*ops_, c.op, TypeAttr(c.type), {PartialShape({1}), PartialShape({1})});
    EXPECT_EQ(out.ok(), c.allowed) << c.op << " " << c.type << ": " << out.status();
    if (!c.allowed) {
      EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
    }
  }
}

TEST_F(MathOpsTest, MoreUnaryOpsKeepTheShape) {
  for (const char* op : {"Sign", "Floor", "Ceil", "Round", "Log1p", "Expm1", "Erf", "Reciprocal"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({-1, 7})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 7}))) << op;
    EXPECT_EQ(ops_->Find(op)->op_def.output_arg(0).name(), "y") << op;
  }
  struct Case {
    const char* op;
    const char* type;
    bool allowed;
  };
  const std::vector<Case> cases = {
      {"Sign", "DT_INT8", true},        {"Sign", "DT_UINT8", false},
      {"Round", "DT_INT64", true},      {"Floor", "DT_INT32", false},
      {"Ceil", "DT_HALF", true},        {"Erf", "DT_COMPLEX64", false},
      {"Log1p", "DT_COMPLEX64", true},  {"Expm1", "DT_INT32", false},
      {"Reciprocal", "DT_INT32", true},
  };
  for (const Case& c : cases) {
    auto out = InferShapes(*ops_, c.op, TypeAttr(c.type), {PartialShape({2})});
    EXPECT_EQ(out.ok(), c.allowed) << c.op << " " << c.type << ": " << out.status();
  }
}

// ---- AddN, Select, SelectV2 ----------------------------------------------------------------

std::string AddNAttrs(int n) {
  return absl::StrCat("attr { key: 'N' value { i: ", n, " } } ", TypeAttr("DT_FLOAT"));
}

TEST_F(MathOpsTest, AddNMergesTheInputShapes) {
  auto out = InferShapes(*ops_, "AddN", AddNAttrs(3),
                         {PartialShape({-1, 3}), PartialShape::Unknown(), PartialShape({2, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3})));
  out = InferShapes(*ops_, "AddN", AddNAttrs(1), {PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({5})));
  const tensorflow::OpDef& def = ops_->Find("AddN")->op_def;
  EXPECT_TRUE(def.is_commutative());
  EXPECT_TRUE(def.is_aggregate());
  EXPECT_EQ(def.input_arg(0).name(), "inputs");
  EXPECT_EQ(def.input_arg(0).number_attr(), "N");
  EXPECT_EQ(def.output_arg(0).name(), "sum");
  EXPECT_EQ(def.attr(0).name(), "N");
  EXPECT_EQ(def.attr(0).minimum(), 1);
}

TEST_F(MathOpsTest, AddNRejectsDifferentShapesAndTooFewInputs) {
  auto out = InferShapes(*ops_, "AddN", AddNAttrs(2), {PartialShape({2, 3}), PartialShape({2, 4})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("AddN: dimension 1 in both shapes must be equal, but are 3 and 4"));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("from merging shape 0 with the other shapes"));
  out = InferShapes(*ops_, "AddN", AddNAttrs(0), {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("'N'"));
  out = InferShapes(*ops_, "AddN", "attr { key: 'N' value { i: 1 } } " + TypeAttr("DT_BOOL"),
                    {PartialShape({1})});
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
}

TEST_F(MathOpsTest, SelectFollowsTensorFlowsConditionRule) {
  struct Case {
    PartialShape cond;
    PartialShape t;
    PartialShape e;
    PartialShape expected;
  };
  const std::vector<Case> cases = {
      {PartialShape::Scalar(), PartialShape({2, 3}), PartialShape({2, 3}), PartialShape({2, 3})},
      {PartialShape({2, 3}), PartialShape({-1, 3}), PartialShape({2, -1}), PartialShape({2, 3})},
      {PartialShape({-1, 3}), PartialShape({2, -1}), PartialShape({2, -1}), PartialShape({2, 3})},
      {PartialShape({4}), PartialShape({4, 5, 6}), PartialShape({4, 5, 6}),
       PartialShape({4, 5, 6})},
      {PartialShape({4}), PartialShape({-1, 5}), PartialShape({-1, 5}), PartialShape({-1, 5})},
      {PartialShape::Unknown(), PartialShape({3}), PartialShape::Unknown(), PartialShape({3})},
      {PartialShape({3}), PartialShape({3}), PartialShape({3}), PartialShape({3})},
  };
  for (const Case& c : cases) {
    auto out = InferShapes(*ops_, "Select", kFloat, {c.cond, c.t, c.e});
    ASSERT_TRUE(out.ok()) << c.cond << " " << c.t << " " << c.e << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(c.expected)) << c.cond << " " << c.t << " " << c.e;
  }
  const tensorflow::OpDef& def = ops_->Find("Select")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "condition");
  EXPECT_EQ(def.input_arg(0).type(), tensorflow::DT_BOOL);
  EXPECT_EQ(def.input_arg(1).name(), "t");
  EXPECT_EQ(def.input_arg(2).name(), "e");
  EXPECT_EQ(def.output_arg(0).name(), "output");
  EXPECT_FALSE(def.attr(0).has_allowed_values());
}

TEST_F(MathOpsTest, SelectRejectsMismatchedShapes) {
  struct Case {
    PartialShape cond;
    PartialShape t;
    PartialShape e;
    const char* message;
  };
  const std::vector<Case> cases = {
      {PartialShape::Scalar(), PartialShape({2}), PartialShape({3}),
       "Select: dimension 0 in both shapes must be equal, but are 2 and 3"},
      {PartialShape({5}), PartialShape({4, 2}), PartialShape({4, 2}),
       "dimension 0 in both shapes must be equal, but are 5 and 4"},
      {PartialShape({2, 2}), PartialShape({2, 3}), PartialShape({2, 3}),
       "dimension 1 in both shapes must be equal, but are 3 and 2"},
      {PartialShape({1}), PartialShape::Scalar(), PartialShape::Scalar(),
       "shapes must be equal rank, but are 0 and 1"},
  };
  for (const Case& c : cases) {
    auto out = InferShapes(*ops_, "Select", kFloat, {c.cond, c.t, c.e});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(c.message));
  }
}

TEST_F(MathOpsTest, SelectV2BroadcastsAllThreeInputs) {
  auto out = InferShapes(*ops_, "SelectV2", kFloat,
                         {PartialShape({2, 1}), PartialShape({3}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3})));
  out = InferShapes(*ops_, "SelectV2", kFloat,
                    {PartialShape::Scalar(), PartialShape({4, 1}), PartialShape({1, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 5})));
  out = InferShapes(*ops_, "SelectV2", kFloat,
                    {PartialShape({3}), PartialShape({2, 1}), PartialShape({2, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("SelectV2: incompatible shapes for broadcasting: [3] and [2,2]"));
  out = InferShapes(*ops_, "SelectV2", kFloat,
                    {PartialShape::Scalar(), PartialShape({2}), PartialShape({3})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("SelectV2: incompatible shapes for broadcasting: [2] and [3]"));
}

// ---- Prod, Min, All, Any, ArgMax, ArgMin, Cumsum --------------------------------------------

TEST_F(MathOpsTest, MoreReductions) {
  Tensor axes = Tensor::Vector<int32_t>({-1});
  for (const char* op : {"Prod", "Min", "All", "Any"}) {
    const bool logical = std::string(op) == "All" || std::string(op) == "Any";
    auto out = InferShapes(
        *ops_, op,
        absl::StrCat(logical ? "" : kFloat, " attr { key: 'keep_dims' value { b: true } }"),
        {PartialShape({2, 3}), PartialShape({1})}, {nullptr, &axes});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 1}))) << op;
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_EQ(def.input_arg(1).name(), "reduction_indices") << op;
    EXPECT_EQ(def.attr(0).name(), "keep_dims") << op;
    EXPECT_FALSE(def.attr(0).default_value().b()) << op;
    if (logical) {
      EXPECT_EQ(def.input_arg(0).type(), tensorflow::DT_BOOL) << op;
      EXPECT_EQ(def.output_arg(0).type(), tensorflow::DT_BOOL) << op;
      EXPECT_EQ(def.attr_size(), 2) << op;
    }
  }
  // Min and Max take real and quantized types; Prod any number type.
  for (const char* op : {"Min", "Max"}) {
    EXPECT_TRUE(
        InferShapes(*ops_, op, TypeAttr("DT_QINT8"), {PartialShape({2}), PartialShape({1})}).ok())
        << op;
    auto out =
        InferShapes(*ops_, op, TypeAttr("DT_COMPLEX64"), {PartialShape({2}), PartialShape({1})});
    EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
  }
  EXPECT_TRUE(
      InferShapes(*ops_, "Prod", TypeAttr("DT_COMPLEX64"), {PartialShape({2}), PartialShape({1})})
          .ok());
}

constexpr char kArgAttrs[] = R"pb(attr {
                                    key: "T"
                                    value { type: DT_FLOAT }
                                  })pb";

TEST_F(MathOpsTest, ArgOpsDropTheDimension) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    Tensor dimension = Tensor::Scalar<int32_t>(-2);
    auto out = InferShapes(*ops_, op, kArgAttrs, {PartialShape({2, 3, 4}), PartialShape::Scalar()},
                           {nullptr, &dimension});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4}))) << op;
    // Unknown dimension: the rank drops by one.
    out = InferShapes(*ops_, op, kArgAttrs, {PartialShape({2, 3, 4}), PartialShape::Scalar()});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
    // Vectors and scalars give a scalar; unknown ranks stay unknown.
    out = InferShapes(*ops_, op, kArgAttrs, {PartialShape({7}), PartialShape::Scalar()});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape::Scalar()));
    out = InferShapes(*ops_, op, kArgAttrs, {PartialShape::Unknown(), PartialShape::Scalar()});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_FALSE((*out)[0].rank_known());

    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_EQ(def.input_arg(1).name(), "dimension");
    EXPECT_EQ(def.output_arg(0).type_attr(), "output_type");
    ASSERT_EQ(def.attr_size(), 3);
    EXPECT_EQ(def.attr(1).name(), "Tidx");
    EXPECT_EQ(def.attr(1).default_value().type(), tensorflow::DT_INT32);
    EXPECT_EQ(def.attr(2).name(), "output_type");
    EXPECT_EQ(def.attr(2).default_value().type(), tensorflow::DT_INT64);
  }
  EXPECT_TRUE(
      InferShapes(*ops_, "ArgMax", TypeAttr("DT_BOOL"), {PartialShape({2}), PartialShape::Scalar()})
          .ok());
}

TEST_F(MathOpsTest, ArgOpsRejectBadDimensions) {
  Tensor dimension = Tensor::Scalar<int64_t>(2);
  auto out = InferShapes(*ops_, "ArgMax",
                         R"pb(attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                              attr {
                                key: "Tidx"
                                value { type: DT_INT64 }
                              })pb",
                         {PartialShape({2, 3}), PartialShape::Scalar()}, {nullptr, &dimension});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("ArgMax: Dimension (2) must be in the range [-2, 2), where 2 is the "
                        "number of dimensions in the input."));
  out = InferShapes(*ops_, "ArgMin", kArgAttrs, {PartialShape({2, 3}), PartialShape({1})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("ArgMin: shape must be rank 0 but is rank 1 (input 1)"));
}

TEST_F(MathOpsTest, CumsumKeepsTheShape) {
  auto out = InferShapes(*ops_, "Cumsum", kFloat, {PartialShape({-1, 4}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 4})));
  const tensorflow::OpDef& def = ops_->Find("Cumsum")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "x");
  EXPECT_EQ(def.input_arg(1).name(), "axis");
  EXPECT_EQ(def.output_arg(0).name(), "out");
  ASSERT_EQ(def.attr_size(), 4);
  EXPECT_EQ(def.attr(0).name(), "exclusive");
  EXPECT_FALSE(def.attr(0).default_value().b());
  EXPECT_EQ(def.attr(1).name(), "reverse");
  EXPECT_FALSE(def.attr(1).default_value().b());
  EXPECT_EQ(def.attr(3).name(), "Tidx");
  EXPECT_EQ(def.attr(3).default_value().type(), tensorflow::DT_INT32);
}

// ---- Trigonometric and hyperbolic ops, IsNan/IsInf/IsFinite, Rint, Atan2 ------------------

TEST_F(MathOpsTest, TrigonometricOpsKeepTheShape) {
  for (const char* op : {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Rint"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({-1, 7})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 7}))) << op;
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_EQ(def.input_arg(0).name(), "x") << op;
    EXPECT_EQ(def.output_arg(0).name(), "y") << op;
  }
  struct Case {
    const char* op;
    const char* type;
    bool allowed;
  };
  // Sin, Cos, Sinh, Cosh: floating and complex; Tan, Asin, Acos, Atan: also signed integers;
  // Rint: floating only.
  const std::vector<Case> cases = {
      {"Sin", "DT_COMPLEX64", true},   {"Sin", "DT_INT32", false},
      {"Cos", "DT_DOUBLE", true},      {"Cosh", "DT_INT64", false},
      {"Sinh", "DT_COMPLEX128", true}, {"Tan", "DT_INT32", true},
      {"Asin", "DT_INT8", true},       {"Acos", "DT_COMPLEX64", true},
      {"Atan", "DT_UINT8", false},     {"Rint", "DT_HALF", true},
      {"Rint", "DT_INT32", false},     {"Rint", "DT_COMPLEX64", false},
  };
  for (const Case& c : cases) {
    auto out = InferShapes(*ops_, c.op, TypeAttr(c.type), {PartialShape({2})});
    EXPECT_EQ(out.ok(), c.allowed) << c.op << " " << c.type << ": " << out.status();
    if (!c.allowed) {
      EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
    }
  }
}

TEST_F(MathOpsTest, FloatPredicatesGiveBoolOfTheSameShape) {
  for (const char* op : {"IsNan", "IsInf", "IsFinite"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({3, -1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({3, -1}))) << op;
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    EXPECT_EQ(def.input_arg(0).name(), "x") << op;
    EXPECT_EQ(def.output_arg(0).name(), "y") << op;
    EXPECT_EQ(def.output_arg(0).type(), tensorflow::DT_BOOL) << op;
    EXPECT_TRUE(InferShapes(*ops_, op, TypeAttr("DT_BFLOAT16"), {PartialShape({1})}).ok()) << op;
    out = InferShapes(*ops_, op, TypeAttr("DT_INT32"), {PartialShape({1})});
    EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list")) << op;
  }
}

TEST_F(MathOpsTest, Atan2TakesYThenXAndBroadcasts) {
  auto out = InferShapes(*ops_, "Atan2", kFloat, {PartialShape({2, 1, 3}), PartialShape({4, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3})));
  const tensorflow::OpDef& def = ops_->Find("Atan2")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "y");
  EXPECT_EQ(def.input_arg(1).name(), "x");
  EXPECT_EQ(def.output_arg(0).name(), "z");
  EXPECT_FALSE(def.is_commutative());
  out = InferShapes(*ops_, "Atan2", kFloat, {PartialShape({2}), PartialShape({3})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("Atan2: incompatible shapes for broadcasting: [2] and [3]"));
  out = InferShapes(*ops_, "Atan2", TypeAttr("DT_INT32"), {PartialShape({1}), PartialShape({1})});
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
}

// ---- Cumprod, ClipByValue, LinSpace, Bucketize ----------------------------------------------

TEST_F(MathOpsTest, CumprodIsCumsumsTwin) {
  auto out = InferShapes(*ops_, "Cumprod", kFloat, {PartialShape({-1, 4}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 4})));
  const tensorflow::OpDef& def = ops_->Find("Cumprod")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "x");
  EXPECT_EQ(def.input_arg(1).name(), "axis");
  EXPECT_EQ(def.output_arg(0).name(), "out");
  ASSERT_EQ(def.attr_size(), 4);
  EXPECT_EQ(def.attr(0).name(), "exclusive");
  EXPECT_FALSE(def.attr(0).default_value().b());
  EXPECT_EQ(def.attr(1).name(), "reverse");
  EXPECT_FALSE(def.attr(1).default_value().b());
  EXPECT_EQ(def.attr(3).name(), "Tidx");
  EXPECT_EQ(def.attr(3).default_value().type(), tensorflow::DT_INT32);
  EXPECT_TRUE(InferShapes(*ops_, "Cumprod", TypeAttr("DT_COMPLEX64"),
                          {PartialShape({2}), PartialShape::Scalar()})
                  .ok());
}

TEST_F(MathOpsTest, ClipByValueKeepsTheShapeOfT) {
  auto out = InferShapes(*ops_, "ClipByValue", kFloat,
                         {PartialShape({2, -1}), PartialShape::Scalar(), PartialShape({2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1})));
  const tensorflow::OpDef& def = ops_->Find("ClipByValue")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "t");
  EXPECT_EQ(def.input_arg(1).name(), "clip_value_min");
  EXPECT_EQ(def.input_arg(2).name(), "clip_value_max");
  EXPECT_EQ(def.output_arg(0).name(), "output");
  EXPECT_TRUE(InferShapes(*ops_, "ClipByValue", TypeAttr("DT_UINT16"),
                          {PartialShape({1}), PartialShape({1}), PartialShape({1})})
                  .ok());
  out = InferShapes(*ops_, "ClipByValue", TypeAttr("DT_BOOL"),
                    {PartialShape({1}), PartialShape({1}), PartialShape({1})});
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
}

TEST_F(MathOpsTest, LinSpaceLengthFromAConstantNum) {
  const std::vector<PartialShape> scalars(3, PartialShape::Scalar());
  auto out = InferShapes(*ops_, "LinSpace", kFloat, scalars);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1})));
  Tensor num = Tensor::Scalar<int32_t>(5);
  out = InferShapes(*ops_, "LinSpace", kFloat, scalars, {nullptr, nullptr, &num});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({5})));
  Tensor num64 = Tensor::Scalar<int64_t>(7);
  out = InferShapes(*ops_, "LinSpace",
                    absl::StrCat(TypeAttr("DT_DOUBLE"),
                                 " attr { key: 'Tidx' value { type: "
                                 "DT_INT64 } }"),
                    scalars, {nullptr, nullptr, &num64});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({7})));
  const tensorflow::OpDef& def = ops_->Find("LinSpace")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "start");
  EXPECT_EQ(def.input_arg(1).name(), "stop");
  EXPECT_EQ(def.input_arg(2).name(), "num");
  EXPECT_EQ(def.attr(1).name(), "Tidx");
  EXPECT_EQ(def.attr(1).default_value().type(), tensorflow::DT_INT32);
  out = InferShapes(*ops_, "LinSpace", TypeAttr("DT_INT32"), scalars);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("is not in the allowed list"));
}

TEST_F(MathOpsTest, LinSpaceRejectsNonScalarsAndNonPositiveNum) {
  const std::vector<PartialShape> scalars(3, PartialShape::Scalar());
  Tensor zero = Tensor::Scalar<int32_t>(0);
  auto out = InferShapes(*ops_, "LinSpace", kFloat, scalars, {nullptr, nullptr, &zero});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("LinSpace: Requires num > 0: 0"));
  const char* names[] = {"start", "stop", "num"};
  for (int i = 0; i < 3; ++i) {
    std::vector<PartialShape> inputs = scalars;
    inputs[i] = PartialShape({2});
    out = InferShapes(*ops_, "LinSpace", kFloat, inputs);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << i;
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr(absl::StrCat("LinSpace: shape must be rank 0 but is rank 1 for '",
                                       names[i], "' (input ", i, ")")))
        << i;
  }
}

TEST_F(MathOpsTest, BucketizeGivesInt32OfTheSameShape) {
  constexpr char kAttrs[] = R"pb(attr {
                                   key: "T"
                                   value { type: DT_DOUBLE }
                                 }
                                 attr {
                                   key: "boundaries"
                                   value { list { f: 0 f: 10 } }
                                 })pb";
  auto out = InferShapes(*ops_, "Bucketize", kAttrs, {PartialShape({-1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3})));
  const tensorflow::OpDef& def = ops_->Find("Bucketize")->op_def;
  EXPECT_EQ(def.input_arg(0).name(), "input");
  EXPECT_EQ(def.output_arg(0).name(), "output");
  EXPECT_EQ(def.output_arg(0).type(), tensorflow::DT_INT32);
  ASSERT_EQ(def.attr_size(), 2);
  EXPECT_EQ(def.attr(1).name(), "boundaries");
  EXPECT_EQ(def.attr(1).type(), "list(float)");
  EXPECT_FALSE(def.attr(1).has_default_value());
  // The attr has no default: a node without it is refused.
  out = InferShapes(*ops_, "Bucketize", kFloat, {PartialShape({2})});
  EXPECT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("boundaries"));
}

}  // namespace
}  // namespace tessera
