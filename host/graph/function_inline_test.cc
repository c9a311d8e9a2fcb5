// Function inlining on GraphDefs: names, attrs, arguments and results, nesting, control edges,
// devices, and every error, also through ImportGraphDef.
#include "host/graph/function_inline.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Squared(x: T) -> y: T, y = x * x.
constexpr char kSquare[] = R"pb(
  function {
    signature {
      name: "Squared"
      input_arg { name: "x" type_attr: "T" }
      output_arg { name: "y" type_attr: "T" }
      attr { name: "T" type: "type" }
    }
    node_def {
      name: "mul"
      op: "Mul"
      input: "x"
      input: "x"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
    }
    ret { key: "y" value: "mul:z:0" }
  }
)pb";

constexpr char kFloatX[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
)pb";

class FunctionInlineTest : public ::testing::Test {
 protected:
  void SetUp() override { ops_ = OpRegistry::CreateStandard(); }

  tensorflow::GraphDef Parse(const std::string& text) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    return def;
  }

  // The graph `nodes` with `library`, inlined; fails the test on an error.
  tensorflow::GraphDef Inline(const std::string& nodes, const std::string& library) {
    tensorflow::GraphDef def = Parse(absl::StrCat(nodes, " library { ", library, " }"));
    absl::Status status = InlineFunctionCalls(&def, *ops_);
    EXPECT_TRUE(status.ok()) << status;
    return def;
  }

  absl::Status InlineError(const std::string& nodes, const std::string& library,
                           const InlineLimits& limits = InlineLimits()) {
    tensorflow::GraphDef def = Parse(absl::StrCat(nodes, " library { ", library, " }"));
    return InlineFunctionCalls(&def, *ops_, limits);
  }

  static const tensorflow::NodeDef* Find(const tensorflow::GraphDef& def,
                                         const std::string& name) {
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.name() == name) return &node;
    }
    return nullptr;
  }

  static std::vector<std::string> Inputs(const tensorflow::GraphDef& def,
                                         const std::string& name) {
    const tensorflow::NodeDef* node = Find(def, name);
    EXPECT_NE(node, nullptr) << name;
    if (node == nullptr) return {};
    return {node->input().begin(), node->input().end()};
  }

  static std::vector<std::string> Names(const tensorflow::GraphDef& def) {
    std::vector<std::string> names;
    for (const tensorflow::NodeDef& node : def.node()) names.push_back(node.name());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::unique_ptr<OpRegistry> ops_;
};

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

// --- Errors -------------------------------------------------------------------------------------

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(status.message(), message);
}

std::string SquareCall(const std::string& name, const std::string& op, const std::string& inputs,
                       const std::string& extra = "") {
  return absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" ", inputs,
                      " attr { key: \"T\" value { type: DT_FLOAT } } ", extra, " }");
}

TEST_F(FunctionInlineTest, ErrorsNameTheCallAndTheFunction) {
  ExpectError(InlineError(absl::StrCat(kFloatX, SquareCall("sq", "Squared", "input: 'x' input: 'x'")),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "node 'sq' (Squared) has 2 data inputs, but function 'Squared' takes 1 [float]");
  ExpectError(InlineError(absl::StrCat(kFloatX, "node { name: 'sq' op: 'Squared' input: 'x' }"),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "while instantiating function 'Squared' for node 'sq' (Squared): node 'sq' (Squared) "
              "is missing required attr 'T'");
  ExpectError(InlineError(absl::StrCat(kFloatX, R"pb(
                node {
                  name: "call"
                  op: "PartitionedCall"
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
                    value { func { name: "Nowhere" } }
                  }
                }
              )pb"),
                          kSquare),
              absl::StatusCode::kNotFound,
              "node 'call' (PartitionedCall) calls function 'Nowhere', which the graph's library "
              "does not define");
  ExpectError(InlineError(absl::StrCat(kFloatX, R"pb(
                node {
                  name: "call"
                  op: "PartitionedCall"
                  input: "x"
                  attr {
                    key: "Tin"
                    value { list { type: DT_FLOAT } }
                  }
                  attr {
                    key: "Tout"
                    value { list { type: DT_INT32 } }
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
                }
              )pb"),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "node 'call' (PartitionedCall) has Tout [int32], but function 'Squared' returns "
              "[float]");
}

TEST_F(FunctionInlineTest, BodyErrorsNameTheNodeInsideTheFunction) {
  auto body_error = [&](const std::string& node_def, const std::string& ret) {
    return InlineError(absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' }"),
                       absl::StrCat(R"pb(
                         function {
                           signature {
                             name: "F"
                             input_arg { name: "x" type: DT_FLOAT }
                             output_arg { name: "y" type: DT_FLOAT }
                           }
                         )pb",
                                    node_def, " ret { key: 'y' value: '", ret, "' } }"));
  };
  constexpr char kNeg[] =
      "node_def { name: 'n' op: 'Neg' input: '%s' attr { key: 'T' value { type: DT_FLOAT } } }";
  auto neg = [&](const std::string& input) {
    std::string text = kNeg;
    text.replace(text.find("%s"), 2, input);
    return text;
  };
  ExpectError(body_error(neg("nope:y:0"), "n:y:0"), absl::StatusCode::kInvalidArgument,
              "input 'nope:y:0' of node 'n' (body of function 'F' called by node 'c' (F)): names "
              "no argument and no node output (expected 'arg', 'arg:index', 'node:output' or "
              "'node:output:index')");
  ExpectError(body_error(neg("x"), "n:out:0"), absl::StatusCode::kInvalidArgument,
              "result 'n:out:0' of output 'y' of function 'F' called by node 'c' (F): node 'n' "
              "(Neg) has no output named 'out'");
  ExpectError(body_error(neg("x"), "n:y:1"), absl::StatusCode::kInvalidArgument,
              "result 'n:y:1' of output 'y' of function 'F' called by node 'c' (F): output 'y' "
              "of node 'n' has 1 tensor");
  ExpectError(body_error(neg("x:1"), "n:y:0"), absl::StatusCode::kInvalidArgument,
              "input 'x:1' of node 'n' (body of function 'F' called by node 'c' (F)): argument "
              "'x' has 1 tensor");
  ExpectError(body_error(neg("x"), "n"), absl::StatusCode::kInvalidArgument,
              "result 'n' of output 'y' of function 'F' called by node 'c' (F): names no "
              "argument and no node output (expected 'arg', 'arg:index', 'node:output' or "
              "'node:output:index')");
  ExpectError(body_error("node_def { name: 'n' op: 'Frob' input: 'x' }", "n:y:0"),
              absl::StatusCode::kNotFound,
              "node 'n' has op 'Frob', which is neither a registered op nor a function of the "
              "graph's library (body of function 'F' called by node 'c' (F))");
  ExpectError(body_error(absl::StrCat(neg("x"), "node_def { name: 'k' op: 'NoOp' input: '^m' }"),
                         "n:y:0"),
              absl::StatusCode::kInvalidArgument,
              "control input '^m' of node 'k' names no node of the body (body of function 'F' "
              "called by node 'c' (F))");
  ExpectError(body_error(absl::StrCat(neg("x"), neg("x")), "n:y:0"),
              absl::StatusCode::kInvalidArgument,
              "two nodes of function 'F' called by node 'c' (F) are named 'n'");
  ExpectError(body_error("node_def { name: 'x' op: 'NoOp' }", "x"),
              absl::StatusCode::kInvalidArgument,
              "a node and an argument of function 'F' called by node 'c' (F) are both named 'x'");
  ExpectError(body_error("node_def { name: 'n' op: 'Neg' input: 'x' attr { key: 'T' value { "
                         "placeholder: 'Q' } } }",
                         "n:y:0"),
              absl::StatusCode::kInvalidArgument,
              "attr 'T' of node 'n' refers to attr '$Q', which the function does not have (body "
              "of function 'F' called by node 'c' (F))");
  ExpectError(InlineError(absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' }"), R"pb(
                function {
                  signature {
                    name: "F"
                    input_arg { name: "x" type: DT_FLOAT }
                    output_arg { name: "y" type: DT_FLOAT }
                  }
                }
              )pb"),
              absl::StatusCode::kInvalidArgument,
              "output 'y' of function 'F' called by node 'c' (F) has no entry in the ret map");
}

TEST_F(FunctionInlineTest, RecursionIsRefusedWithTheCycle) {
  ExpectError(InlineError("node { name: 'c' op: 'F' }", R"pb(
                function {
                  signature { name: "F" }
                  node_def { name: "g" op: "G" }
                }
                function {
                  signature { name: "G" }
                  node_def { name: "f" op: "F" }
                }
              )pb"),
              absl::StatusCode::kInvalidArgument,
              "function 'F' calls itself: F -> G -> F (recursive functions cannot be inlined)");
}

TEST_F(FunctionInlineTest, DeepAndExplodingCallTreesAreRefused) {
  // F0 -> F1 -> ... -> F70: deeper than the 64 calls allowed.
  std::string chain;
  for (int i = 0; i <= 70; ++i) {
    absl::StrAppend(&chain, "function { signature { name: 'F", i, "' } ",
                    i < 70 ? absl::StrCat("node_def { name: 'n' op: 'F", i + 1, "' }") : "",
                    " }");
  }
  absl::Status deep = InlineError("node { name: 'c' op: 'F0' }", chain);
  EXPECT_EQ(deep.code(), absl::StatusCode::kInvalidArgument);
  std::string caller = "c";
  std::string functions = "F0";
  for (int i = 1; i <= 64; ++i) absl::StrAppend(&caller, "/n");
  for (int i = 1; i < 64; ++i) absl::StrAppend(&functions, " -> F", i);
  EXPECT_EQ(deep.message(), absl::StrCat("node '", caller, "' (F64) calls function 'F64' more "
                                         "than 64 calls deep: ", functions));

  // E0 calls E1 twice, E1 calls E2 twice, ...: 2^21 bodies.
  std::string tree;
  for (int i = 0; i <= 21; ++i) {
    absl::StrAppend(&tree, "function { signature { name: 'E", i, "' } ",
                    i < 21 ? absl::StrCat("node_def { name: 'a' op: 'E", i + 1,
                                          "' } node_def { name: 'b' op: 'E", i + 1, "' }")
                           : "node_def { name: 'leaf' op: 'NoOp' }",
                    " }");
  }
  ExpectError(InlineError("node { name: 'c' op: 'E0' }", tree),
              absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 1048576 nodes");

  // A library too deep for the estimate's recursion is estimated without recursing further.
  std::string long_chain;
  for (int i = 0; i <= 5000; ++i) {
    absl::StrAppend(&long_chain, "function { signature { name: 'L", i, "' } ",
                    i < 5000 ? absl::StrCat("node_def { name: 'n' op: 'L", i + 1, "' }") : "",
                    " }");
  }
  absl::Status too_deep = InlineError("node { name: 'c' op: 'L0' }", long_chain);
  EXPECT_EQ(too_deep.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_deep.message()), HasSubstr("more than 64 calls deep"));
}

TEST_F(FunctionInlineTest, InputsAndBytesAreBounded) {
  // Every NoOp waits for all 4 tensors of the Split: 3 of them need 12 inputs.
  std::string library = R"pb(
    function {
      signature {
        name: "F"
        input_arg { name: "x" type: DT_FLOAT }
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
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
        attr {
          key: "num_split"
          value { i: 4 }
        }
      }
      node_def { name: "a" op: "IdentityN" input: "split:output" attr { key: "T" value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT ] } } } }
      node_def { name: "b" op: "IdentityN" input: "split:output" attr { key: "T" value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT ] } } } }
      node_def { name: "d" op: "IdentityN" input: "split:output" attr { key: "T" value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT ] } } } }
    }
  )pb";
  std::string call = absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' }");
  InlineLimits limits;
  limits.max_inputs = 10;
  ExpectError(InlineError(call, library, limits), absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 10 inputs");
  limits = InlineLimits();
  limits.max_bytes = 100;
  ExpectError(InlineError(call, library, limits), absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 100 bytes of nodes");
  limits = InlineLimits();
  limits.max_nodes = 5;
  ExpectError(InlineError(call, library, limits), absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 5 nodes");
  EXPECT_TRUE(InlineError(call, library).ok());
}

TEST_F(FunctionInlineTest, MoreCallAndBodyErrors) {
  std::string partitioned = R"pb(
    node {
      name: "call"
      op: "PartitionedCall"
      input: "x"
      attr {
        key: "Tin"
        value { list { type: DT_INT32 } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      %s
    }
  )pb";
  auto with_f = [&](const std::string& f) {
    std::string text = partitioned;
    text.replace(text.find("%s"), 2, f);
    return absl::StrCat(kFloatX, text);
  };
  ExpectError(InlineError(with_f("attr { key: 'f' value { func { name: 'Squared' attr { key: 'T' "
                                 "value { type: DT_FLOAT } } } } }"),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "node 'call' (PartitionedCall) has Tin [int32], but function 'Squared' takes "
              "[float]");
  ExpectError(InlineError(with_f(""), kSquare), absl::StatusCode::kInvalidArgument,
              "node 'call' (PartitionedCall) is missing required attr 'f'");

  auto one_function = [&](const std::string& signature_extra, const std::string& body) {
    return InlineError(absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' attr { key: "
                                             "'N' value { i: 2 } } }"),
                       absl::StrCat("function { signature { name: 'F' input_arg { name: 'x' "
                                    "type: DT_FLOAT } attr { name: 'N' type: 'int' } ",
                                    signature_extra, " } ", body, " }"));
  };
  constexpr char kNeg[] =
      "node_def { name: 'n' op: 'Neg' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } } ";
  ExpectError(one_function("output_arg { name: 'ys' type: DT_FLOAT number_attr: 'N' }",
                           absl::StrCat(kNeg, "ret { key: 'ys' value: 'n:y:0' }")),
              absl::StatusCode::kInvalidArgument,
              "result 'n:y:0' is 1 tensor, but output 'ys' of function 'F' called by node 'c' "
              "(F) has 2");
  ExpectError(one_function("control_output: 'side'",
                           absl::StrCat(kNeg, "control_ret { key: 'side' value: 'nope' }")),
              absl::StatusCode::kInvalidArgument,
              "control output 'side' of function 'F' called by node 'c' (F) names node 'nope', "
              "which the body does not have");
  ExpectError(one_function("", "node_def { name: 'n' op: 'Neg' input: 'x' }"),
              absl::StatusCode::kInvalidArgument,
              "in the body of function 'F' called by node 'c' (F): node 'c/n' (Neg) is missing "
              "required attr 'T'");
  ExpectError(one_function("", "node_def { name: 'n' op: 'PartitionedCall' input: 'x' attr { key: "
                               "'Tin' value { list { type: DT_FLOAT } } } attr { key: 'Tout' "
                               "value { list { } } } attr { key: 'f' value { func { name: "
                               "'Nope' } } } }"),
              absl::StatusCode::kNotFound,
              "in the body of function 'F' called by node 'c' (F): node 'c/n' (PartitionedCall) "
              "calls function 'Nope', which the graph's library does not define");
  for (const char* bad : {"x:1:2:3", "x:abc", ":0"}) {
    ExpectError(one_function("", absl::StrCat("node_def { name: 'n' op: 'Neg' input: '", bad,
                                              "' attr { key: 'T' value { type: DT_FLOAT } } }")),
                absl::StatusCode::kInvalidArgument,
                absl::StrCat("input '", bad, "' of node 'n' (body of function 'F' called by node "
                             "'c' (F)): names no argument and no node output (expected 'arg', "
                             "'arg:index', 'node:output' or 'node:output:index')"));
  }
  ExpectError(one_function("input_arg { name: 'x' type: DT_FLOAT }", ""),
              absl::StatusCode::kInvalidArgument, "function 'F' has two arguments named 'x'");
  ExpectError(one_function("output_arg { name: 'y' type: DT_FLOAT } output_arg { name: 'y' type: "
                           "DT_FLOAT }",
                           ""),
              absl::StatusCode::kInvalidArgument, "function 'F' has two outputs named 'y'");
  ExpectError(
      InlineError(absl::StrCat(kFloatX, SquareCall("sq", "Squared", "input: 'x'"),
                               SquareCall("sq", "Squared", "input: 'x'")),
                  kSquare),
      absl::StatusCode::kInvalidArgument, "duplicate node name 'sq' (node 2)");
}

TEST_F(FunctionInlineTest, TheLibraryItselfIsChecked) {
  ExpectError(InlineError("node { name: 'c' op: 'PartitionedCall' }",
                          "function { signature { } }"),
              absl::StatusCode::kInvalidArgument, "a function of the graph's library has no name");
  ExpectError(InlineError(absl::StrCat(kFloatX, SquareCall("sq", "Squared", "input: 'x'")),
                          absl::StrCat(kSquare, kSquare)),
              absl::StatusCode::kInvalidArgument,
              "function 'Squared' is defined twice in the graph's library");
  ExpectError(InlineError("node { name: 'c' op: 'PartitionedCall' attr { key: 'f' value { func "
                          "{ name: 'Neg' } } } }",
                          "function { signature { name: 'Neg' } }"),
              absl::StatusCode::kInvalidArgument,
              "function 'Neg' of the graph's library has the name of a registered op");
}

}  // namespace
}  // namespace tessera
