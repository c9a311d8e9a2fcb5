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
