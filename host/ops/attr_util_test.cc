// Tests of attr value checks and getters, node attr validation and type resolution.
#include "host/ops/attr_util.h"

#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/ops/node_def_util.h"
#include "host/ops/op_def_builder.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

tensorflow::AttrValue Value(const std::string& text) {
  tensorflow::AttrValue value;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &value)) << text;
  return value;
}

tensorflow::OpDef::AttrDef Def(const std::string& text) {
  tensorflow::OpDef::AttrDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

tensorflow::NodeDef Node(const std::string& text) {
  tensorflow::NodeDef node;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &node)) << text;
  return node;
}

void ExpectInvalid(const absl::Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
}

TEST(AttrValueTypeNameTest, NamesEveryCase) {
  EXPECT_EQ(AttrValueTypeName(Value("i: 1")), "int");
  EXPECT_EQ(AttrValueTypeName(Value("s: 'x'")), "string");
  EXPECT_EQ(AttrValueTypeName(Value("type: DT_FLOAT")), "type");
  EXPECT_EQ(AttrValueTypeName(Value("list { i: 1 }")), "list(int)");
  EXPECT_EQ(AttrValueTypeName(Value("list { }")), "list(any)");
  EXPECT_EQ(AttrValueTypeName(Value("list { i: 1 s: 'x' }")), "list(mixed)");
  EXPECT_EQ(AttrValueTypeName(Value("")), "no value");
  EXPECT_EQ(AttrValueSummary(Value("list { i: 1 i: 2 }")), "[1, 2]");
  EXPECT_EQ(AttrValueSummary(Value("type: DT_INT32")), "int32");
}

TEST(ValidateAttrValueTest, ChecksTypesListsAndLimits) {
  EXPECT_TRUE(ValidateAttrValue(Value("list { i: 1 }"), Def("name: 'a' type: 'list(int)'")).ok());
  EXPECT_TRUE(ValidateAttrValue(Value("list { }"), Def("name: 'a' type: 'list(string)'")).ok());
  ExpectInvalid(ValidateAttrValue(Value("i: 1"), Def("name: 'a' type: 'list(int)'")),
                "expected list(int), got int");
  ExpectInvalid(ValidateAttrValue(Value("list { s: 'x' }"), Def("name: 'a' type: 'list(int)'")),
                "expected list(int), got list(string)");
  ExpectInvalid(ValidateAttrValue(Value("list { i: 1 }"),
                                  Def("name: 'a' type: 'list(int)' has_minimum: true minimum: 2")),
                "list has 1 elements, fewer than the minimum 2");
  ExpectInvalid(
      ValidateAttrValue(Value("list { type: DT_INT32 }"),
                        Def("name: 'a' type: 'list(type)' "
                            "allowed_values { list { type: DT_FLOAT } }")),
      "value int32 is not in the allowed list {float}");
  ExpectInvalid(ValidateAttrValue(Value("type: DT_INVALID"), Def("name: 'a' type: 'type'")),
                "type invalid is not supported");
  ExpectInvalid(ValidateAttrValue(Value("shape { dim { size: -7 } }"),
                                  Def("name: 'a' type: 'shape'")),
                "shape has dimension -7");
  ExpectInvalid(ValidateAttrValue(Value("list { shape { dim { size: -7 } } }"),
                                  Def("name: 'a' type: 'list(shape)'")),
                "shape has dimension -7");
  ExpectInvalid(ValidateAttrValue(Value("placeholder: 'T'"), Def("name: 'a' type: 'type'")),
                "expected type, got placeholder");
}

TEST(GetNodeAttrTest, ReadsTypedValues) {
  tensorflow::NodeDef node = Node(R"pb(
    name: "n" op: "X"
    attr { key: "i" value { i: 7 } } attr { key: "b" value { b: true } }
    attr { key: "f" value { f: 0.5 } } attr { key: "s" value { s: "abc" } }
    attr { key: "t" value { type: DT_INT64 } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
    attr { key: "li" value { list { i: 1 i: 2 } } }
    attr { key: "lt" value { list { type: DT_FLOAT } } }
    attr { key: "empty" value { list { } } }
    attr { key: "tensor" value { tensor { dtype: DT_FLOAT } } })pb");
  int64_t i;
  int32_t i32;
  bool b;
  float f;
  std::string s;
  DataType t;
  PartialShape shape;
  std::vector<int64_t> li;
  std::vector<DataType> lt;
  const tensorflow::TensorProto* tensor;
  ASSERT_TRUE(GetNodeAttr(node, "i", &i).ok());
  ASSERT_TRUE(GetNodeAttr(node, "i", &i32).ok());
  ASSERT_TRUE(GetNodeAttr(node, "b", &b).ok());
  ASSERT_TRUE(GetNodeAttr(node, "f", &f).ok());
  ASSERT_TRUE(GetNodeAttr(node, "s", &s).ok());
  ASSERT_TRUE(GetNodeAttr(node, "t", &t).ok());
  ASSERT_TRUE(GetNodeAttr(node, "shape", &shape).ok());
  ASSERT_TRUE(GetNodeAttr(node, "li", &li).ok());
  ASSERT_TRUE(GetNodeAttr(node, "lt", &lt).ok());
  ASSERT_TRUE(GetNodeAttr(node, "tensor", &tensor).ok());
  EXPECT_EQ(i, 7);
  EXPECT_EQ(i32, 7);
  EXPECT_TRUE(b);
  EXPECT_EQ(f, 0.5f);
  EXPECT_EQ(s, "abc");
  EXPECT_EQ(t, TSR_DTYPE_INT64);
  EXPECT_EQ(shape, PartialShape({2}));
  EXPECT_THAT(li, ElementsAre(1, 2));
  EXPECT_THAT(lt, ElementsAre(TSR_DTYPE_FLOAT));
  EXPECT_EQ(tensor->dtype(), tensorflow::DT_FLOAT);
  ASSERT_TRUE(GetNodeAttr(node, "empty", &li).ok());
  EXPECT_TRUE(li.empty());
}

TEST(GetNodeAttrTest, ReportsMissingAndMistypedAttrs) {
  tensorflow::NodeDef node = Node(R"pb(
    name: "n" op: "X"
    attr { key: "big" value { i: 10000000000 } }
    attr { key: "ref" value { type: DT_FLOAT_REF } }
    attr { key: "ls" value { list { s: "x" } } }
    attr { key: "lref" value { list { type: DT_INT32_REF } } }
    attr { key: "bad_shape" value { shape { dim { size: -3 } } } })pb");
  int64_t i;
  int32_t i32;
  DataType t;
  std::vector<int64_t> li;
  std::vector<DataType> lt;
  PartialShape shape;
  ExpectInvalid(GetNodeAttr(node, "missing", &i), "node 'n' (X) has no attr 'missing'");
  ExpectInvalid(GetNodeAttr(node, "ref", &i), "attr 'ref' of node 'n' (X): expected int, got type");
  ExpectInvalid(GetNodeAttr(node, "big", &i32), "value 10000000000 does not fit in int32");
  ExpectInvalid(GetNodeAttr(node, "ref", &t), "type float_ref is not supported");
  ExpectInvalid(GetNodeAttr(node, "ls", &li), "expected list(int), got list(string)");
  ExpectInvalid(GetNodeAttr(node, "ls", &lt), "expected list(type), got list(string)");
  ExpectInvalid(GetNodeAttr(node, "lref", &lt), "type int32_ref is not supported");
  ExpectInvalid(GetNodeAttr(node, "bad_shape", &shape), "attr 'bad_shape' of node 'n' (X)");
}

TEST(NodeDefUtilTest, ResolvesListTypes) {
  absl::StatusOr<OpRegistration> op = OpDefBuilder("Multi")
                                          .InputList("xs", "N", "T")
                                          .InputTypeList("ys", "Tys")
                                          .OutputList("zs", "N", TSR_DTYPE_BOOL)
                                          .IntAttr("N", std::nullopt, 0)
                                          .TypeAttr("T")
                                          .TypeListAttr("Tys")
                                          .Build();
  ASSERT_TRUE(op.ok()) << op.status();
  tensorflow::NodeDef node = Node(R"pb(
    name: "m" op: "Multi" attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tys" value { list { type: DT_INT32 type: DT_INT64 } } })pb");
  ASSERT_TRUE(ValidateNodeDefAttrs(node, op->op_def).ok());
  std::vector<DataType> inputs;
  std::vector<DataType> outputs;
  ASSERT_TRUE(InOutTypesForNode(node, op->op_def, &inputs, &outputs).ok());
  EXPECT_THAT(inputs, ElementsAre(TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT, TSR_DTYPE_INT32,
                                  TSR_DTYPE_INT64));
  EXPECT_THAT(outputs, ElementsAre(TSR_DTYPE_BOOL, TSR_DTYPE_BOOL));

  (*node.mutable_attr())["N"].set_i(int64_t{1} << 40);
  ExpectInvalid(InOutTypesForNode(node, op->op_def, &inputs, &outputs),
                "attr 'N' of node 'm' (Multi) is 1099511627776, expected a count in [0, 1048576]");
  // The largest count a GraphDef can hold is refused without overflowing the running total.
  (*node.mutable_attr())["N"].set_i(std::numeric_limits<int64_t>::max());
  ExpectInvalid(InOutTypesForNode(node, op->op_def, &inputs, &outputs),
                "attr 'N' of node 'm' (Multi) is 9223372036854775807, expected a count in [0, "
                "1048576]");
}

TEST(NodeDefUtilTest, AddsDefaultsWithoutOverriding) {
  absl::StatusOr<OpRegistration> op =
      OpDefBuilder("D").IntAttr("a", 1).BoolAttr("b", false).Build();
  ASSERT_TRUE(op.ok());
  tensorflow::NodeDef node = Node(R"pb(name: "d" op: "D" attr { key: "a" value { i: 5 } })pb");
  AddDefaultsToNodeDef(op->op_def, &node);
  EXPECT_EQ(node.attr().at("a").i(), 5);
  EXPECT_FALSE(node.attr().at("b").b());
}

}  // namespace
}  // namespace tessera
