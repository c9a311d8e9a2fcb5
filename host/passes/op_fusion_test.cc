// Tests of FuseOps: which chains fuse, what the fused node keeps (name, attrs, inputs, control
// inputs, consumers, device) and every reason a chain stays as it is.
#include "host/passes/op_fusion.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

constexpr char kInputs[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "k" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "c" op: "NoOp" }
)pb";

constexpr char kConv[] = R"pb(
  node {
    name: "conv" op: "Conv2D" input: "x" input: "k"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } }
    attr { key: "padding" value { s: "SAME" } }
  }
)pb";

class OpFusionTest : public ::testing::Test {
 protected:
  // Imports kInputs + `text` and assigns every node to CPU:0, or to `devices[name]`.
  std::unique_ptr<Graph> Import(const std::string& text,
                                const std::map<std::string, std::string>& devices = {}) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kInputs + text, &def)) << text;
    absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, *ops_);
    EXPECT_TRUE(graph.ok()) << graph.status();
    for (Node* node : (*graph)->op_nodes()) {
      auto it = devices.find(node->name());
      node->set_assigned_device(it != devices.end() ? it->second : kCpu);
    }
    return *std::move(graph);
  }

  // Runs FuseOps with a device that has every fused kernel (or none); returns the count.
  int Fuse(Graph* graph, bool has_kernel = true) {
    int fused = -1;
    absl::Status status = FuseOps(graph, [&](const Node& node) {
      EXPECT_THAT(node.op(), ::testing::StartsWith("_Fused"));
      EXPECT_FALSE(node.assigned_device().empty());
      return has_kernel;
    }, &fused);
    EXPECT_TRUE(status.ok()) << status;
    return fused;
  }

  static std::vector<std::string> Ops(const Graph& graph) {
    std::vector<std::string> ops;
    for (const Node* node : graph.op_nodes()) ops.push_back(node->op());
    return ops;
  }

  static std::vector<std::string> FusedOps(const Node& node) {
    const tensorflow::AttrValue* value = node.attr("fused_ops");
    return value == nullptr ? std::vector<std::string>()
                            : std::vector<std::string>(value->list().s().begin(),
                                                       value->list().s().end());
  }

  // "src:output" of each data input, then "^src" of each control input.
  static std::vector<std::string> Inputs(const Node& node) {
    std::vector<std::string> inputs;
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Edge* edge = node.input_edge(i);
      inputs.push_back(edge->src->name() + ":" + std::to_string(edge->src_output));
    }
    for (const Edge* edge : node.in_edges()) {
      if (edge->IsControlEdge() && edge->src->IsOp()) inputs.push_back("^" + edge->src->name());
    }
    return inputs;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(OpFusionTest, FusesConvBiasAddReluIntoOneNodeNamedAfterTheLast) {
  std::unique_ptr<Graph> graph = Import(std::string(kConv) + R"pb(
    node { name: "bias" op: "BiasAdd" input: "conv" input: "b" input: "^c"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "bias" device: "/device:CPU:0"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "out" op: "Identity" input: "relu" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "after" op: "NoOp" input: "^relu" }
  )pb");
  EXPECT_EQ(Fuse(graph.get()), 1);
  EXPECT_EQ(graph->FindNode("conv"), nullptr);
  EXPECT_EQ(graph->FindNode("bias"), nullptr);
  const Node* fused = graph->FindNode("relu");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), "_FusedConv2D");
  EXPECT_EQ(fused->assigned_device(), kCpu);
  EXPECT_EQ(fused->requested_device(), "/device:CPU:0");
  EXPECT_THAT(FusedOps(*fused), ElementsAre("BiasAdd", "Relu"));
  EXPECT_EQ(fused->attr("num_args")->i(), 1);
  EXPECT_EQ(fused->attr("padding")->s(), "SAME");
  EXPECT_THAT(fused->attr("strides")->list().i(), ElementsAre(1, 2, 2, 1));
  EXPECT_THAT(Inputs(*fused), ElementsAre("x:0", "k:0", "b:0", "^c"));
  EXPECT_THAT(Inputs(*graph->FindNode("out")), ElementsAre("relu:0"));
  EXPECT_THAT(Inputs(*graph->FindNode("after")), ElementsAre("^relu"));
}

TEST_F(OpFusionTest, FusesMatMulBiasAddAloneAndWithEachActivation) {
  for (const char* activation : {"", "Relu", "Relu6", "Elu", "LeakyRelu"}) {
    std::string text = R"pb(
      node { name: "mm" op: "MatMul" input: "x" input: "k"
             attr { key: "T" value { type: DT_FLOAT } }
             attr { key: "transpose_b" value { b: true } } }
      node { name: "bias" op: "BiasAdd" input: "mm" input: "b"
             attr { key: "T" value { type: DT_FLOAT } } }
    )pb";
    if (*activation != '\0') {
      text += std::string("node { name: 'act' op: '") + activation +
              "' input: 'bias' attr { key: 'T' value { type: DT_FLOAT } }" +
              (std::string(activation) == "LeakyRelu" ? " attr { key: 'alpha' value { f: 0.3 } }"
                                                      : "") +
              " }";
    }
    std::unique_ptr<Graph> graph = Import(text);
    EXPECT_EQ(Fuse(graph.get()), 1) << activation;
    const Node* fused = graph->FindNode(*activation != '\0' ? "act" : "bias");
    ASSERT_NE(fused, nullptr) << activation;
    EXPECT_EQ(fused->op(), "_FusedMatMul");
    EXPECT_TRUE(fused->attr("transpose_b")->b());
    EXPECT_THAT(Inputs(*fused), ElementsAre("x:0", "k:0", "b:0"));
    if (*activation != '\0') {
      EXPECT_THAT(FusedOps(*fused), ElementsAre("BiasAdd", activation));
    } else {
      EXPECT_THAT(FusedOps(*fused), ElementsAre("BiasAdd"));
    }
    if (std::string(activation) == "LeakyRelu") {
      EXPECT_FLOAT_EQ(fused->attr("leakyrelu_alpha")->f(), 0.3f);
    }
  }
}

TEST_F(OpFusionTest, StopsBeforeAnActivationThatCannotJoin) {
  // The BiasAdd's output has a second consumer: the conv and the BiasAdd fuse, the Relu stays.
  std::unique_ptr<Graph> graph = Import(std::string(kConv) + R"pb(
    node { name: "bias" op: "BiasAdd" input: "conv" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "bias" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "other" op: "Identity" input: "bias" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  EXPECT_EQ(Fuse(graph.get()), 1);
  EXPECT_EQ(graph->FindNode("bias")->op(), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*graph->FindNode("bias")), ElementsAre("BiasAdd"));
  EXPECT_EQ(graph->FindNode("relu")->op(), "Relu");
  // An activation on another device stays there.
  graph = Import(std::string(kConv) + R"pb(
    node { name: "bias" op: "BiasAdd" input: "conv" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "bias" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", {{"relu", kCpu1}});
  EXPECT_EQ(Fuse(graph.get()), 1);
  EXPECT_THAT(FusedOps(*graph->FindNode("bias")), ElementsAre("BiasAdd"));
  EXPECT_EQ(graph->FindNode("relu")->assigned_device(), kCpu1);
}

TEST_F(OpFusionTest, LeavesChainsThatCannotFuse) {
  const std::string bias = R"pb(
    node { name: "bias" op: "BiasAdd" input: "conv" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb";
  const std::string identity =
      "node { name: 'other' op: 'Identity' input: 'conv' attr { key: 'T' value { type: DT_FLOAT } "
      "} }";
  struct Case {
    const char* why;
    std::string text;
    std::map<std::string, std::string> devices;
  };
  const std::vector<Case> cases = {
      {"the convolution's output has a second consumer", kConv + bias + identity, {}},
      {"the convolution has a control edge out",
       kConv + bias + "node { name: 'later' op: 'NoOp' input: '^conv' }", {}},
      {"the BiasAdd is on another device", kConv + bias, {{"bias", kCpu1}}},
      {"the BiasAdd's data_format differs",
       std::string(kConv) +
           "node { name: 'bias' op: 'BiasAdd' input: 'conv' input: 'b' attr { key: 'T' value { "
           "type: DT_FLOAT } } attr { key: 'data_format' value { s: 'NCHW' } } }",
       {}},
      {"an int32 product (the fused ops take floating types)",
       "node { name: 'xi' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } } "
       "node { name: 'mm' op: 'MatMul' input: 'xi' input: 'xi' attr { key: 'T' value { type: "
       "DT_INT32 } } } node { name: 'bias' op: 'BiasAdd' input: 'mm' input: 'xi' attr { key: 'T' "
       "value { type: DT_INT32 } } }",
       {}},
      {"the convolution feeds something else than a BiasAdd",
       std::string(kConv) +
           "node { name: 'add' op: 'AddV2' input: 'conv' input: 'b' attr { key: 'T' value { "
           "type: DT_FLOAT } } }",
       {}},
  };
  for (const Case& c : cases) {
    std::unique_ptr<Graph> graph = Import(c.text, c.devices);
    const std::vector<std::string> before = Ops(*graph);
    EXPECT_EQ(Fuse(graph.get()), 0) << c.why;
    EXPECT_EQ(Ops(*graph), before) << c.why;
  }
  // The device has no kernel for the fused op.
  std::unique_ptr<Graph> graph = Import(kConv + bias);
  EXPECT_EQ(Fuse(graph.get(), /*has_kernel=*/false), 0);
  EXPECT_THAT(Ops(*graph), UnorderedElementsAre("Placeholder", "Placeholder", "Placeholder",
                                                "NoOp", "Conv2D", "BiasAdd"));
}

TEST_F(OpFusionTest, FusesEveryChainOfAGraph) {
  std::unique_ptr<Graph> graph = Import(std::string(kConv) + R"pb(
    node { name: "bias" op: "BiasAdd" input: "conv" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "bias" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "conv2" op: "Conv2D" input: "relu" input: "k"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
           attr { key: "padding" value { s: "VALID" } } }
    node { name: "bias2" op: "BiasAdd" input: "conv2" input: "b" input: "^relu"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  EXPECT_EQ(Fuse(graph.get()), 2);
  const Node* second = graph->FindNode("bias2");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->op(), "_FusedConv2D");
  // The control input from `relu` is now one from the first fused node, which is named `relu`.
  EXPECT_THAT(Inputs(*second), ElementsAre("relu:0", "k:0", "b:0", "^relu"));
  EXPECT_EQ(graph->FindNode("relu")->op(), "_FusedConv2D");
}

}  // namespace
}  // namespace tessera
