// Tests of OpBuilder, AsNodeOut and the tensor attr encoding TensorFlow uses.
#include "host/client/op_builder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/client_test_util.h"
#include "host/client/ops.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string AttrText(const Tensor& t) {
  tensorflow::TensorProto proto;
  TensorToAttrProto(t, &proto);
  return proto.ShortDebugString();
}

TEST(TensorToAttrProtoTest, ScalarsUseTheTypedField) {
  EXPECT_EQ(AttrText(Tensor::Scalar<float>(1.5f)),
            "dtype: DT_FLOAT tensor_shape { } float_val: 1.5");
  EXPECT_EQ(AttrText(Tensor::Scalar<double>(2)), "dtype: DT_DOUBLE tensor_shape { } double_val: 2");
  EXPECT_EQ(AttrText(Tensor::Scalar<int32_t>(-3)), "dtype: DT_INT32 tensor_shape { } int_val: -3");
  EXPECT_EQ(AttrText(Tensor::Scalar<int8_t>(-4)), "dtype: DT_INT8 tensor_shape { } int_val: -4");
  EXPECT_EQ(AttrText(Tensor::Scalar<uint8_t>(200)),
            "dtype: DT_UINT8 tensor_shape { } int_val: 200");
  EXPECT_EQ(AttrText(Tensor::Scalar<int16_t>(-5)), "dtype: DT_INT16 tensor_shape { } int_val: -5");
  EXPECT_EQ(AttrText(Tensor::Scalar<uint16_t>(6)), "dtype: DT_UINT16 tensor_shape { } int_val: 6");
  EXPECT_EQ(AttrText(Tensor::Scalar<int64_t>(7)), "dtype: DT_INT64 tensor_shape { } int64_val: 7");
  EXPECT_EQ(AttrText(Tensor::Scalar<uint32_t>(8)),
            "dtype: DT_UINT32 tensor_shape { } uint32_val: 8");
  EXPECT_EQ(AttrText(Tensor::Scalar<uint64_t>(9)),
            "dtype: DT_UINT64 tensor_shape { } uint64_val: 9");
  EXPECT_EQ(AttrText(Tensor::Scalar<bool>(true)), "dtype: DT_BOOL tensor_shape { } bool_val: true");
  EXPECT_EQ(AttrText(Tensor::FromVector<float>({1, 1}, {4})),
            "dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 } } float_val: 4");
}

TEST(TensorToAttrProtoTest, HalfAndComplexScalars) {
  Tensor half(TSR_DTYPE_HALF, {});
  *half.data<uint16_t>() = 0x3C00;  // 1.0
  EXPECT_EQ(AttrText(half), "dtype: DT_HALF tensor_shape { } half_val: 15360");
  Tensor bf16(TSR_DTYPE_BFLOAT16, {});
  *bf16.data<uint16_t>() = 0x3F80;
  EXPECT_EQ(AttrText(bf16), "dtype: DT_BFLOAT16 tensor_shape { } half_val: 16256");
  Tensor c64(TSR_DTYPE_COMPLEX64, {1});
  c64.data<float>()[0] = 1;
  c64.data<float>()[1] = -2;
  EXPECT_EQ(AttrText(c64),
            "dtype: DT_COMPLEX64 tensor_shape { dim { size: 1 } } scomplex_val: 1 scomplex_val: -2");
  Tensor c128(TSR_DTYPE_COMPLEX128, {});
  c128.data<double>()[0] = 3;
  c128.data<double>()[1] = 4;
  EXPECT_EQ(AttrText(c128),
            "dtype: DT_COMPLEX128 tensor_shape { } dcomplex_val: 3 dcomplex_val: 4");
  Tensor q(TSR_DTYPE_QINT8, {});
  *q.data<int8_t>() = 65;
  EXPECT_EQ(AttrText(q), "dtype: DT_QINT8 tensor_shape { } tensor_content: \"A\"");
}

TEST(TensorToAttrProtoTest, SeveralValuesUseTensorContent) {
  tensorflow::TensorProto proto;
  Tensor t = Tensor::FromVector<float>({2}, {1, 2});
  TensorToAttrProto(t, &proto);
  EXPECT_EQ(proto.tensor_content(), std::string(static_cast<const char*>(t.data()), 8));
  EXPECT_EQ(proto.float_val_size(), 0);
}

TEST(TensorToAttrProtoTest, StringsUseStringValForEveryElement) {
  tensorflow::TensorProto proto;
  TensorToAttrProto(Tensor::Strings(TensorShape{2}, {"a", std::string("b\0c", 3)}), &proto);
  EXPECT_EQ(proto.dtype(), tensorflow::DT_STRING);
  EXPECT_TRUE(proto.tensor_content().empty());
  EXPECT_THAT(proto.string_val(), ElementsAre("a", std::string("b\0c", 3)));
  TensorToAttrProto(Tensor::Strings(TensorShape{}, {"one"}), &proto);
  EXPECT_THAT(proto.string_val(), ElementsAre("one"));
}

TEST(TensorToAttrProtoTest, EmptyTensorHasNoValues) {
  EXPECT_EQ(AttrText(Tensor(TSR_DTYPE_INT32, {0, 3})),
            "dtype: DT_INT32 tensor_shape { dim { } dim { size: 3 } }");  // size 0 is the default
}

TEST(OpBuilderTest, BuildsANodeWithEveryKindOfAttr) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  OpBuilder builder(root.WithOpName("custom"), "MyOp");
  builder.Input(x).Inputs({x, x});
  builder.AttrType("T", DT_FLOAT).AttrBool("b", true).AttrInt("i", -1).AttrString("s", "NHWC");
  builder.AttrIntList("l", {1, 2}).AttrIntList("empty", {}).AttrShape("shape", {-1, 3});
  builder.AttrTensor("value", Tensor::Scalar<int32_t>(5));
  EXPECT_EQ(builder.node_name(), "custom");
  Operation op = builder.Finalize({DT_FLOAT, DT_INT32});
  ASSERT_TRUE(op.valid());
  EXPECT_EQ(op.output(1).name(), "custom:1");
  EXPECT_TRUE(NodeEquals(GraphOf(root), "custom", R"pb(
    name: "custom" op: "MyOp" input: "x" input: "x" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "b" value { b: true } }
    attr { key: "i" value { i: -1 } }
    attr { key: "s" value { s: "NHWC" } }
    attr { key: "l" value { list { i: 1 i: 2 } } }
    attr { key: "empty" value { list { } } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 5 } } }
  )pb"));
}

TEST(OpBuilderTest, AsNodeOutAddsConstNodes) {
  Scope root = Scope::NewRootScope();
  Output c = AsNodeOut(root, Input({1.f, 2.f}));
  EXPECT_EQ(c.name(), "Const/Const:0");
  EXPECT_EQ(c.type(), DT_FLOAT);
  std::vector<Output> list = AsNodeOutList(root, {c, 3});
  EXPECT_THAT(list.size(), 2u);
  EXPECT_EQ(list[0].name(), "Const/Const:0");
  EXPECT_EQ(list[1].name(), "Const_1/Const:0");
}

// ---- Errors -------------------------------------------------------------------------------

TEST(OpBuilderErrorTest, SetErrorNamesTheNode) {
  Scope root = Scope::NewRootScope();
  OpBuilder builder(root.WithOpName("n"), "MyOp");
  builder.SetError("first problem");
  builder.SetError("second problem");
  EXPECT_FALSE(builder.Finalize({}).valid());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(root.status().message(), "while building node 'n' (MyOp): first problem");
}

TEST(OpBuilderErrorTest, InvalidInput) {
  Scope root = Scope::NewRootScope();
  OpBuilder builder(root.WithOpName("n"), "MyOp");
  builder.Input(Output());
  builder.Finalize({});
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("input 0 is an invalid Output"));
}

TEST(OpBuilderErrorTest, UninitializedAndNonDenseTensorAttrs) {
  Scope root = Scope::NewRootScope();
  OpBuilder builder(root.WithOpName("n"), "MyOp");
  builder.AttrTensor("value", Tensor());
  builder.Finalize({});
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("attr 'value' is an uninitialized tensor"));

  Scope other = Scope::NewRootScope();
  OpBuilder strings(other.WithOpName("n"), "MyOp");
  strings.AttrTensor("value", Tensor(TSR_DTYPE_STRING, {1}, nullptr));
  strings.Finalize({});
  EXPECT_THAT(std::string(other.status().message()),
              HasSubstr("attr 'value' must be a dense host-memory tensor, got string"));
}

TEST(OpBuilderErrorTest, TypeChecks) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  OpBuilder builder(root.WithOpName("n"), "MyOp");
  builder.CheckType("Tidx", x, {DT_INT32, DT_INT64});
  builder.Finalize({});
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("attr 'Tidx' (the type of input 'x:0') is float, not one of the allowed "
                        "int32, int64"));
}

TEST(OpBuilderErrorTest, InitializerErrorsReachTheScope) {
  Scope root = Scope::NewRootScope();
  Output out = AsNodeOut(root, Input({{1, 2}, {3}}));
  EXPECT_FALSE(out.valid());
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("must have one shape"));
  EXPECT_FALSE(AsNodeOut(root, Input(1)).valid());  // the scope already has an error
}

}  // namespace
}  // namespace tessera
