// Tests of op definitions built through the OpDefBuilder_* slots.
#include "registry/abi_op_def_builder.h"

#include <cstring>

#include "gtest/gtest.h"
#include "registry/abi_status.h"

namespace tessera {
namespace {

absl::Status Take(TSR_Status* status) { return FromAbiStatus(status, "call"); }

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(substring), absl::string_view::npos) << status.message();
}

TSR_OpArg Arg(const char* name, TSR_DataType dtype, const char* type_attr = nullptr) {
  TSR_OpArg arg;
  std::memset(&arg, 0, sizeof(arg));
  arg.struct_size = sizeof(arg);
  arg.name = name;
  arg.dtype = dtype;
  arg.type_attr = type_attr;
  return arg;
}

TSR_OpAttr Attr(const char* name, TSR_AttrType type) {
  TSR_OpAttr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.struct_size = sizeof(attr);
  attr.name = name;
  attr.type = type;
  return attr;
}

TSR_AttrValue Value(TSR_AttrType type) {
  TSR_AttrValue v;
  std::memset(&v, 0, sizeof(v));
  v.struct_size = sizeof(v);
  v.type = type;
  return v;
}

TSR_Status* ShapeFn(void*, TSR_ShapeContext*) { return nullptr; }

TEST(OpDefBuilderTest, BuildsACompleteOp) {
  TSR_OpDefBuilder* b = OpDefBuilderCreate("Acme>Scale");
  const TSR_DataType allowed[] = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE};
  TSR_OpAttr t = Attr("T", TSR_ATTR_TYPE_TYPE);
  t.allowed_types = allowed;
  t.num_allowed_types = 2;
  TSR_AttrValue t_default = Value(TSR_ATTR_TYPE_TYPE);
  t_default.dtype = TSR_DTYPE_FLOAT;
  t.default_value = &t_default;
  ASSERT_TRUE(Take(OpDefBuilderAddAttr(b, &t)).ok());
  TSR_OpAttr n = Attr("N", TSR_ATTR_TYPE_INT);
  n.has_minimum = true;
  n.minimum = 1;
  ASSERT_TRUE(Take(OpDefBuilderAddAttr(b, &n)).ok());
  TSR_OpArg x = Arg("x", TSR_DTYPE_INVALID, "T");
  x.number_attr = "N";
  ASSERT_TRUE(Take(OpDefBuilderAddInput(b, &x)).ok());
  TSR_OpArg factor = Arg("factor", TSR_DTYPE_FLOAT);
  ASSERT_TRUE(Take(OpDefBuilderAddInput(b, &factor)).ok());
  TSR_OpArg y = Arg("y", TSR_DTYPE_INVALID, "T");
  y.is_ref = true;
  ASSERT_TRUE(Take(OpDefBuilderAddOutput(b, &y)).ok());
  OpDefBuilderSetFlags(b, TSR_OP_FLAG_STATEFUL);
  int user_data = 0;
  OpDefBuilderSetShapeFn(b, ShapeFn, &user_data);
  absl::StatusOr<OpSpec> op = FinishOpDef(b);
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(op->name, "Acme>Scale");
  ASSERT_EQ(op->inputs.size(), 2u);
  EXPECT_EQ(op->inputs[0].type_attr, "T");
  EXPECT_EQ(op->inputs[0].number_attr, "N");
  EXPECT_EQ(op->inputs[1].dtype, TSR_DTYPE_FLOAT);
  EXPECT_TRUE(op->outputs[0].is_ref);
  ASSERT_NE(op->FindAttr("T"), nullptr);
  EXPECT_EQ(op->FindAttr("T")->default_value->dtype, TSR_DTYPE_FLOAT);
  EXPECT_EQ(op->FindAttr("T")->allowed_types.size(), 2u);
  EXPECT_EQ(op->FindAttr("N")->minimum, 1);
  EXPECT_EQ(op->FindAttr("missing"), nullptr);
  EXPECT_EQ(op->flags, TSR_OP_FLAG_STATEFUL);
  EXPECT_EQ(op->shape_fn, &ShapeFn);
  EXPECT_EQ(op->shape_fn_user_data, &user_data);
}

struct ArgCase {
  TSR_OpArg arg;
  const char* expected;
};

TEST(OpDefBuilderTest, RefusesBadArgs) {
  TSR_OpArg two_types = Arg("x", TSR_DTYPE_FLOAT, "T");
  TSR_OpArg list_and_number = Arg("x", TSR_DTYPE_INVALID);
  list_and_number.type_list_attr = "Ts";
  list_and_number.number_attr = "N";
  TSR_OpArg bad_dtype = Arg("x", TSR_DTYPE_FLOAT);
  const int raw_dtype = 55;
  std::memcpy(&bad_dtype.dtype, &raw_dtype, sizeof(raw_dtype));
  const ArgCase cases[] = {
      {bad_dtype, "op 'Op': input 'x': invalid dtype 55"},
      {Arg("X", TSR_DTYPE_FLOAT), "op 'Op': input name 'X' does not match [a-z][a-z0-9_]*"},
      {Arg(nullptr, TSR_DTYPE_FLOAT), "input name NULL does not match"},
      {Arg("x", TSR_DTYPE_INVALID),
       "exactly one of dtype, type_attr, type_list_attr must be "
       "given, got 0"},
      {two_types, "got 2"},
      {list_and_number, "number_attr cannot be combined with type_list_attr"},
  };
  for (const ArgCase& c : cases) {
    TSR_OpDefBuilder* b = OpDefBuilderCreate("Op");
    ExpectError(Take(OpDefBuilderAddInput(b, &c.arg)), absl::StatusCode::kInvalidArgument,
                c.expected);
    // The builder remembers the error: registering it fails the same way.
    ExpectError(FinishOpDef(b).status(), absl::StatusCode::kInvalidArgument, c.expected);
  }
  TSR_OpDefBuilder* b = OpDefBuilderCreate("Op");
  ExpectError(Take(OpDefBuilderAddOutput(b, nullptr)), absl::StatusCode::kInvalidArgument,
              "op 'Op': output is NULL");
  OpDefBuilderDestroy(b);
  b = OpDefBuilderCreate("Op");
  TSR_OpArg x = Arg("x", TSR_DTYPE_FLOAT);
  ASSERT_TRUE(Take(OpDefBuilderAddOutput(b, &x)).ok());
  ExpectError(Take(OpDefBuilderAddOutput(b, &x)), absl::StatusCode::kInvalidArgument,
              "output 'x' is defined twice");
  OpDefBuilderDestroy(b);
  ExpectError(Take(OpDefBuilderAddInput(nullptr, &x)), absl::StatusCode::kInvalidArgument,
              "op builder is NULL");
}

TEST(OpDefBuilderTest, RefusesBadAttrs) {
  const TSR_DataType allowed[] = {TSR_DTYPE_FLOAT};
  TSR_AttrValue int_default = Value(TSR_ATTR_TYPE_INT);
  int_default.i = 0;
  TSR_AttrValue type_default = Value(TSR_ATTR_TYPE_TYPE);
  type_default.dtype = TSR_DTYPE_INT32;
  TSR_AttrValue tensor_default = Value(TSR_ATTR_TYPE_TENSOR);

  struct Case {
    TSR_OpAttr attr;
    const char* expected;
    absl::StatusCode code = absl::StatusCode::kInvalidArgument;
  };
  std::vector<Case> cases;
  cases.push_back({Attr("1x", TSR_ATTR_TYPE_INT), "attr name '1x' does not match"});
  cases.push_back({Attr("x", static_cast<TSR_AttrType>(0)), "attr 'x': invalid attr type 0"});
  cases.push_back({Attr("x", static_cast<TSR_AttrType>(17)), "attr 'x': invalid attr type 17"});
  Case allowed_on_int{Attr("x", TSR_ATTR_TYPE_INT), "allowed_types given for an attr of type int"};
  allowed_on_int.attr.allowed_types = allowed;
  allowed_on_int.attr.num_allowed_types = 1;
  cases.push_back(allowed_on_int);
  Case allowed_null{Attr("x", TSR_ATTR_TYPE_TYPE),
                    "allowed_types is NULL but num_allowed_types is 3"};
  allowed_null.attr.num_allowed_types = 3;
  cases.push_back(allowed_null);
  static TSR_DataType bad_allowed[1];
  const int raw_dtype = 42;
  std::memcpy(&bad_allowed[0], &raw_dtype, sizeof(raw_dtype));
  Case invalid_allowed{Attr("x", TSR_ATTR_TYPE_TYPE), "allowed_types has invalid dtype 42"};
  invalid_allowed.attr.allowed_types = bad_allowed;
  invalid_allowed.attr.num_allowed_types = 1;
  cases.push_back(invalid_allowed);
  Case minimum_on_string{Attr("x", TSR_ATTR_TYPE_STRING),
                         "a minimum is given for an attr of type string"};
  minimum_on_string.attr.has_minimum = true;
  cases.push_back(minimum_on_string);
  Case wrong_default{Attr("x", TSR_ATTR_TYPE_FLOAT), "default has type int, expected float"};
  wrong_default.attr.default_value = &int_default;
  cases.push_back(wrong_default);
  Case not_allowed{Attr("x", TSR_ATTR_TYPE_TYPE), "default dtype 3 is not an allowed type"};
  not_allowed.attr.allowed_types = allowed;
  not_allowed.attr.num_allowed_types = 1;
  not_allowed.attr.default_value = &type_default;
  cases.push_back(not_allowed);
  Case below_minimum{Attr("x", TSR_ATTR_TYPE_INT), "default 0 is below the minimum 2"};
  below_minimum.attr.has_minimum = true;
  below_minimum.attr.minimum = 2;
  below_minimum.attr.default_value = &int_default;
  cases.push_back(below_minimum);
  Case tensor{Attr("x", TSR_ATTR_TYPE_TENSOR),
              "attr 'x': default: an op attribute of type tensor cannot have a default value",
              absl::StatusCode::kUnimplemented};
  tensor.attr.default_value = &tensor_default;
  cases.push_back(tensor);

  for (const Case& c : cases) {
    TSR_OpDefBuilder* b = OpDefBuilderCreate("Op");
    ExpectError(Take(OpDefBuilderAddAttr(b, &c.attr)), c.code, c.expected);
    OpDefBuilderDestroy(b);
  }
  TSR_OpDefBuilder* b = OpDefBuilderCreate("Op");
  ExpectError(Take(OpDefBuilderAddAttr(b, nullptr)), absl::StatusCode::kInvalidArgument,
              "op 'Op': attr is NULL");
  OpDefBuilderDestroy(b);
  b = OpDefBuilderCreate("Op");
  TSR_OpAttr x = Attr("x", TSR_ATTR_TYPE_INT);
  ASSERT_TRUE(Take(OpDefBuilderAddAttr(b, &x)).ok());
  ExpectError(Take(OpDefBuilderAddAttr(b, &x)), absl::StatusCode::kInvalidArgument,
              "attr 'x' is defined twice");
  OpDefBuilderDestroy(b);
  ExpectError(Take(OpDefBuilderAddAttr(nullptr, &x)), absl::StatusCode::kInvalidArgument,
              "op builder is NULL");
}

TEST(OpDefBuilderTest, FinishChecksNamesAndAttrReferences) {
  ExpectError(FinishOpDef(OpDefBuilderCreate("lowercase")).status(),
              absl::StatusCode::kInvalidArgument,
              "op name 'lowercase' does not match [A-Z][a-zA-Z0-9>_]*");
  ExpectError(FinishOpDef(OpDefBuilderCreate(nullptr)).status(), absl::StatusCode::kInvalidArgument,
              "op name is NULL");
  ExpectError(FinishOpDef(nullptr).status(), absl::StatusCode::kInvalidArgument,
              "op builder is NULL");

  TSR_OpDefBuilder* b = OpDefBuilderCreate("Op");
  TSR_OpArg x = Arg("x", TSR_DTYPE_INVALID, "T");
  ASSERT_TRUE(Take(OpDefBuilderAddInput(b, &x)).ok());
  ExpectError(FinishOpDef(b).status(), absl::StatusCode::kInvalidArgument,
              "op 'Op': input 'x' type_attr 'T' names no attr of the op");

  b = OpDefBuilderCreate("Op");
  TSR_OpAttr t = Attr("T", TSR_ATTR_TYPE_INT);
  ASSERT_TRUE(Take(OpDefBuilderAddAttr(b, &t)).ok());
  TSR_OpArg y = Arg("y", TSR_DTYPE_INVALID, "T");
  ASSERT_TRUE(Take(OpDefBuilderAddOutput(b, &y)).ok());
  ExpectError(FinishOpDef(b).status(), absl::StatusCode::kInvalidArgument,
              "op 'Op': output 'y' type_attr 'T' has type int, expected type");

  b = OpDefBuilderCreate("Op");
  TSR_OpAttr n = Attr("N", TSR_ATTR_TYPE_STRING);
  ASSERT_TRUE(Take(OpDefBuilderAddAttr(b, &n)).ok());
  TSR_OpArg z = Arg("z", TSR_DTYPE_FLOAT);
  z.number_attr = "N";
  ASSERT_TRUE(Take(OpDefBuilderAddInput(b, &z)).ok());
  ExpectError(FinishOpDef(b).status(), absl::StatusCode::kInvalidArgument,
              "number_attr 'N' has type string, expected int");
  OpDefBuilderSetFlags(nullptr, 0);
  OpDefBuilderSetShapeFn(nullptr, nullptr, nullptr);
}

}  // namespace
}  // namespace tessera
