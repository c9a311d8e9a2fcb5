// Function inlining on GraphDefs: names, attrs, arguments and results, nesting, control edges,
// devices, also through ImportGraphDef (the errors are in function_inline_errors_test.cc).
#include "host/graph/function_inline.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/graph/function_inline_test_util.h"
#include "host/graph/graph.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using function_inline_testing::FunctionInlineTest;
using function_inline_testing::kFloatX;
using function_inline_testing::kSquare;

TEST_F(FunctionInlineTest, AGraphWithoutCallsIsUntouched) {
  tensorflow::GraphDef def = Parse(absl::StrCat(kFloatX, " library { ", kSquare, " }"));
  EXPECT_FALSE(HasFunctionCalls(def));
  tensorflow::GraphDef before = def;
  ASSERT_TRUE(InlineFunctionCalls(&def, *ops_).ok());
  EXPECT_EQ(def.SerializeAsString(), before.SerializeAsString());
}

TEST_F(FunctionInlineTest, ADirectCallBecomesTheBodyWithItsAttrs) {
  tensorflow::GraphDef def = Inline(absl::StrCat(kFloatX, R"pb(
    node {
      name: "sq"
      op: "Squared"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb"), kSquare);
  EXPECT_THAT(Names(def), ElementsAre("sq", "sq/mul", "sq/x", "x"));
  const tensorflow::NodeDef* arg = Find(def, "sq/x");
  EXPECT_EQ(arg->op(), "Identity");
  EXPECT_EQ(arg->attr().at("T").type(), tensorflow::DT_FLOAT);
  EXPECT_THAT(Inputs(def, "sq/x"), ElementsAre("x"));
  const tensorflow::NodeDef* mul = Find(def, "sq/mul");
  EXPECT_EQ(mul->attr().at("T").type(), tensorflow::DT_FLOAT);
  EXPECT_THAT(Inputs(def, "sq/mul"), ElementsAre("sq/x", "sq/x"));
  // One result: an Identity keeps the call's name; it also waits for the arguments.
  const tensorflow::NodeDef* result = Find(def, "sq");
  EXPECT_EQ(result->op(), "Identity");
  EXPECT_THAT(Inputs(def, "sq"), ElementsAre("sq/mul", "^sq/x"));
  EXPECT_EQ(result->attr().at("T").type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(def.library().function_size(), 1);  // the library stays
  EXPECT_FALSE(HasFunctionCalls(def));
}

TEST_F(FunctionInlineTest, PartitionedCallsNameTheFunctionInTheirFAttr) {
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"}) {
    tensorflow::GraphDef def = Inline(absl::StrCat(kFloatX, R"pb(
      node {
        name: "call"
        op: ")pb", op, R"pb("
        input: "x"
        attr {
          key: "Tin"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "f"
          value {
            func {
              name: "Squared"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            }
          }
        }
        attr {
          key: "_read_only_resource_inputs"
          value { list {} }
        }
      }
    )pb"), kSquare);
    EXPECT_THAT(Names(def), ElementsAre("call", "call/mul", "call/x", "x")) << op;
    EXPECT_THAT(Inputs(def, "call"), ElementsAre("call/mul", "^call/x"));
  }
}

// Sum(xs: N*T) -> (total: T, parts: N*T): AddN over a list argument, and a list result from Split.
constexpr char kLists[] = R"pb(
  function {
    signature {
      name: "Lists"
      input_arg { name: "xs" type_attr: "T" number_attr: "N" }
      output_arg { name: "total" type_attr: "T" }
      output_arg { name: "halves" type_attr: "T" number_attr: "N" }
      attr { name: "T" type: "type" }
      attr { name: "N" type: "int" has_minimum: true minimum: 1 }
    }
    node_def {
      name: "sum"
      op: "AddN"
      input: "xs"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
      attr {
        key: "N"
        value { placeholder: "N" }
      }
    }
    node_def {
      name: "dim"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_INT32
            tensor_shape {}
            int_val: 0
          }
        }
      }
    }
    node_def {
      name: "split"
      op: "Split"
      input: "dim:output:0"
      input: "xs:1"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
      attr {
        key: "num_split"
        value { placeholder: "N" }
      }
    }
    ret { key: "total" value: "sum:sum:0" }
    ret { key: "halves" value: "split:output" }
  }
)pb";

TEST_F(FunctionInlineTest, ListArgumentsAndResultsExpandToEveryTensor) {
  tensorflow::GraphDef def = Inline(R"pb(
    node {
      name: "a"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "b"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "c"
      op: "Lists"
      input: "a"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "N"
        value { i: 2 }
      }
    }
  )pb", kLists);
  EXPECT_THAT(Inputs(def, "c/xs_0"), ElementsAre("a"));
  EXPECT_THAT(Inputs(def, "c/xs_1"), ElementsAre("b"));
  EXPECT_THAT(Inputs(def, "c/sum"), ElementsAre("c/xs_0", "c/xs_1"));
  EXPECT_EQ(Find(def, "c/sum")->attr().at("N").i(), 2);
  EXPECT_THAT(Inputs(def, "c/split"), ElementsAre("c/dim", "c/xs_1"));
  // The Const has no inputs: it waits for the arguments, as the call would.
  EXPECT_THAT(Inputs(def, "c/dim"), ElementsAre("^c/arguments_ready"));
  EXPECT_THAT(Inputs(def, "c/arguments_ready"), ElementsAre("^c/xs_0", "^c/xs_1"));
  EXPECT_EQ(Find(def, "c")->op(), "IdentityN");
  EXPECT_THAT(Inputs(def, "c"), ElementsAre("c/sum", "c/split", "c/split:1", "^c/xs_0", "^c/xs_1"));
  EXPECT_EQ(Find(def, "c")->attr().at("T").list().type_size(), 3);
}

// Outer(x) = Squared(Squared(x)) through a direct call and a PartitionedCall, with its own attr.
constexpr char kOuter[] = R"pb(
  function {
    signature {
      name: "Outer"
      input_arg { name: "x" type_attr: "U" }
      output_arg { name: "y" type_attr: "U" }
      attr { name: "U" type: "type" }
    }
    node_def {
      name: "first"
      op: "Squared"
      input: "x"
      attr {
        key: "T"
        value { placeholder: "U" }
      }
    }
    node_def {
      name: "second"
      op: "PartitionedCall"
      input: "first:y:0"
      attr {
        key: "Tin"
        value { placeholder: "Ulist" }
      }
      attr {
        key: "Tout"
        value { placeholder: "Ulist" }
      }
      attr {
        key: "f"
        value {
          func {
            name: "Squared"
            attr {
              key: "T"
              value { placeholder: "U" }
            }
          }
        }
      }
    }
    ret { key: "y" value: "second:output:0" }
  }
)pb";

TEST_F(FunctionInlineTest, NestedCallsAreInlinedWithTheirCallersAttrs) {
  // "Ulist" is a second attr of Outer holding [U], for the PartitionedCall's Tin and Tout.
  std::string outer = kOuter;
  outer.replace(outer.find("attr { name: \"U\" type: \"type\" }"),
                std::string("attr { name: \"U\" type: \"type\" }").size(),
                "attr { name: \"U\" type: \"type\" } attr { name: \"Ulist\" type: \"list(type)\" }");
  tensorflow::GraphDef def = Inline(absl::StrCat(kFloatX, R"pb(
    node {
      name: "o"
      op: "Outer"
      input: "x"
      attr {
        key: "U"
        value { type: DT_FLOAT }
      }
      attr {
        key: "Ulist"
        value { list { type: DT_FLOAT } }
      }
    }
  )pb"), absl::StrCat(kSquare, outer));
  EXPECT_THAT(Names(def), ElementsAre("o", "o/first", "o/first/mul", "o/first/x", "o/second",
                                      "o/second/mul", "o/second/x", "o/x", "x"));
  EXPECT_THAT(Inputs(def, "o/first/x"), ElementsAre("o/x"));
  EXPECT_THAT(Inputs(def, "o/second/x"), ElementsAre("o/first"));
  EXPECT_THAT(Inputs(def, "o"), ElementsAre("o/second", "^o/x"));
  EXPECT_EQ(Find(def, "o/second/mul")->attr().at("T").type(), tensorflow::DT_FLOAT);
}

TEST_F(FunctionInlineTest, ControlInputsGateTheBodyAndControlOutputsGateTheCall) {
  tensorflow::GraphDef def = Inline(absl::StrCat(kFloatX, R"pb(
    node { name: "before" op: "NoOp" }
    node {
      name: "c"
      op: "Effects"
      input: "x"
      input: "^before"
    }
    node { name: "after" op: "NoOp" input: "^c" }
  )pb"), R"pb(
    function {
      signature {
        name: "Effects"
        input_arg { name: "x" type: DT_FLOAT }
        control_output: "side"
      }
      node_def { name: "side" op: "NoOp" input: "^x" }
      node_def { name: "unused" op: "NoOp" }
      control_ret { key: "side" value: "side" }
    }
  )pb");
  EXPECT_THAT(Inputs(def, "c/input_control_node"), ElementsAre("^before"));
  EXPECT_THAT(Inputs(def, "c/x"), ElementsAre("x", "^c/input_control_node"));
  EXPECT_THAT(Inputs(def, "c/side"), ElementsAre("^c/x"));
  EXPECT_THAT(Inputs(def, "c/unused"), ElementsAre("^c/arguments_ready"));
  // No outputs: a NoOp keeps the call's name and waits for the arguments and the control output
  // (not for "unused", which the function does not name).
  EXPECT_EQ(Find(def, "c")->op(), "NoOp");
  EXPECT_THAT(Inputs(def, "c"), ElementsAre("^c/input_control_node", "^c/side", "^c/x"));
  EXPECT_THAT(Inputs(def, "after"), ElementsAre("^c"));
}

TEST_F(FunctionInlineTest, HandlesPassStraightThroughAndTheirConsumersWaitForTheArguments) {
  tensorflow::GraphDef def = Inline(absl::StrCat(kFloatX, R"pb(
    node {
      name: "v"
      op: "VarHandleOp"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value { shape {} }
      }
    }
    node {
      name: "c"
      op: "Read"
      input: "v"
      input: "x"
    }
  )pb"), R"pb(
    function {
      signature {
        name: "Read"
        input_arg { name: "h" type: DT_RESOURCE }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "read"
        op: "ReadVariableOp"
        input: "h"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def { name: "after" op: "NoOp" input: "^h" input: "^read" }
      ret { key: "y" value: "read:value:0" }
    }
  )pb");
  EXPECT_EQ(Find(def, "c/h"), nullptr);
  // Fed only by the handle: it waits for every argument.
  EXPECT_THAT(Inputs(def, "c/read"), ElementsAre("v", "^c/arguments_ready"));
  EXPECT_THAT(Inputs(def, "c/arguments_ready"), ElementsAre("^c/x", "^v"));
  EXPECT_THAT(Inputs(def, "c/after"), ElementsAre("^v", "^c/read"));
  EXPECT_THAT(Inputs(def, "c"), ElementsAre("c/read", "^c/x", "^v"));
}

TEST_F(FunctionInlineTest, WithoutControlOutputsTheCallWaitsForItsUnusedSideEffects) {
  tensorflow::GraphDef def = Inline(R"pb(
    node { name: "c" op: "Effects" }
  )pb", R"pb(
    function {
      signature { name: "Effects" }
      node_def { name: "a" op: "NoOp" }
      node_def { name: "b" op: "NoOp" input: "^a" }
      node_def {
        name: "handle"
        op: "VarHandleOp"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "shape"
          value { shape {} }
        }
      }
    }
  )pb");
  // No inputs at all: the body's sources need no gate.
  EXPECT_THAT(Inputs(def, "c/a"), ElementsAre());
  // A stateful node nothing uses is waited for; a stateless one is not (TensorFlow waits for data
  // outputs, and a dead or looping leaf must not make the call dead or put it in another frame).
  EXPECT_THAT(Inputs(def, "c"), ElementsAre("^c/handle"));
}

TEST_F(FunctionInlineTest, BodyNodesTakeTheCallsDeviceAndItsTaskUnlessTheyHaveThem) {
  tensorflow::GraphDef def = Inline(absl::StrCat(kFloatX, R"pb(
    node {
      name: "c"
      op: "TwoDevices"
      input: "x"
      device: "/job:worker/task:1/device:CPU:1"
    }
  )pb"), R"pb(
    function {
      signature {
        name: "TwoDevices"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "here"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "there"
        op: "Neg"
        input: "here:y:0"
        device: "/device:CPU:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "there:y:0" }
    }
  )pb");
  EXPECT_EQ(Find(def, "c/x")->device(), "/job:worker/task:1/device:CPU:1");
  EXPECT_EQ(Find(def, "c/here")->device(), "/job:worker/task:1/device:CPU:1");
  // Its own device, on the call's job and task.
  EXPECT_EQ(Find(def, "c/there")->device(), "/job:worker/task:1/device:CPU:0");
  EXPECT_EQ(Find(def, "c")->device(), "/job:worker/task:1/device:CPU:1");
}

TEST_F(FunctionInlineTest, NamesTakenInTheGraphAreMadeUnique) {
  tensorflow::GraphDef def = Inline(absl::StrCat(kFloatX, R"pb(
    node {
      name: "sq/mul"
      op: "Neg"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "sq"
      op: "Squared"
      input: "sq/mul"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb"), kSquare);
  EXPECT_THAT(Names(def), ElementsAre("sq", "sq/mul", "sq/mul_1", "sq/x", "x"));
  EXPECT_THAT(Inputs(def, "sq/x"), ElementsAre("sq/mul"));
  EXPECT_THAT(Inputs(def, "sq"), ElementsAre("sq/mul_1", "^sq/x"));
}

TEST_F(FunctionInlineTest, ImportInlinesAndInfersShapesThroughTheBody) {
  tensorflow::GraphDef def = Parse(absl::StrCat(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value {
          shape {
            dim { size: 3 }
          }
        }
      }
    }
    node {
      name: "sq"
      op: "Squared"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    library {
  )pb", kSquare, "}"));
  absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, *ops_);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Node* sq = (*graph)->FindNode("sq");
  ASSERT_NE(sq, nullptr);
  EXPECT_EQ(sq->op(), "Identity");
  EXPECT_EQ(sq->output_shape(0), PartialShape({3}));
  EXPECT_NE((*graph)->FindNode("sq/mul"), nullptr);
  EXPECT_EQ(def.node_size(), 2);  // the caller's GraphDef is not changed
  // An input of the wrong type is caught by import, on the argument's Identity.
  def.mutable_node(1)->mutable_attr()->at("T").set_type(tensorflow::DT_INT32);
  absl::StatusOr<std::unique_ptr<Graph>> bad = ImportGraphDef(def, *ops_);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("sq/x"));
}

}  // namespace
}  // namespace tessera
