// Graphs that call functions of their library, run through sessions: the calls are inlined at
// import, so bodies run with TensorFlow's results, across devices, inside v1 loops, with their
// side effects ordered by control outputs.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<Session>> Create(const std::string& text, int cpus = 1) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  SessionOptions options;
  options.device_count["CPU"] = cpus;
  return Session::Create(options, def);
}

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& attrs,
                 const std::string& device = "") {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: \"", input, "\"");
  if (!device.empty()) absl::StrAppend(&text, " device: \"", device, "\"");
  return absl::StrCat(text, " ", attrs, " }\n");
}

std::string TypeAttr(const std::string& name, const std::string& type) {
  return absl::StrCat("attr { key: \"", name, "\" value { type: ", type, " } }");
}

std::string Placeholder(const std::string& name, const std::string& type) {
  return Node(name, "Placeholder", {}, TypeAttr("dtype", type));
}

// SquarePlusOne(x: T) -> y: T, y = x * x + 1; the 1 is a Const of the body, a node without inputs.
constexpr char kSquarePlusOne[] = R"pb(
  function {
    signature {
      name: "SquarePlusOne"
      input_arg { name: "x" type_attr: "T" }
      output_arg { name: "y" type_attr: "T" }
      attr { name: "T" type: "type" }
    }
    node_def {
      name: "one"
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
            int_val: 1
          }
        }
      }
    }
    node_def {
      name: "cast"
      op: "Cast"
      input: "one:output:0"
      attr {
        key: "SrcT"
        value { type: DT_INT32 }
      }
      attr {
        key: "DstT"
        value { placeholder: "T" }
      }
    }
    node_def {
      name: "square"
      op: "Mul"
      input: "x"
      input: "x"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
    }
    node_def {
      name: "sum"
      op: "AddV2"
      input: "square:z:0"
      input: "cast:y:0"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
    }
    ret { key: "y" value: "sum:z:0" }
  }
)pb";

std::string Library(const std::string& functions) {
  return absl::StrCat("library { ", functions, " }");
}

// A StatefulPartitionedCall of `function` at type `type` on input `input`, as TensorFlow 2 writes
// it.
std::string PartitionedCall(const std::string& name, const std::string& function,
                            const std::string& input, const std::string& type,
                            const std::string& device = "") {
  return Node(name, "StatefulPartitionedCall", {input},
              absl::StrCat("attr { key: \"Tin\" value { list { type: ", type,
                           " } } } attr { key: \"Tout\" value { list { type: ", type,
                           " } } } attr { key: \"f\" value { func { name: \"", function,
                           "\" attr { key: \"T\" value { type: ", type, " } } } } }"),
              device);
}

TEST(FunctionCallTest, APartitionedCallRunsItsBodyAndItsOutputsAreFetchable) {
  auto session = Create(absl::StrCat(Placeholder("x", "DT_FLOAT"),
                                     PartitionedCall("call", "SquarePlusOne", "x", "DT_FLOAT"),
                                     Library(kSquarePlusOne)));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({{"x", Tensor::Vector<float>({1.5f, -2.0f})}}, {"call:0", "call"}, {}, &out)
                  .ok());
  ASSERT_EQ(out.size(), 2u);
  for (const Tensor& t : out) {
    ASSERT_EQ(t.NumElements(), 2);
    EXPECT_FLOAT_EQ(t.data<float>()[0], 3.25f);
    EXPECT_FLOAT_EQ(t.data<float>()[1], 5.0f);
  }
  // The body's nodes are in the graph under the call's name.
  ASSERT_TRUE((*session)->Run({{"x", Tensor::Scalar<float>(3.0f)}}, {"call/square"}, {}, &out).ok());
  EXPECT_FLOAT_EQ(*out[0].data<float>(), 9.0f);
}

TEST(FunctionCallTest, OneFunctionInstantiatedAtTwoTypesAndCalledDirectly) {
  auto session = Create(absl::StrCat(
      Placeholder("f", "DT_FLOAT"), Placeholder("i", "DT_INT32"),
      Node("as_float", "SquarePlusOne", {"f"}, TypeAttr("T", "DT_FLOAT")),
      Node("as_int", "SquarePlusOne", {"i"}, TypeAttr("T", "DT_INT32")),
      Node("nested", "SquarePlusOne", {"as_int"}, TypeAttr("T", "DT_INT32")),
      Library(kSquarePlusOne)));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({{"f", Tensor::Scalar<float>(0.5f)}, {"i", Tensor::Scalar<int32_t>(3)}},
                        {"as_float", "as_int", "nested"}, {}, &out)
                  .ok());
  EXPECT_FLOAT_EQ(*out[0].data<float>(), 1.25f);
  EXPECT_EQ(*out[1].data<int32_t>(), 10);
  EXPECT_EQ(*out[2].data<int32_t>(), 101);
}

// TwoDevices(x) = -x + -x: the negation on CPU:1, the sum on CPU:0, one body over two devices.
constexpr char kTwoDevices[] = R"pb(
  function {
    signature {
      name: "TwoDevices"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "there"
      op: "Neg"
      input: "x"
      device: "/device:CPU:1"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node_def {
      name: "back"
      op: "AddV2"
      input: "there:y:0"
      input: "there:y:0"
      device: "/device:CPU:0"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "back:z:0" }
  }
)pb";

TEST(FunctionCallTest, AFunctionBodySpansTwoDevices) {
  auto session = Create(absl::StrCat(Placeholder("x", "DT_FLOAT"),
                                     Node("call", "TwoDevices", {"x"}, ""), Library(kTwoDevices)),
                        /*cpus=*/2);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE((*session)
                  ->Run(RunOptions(), {{"x", Tensor::Scalar<float>(4.0f)}}, {"call"}, {}, &out,
                        &metadata)
                  .ok());
  EXPECT_FLOAT_EQ(*out[0].data<float>(), -8.0f);
  EXPECT_THAT(metadata.partition_devices, Contains(HasSubstr("/device:CPU:0")));
  EXPECT_THAT(metadata.partition_devices, Contains(HasSubstr("/device:CPU:1")));
}

TEST(FunctionCallTest, ACallInsideAV1LoopRunsOncePerIteration) {
  // i = 0; while i < n: i = i + (SquarePlusOne(i) - i * i), that is i + 1, through a body whose
  // Const must run in the loop's frame.
  constexpr char kInt[] = "attr { key: \"T\" value { type: DT_INT32 } }";
  auto enter = [](const std::string& name, const std::string& input, bool constant) {
    return Node(name, "Enter", {input},
                absl::StrCat("attr { key: \"T\" value { type: DT_INT32 } } attr { key: "
                             "\"frame_name\" value { s: \"loop\" } } attr { key: \"is_constant\" "
                             "value { b: ",
                             constant ? "true" : "false", " } }"));
  };
  std::string graph = absl::StrCat(
      Placeholder("n", "DT_INT32"),
      Node("zero", "Const", {},
           "attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" value { "
           "tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } }"),
      enter("loop/enter", "zero", false), enter("loop/limit", "n", true),
      Node("loop/merge", "Merge", {"loop/enter", "loop/next"},
           absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")),
      Node("loop/less", "Less", {"loop/merge", "loop/limit"}, kInt),
      Node("loop/cond", "LoopCond", {"loop/less"}, ""),
      Node("loop/switch", "Switch", {"loop/merge", "loop/cond"}, kInt),
      Node("loop/i", "Identity", {"loop/switch:1"}, kInt),
      Node("loop/f", "SquarePlusOne", {"loop/i"}, TypeAttr("T", "DT_INT32")),
      Node("loop/square", "Mul", {"loop/i", "loop/i"}, kInt),
      Node("loop/one", "Sub", {"loop/f", "loop/square"}, kInt),
      Node("loop/inc", "AddV2", {"loop/i", "loop/one"}, kInt),
      Node("loop/next", "NextIteration", {"loop/inc"}, kInt),
      Node("loop/exit", "Exit", {"loop/switch"}, kInt), Library(kSquarePlusOne));
  auto session = Create(graph);
  ASSERT_TRUE(session.ok()) << session.status();
  for (int n : {0, 1, 7}) {
    std::vector<Tensor> out;
    absl::Status status =
        (*session)->Run({{"n", Tensor::Scalar<int32_t>(n)}}, {"loop/exit"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(*out[0].data<int32_t>(), n);
  }
}

// Bump(v: resource): v += 1, a side effect named as the function's control output.
constexpr char kBump[] = R"pb(
  function {
    signature {
      name: "Bump"
      input_arg { name: "v" type: DT_RESOURCE }
      control_output: "add"
    }
    node_def {
      name: "one"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {}
            float_val: 1
          }
        }
      }
    }
    node_def {
      name: "add"
      op: "AssignAddVariableOp"
      input: "v"
      input: "one:output:0"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    control_ret { key: "add" value: "add" }
  }
)pb";

TEST(FunctionCallTest, ControlOutputsMakeACallsSideEffectsFinishBeforeItsDependents) {
  std::string graph = absl::StrCat(
      Node("v", "VarHandleOp", {},
           "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { "
           "shape { } } } attr { key: \"shared_name\" value { s: \"v\" } }"),
      Node("zero", "Const", {},
           "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { "
           "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } }"),
      Node("init", "AssignVariableOp", {"v", "zero"}, TypeAttr("dtype", "DT_FLOAT")),
      Node("bump", "StatefulPartitionedCall", {"v"},
           "attr { key: \"Tin\" value { list { type: DT_RESOURCE } } } attr { key: \"Tout\" "
           "value { list { } } } attr { key: \"f\" value { func { name: \"Bump\" } } }"),
      Node("read_after", "ReadVariableOp", {"v", "^bump"}, TypeAttr("dtype", "DT_FLOAT")),
      Library(kBump));
  auto session = Create(graph);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, &out).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"bump"}, &out).ok());
  ASSERT_TRUE((*session)->Run({}, {"read_after"}, {}, &out).ok());
  EXPECT_FLOAT_EQ(*out[0].data<float>(), 2.0f);  // bumped by the target, then before the read
}

// Negate(x: T) -> y: T.
constexpr char kNegate[] = R"pb(
  function {
    signature {
      name: "Negate"
      input_arg { name: "x" type_attr: "T" }
      output_arg { name: "y" type_attr: "T" }
      attr { name: "T" type: "type" }
    }
    node_def {
      name: "neg"
      op: "Neg"
      input: "x"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
    }
    ret { key: "y" value: "neg:y:0" }
  }
)pb";

std::string IfNode(const std::string& name, const std::string& op, const std::string& cond,
                   const std::string& cond_type, const std::string& input) {
  return Node(name, op, {cond, input},
              absl::StrCat(TypeAttr("Tcond", cond_type),
                           " attr { key: \"Tin\" value { list { type: DT_FLOAT } } } attr { key: "
                           "\"Tout\" value { list { type: DT_FLOAT } } } attr { key: "
                           "\"then_branch\" value { func { name: \"SquarePlusOne\" attr { key: "
                           "\"T\" value { type: DT_FLOAT } } } } } attr { key: \"else_branch\" "
                           "value { func { name: \"Negate\" attr { key: \"T\" value { type: "
                           "DT_FLOAT } } } } }"));
}

TEST(FunctionCallTest, IfRunsOnlyTheTakenBranch) {
  auto session = Create(absl::StrCat(Placeholder("p", "DT_BOOL"), Placeholder("k", "DT_INT32"),
                                     Placeholder("x", "DT_FLOAT"),
                                     IfNode("if", "If", "p", "DT_BOOL", "x"),
                                     IfNode("by_number", "StatelessIf", "k", "DT_INT32", "x"),
                                     Library(absl::StrCat(kSquarePlusOne, kNegate))));
  ASSERT_TRUE(session.ok()) << session.status();
  struct Case {
    bool p;
    int k;
    float x;
    float if_result;
    float number_result;
  };
  for (const Case& c : {Case{true, 3, 2.0f, 5.0f, 5.0f}, Case{false, 0, 2.0f, -2.0f, -2.0f},
                        Case{true, -1, -3.0f, 10.0f, 10.0f}}) {
    std::vector<Tensor> out;
    absl::Status status = (*session)->Run({{"p", Tensor::Scalar<bool>(c.p)},
                                           {"k", Tensor::Scalar<int32_t>(c.k)},
                                           {"x", Tensor::Scalar<float>(c.x)}},
                                          {"if", "by_number"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_FLOAT_EQ(*out[0].data<float>(), c.if_result);
    EXPECT_FLOAT_EQ(*out[1].data<float>(), c.number_result);
  }
  // The untaken branch is dead: fetching inside it is TensorFlow's error.
  std::vector<Tensor> out;
  absl::Status dead = (*session)->Run({{"p", Tensor::Scalar<bool>(true)},
                                       {"k", Tensor::Scalar<int32_t>(1)},
                                       {"x", Tensor::Scalar<float>(1.0f)}},
                                      {"if/else/neg"}, {}, &out);
  EXPECT_FALSE(dead.ok());
}

// Less(i, n) and (i + 1, n): a counting While, as TensorFlow 2 writes tf.while_loop.
constexpr char kLoopFunctions[] = R"pb(
  function {
    signature {
      name: "CountCond"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "n" type: DT_INT32 }
      input_arg { name: "acc" type: DT_FLOAT }
      output_arg { name: "more" type: DT_BOOL }
    }
    node_def {
      name: "less"
      op: "Less"
      input: "i"
      input: "n"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    ret { key: "more" value: "less:z:0" }
  }
  function {
    signature {
      name: "LoopBody"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "n" type: DT_INT32 }
      input_arg { name: "acc" type: DT_FLOAT }
      output_arg { name: "i_next" type: DT_INT32 }
      output_arg { name: "n_same" type: DT_INT32 }
      output_arg { name: "acc_next" type: DT_FLOAT }
    }
    node_def {
      name: "one"
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
            int_val: 1
          }
        }
      }
    }
    node_def {
      name: "inc"
      op: "AddV2"
      input: "i"
      input: "one:output:0"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node_def {
      name: "twice"
      op: "AddV2"
      input: "acc"
      input: "acc"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "i_next" value: "inc:z:0" }
    ret { key: "n_same" value: "n" }
    ret { key: "acc_next" value: "twice:z:0" }
  }
)pb";

std::string WhileNode(const std::string& name, const std::vector<std::string>& inputs,
                      const std::string& types) {
  return Node(name, "StatelessWhile", inputs,
              absl::StrCat("attr { key: \"T\" value { list { ", types,
                           " } } } attr { key: \"cond\" value { func { name: \"CountCond\" } } } "
                           "attr { key: \"body\" value { func { name: \"LoopBody\" } } }"));
}

TEST(FunctionCallTest, AWhileLoopOfFunctionsCountsAndDoubles) {
  auto session = Create(absl::StrCat(
      Placeholder("n", "DT_INT32"), Placeholder("start", "DT_FLOAT"),
      Node("zero", "Const", {},
           "attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" value { "
           "tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } }"),
      WhileNode("loop", {"zero", "n", "start"}, "type: DT_INT32 type: DT_INT32 type: DT_FLOAT"),
      Library(kLoopFunctions)));
  ASSERT_TRUE(session.ok()) << session.status();
  for (int n : {0, 1, 10}) {
    std::vector<Tensor> out;
    absl::Status status = (*session)->Run(
        {{"n", Tensor::Scalar<int32_t>(n)}, {"start", Tensor::Scalar<float>(1.5f)}},
        {"loop:0", "loop:1", "loop:2"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(*out[0].data<int32_t>(), n);
    EXPECT_EQ(*out[1].data<int32_t>(), n);
    EXPECT_FLOAT_EQ(*out[2].data<float>(), 1.5f * static_cast<float>(1 << n));
  }
}

// Bump in a loop: a resource loop variable, updated by the body n times.
TEST(FunctionCallTest, AWhileLoopCarriesAVariableHandle) {
  constexpr char kBumpLoop[] = R"pb(
    function {
      signature {
        name: "BumpCond"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "more" type: DT_BOOL }
      }
      node_def {
        name: "limit"
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
              int_val: 4
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "limit:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "more" value: "less:z:0" }
    }
    function {
      signature {
        name: "BumpBody"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "v_same" type: DT_RESOURCE }
      }
      node_def {
        name: "one"
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
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "bump"
        op: "StatefulPartitionedCall"
        input: "v"
        attr {
          key: "Tin"
          value { list { type: DT_RESOURCE } }
        }
        attr {
          key: "Tout"
          value { list {} }
        }
        attr {
          key: "f"
          value { func { name: "Bump" } }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "v_same" value: "v" }
      control_ret { key: "bump" value: "bump" }
    }
  )pb";
  std::string graph = absl::StrCat(
      Node("v", "VarHandleOp", {},
           "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { "
           "shape { } } } attr { key: \"shared_name\" value { s: \"v\" } }"),
      Node("zero", "Const", {},
           "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { "
           "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } }"),
      Node("izero", "Const", {},
           "attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" value { "
           "tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } }"),
      Node("init", "AssignVariableOp", {"v", "zero"}, TypeAttr("dtype", "DT_FLOAT")),
      Node("loop", "While", {"izero", "v"},
           "attr { key: \"T\" value { list { type: DT_INT32 type: DT_RESOURCE } } } attr { key: "
           "\"cond\" value { func { name: \"BumpCond\" } } } attr { key: \"body\" value { "
           "func { name: \"BumpBody\" } } }"),
      Node("read", "ReadVariableOp", {"loop:1"}, TypeAttr("dtype", "DT_FLOAT")),
      Library(absl::StrCat(kBump, kBumpLoop)));
  auto session = Create(graph);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, &out).ok());
  absl::Status status = (*session)->Run({}, {"read", "loop:0"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FLOAT_EQ(*out[0].data<float>(), 4.0f);
  EXPECT_EQ(*out[1].data<int32_t>(), 4);
}

TEST(FunctionCallTest, AnIfInsideAFunctionIsLoweredOnceTheCallIsInlined) {
  constexpr char kOuter[] = R"pb(
    function {
      signature {
        name: "Choose"
        input_arg { name: "p" type: DT_BOOL }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "branch"
        op: "If"
        input: "p"
        input: "x"
        attr {
          key: "Tcond"
          value { type: DT_BOOL }
        }
        attr {
          key: "Tin"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "then_branch"
          value {
            func {
              name: "SquarePlusOne"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            }
          }
        }
        attr {
          key: "else_branch"
          value {
            func {
              name: "Negate"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            }
          }
        }
      }
      ret { key: "y" value: "branch:output:0" }
    }
  )pb";
  auto session = Create(absl::StrCat(
      Placeholder("p", "DT_BOOL"), Placeholder("x", "DT_FLOAT"),
      Node("call", "Choose", {"p", "x"}, ""),
      Library(absl::StrCat(kSquarePlusOne, kNegate, kOuter))));
  ASSERT_TRUE(session.ok()) << session.status();
  for (bool p : {true, false}) {
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)
                    ->Run({{"p", Tensor::Scalar<bool>(p)}, {"x", Tensor::Scalar<float>(3.0f)}},
                          {"call"}, {}, &out)
                    .ok());
    EXPECT_FLOAT_EQ(*out[0].data<float>(), p ? 10.0f : -3.0f);
  }
}

TEST(FunctionCallTest, AFunctionReachingItselfThroughAnIfIsRefused) {
  constexpr char kSelf[] = R"pb(
    function {
      signature {
        name: "Self"
        input_arg { name: "p" type: DT_BOOL }
      }
      node_def {
        name: "again"
        op: "If"
        input: "p"
        input: "p"
        attr {
          key: "Tcond"
          value { type: DT_BOOL }
        }
        attr {
          key: "Tin"
          value { list { type: DT_BOOL } }
        }
        attr {
          key: "Tout"
          value { list {} }
        }
        attr {
          key: "then_branch"
          value { func { name: "Self" } }
        }
        attr {
          key: "else_branch"
          value { func { name: "Nothing" } }
        }
      }
    }
    function {
      signature {
        name: "Nothing"
        input_arg { name: "p" type: DT_BOOL }
      }
    }
  )pb";
  auto session = Create(absl::StrCat(Placeholder("p", "DT_BOOL"), Node("call", "Self", {"p"}, ""),
                                     Library(kSelf)));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session.status().message(),
            "function calls and functional control flow still nested after 64 rounds of "
            "inlining (a function that reaches itself through If or While?)");
}

TEST(FunctionCallTest, BadCallsAreRefusedWhenTheSessionIsCreated) {
  auto session = Create(absl::StrCat(Placeholder("x", "DT_FLOAT"),
                                     PartitionedCall("call", "Missing", "x", "DT_FLOAT"),
                                     Library(kSquarePlusOne)));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(session.status().message(),
            "node 'call' (StatefulPartitionedCall) calls function 'Missing', which the graph's "
            "library does not define");
}

}  // namespace
}  // namespace tessera
