// Tests of OpRegistry, OpDefBuilder and ValidateOpDef.
#include "host/ops/op_registry.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/op_def_builder.h"
#include "host/ops/op_def_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

void ExpectBuildError(const OpDefBuilder& builder, const std::string& message) {
  absl::StatusOr<OpRegistration> built = builder.Build();
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(built.status().message()), HasSubstr(message));
}

TEST(OpRegistryTest, RegistersAndFinds) {
  OpRegistry registry;
  absl::StatusOr<OpRegistration> op =
      OpDefBuilder("Foo").Input("x", "T").Output("y", "T").TypeAttr("T").Build();
  ASSERT_TRUE(op.ok()) << op.status();
  ASSERT_TRUE(registry.Register(*op).ok());
  ASSERT_NE(registry.Find("Foo"), nullptr);
  EXPECT_EQ(registry.Find("Foo")->origin, "standard");
  EXPECT_EQ(registry.Find("Bar"), nullptr);
  EXPECT_EQ(registry.size(), 1);
  EXPECT_EQ(registry.ListOpNames(), std::vector<std::string>{"Foo"});
}

TEST(OpRegistryTest, RejectsDuplicates) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(*OpDefBuilder("Foo").Build()).ok());
  absl::Status status =
      registry.Register(*OpDefBuilder("Foo").SetOrigin("plugin 'acme'").Build());
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("op 'Foo' (from plugin 'acme') is already registered by standard"));
}

TEST(OpRegistryTest, LookUpOfUnknownOpIsNotFound) {
  OpRegistry registry;
  absl::StatusOr<const OpRegistration*> op = registry.LookUp("Foo");
  EXPECT_EQ(op.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(op.status().message(),
            "op 'Foo' is not registered (no standard definition and no plugin defines it)");
}

TEST(OpRegistryTest, RegisterValidatesTheDefinition) {
  OpRegistry registry;
  OpRegistration bad;
  bad.op_def.set_name("lowercase");
  bad.origin = "plugin 'acme'";
  absl::Status status = registry.Register(bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("op name 'lowercase' must match _?[A-Z][A-Za-z0-9_>]* (from plugin "
                        "'acme')"));
}

TEST(OpRegistryTest, ConcurrentReadsWhileRegistering) {
  OpRegistry registry;
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(registry.Register(*OpDefBuilder("Op" + std::to_string(i)).Build()).ok());
    }
  });
  int found = 0;
  for (int i = 0; i < 2000; ++i) found += registry.Find("Op0") != nullptr;
  writer.join();
  EXPECT_EQ(registry.size(), 200);
  EXPECT_GE(found, 0);
}

TEST(OpRegistryTest, StandardRegistryHasTheStandardOps) {
  std::unique_ptr<OpRegistry> registry = OpRegistry::CreateStandard();
  for (const char* name :
       {"Const", "Identity", "NoOp", "Placeholder", "PlaceholderWithDefault", "Add", "AddV2",
        "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Neg", "Abs", "Exp", "Log", "Sqrt",
        "Rsqrt", "Square", "Tanh", "Sigmoid", "Relu", "Relu6", "MatMul", "BiasAdd", "Softmax",
        "Sum", "Mean", "Max", "Reshape", "Shape", "ExpandDims", "Squeeze", "ConcatV2", "Cast",
        "Fill", "ZerosLike", "Pack", "_Arg", "_Retval", "_Send", "_Recv", "_HostSend",
        "_HostRecv", "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"}) {
    EXPECT_NE(registry->Find(name), nullptr) << name;
  }
}

TEST(OpDefBuilderTest, BuildsArgsAttrsAndFlags) {
  absl::StatusOr<OpRegistration> op = OpDefBuilder("Concat")
                                          .InputList("values", "N", "T")
                                          .Input("axis", TSR_DTYPE_INT32)
                                          .OutputTypeList("outs", "Touts")
                                          .IntAttr("N", std::nullopt, 2)
                                          .TypeAttr("T", {TSR_DTYPE_FLOAT}, TSR_DTYPE_FLOAT)
                                          .TypeListAttr("Touts")
                                          .StringAttr("mode", "fast", {"fast", "slow"})
                                          .FloatAttr("alpha", 0.5f)
                                          .ShapeAttr("shape", PartialShape({2, -1}))
                                          .IntListAttr("dims", std::vector<int64_t>{1, 2})
                                          .SetIsStateful()
                                          .SetIsCommutative()
                                          .SetIsAggregate()
                                          .SetKernelFlagsHint(4)
                                          .Build();
  ASSERT_TRUE(op.ok()) << op.status();
  const tensorflow::OpDef& def = op->op_def;
  EXPECT_EQ(def.input_arg(0).number_attr(), "N");
  EXPECT_EQ(def.input_arg(1).type(), tensorflow::DT_INT32);
  EXPECT_EQ(def.output_arg(0).type_list_attr(), "Touts");
  EXPECT_TRUE(def.attr(0).has_minimum());
  EXPECT_EQ(def.attr(0).minimum(), 2);
  EXPECT_EQ(def.attr(1).default_value().type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(def.attr(3).allowed_values().list().s_size(), 2);
  EXPECT_TRUE(def.is_stateful());
  EXPECT_TRUE(def.is_commutative());
  EXPECT_TRUE(def.is_aggregate());
  EXPECT_EQ(op->kernel_flags_hint, 4u);
}

TEST(ValidateOpDefTest, RejectsEachFault) {
  ExpectBuildError(OpDefBuilder("Foo").Input("X", "T").TypeAttr("T"),
                   "op definition 'Foo': input name 'X' must match [a-z][a-z0-9_]*");
  ExpectBuildError(OpDefBuilder("Foo").Input("x", "T"),
                   "input 'x' refers to type attr 'T', which is not defined");
  ExpectBuildError(OpDefBuilder("Foo").Input("x", "T").IntAttr("T"),
                   "input 'x' refers to type attr 'T' of type int, expected type");
  ExpectBuildError(OpDefBuilder("Foo").InputList("x", "N", "T").TypeAttr("T").IntAttr("N"),
                   "number attr 'N' must have a minimum >= 0");
  ExpectBuildError(OpDefBuilder("Foo").TypeAttr("T").TypeAttr("T"),
                   "attr 'T' is defined twice");
  ExpectBuildError(OpDefBuilder("Foo").Input("x", "T").Output("x", "T").TypeAttr("T"),
                   "argument name 'x' is used twice");
  ExpectBuildError(OpDefBuilder("Foo").TypeAttr("T", {TSR_DTYPE_FLOAT}, TSR_DTYPE_INT32),
                   "default value of attr 'T': value int32 is not in the allowed list {float}");
  ExpectBuildError(OpDefBuilder("Foo").IntAttr("n", 1, 2),
                   "default value of attr 'n': value 1 is less than the minimum 2");
  tensorflow::OpDef::AttrDef weird;
  weird.set_name("w");
  weird.set_type("complex");
  ExpectBuildError(OpDefBuilder("Foo").Attr(weird), "attr 'w' has unknown type 'complex'");
  ExpectBuildError(OpDefBuilder("Foo").InputTypeList("x", "T").TypeAttr("T"),
                   "refers to type list attr 'T' of type type, expected list(type)");
  ExpectBuildError(OpDefBuilder("9Foo"), "op name '9Foo' must match");
  ExpectBuildError(OpDefBuilder("Foo").IntAttr("bad name"), "attr name 'bad name' must match");
}

TEST(ValidateOpDefTest, RejectsMisplacedAttrConstraints) {
  tensorflow::OpDef::AttrDef attr;
  attr.set_name("a");
  attr.set_type("int");
  *attr.mutable_allowed_values()->mutable_list()->add_s() = "x";
  ExpectBuildError(OpDefBuilder("Foo").Attr(attr),
                   "attr 'a' of type int cannot have allowed values");
  attr.clear_allowed_values();
  attr.set_type("bool");
  attr.set_has_minimum(true);
  ExpectBuildError(OpDefBuilder("Foo").Attr(attr), "attr 'a' of type bool cannot have a minimum");
  attr.set_has_minimum(false);
  attr.set_type("type");
  attr.mutable_allowed_values()->mutable_list()->add_type(tensorflow::DT_FLOAT_REF);
  ExpectBuildError(OpDefBuilder("Foo").Attr(attr),
                   "attr 'a' allows type float_ref, which is not supported");
  tensorflow::OpDef def;
  def.set_name("Foo");
  tensorflow::OpDef::ArgDef* arg = def.add_input_arg();
  arg->set_name("x");
  arg->set_type_list_attr("L");
  arg->set_number_attr("N");
  tensorflow::OpDef::AttrDef* list = def.add_attr();
  list->set_name("L");
  list->set_type("list(type)");
  tensorflow::OpDef::AttrDef* n = def.add_attr();
  n->set_name("N");
  n->set_type("int");
  n->set_has_minimum(true);
  EXPECT_THAT(std::string(ValidateOpDef(def).message()),
              HasSubstr("input 'x' has both a number attr and a type list attr"));
}

TEST(ValidateOpDefTest, RejectsArgumentsWithoutExactlyOneType) {
  tensorflow::OpDef def;
  def.set_name("Foo");
  def.add_input_arg()->set_name("x");
  absl::Status status = ValidateOpDef(def);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("input 'x' gives its type 0 ways"));
  def.mutable_input_arg(0)->set_type(tensorflow::DT_FLOAT);
  def.mutable_input_arg(0)->set_is_ref(true);
  EXPECT_TRUE(ValidateOpDef(def).ok());  // a reference to one tensor, as VariableV2's
  def.mutable_input_arg(0)->set_type(tensorflow::DT_INVALID);
  def.mutable_input_arg(0)->set_type_list_attr("T");
  auto* list_attr = def.add_attr();
  list_attr->set_name("T");
  list_attr->set_type("list(type)");
  EXPECT_THAT(std::string(ValidateOpDef(def).message()),
              HasSubstr("input 'x' is a reference argument with a type list, which is not "
                        "supported"));
  def.clear_attr();
  def.mutable_input_arg(0)->clear_type_list_attr();
  def.mutable_input_arg(0)->set_type(tensorflow::DT_FLOAT);
  def.mutable_input_arg(0)->set_is_ref(false);
  def.mutable_input_arg(0)->set_type(tensorflow::DT_FLOAT8_E5M2);
  EXPECT_THAT(std::string(ValidateOpDef(def).message()),
              HasSubstr("input 'x' has type float8_e5m2, which is not supported"));
}

}  // namespace
}  // namespace tessera
