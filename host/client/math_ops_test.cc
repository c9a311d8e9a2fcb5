// Tests that the math op wrappers emit exactly TensorFlow's NodeDefs, and their errors.
#include "host/client/math_ops.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/array_ops.h"
#include "host/client/client_test_util.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

TEST(MathOpsTest, BinaryOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE);
  EXPECT_EQ(Output(ops::Add(root, x, y)).type(), DT_DOUBLE);
  EXPECT_EQ(Output(ops::AddV2(root, x, y)).type(), DT_DOUBLE);
  EXPECT_EQ(Output(ops::Sub(root, x, y)).type(), DT_DOUBLE);
  EXPECT_EQ(Output(ops::Mul(root, x, y)).type(), DT_DOUBLE);
  EXPECT_EQ(Output(ops::RealDiv(root, x, y)).type(), DT_DOUBLE);
  EXPECT_EQ(Output(ops::Maximum(root, x, y)).type(), DT_DOUBLE);
  EXPECT_EQ(Output(ops::Minimum(root, x, y)).type(), DT_DOUBLE);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' input: 'y' ",
                                        "attr { key: 'T' value { type: DT_DOUBLE } }")));
  }
}

TEST(MathOpsTest, UnaryOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  EXPECT_EQ(ops::Neg(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Abs(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Exp(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Log(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Sqrt(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Rsqrt(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Square(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Tanh(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Sigmoid(root, x).y.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op :
       {"Neg", "Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Tanh", "Sigmoid"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' ",
                                        "attr { key: 'T' value { type: DT_FLOAT } }")));
  }
}

TEST(MathOpsTest, Comparisons) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT64);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_INT64);
  EXPECT_EQ(Output(ops::Less(root, x, y)).type(), DT_BOOL);
  EXPECT_EQ(Output(ops::LessEqual(root, x, y)).type(), DT_BOOL);
  EXPECT_EQ(Output(ops::Greater(root, x, y)).type(), DT_BOOL);
  EXPECT_EQ(ops::GreaterEqual(root, x, y).z.type(), DT_BOOL);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' input: 'y' ",
                                        "attr { key: 'T' value { type: DT_INT64 } }")));
  }
}

TEST(MathOpsTest, EqualityComparisons) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_BOOL);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_BOOL);
  EXPECT_EQ(ops::Equal(root, x, y).z.type(), DT_BOOL);
  EXPECT_EQ(ops::NotEqual(root, x, y).z.type(), DT_BOOL);
  ops::Equal(root.WithOpName("lenient_eq"), x, y, ops::Equal::IncompatibleShapeError(false));
  ops::NotEqual(root.WithOpName("lenient_ne"), x, y, ops::NotEqual::IncompatibleShapeError(false));
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Equal", "NotEqual"}) {
    EXPECT_TRUE(
        NodeEquals(def, op,
                   absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' input: 'y' ",
                                "attr { key: 'T' value { type: DT_BOOL } } ",
                                "attr { key: 'incompatible_shape_error' ", "value { b: true } }")));
  }
  EXPECT_TRUE(NodeEquals(def, "lenient_eq", R"pb(
    name: "lenient_eq"
    op: "Equal"
    input: "x"
    input: "y"
    attr {
      key: "T"
      value { type: DT_BOOL }
    }
    attr {
      key: "incompatible_shape_error"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "lenient_ne", R"pb(
    name: "lenient_ne"
    op: "NotEqual"
    input: "x"
    input: "y"
    attr {
      key: "T"
      value { type: DT_BOOL }
    }
    attr {
      key: "incompatible_shape_error"
      value { b: false }
    }
  )pb"));
}

TEST(MathOpsTest, LogicalOps) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_BOOL);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_BOOL);
  EXPECT_EQ(Output(ops::LogicalAnd(root, a, b)).type(), DT_BOOL);
  EXPECT_EQ(ops::LogicalOr(root, a, b).z.type(), DT_BOOL);
  EXPECT_EQ(ops::LogicalNot(root, a).y.type(), DT_BOOL);
  ops::LogicalAnd(root.WithOpName("with_const"), a, true);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(
      NodeEquals(def, "LogicalAnd", "name: 'LogicalAnd' op: 'LogicalAnd' input: 'a' input: 'b'"));
  EXPECT_TRUE(
      NodeEquals(def, "LogicalOr", "name: 'LogicalOr' op: 'LogicalOr' input: 'a' input: 'b'"));
  EXPECT_TRUE(NodeEquals(def, "LogicalNot", "name: 'LogicalNot' op: 'LogicalNot' input: 'a'"));
  EXPECT_TRUE(NodeEquals(def, "with_const",
                         "name: 'with_const' op: 'LogicalAnd' input: 'a' input: 'Const/Const'"));
}

TEST(MathOpsTest, MatMul) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  ops::MatMul(root, a, b);
  ops::MatMul(root.WithOpName("t"), a, b, ops::MatMul::TransposeB(true).TransposeA(true));
  ops::MatMul(root.WithOpName("g"), a, b, ops::MatMul::GradA(true).GradB(true));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "MatMul", R"pb(
    name: "MatMul"
    op: "MatMul"
    input: "a"
    input: "b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "transpose_a"
      value { b: false }
    }
    attr {
      key: "transpose_b"
      value { b: false }
    }
    attr {
      key: "grad_a"
      value { b: false }
    }
    attr {
      key: "grad_b"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "t", R"pb(
    name: "t"
    op: "MatMul"
    input: "a"
    input: "b"
    attr {
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
    }
    attr {
      key: "grad_a"
      value { b: false }
    }
    attr {
      key: "grad_b"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "g", R"pb(
    name: "g"
    op: "MatMul"
    input: "a"
    input: "b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "transpose_a"
      value { b: false }
    }
    attr {
      key: "transpose_b"
      value { b: false }
    }
    attr {
      key: "grad_a"
      value { b: true }
    }
    attr {
      key: "grad_b"
      value { b: true }
    }
  )pb"));
}

TEST(MathOpsTest, Reductions) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto axis = ops::Placeholder(root.WithOpName("axis"), DT_INT64);
  ops::Sum(root, x, axis);
  ops::Mean(root, x, axis, ops::Mean::KeepDims(true));
  auto m = ops::Max(root, x, {0, 1});
  EXPECT_EQ(m.output.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Sum", R"pb(
    name: "Sum"
    op: "Sum"
    input: "x"
    input: "axis"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT64 }
    }
    attr {
      key: "keep_dims"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Mean", R"pb(
    name: "Mean"
    op: "Mean"
    input: "x"
    input: "axis"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT64 }
    }
    attr {
      key: "keep_dims"
      value { b: true }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Max", R"pb(
    name: "Max"
    op: "Max"
    input: "x"
    input: "Const/Const"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT32 }
    }
    attr {
      key: "keep_dims"
      value { b: false }
    }
  )pb"));
}

TEST(MathOpsTest, Cast) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  auto c = ops::Cast(root, x, DT_FLOAT);
  ops::Cast(root.WithOpName("t"), x, DT_INT8, ops::Cast::Truncate(true));
  EXPECT_EQ(c.y.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Cast", R"pb(
    name: "Cast"
    op: "Cast"
    input: "x"
    attr {
      key: "SrcT"
      value { type: DT_INT32 }
    }
    attr {
      key: "DstT"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Truncate"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "t", R"pb(
    name: "t"
    op: "Cast"
    input: "x"
    attr {
      key: "SrcT"
      value { type: DT_INT32 }
    }
    attr {
      key: "DstT"
      value { type: DT_INT8 }
    }
    attr {
      key: "Truncate"
      value { b: true }
    }
  )pb"));
}

TEST(MathOpsTest, DivisionModuloAndPowerOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_INT32);
  EXPECT_EQ(Output(ops::Div(root, x, y)).type(), DT_INT32);
  EXPECT_EQ(Output(ops::FloorDiv(root, x, y)).type(), DT_INT32);
  EXPECT_EQ(Output(ops::FloorMod(root, x, y)).type(), DT_INT32);
  EXPECT_EQ(Output(ops::TruncateDiv(root, x, y)).type(), DT_INT32);
  EXPECT_EQ(Output(ops::TruncateMod(root, x, y)).type(), DT_INT32);
  EXPECT_EQ(Output(ops::Mod(root, x, y)).type(), DT_INT32);
  EXPECT_EQ(ops::Pow(root, x, y).z.type(), DT_INT32);
  EXPECT_EQ(ops::SquaredDifference(root, x, y).z.type(), DT_INT32);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Div", "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod", "Mod", "Pow",
                         "SquaredDifference"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' input: 'y' ",
                                        "attr { key: 'T' value { type: DT_INT32 } }")));
  }
}

TEST(MathOpsTest, MoreUnaryOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  EXPECT_EQ(ops::Sign(root, x).y.type(), DT_DOUBLE);
  EXPECT_EQ(ops::Floor(root, x).y.type(), DT_DOUBLE);
  EXPECT_EQ(ops::Ceil(root, x).y.type(), DT_DOUBLE);
  EXPECT_EQ(ops::Round(root, x).y.type(), DT_DOUBLE);
  EXPECT_EQ(ops::Log1p(root, x).y.type(), DT_DOUBLE);
  EXPECT_EQ(ops::Expm1(root, x).y.type(), DT_DOUBLE);
  EXPECT_EQ(ops::Erf(root, x).y.type(), DT_DOUBLE);
  EXPECT_EQ(Output(ops::Reciprocal(root, x)).type(), DT_DOUBLE);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Sign", "Floor", "Ceil", "Round", "Log1p", "Expm1", "Erf", "Reciprocal"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' ",
                                        "attr { key: 'T' value { type: DT_DOUBLE } }")));
  }
}

TEST(MathOpsTest, TrigonometricOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  EXPECT_EQ(ops::Sin(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Cos(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Tan(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Asin(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Acos(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Atan(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Sinh(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(ops::Cosh(root, x).y.type(), DT_FLOAT);
  EXPECT_EQ(Output(ops::Rint(root, x)).type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Rint"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' ",
                                        "attr { key: 'T' value { type: DT_FLOAT } }")));
  }
}

TEST(MathOpsTest, Atan2TakesYThenX) {
  Scope root = Scope::NewRootScope();
  auto y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  EXPECT_EQ(ops::Atan2(root, y, x).z.type(), DT_DOUBLE);
  EXPECT_TRUE(NodeEquals(GraphOf(root), "Atan2",
                         "name: 'Atan2' op: 'Atan2' input: 'y' input: 'x' "
                         "attr { key: 'T' value { type: DT_DOUBLE } }"));
}

TEST(MathOpsTest, FloatPredicatesGiveBool) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  EXPECT_EQ(ops::IsNan(root, x).y.type(), DT_BOOL);
  EXPECT_EQ(ops::IsInf(root, x).y.type(), DT_BOOL);
  EXPECT_EQ(Output(ops::IsFinite(root, x)).type(), DT_BOOL);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"IsNan", "IsInf", "IsFinite"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' ",
                                        "attr { key: 'T' value { type: DT_DOUBLE } }")));
  }
}

TEST(MathOpsTest, AddN) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  auto sum = ops::AddN(root, {a, b, a});
  EXPECT_EQ(sum.sum.type(), DT_FLOAT);
  ops::AddN(root.WithOpName("one"), {b});
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "AddN", R"pb(
    name: "AddN"
    op: "AddN"
    input: "a"
    input: "b"
    input: "a"
    attr {
      key: "N"
      value { i: 3 }
    }
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "one", R"pb(
    name: "one"
    op: "AddN"
    input: "b"
    attr {
      key: "N"
      value { i: 1 }
    }
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  )pb"));
}

TEST(MathOpsTest, SelectAndSelectV2) {
  Scope root = Scope::NewRootScope();
  auto c = ops::Placeholder(root.WithOpName("c"), DT_BOOL);
  auto t = ops::Placeholder(root.WithOpName("t"), DT_INT64);
  auto e = ops::Placeholder(root.WithOpName("e"), DT_INT64);
  EXPECT_EQ(ops::Select(root, c, t, e).output.type(), DT_INT64);
  EXPECT_EQ(Output(ops::SelectV2(root, c, t, e)).type(), DT_INT64);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Select", "SelectV2"}) {
    EXPECT_TRUE(
        NodeEquals(def, op,
                   absl::StrCat("name: '", op, "' op: '", op, "' input: 'c' input: 't' input: 'e' ",
                                "attr { key: 'T' value { type: DT_INT64 } }")));
  }
}

TEST(MathOpsTest, MoreReductions) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_BOOL);
  auto axis = ops::Placeholder(root.WithOpName("axis"), DT_INT64);
  EXPECT_EQ(ops::Min(root, x, axis).output.type(), DT_INT32);
  ops::Prod(root, x, axis, ops::Prod::KeepDims(true));
  EXPECT_EQ(ops::All(root, b, axis).output.type(), DT_BOOL);
  EXPECT_EQ(Output(ops::Any(root, b, {0}, ops::Any::KeepDims(true))).type(), DT_BOOL);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Min", R"pb(
    name: "Min"
    op: "Min"
    input: "x"
    input: "axis"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT64 }
    }
    attr {
      key: "keep_dims"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Prod", R"pb(
    name: "Prod"
    op: "Prod"
    input: "x"
    input: "axis"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT64 }
    }
    attr {
      key: "keep_dims"
      value { b: true }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "All", R"pb(
    name: "All"
    op: "All"
    input: "b"
    input: "axis"
    attr {
      key: "Tidx"
      value { type: DT_INT64 }
    }
    attr {
      key: "keep_dims"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Any", R"pb(
    name: "Any"
    op: "Any"
    input: "b"
    input: "Const/Const"
    attr {
      key: "Tidx"
      value { type: DT_INT32 }
    }
    attr {
      key: "keep_dims"
      value { b: true }
    }
  )pb"));
}

TEST(MathOpsTest, ArgMaxAndArgMin) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto dim = ops::Placeholder(root.WithOpName("dim"), DT_INT32);
  EXPECT_EQ(ops::ArgMax(root, x, dim).output.type(), DT_INT64);
  EXPECT_EQ(Output(ops::ArgMin(root, x, dim, ops::ArgMin::OutputType(DT_INT32))).type(), DT_INT32);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "ArgMax", R"pb(
    name: "ArgMax"
    op: "ArgMax"
    input: "x"
    input: "dim"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT32 }
    }
    attr {
      key: "output_type"
      value { type: DT_INT64 }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "ArgMin", R"pb(
    name: "ArgMin"
    op: "ArgMin"
    input: "x"
    input: "dim"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT32 }
    }
    attr {
      key: "output_type"
      value { type: DT_INT32 }
    }
  )pb"));
}

TEST(MathOpsTest, Cumsum) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  EXPECT_EQ(ops::Cumsum(root, x, 0).out.type(), DT_DOUBLE);
  ops::Cumsum(root.WithOpName("er"), x, int64_t{-1}, ops::Cumsum::Exclusive(true).Reverse(true));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Cumsum", R"pb(
    name: "Cumsum"
    op: "Cumsum"
    input: "x"
    input: "Const/Const"
    attr {
      key: "T"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT32 }
    }
    attr {
      key: "exclusive"
      value { b: false }
    }
    attr {
      key: "reverse"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "er", R"pb(
    name: "er"
    op: "Cumsum"
    input: "x"
    input: "Const_1/Const"
    attr {
      key: "T"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT64 }
    }
    attr {
      key: "exclusive"
      value { b: true }
    }
    attr {
      key: "reverse"
      value { b: true }
    }
  )pb"));
}

// ---- Errors -------------------------------------------------------------------------------

TEST(MathOpsTest, SegmentReductions) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto ids = ops::Placeholder(root.WithOpName("ids"), DT_INT64);
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  EXPECT_EQ(ops::SegmentMean(root, x, ids).output.type(), DT_FLOAT);
  ops::SegmentSum(root, x, ids);
  ops::SegmentMax(root, x, ids);
  ops::UnsortedSegmentProd(root, x, ids, n);
  ops::UnsortedSegmentMax(root, x, ids, n);
  ops::UnsortedSegmentMin(root, x, ids, n);
  ops::UnsortedSegmentSum(root, x, ids, n);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax"}) {
    EXPECT_TRUE(NodeEquals(def, op, absl::StrCat(R"pb(name: ")pb", op, R"pb(" op: ")pb", op,
                                                 R"pb(" input: "x" input: "ids"
        attr { key: "T" value { type: DT_FLOAT } }
        attr { key: "Tindices" value { type: DT_INT64 } })pb")))
        << op;
  }
  for (const char* op : {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                         "UnsortedSegmentProd"}) {
    EXPECT_TRUE(NodeEquals(def, op, absl::StrCat(R"pb(name: ")pb", op, R"pb(" op: ")pb", op,
                                                 R"pb(" input: "x" input: "ids" input: "n"
        attr { key: "T" value { type: DT_FLOAT } }
        attr { key: "Tindices" value { type: DT_INT64 } }
        attr { key: "Tnumsegments" value { type: DT_INT32 } })pb")))
        << op;
  }
}

std::string ErrorOf(const Scope& scope) {
  EXPECT_EQ(scope.status().code(), absl::StatusCode::kInvalidArgument) << scope.status();
  return std::string(scope.status().message());
}

TEST(MathOpsErrorTest, MismatchedOperandTypes) {
  Scope root = Scope::NewRootScope();
  ops::MatMul(root.WithOpName("m"), {{1.f}}, {{1.0}});
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'm' (MatMul): inconsistent values "
                                       "for attr 'T': input 0 is float but input 1 is double"));
}

TEST(MathOpsErrorTest, SegmentIndexTypes) {
  Scope ids = Scope::NewRootScope();
  ops::SegmentSum(ids.WithOpName("s"), {1.f}, {0.f});
  EXPECT_THAT(ErrorOf(ids), HasSubstr("while building node 's' (SegmentSum): attr 'Tindices'"));
  Scope count = Scope::NewRootScope();
  ops::UnsortedSegmentMax(count.WithOpName("u"), {1.f}, {0}, 1.f);
  EXPECT_THAT(ErrorOf(count), HasSubstr("attr 'Tnumsegments'"));
}

TEST(MathOpsErrorTest, ReductionIndexType) {
  Scope root = Scope::NewRootScope();
  ops::Sum(root.WithOpName("s"), {1.f, 2.f}, 0.f);
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 's' (Sum): attr 'Tidx'"));
}

TEST(MathOpsErrorTest, CastToNonDenseType) {
  Scope root = Scope::NewRootScope();
  ops::Cast(root.WithOpName("c"), 1, TSR_DTYPE_STRING);
  EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'DstT' must be a dense type, got string"));
}

TEST(MathOpsErrorTest, ComparisonOperandTypes) {
  Scope root = Scope::NewRootScope();
  ops::Less(root.WithOpName("l"), 1, 2.f);
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'l' (Less): inconsistent values "
                                       "for attr 'T': input 0 is int32 but input 1 is float"));
  Scope other = Scope::NewRootScope();
  ops::Equal(other.WithOpName("e"), true, 1);
  EXPECT_THAT(ErrorOf(other), HasSubstr("while building node 'e' (Equal): inconsistent values "
                                        "for attr 'T': input 0 is bool but input 1 is int32"));
}

TEST(MathOpsErrorTest, LogicalOpsNeedBoolInputs) {
  Scope root = Scope::NewRootScope();
  ops::LogicalOr(root.WithOpName("o"), true, 1.f);
  EXPECT_THAT(ErrorOf(root),
              HasSubstr("while building node 'o' (LogicalOr): input 'y' must be bool, got float"));
  Scope other = Scope::NewRootScope();
  ops::LogicalNot(other.WithOpName("n"), 3);
  EXPECT_THAT(ErrorOf(other),
              HasSubstr("while building node 'n' (LogicalNot): input 'x' must be bool, got int32"));
}

TEST(MathOpsErrorTest, AddNNeedsInputsOfOneType) {
  Scope root = Scope::NewRootScope();
  ops::AddN(root.WithOpName("s"), {1.f, 2.0});
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 's' (AddN): inconsistent values for "
                                       "attr 'T': input 0 is float but input 1 is double"));
  Scope other = Scope::NewRootScope();
  ops::AddN(other.WithOpName("empty"), std::vector<Output>{});
  EXPECT_THAT(ErrorOf(other), HasSubstr("while building node 'empty' (AddN): attr 'N' must be at "
                                        "least 1, got 0 inputs"));
}

TEST(MathOpsErrorTest, SelectNeedsABoolCondition) {
  Scope root = Scope::NewRootScope();
  ops::Select(root.WithOpName("s"), 1, 2.f, 3.f);
  EXPECT_THAT(ErrorOf(root),
              HasSubstr("while building node 's' (Select): input 'condition' must be bool, got "
                        "int32"));
  Scope other = Scope::NewRootScope();
  ops::SelectV2(other.WithOpName("v"), true, 2.f, 3);
  EXPECT_THAT(ErrorOf(other), HasSubstr("while building node 'v' (SelectV2): inconsistent values "
                                        "for attr 'T': input 0 is float but input 1 is int32"));
}

TEST(MathOpsErrorTest, LogicalReductionsNeedBool) {
  Scope root = Scope::NewRootScope();
  ops::All(root.WithOpName("a"), {1.f}, 0);
  EXPECT_THAT(ErrorOf(root),
              HasSubstr("while building node 'a' (All): input 'input' must be bool, got float"));
  Scope other = Scope::NewRootScope();
  ops::Any(other.WithOpName("b"), {true}, 0.f);
  EXPECT_THAT(ErrorOf(other), HasSubstr("while building node 'b' (Any): attr 'Tidx'"));
}

TEST(MathOpsTest, CumprodClipByValueCheckNumericsLinSpaceBucketize) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto lo = ops::Placeholder(root.WithOpName("lo"), DT_FLOAT);
  auto hi = ops::Placeholder(root.WithOpName("hi"), DT_FLOAT);
  auto axis = ops::Placeholder(root.WithOpName("axis"), DT_INT64);
  auto num = ops::Placeholder(root.WithOpName("num"), DT_INT32);
  EXPECT_EQ(ops::Cumprod(root.WithOpName("cp"), x, axis, ops::Cumprod::Reverse(true)).out.type(),
            DT_FLOAT);
  EXPECT_EQ(ops::ClipByValue(root.WithOpName("clip"), x, lo, hi).output.type(), DT_FLOAT);
  EXPECT_EQ(ops::CheckNumerics(root.WithOpName("check"), x, "logits").output.type(), DT_FLOAT);
  EXPECT_EQ(ops::LinSpace(root.WithOpName("lin"), lo, hi, num).output.type(), DT_FLOAT);
  EXPECT_EQ(ops::Bucketize(root.WithOpName("b"), x, {0.5f, 2}).output.type(), DT_INT32);
  EXPECT_EQ(Output(ops::Bucketize(root.WithOpName("none"), x, {})).type(), DT_INT32);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "cp", R"pb(
    name: "cp"
    op: "Cumprod"
    input: "x"
    input: "axis"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT64 }
    }
    attr {
      key: "exclusive"
      value { b: false }
    }
    attr {
      key: "reverse"
      value { b: true }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "clip", R"pb(
    name: "clip"
    op: "ClipByValue"
    input: "x"
    input: "lo"
    input: "hi"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "check", R"pb(
    name: "check"
    op: "CheckNumerics"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "message"
      value { s: "logits" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "lin", R"pb(
    name: "lin"
    op: "LinSpace"
    input: "lo"
    input: "hi"
    input: "num"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tidx"
      value { type: DT_INT32 }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "b", R"pb(
    name: "b"
    op: "Bucketize"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "boundaries"
      value { list { f: 0.5 f: 2 } }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "none", R"pb(
    name: "none"
    op: "Bucketize"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "boundaries"
      value { list {} }
    }
  )pb"));
}

TEST(MathOpsErrorTest, ClipByValueAndLinSpaceCheckTypes) {
  Scope root = Scope::NewRootScope();
  ops::ClipByValue(root.WithOpName("c"), {1.f}, 0.0, 2.f);
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'c' (ClipByValue): inconsistent values "
                                       "for attr 'T': input 0 is float but input 1 is double"));
  Scope num = Scope::NewRootScope();
  ops::LinSpace(num.WithOpName("l"), 0.f, 1.f, 3.f);
  EXPECT_THAT(ErrorOf(num), HasSubstr("while building node 'l' (LinSpace): attr 'Tidx'"));
}

TEST(MathOpsErrorTest, ArgOpsAndCumsumCheckIndexTypes) {
  Scope root = Scope::NewRootScope();
  ops::ArgMax(root.WithOpName("m"), {1.f}, 0, ops::ArgMax::OutputType(DT_FLOAT));
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'm' (ArgMax): attr 'output_type' must "
                                       "be int32 or int64, got float"));
  Scope dim = Scope::NewRootScope();
  ops::ArgMin(dim.WithOpName("n"), {1.f}, 0.f);
  EXPECT_THAT(ErrorOf(dim), HasSubstr("while building node 'n' (ArgMin): attr 'Tidx'"));
  Scope axis = Scope::NewRootScope();
  ops::Cumsum(axis.WithOpName("c"), {1.f}, 0.f);
  EXPECT_THAT(ErrorOf(axis), HasSubstr("while building node 'c' (Cumsum): attr 'Tidx'"));
}

TEST(MathOpsErrorTest, WrappersAfterAnErrorAddNothing) {
  Scope root = Scope::NewRootScope();
  root.UpdateStatus(absl::InvalidArgumentError("earlier"));
  EXPECT_FALSE(ops::AddV2(root, 1, 2).operation.valid());
  EXPECT_FALSE(ops::Neg(root, 1).operation.valid());
  EXPECT_FALSE(ops::MatMul(root, {{1}}, {{1}}).operation.valid());
  EXPECT_FALSE(ops::Sum(root, 1, 0).operation.valid());
  EXPECT_FALSE(ops::Cast(root, 1, DT_FLOAT).operation.valid());
  EXPECT_FALSE(ops::Less(root, 1, 2).operation.valid());
  EXPECT_FALSE(ops::Equal(root, 1, 2).operation.valid());
  EXPECT_FALSE(ops::LogicalAnd(root, true, false).operation.valid());
  EXPECT_FALSE(ops::LogicalNot(root, true).operation.valid());
  EXPECT_FALSE(ops::FloorMod(root, 1, 2).operation.valid());
  EXPECT_FALSE(ops::Round(root, 1.f).operation.valid());
  EXPECT_FALSE(ops::AddN(root, {1, 2}).operation.valid());
  EXPECT_FALSE(ops::Select(root, true, 1, 2).operation.valid());
  EXPECT_FALSE(ops::Prod(root, 1, 0).operation.valid());
  EXPECT_FALSE(ops::All(root, true, 0).operation.valid());
  EXPECT_FALSE(ops::ArgMax(root, {1}, 0).operation.valid());
  EXPECT_FALSE(ops::Cumsum(root, {1}, 0).operation.valid());
  EXPECT_EQ(root.status().message(), "earlier");
}

}  // namespace
}  // namespace tessera
