// Tests that the neural-network op wrappers emit exactly TensorFlow's NodeDefs, and their errors.
#include "host/client/nn_ops.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/array_ops.h"
#include "host/client/client_test_util.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

TEST(NnOpsTest, Activations) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  EXPECT_EQ(ops::Relu(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Relu6(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Elu(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Selu(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Softplus(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Softsign(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Softmax(root, x).softmax.type(), DT_FLOAT);
  EXPECT_EQ(ops::LogSoftmax(root, x).logsoftmax.type(), DT_FLOAT);
  EXPECT_EQ(ops::L2Loss(root, x).output.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "Softmax",
                         "LogSoftmax", "L2Loss"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' ",
                                        "attr { key: 'T' value { type: DT_FLOAT } }")));
  }
}

TEST(NnOpsTest, ActivationGradients) {
  Scope root = Scope::NewRootScope();
  auto g = ops::Placeholder(root.WithOpName("g"), DT_DOUBLE);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  EXPECT_EQ(ops::ReluGrad(root, g, x).backprops.type(), DT_DOUBLE);
  ops::Relu6Grad(root, g, x);
  ops::EluGrad(root, g, x);
  ops::SeluGrad(root, g, x);
  ops::SoftplusGrad(root, g, x);
  ops::SoftsignGrad(root, g, x);
  EXPECT_EQ(ops::SigmoidGrad(root, x, g).z.type(), DT_DOUBLE);
  ops::TanhGrad(root, x, g);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op :
       {"ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "SoftplusGrad", "SoftsignGrad"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'g' input: 'x' ",
                                        "attr { key: 'T' value { type: DT_DOUBLE } }")));
  }
  for (const char* op : {"SigmoidGrad", "TanhGrad"}) {
    EXPECT_TRUE(NodeEquals(def, op,
                           absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' input: 'g' ",
                                        "attr { key: 'T' value { type: DT_DOUBLE } }")));
  }
}

TEST(NnOpsTest, LeakyReluWritesAlpha) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::LeakyRelu(root, x);
  ops::LeakyRelu(root.WithOpName("steep"), x, ops::LeakyRelu::Alpha(0.5f));
  ops::LeakyReluGrad(root, x, x, ops::LeakyReluGrad::Alpha(0.25f));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "LeakyRelu", R"pb(
    name: "LeakyRelu"
    op: "LeakyRelu"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "alpha"
      value { f: 0.2 }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "steep", R"pb(
    name: "steep"
    op: "LeakyRelu"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "alpha"
      value { f: 0.5 }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "LeakyReluGrad", R"pb(
    name: "LeakyReluGrad"
    op: "LeakyReluGrad"
    input: "x"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "alpha"
      value { f: 0.25 }
    }
  )pb"));
}

TEST(NnOpsTest, BiasAddAndItsGradient) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::BiasAdd(root, x, {1.f, 2.f});
  ops::BiasAdd(root.WithOpName("nchw"), x, {1.f, 2.f}, ops::BiasAdd::DataFormat("NCHW"));
  EXPECT_EQ(ops::BiasAddGrad(root, x).output.type(), DT_FLOAT);
  ops::BiasAddGrad(root.WithOpName("grad_nchw"), x, ops::BiasAddGrad::DataFormat("NCHW"));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "BiasAdd", R"pb(
    name: "BiasAdd"
    op: "BiasAdd"
    input: "x"
    input: "Const/Const"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "nchw", R"pb(
    name: "nchw"
    op: "BiasAdd"
    input: "x"
    input: "Const_1/Const"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "data_format"
      value { s: "NCHW" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "BiasAddGrad", R"pb(
    name: "BiasAddGrad"
    op: "BiasAddGrad"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "grad_nchw", R"pb(
    name: "grad_nchw"
    op: "BiasAddGrad"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "data_format"
      value { s: "NCHW" }
    }
  )pb"));
}

TEST(NnOpsTest, BiasAddV1) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_DOUBLE);
  EXPECT_EQ(ops::BiasAddV1(root.WithOpName("v1"), x, b).output.type(), DT_DOUBLE);
  EXPECT_TRUE(NodeEquals(GraphOf(root), "v1", R"pb(
    name: "v1"
    op: "BiasAddV1"
    input: "x"
    input: "b"
    attr {
      key: "T"
      value { type: DT_DOUBLE }
    }
  )pb"));
  Scope mixed = Scope::NewRootScope();
  ops::BiasAddV1(mixed.WithOpName("m"), ops::Placeholder(mixed.WithOpName("f"), DT_FLOAT), {1.0});
  EXPECT_EQ(mixed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mixed.status().message()),
              HasSubstr("while building node 'm' (BiasAddV1): inconsistent values for attr 'T': "
                        "input 0 is float but input 1 is double"));
}

TEST(NnOpsTest, CrossEntropyLossesHaveTwoOutputs) {
  Scope root = Scope::NewRootScope();
  auto logits = ops::Placeholder(root.WithOpName("logits"), DT_FLOAT);
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_FLOAT);
  auto ids = ops::Placeholder(root.WithOpName("ids"), DT_INT64);
  ops::SoftmaxCrossEntropyWithLogits dense(root, logits, labels);
  ops::SparseSoftmaxCrossEntropyWithLogits sparse(root, logits, ids);
  EXPECT_EQ(dense.loss.name(), "SoftmaxCrossEntropyWithLogits:0");
  EXPECT_EQ(dense.backprop.name(), "SoftmaxCrossEntropyWithLogits:1");
  EXPECT_EQ(sparse.backprop.name(), "SparseSoftmaxCrossEntropyWithLogits:1");
  EXPECT_EQ(sparse.loss.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "SoftmaxCrossEntropyWithLogits", R"pb(
    name: "SoftmaxCrossEntropyWithLogits"
    op: "SoftmaxCrossEntropyWithLogits"
    input: "logits"
    input: "labels"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "SparseSoftmaxCrossEntropyWithLogits", R"pb(
    name: "SparseSoftmaxCrossEntropyWithLogits"
    op: "SparseSoftmaxCrossEntropyWithLogits"
    input: "logits"
    input: "ids"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tlabels"
      value { type: DT_INT64 }
    }
  )pb"));
}

TEST(NnOpsTest, LrnWritesEveryAttr) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::LRN lrn(root, x, ops::LRN::DepthRadius(2).Beta(0.75f));
  ops::LRNGrad(root, x, x, lrn, ops::LRNGrad::Attrs().Bias(2.0f).Alpha(0.5f));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "LRN", R"pb(
    name: "LRN"
    op: "LRN"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "depth_radius"
      value { i: 2 }
    }
    attr {
      key: "bias"
      value { f: 1 }
    }
    attr {
      key: "alpha"
      value { f: 1 }
    }
    attr {
      key: "beta"
      value { f: 0.75 }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "LRNGrad", R"pb(
    name: "LRNGrad"
    op: "LRNGrad"
    input: "x"
    input: "x"
    input: "LRN"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "depth_radius"
      value { i: 5 }
    }
    attr {
      key: "bias"
      value { f: 2 }
    }
    attr {
      key: "alpha"
      value { f: 0.5 }
    }
    attr {
      key: "beta"
      value { f: 0.5 }
    }
  )pb"));
}

TEST(NnOpsTest, Pooling) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::MaxPool max(root, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  ops::MaxPool(root.WithOpName("explicit"), x, {1, 1, 3, 3}, {1, 1, 1, 1}, "EXPLICIT",
               ops::MaxPool::DataFormat("NCHW").ExplicitPaddings({0, 0, 0, 0, 1, 1, 1, 1}));
  ops::MaxPoolGrad(root, x, max, max, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  ops::AvgPool avg(root, x, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME");
  ops::AvgPoolGrad(root, {1, 4, 4, 3}, avg, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME",
                   ops::AvgPoolGrad::DataFormat("NHWC"));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "MaxPool", R"pb(
    name: "MaxPool"
    op: "MaxPool"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "ksize"
      value { list { i: 1 i: 2 i: 2 i: 1 } }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 2 i: 2 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "VALID" }
    }
    attr {
      key: "explicit_paddings"
      value { list {} }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "explicit", R"pb(
    name: "explicit"
    op: "MaxPool"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "ksize"
      value { list { i: 1 i: 1 i: 3 i: 3 } }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "EXPLICIT" }
    }
    attr {
      key: "explicit_paddings"
      value { list { i: 0 i: 0 i: 0 i: 0 i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "data_format"
      value { s: "NCHW" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "MaxPoolGrad", R"pb(
    name: "MaxPoolGrad"
    op: "MaxPoolGrad"
    input: "x"
    input: "MaxPool"
    input: "MaxPool"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "ksize"
      value { list { i: 1 i: 2 i: 2 i: 1 } }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 2 i: 2 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "VALID" }
    }
    attr {
      key: "explicit_paddings"
      value { list {} }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "AvgPool", R"pb(
    name: "AvgPool"
    op: "AvgPool"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "ksize"
      value { list { i: 1 i: 3 i: 3 i: 1 } }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "SAME" }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "AvgPoolGrad", R"pb(
    name: "AvgPoolGrad"
    op: "AvgPoolGrad"
    input: "Const/Const"
    input: "AvgPool"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "ksize"
      value { list { i: 1 i: 3 i: 3 i: 1 } }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "SAME" }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
  )pb"));
}

TEST(NnOpsTest, FusedBatchNorm) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto v = ops::Placeholder(root.WithOpName("v"), DT_FLOAT);
  ops::FusedBatchNormV3 bn(root, x, v, v, v, v,
                           ops::FusedBatchNormV3::Epsilon(0.001f).ExponentialAvgFactor(0.5f));
  EXPECT_EQ(bn.reserve_space_3.name(), "FusedBatchNormV3:5");
  ops::FusedBatchNormGradV3 grad(root, x, x, v, bn.reserve_space_1, bn.reserve_space_2,
                                 bn.reserve_space_3,
                                 ops::FusedBatchNormGradV3::DataFormat("NCHW").IsTraining(false));
  EXPECT_EQ(grad.reserve_space_5.name(), "FusedBatchNormGradV3:4");
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "FusedBatchNormV3", R"pb(
    name: "FusedBatchNormV3"
    op: "FusedBatchNormV3"
    input: "x"
    input: "v"
    input: "v"
    input: "v"
    input: "v"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "U"
      value { type: DT_FLOAT }
    }
    attr {
      key: "epsilon"
      value { f: 0.001 }
    }
    attr {
      key: "exponential_avg_factor"
      value { f: 0.5 }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
    attr {
      key: "is_training"
      value { b: true }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "FusedBatchNormGradV3", R"pb(
    name: "FusedBatchNormGradV3"
    op: "FusedBatchNormGradV3"
    input: "x"
    input: "x"
    input: "v"
    input: "FusedBatchNormV3:3"
    input: "FusedBatchNormV3:4"
    input: "FusedBatchNormV3:5"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "U"
      value { type: DT_FLOAT }
    }
    attr {
      key: "epsilon"
      value { f: 0.0001 }
    }
    attr {
      key: "data_format"
      value { s: "NCHW" }
    }
    attr {
      key: "is_training"
      value { b: false }
    }
  )pb"));
}

TEST(NnOpsErrorTest, BiasAddDataFormat) {
  Scope root = Scope::NewRootScope();
  ops::BiasAdd(root.WithOpName("b"), {{1.f}}, {1.f}, ops::BiasAdd::DataFormat("NWHC"));
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("while building node 'b' (BiasAdd): attr 'data_format' must be \"NHWC\" "
                        "or \"NCHW\", got \"NWHC\""));
}

TEST(NnOpsErrorTest, BiasAddTypes) {
  Scope root = Scope::NewRootScope();
  ops::BiasAdd(root.WithOpName("b"), {{1.f}}, {1});
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("inconsistent values for attr 'T': input 0 is float but input 1 is int32"));
}

TEST(NnOpsErrorTest, PoolingAttrs) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::AvgPool(root.WithOpName("p"), x, {1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("while building node 'p' (AvgPool): attr 'padding' must be one of "
                        "\"SAME\", \"VALID\", got \"EXPLICIT\""));
  Scope format = Scope::NewRootScope();
  ops::MaxPool(format.WithOpName("m"), 1.f, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID",
               ops::MaxPool::DataFormat("NCDHW"));
  EXPECT_THAT(std::string(format.status().message()),
              HasSubstr("attr 'data_format' must be one of \"NHWC\", \"NCHW\", got \"NCDHW\""));
  Scope ksize = Scope::NewRootScope();
  ops::MaxPoolGrad(ksize.WithOpName("g"), 1.f, 1.f, 1.f, {2, 2}, {1, 1, 1, 1}, "VALID");
  EXPECT_THAT(std::string(ksize.status().message()),
              HasSubstr("attr 'ksize' must have at least 4 values, got 2"));
  Scope grad = Scope::NewRootScope();
  ops::AvgPoolGrad(grad.WithOpName("a"), {1.f, 2.f}, 1.f, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  EXPECT_THAT(std::string(grad.status().message()),
              HasSubstr("input 'orig_input_shape' must be int32, got float"));
}

TEST(NnOpsErrorTest, LossAndBatchNormTypes) {
  Scope sparse = Scope::NewRootScope();
  ops::SparseSoftmaxCrossEntropyWithLogits(sparse.WithOpName("s"), {{1.f}}, {1.f});
  EXPECT_THAT(std::string(sparse.status().message()),
              HasSubstr("attr 'Tlabels' (the type of input 'Const_1/Const:0') is float, not one "
                        "of the allowed int32, int64"));
  Scope dense = Scope::NewRootScope();
  ops::SoftmaxCrossEntropyWithLogits(dense.WithOpName("d"), {{1.f}}, {{1.0}});
  EXPECT_THAT(std::string(dense.status().message()),
              HasSubstr("inconsistent values for attr 'T': input 0 is float but input 1 is "
                        "double"));
  Scope bn = Scope::NewRootScope();
  ops::FusedBatchNormV3(bn.WithOpName("bn"), 1.f, 1.f, 1.f, 1.0, 1.f,
                        ops::FusedBatchNormV3::DataFormat("NC"));
  EXPECT_THAT(std::string(bn.status().message()),
              HasSubstr("inconsistent values for attr 'U': input 0 is float but input 2 is "
                        "double"));
  Scope format = Scope::NewRootScope();
  ops::FusedBatchNormV3(format.WithOpName("bn"), 1.f, 1.f, 1.f, 1.f, 1.f,
                        ops::FusedBatchNormV3::DataFormat("NC"));
  EXPECT_THAT(std::string(format.status().message()),
              HasSubstr("attr 'data_format' must be one of \"NHWC\", \"NCHW\", \"NDHWC\", "
                        "\"NCDHW\", got \"NC\""));
  Scope scale = Scope::NewRootScope();
  ops::FusedBatchNormGradV3(scale.WithOpName("g"), 1.f, 1.f, 1.0, 1.f, 1.f, 1.f);
  EXPECT_THAT(std::string(scale.status().message()),
              HasSubstr("input 'scale' must be float, got double"));
}

TEST(NnOpsTest, TopKIsTopKV2) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto top = ops::TopK(root, x, 3);
  EXPECT_EQ(top.values.type(), DT_FLOAT);
  EXPECT_EQ(top.indices.type(), DT_INT32);
  EXPECT_EQ(top.indices.name(), "TopK:1");
  auto wide = ops::TopK(root.WithOpName("wide"), x, int64_t{2},
                        ops::TopK::Sorted(false).IndexType(DT_INT64));
  EXPECT_EQ(wide.indices.type(), DT_INT64);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "TopK", R"pb(
    name: "TopK" op: "TopKV2" input: "x" input: "Const/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tk" value { type: DT_INT32 } }
    attr { key: "index_type" value { type: DT_INT32 } }
    attr { key: "sorted" value { b: true } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "wide", R"pb(
    name: "wide" op: "TopKV2" input: "x" input: "Const_1/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tk" value { type: DT_INT64 } }
    attr { key: "index_type" value { type: DT_INT64 } }
    attr { key: "sorted" value { b: false } }
  )pb"));
}

TEST(NnOpsErrorTest, TopKIndexTypes) {
  Scope k = Scope::NewRootScope();
  ops::TopK(k.WithOpName("t"), {1.f, 2.f}, 1.f);
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("attr 'Tk'"));
  Scope index = Scope::NewRootScope();
  ops::TopK(index.WithOpName("t"), {1.f, 2.f}, 1, ops::TopK::IndexType(DT_FLOAT));
  EXPECT_THAT(std::string(index.status().message()),
              HasSubstr("attr 'index_type' must be int16, int32 or int64, got float"));
}

TEST(NnOpsErrorTest, WrappersAfterAnErrorAddNothing) {
  Scope root = Scope::NewRootScope();
  root.UpdateStatus(absl::InvalidArgumentError("earlier"));
  EXPECT_FALSE(ops::BiasAdd(root, {{1.f}}, {1.f}).operation.valid());
  EXPECT_FALSE(ops::Relu(root, 1.f).operation.valid());
  EXPECT_FALSE(ops::LeakyRelu(root, 1.f).operation.valid());
  EXPECT_FALSE(ops::FusedBatchNormV3(root, 1.f, 1.f, 1.f, 1.f, 1.f).y.valid());
  EXPECT_FALSE(ops::SoftmaxCrossEntropyWithLogits(root, 1.f, 1.f).backprop.valid());
  EXPECT_FALSE(ops::MaxPool(root, 1.f, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID").output.valid());
  EXPECT_EQ(root.status().message(), "earlier");
}

}  // namespace
}  // namespace tessera
