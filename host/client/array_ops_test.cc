// Tests that the array op wrappers emit exactly TensorFlow's NodeDefs, and their errors.
#include "host/client/array_ops.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/client_test_util.h"
#include "host/client/math_ops.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

TEST(ArrayOpsTest, Const) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 2.5f);
  Output b = ops::Const(root.WithOpName("b"), {{1, 2}, {3, 4}});
  Output c = ops::Const(root.WithOpName("c"), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {3, 2});
  Output d = ops::Const(root, Tensor::Scalar<bool>(true));
  EXPECT_EQ(a.type(), DT_FLOAT);
  EXPECT_EQ(b.name(), "b:0");
  EXPECT_EQ(d.node_name(), "Const");
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "a", R"pb(
    name: "a" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2.5 } } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "b", R"pb(
    name: "b" op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 2 } }
      tensor_content: "\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000" } } }
  )pb"));
  EXPECT_EQ(def.node(2).attr().at("value").tensor().tensor_shape().dim(0).size(), 3);
  EXPECT_TRUE(NodeEquals(def, "Const", R"pb(
    name: "Const" op: "Const"
    attr { key: "dtype" value { type: DT_BOOL } }
    attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } }
  )pb"));
}

TEST(ArrayOpsTest, IdentityAndNoOp) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT64);
  auto y = ops::Identity(root, x);
  auto n = ops::NoOp(root);
  EXPECT_EQ(y.output.type(), DT_INT64);
  EXPECT_EQ(n.operation.num_outputs(), 0);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Identity", R"pb(
    name: "Identity" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "NoOp", R"pb(name: "NoOp" op: "NoOp")pb"));
}

TEST(ArrayOpsTest, Placeholders) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("any"), DT_FLOAT);
  ops::Placeholder(root.WithOpName("batch"), DT_FLOAT, ops::Placeholder::Shape({-1, 4}));
  auto d = ops::PlaceholderWithDefault(root.WithOpName("d"), {1, 2}, {2});
  EXPECT_EQ(d.output.type(), DT_INT32);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "any", R"pb(
    name: "any" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { unknown_rank: true } } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "batch", R"pb(
    name: "batch" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "d", R"pb(
    name: "d" op: "PlaceholderWithDefault" input: "Const/Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  )pb"));
}

TEST(ArrayOpsTest, ShapeOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Reshape(root.WithOpName("r"), x, {-1, 2});
  auto s = ops::Shape(root.WithOpName("s"), x);
  auto s64 = ops::Shape(root.WithOpName("s64"), x, ops::Shape::OutType(DT_INT64));
  ops::ExpandDims(root.WithOpName("e"), x, int64_t{0});
  ops::Squeeze(root.WithOpName("q"), x);
  ops::Squeeze(root.WithOpName("q1"), x, ops::Squeeze::Axis({1, -1}));
  EXPECT_EQ(s.output.type(), DT_INT32);
  EXPECT_EQ(s64.output.type(), DT_INT64);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "r", R"pb(
    name: "r" op: "Reshape" input: "x" input: "Const/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tshape" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "s", R"pb(
    name: "s" op: "Shape" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "out_type" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "e", R"pb(
    name: "e" op: "ExpandDims" input: "x" input: "Const_1/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tdim" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "q", R"pb(
    name: "q" op: "Squeeze" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "squeeze_dims" value { list {} } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "q1", R"pb(
    name: "q1" op: "Squeeze" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "squeeze_dims" value { list { i: 1 i: -1 } } }
  )pb"));
}

TEST(ArrayOpsTest, ConcatFillZerosLikePack) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  ops::Concat(root, {a, b}, 0);
  ops::Fill(root.WithOpName("f"), {2, 3}, 1.5f);
  ops::ZerosLike(root.WithOpName("z"), a);
  ops::Pack(root.WithOpName("p"), {a, b, a}, ops::Pack::Axis(1));
  ops::Pack(root.WithOpName("p0"), std::vector<Output>{a});
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Concat", R"pb(
    name: "Concat" op: "ConcatV2" input: "a" input: "b" input: "Const/Const"
    attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tidx" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "f", R"pb(
    name: "f" op: "Fill" input: "Const_1/Const" input: "Const_2/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "index_type" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "z", R"pb(
    name: "z" op: "ZerosLike" input: "a" attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "p", R"pb(
    name: "p" op: "Pack" input: "a" input: "b" input: "a"
    attr { key: "N" value { i: 3 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "axis" value { i: 1 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "p0", R"pb(
    name: "p0" op: "Pack" input: "a"
    attr { key: "N" value { i: 1 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "axis" value { i: 0 } }
  )pb"));
}

// ---- Errors -------------------------------------------------------------------------------

std::string ErrorOf(const Scope& scope) {
  EXPECT_EQ(scope.status().code(), absl::StatusCode::kInvalidArgument) << scope.status();
  return std::string(scope.status().message());
}

TEST(ArrayOpsErrorTest, ConstInitializerAndShape) {
  Scope root = Scope::NewRootScope();
  ops::Const(root, {{1, 2}, {3}});
  EXPECT_THAT(ErrorOf(root), HasSubstr("must have one shape"));
  Scope other = Scope::NewRootScope();
  ops::Const(other, {1, 2, 3}, {2, 2});
  EXPECT_THAT(ErrorOf(other), HasSubstr("Const: the initializer has 3 values but shape [2,2] "
                                        "needs 4"));
  Scope third = Scope::NewRootScope();
  ops::Const(third, Tensor());
  EXPECT_THAT(ErrorOf(third), HasSubstr("attr 'value' is an uninitialized tensor"));
}

TEST(ArrayOpsErrorTest, PlaceholderDtypeMustBeDense) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("p"), TSR_DTYPE_STRING);
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'p' (Placeholder): attr 'dtype' must "
                                       "be a dense type, got string"));
}

TEST(ArrayOpsErrorTest, IndexTypes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Reshape(root.WithOpName("r"), x, {2.f});
  EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'Tshape' (the type of input 'Const/Const:0') is "
                                       "float, not one of the allowed int32, int64"));
  Scope s2 = Scope::NewRootScope();
  ops::ExpandDims(s2, ops::Placeholder(s2, DT_FLOAT), 0.5);
  EXPECT_THAT(ErrorOf(s2), HasSubstr("attr 'Tdim'"));
  Scope s3 = Scope::NewRootScope();
  ops::Fill(s3, {2.f}, 1);
  EXPECT_THAT(ErrorOf(s3), HasSubstr("attr 'index_type'"));
  Scope s4 = Scope::NewRootScope();
  ops::Concat(s4, {1, 2}, true);
  EXPECT_THAT(ErrorOf(s4), HasSubstr("attr 'Tidx'"));
  Scope s5 = Scope::NewRootScope();
  ops::Shape(s5.WithOpName("s"), 1, ops::Shape::OutType(DT_FLOAT));
  EXPECT_THAT(ErrorOf(s5), HasSubstr("attr 'out_type' must be int32 or int64, got float"));
}

TEST(ArrayOpsErrorTest, ListLengthsAndTypes) {
  Scope root = Scope::NewRootScope();
  ops::Concat(root.WithOpName("c"), {1}, 0);
  EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'N' must be at least 2, got 1 values"));
  Scope s2 = Scope::NewRootScope();
  ops::Pack(s2, std::vector<Output>{});
  EXPECT_THAT(ErrorOf(s2), HasSubstr("attr 'N' must be at least 1, got 0 values"));
  Scope s3 = Scope::NewRootScope();
  ops::Pack(s3, {1, 2.f});
  EXPECT_THAT(ErrorOf(s3), HasSubstr("inconsistent values for attr 'T': input 0 is int32 but "
                                     "input 1 is float"));
}

TEST(ArrayOpsErrorTest, WrappersAfterAnErrorAddNothing) {
  Scope root = Scope::NewRootScope();
  root.UpdateStatus(absl::InvalidArgumentError("earlier"));
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto y = ops::Identity(root, x);
  EXPECT_FALSE(ops::Const(root, 1).valid());
  EXPECT_FALSE(y.output.valid());
  ops::NoOp noop(root);
  ops::PlaceholderWithDefault(root, 1, {});
  ops::Reshape(root, x, {1});
  ops::Shape(root, x);
  ops::ExpandDims(root, x, 0);
  ops::Squeeze(root, x);
  ops::Concat(root, {x, x}, 0);
  ops::Fill(root, {1}, 1);
  ops::ZerosLike(root, x);
  ops::Pack(root, {x});
  EXPECT_EQ(root.status().message(), "earlier");
}

}  // namespace
}  // namespace tessera
