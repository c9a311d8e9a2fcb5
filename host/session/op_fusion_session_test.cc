// The op fusion pass through sessions on the CPU plugin: every fused chain gives the unfused
// graph's results (float through oneDNN's post-ops, double through the GEMM path's epilogue, NCHW,
// a convolution cut into channel groups on two threads), runs as one fused node, and
// SessionOptions::op_fusion = false keeps the graph's own nodes.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

struct Case {
  std::string what;
  bool conv = true;
  std::string dtype = "DT_FLOAT";
  std::string activation;  // "" for BiasAdd alone
  bool nchw = false;
  bool transpose_a = false, transpose_b = false;
  std::vector<int64_t> x_dims, k_dims;  // conv: input, filter (HWIO); matmul: a, b
  int64_t channels = 0;                 // of the bias
  int threads = 1;
};

std::string GraphText(const Case& c) {
  const std::string t = absl::StrCat("attr { key: 'T' value { type: ", c.dtype, " } }");
  std::string text;
  for (const char* name : {"x", "k", "b"}) {
    absl::StrAppend(&text, "node { name: '", name,
                    "' op: 'Placeholder' attr { key: 'dtype' value { type: ", c.dtype, " } } }\n");
  }
  if (c.conv) {
    absl::StrAppend(&text, "node { name: 'head' op: 'Conv2D' input: 'x' input: 'k' ", t,
                    " attr { key: 'strides' value { list { i: 1 i: ",
                    c.nchw ? "1 i: 2 i: 2" : "2 i: 2 i: 1",
                    " } } } attr { key: 'padding' value { s: 'SAME' } }",
                    " attr { key: 'data_format' value { s: '", c.nchw ? "NCHW" : "NHWC",
                    "' } } }\n");
  } else {
    absl::StrAppend(&text, "node { name: 'head' op: 'MatMul' input: 'x' input: 'k' ", t,
                    " attr { key: 'transpose_a' value { b: ", c.transpose_a ? "true" : "false",
                    " } } attr { key: 'transpose_b' value { b: ",
                    c.transpose_b ? "true" : "false", " } } }\n");
  }
  absl::StrAppend(&text, "node { name: 'bias' op: 'BiasAdd' input: 'head' input: 'b' ", t,
                  " attr { key: 'data_format' value { s: '", c.nchw ? "NCHW" : "NHWC",
                  "' } } }\n");
  std::string last = "bias";
  if (!c.activation.empty()) {
    absl::StrAppend(&text, "node { name: 'act' op: '", c.activation, "' input: 'bias' ", t,
                    c.activation == "LeakyRelu" ? " attr { key: 'alpha' value { f: 0.3 } }" : "",
                    " }\n");
    last = "act";
  }
  absl::StrAppend(&text, "node { name: 'y' op: 'Identity' input: '", last, "' ", t, " }\n");
  return text;
}

template <typename T>
Tensor Random(DataType dtype, const std::vector<int64_t>& dims, uint32_t seed) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor tensor(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2, 2);
  for (T& v : tensor.flat<T>()) v = static_cast<T>(dist(rng));
  return tensor;
}

// Runs the case's graph; `ops` gets the ops the step ran.
template <typename T>
std::vector<double> Run(const Case& c, bool op_fusion, std::vector<std::string>* ops) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(GraphText(c), &def));
  SessionOptions options;
  options.op_fusion = op_fusion;
  options.intra_op_threads = c.threads;
  auto session = Session::Create(options, def);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  const DataType dtype = std::is_same_v<T, float> ? TSR_DTYPE_FLOAT : TSR_DTYPE_DOUBLE;
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Random<T>(dtype, c.x_dims, 1)},
                                                       {"k", Random<T>(dtype, c.k_dims, 2)},
                                                       {"b", Random<T>(dtype, {c.channels}, 3)}};
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run(run_options, feeds, {"y"}, {}, &out, &metadata);
  EXPECT_TRUE(status.ok()) << status;
  if (!status.ok()) return {};
  for (const DeviceStepStats& device : metadata.step_stats.devices) {
    for (const NodeExecStats& node : device.nodes) ops->push_back(node.op);
  }
  std::vector<double> values;
  for (T v : out[0].flat<T>()) values.push_back(static_cast<double>(v));
  return values;
}

template <typename T>
void Check(const Case& c) {
  SCOPED_TRACE(c.what);
  std::vector<std::string> fused_ops;
  std::vector<std::string> unfused_ops;
  const std::vector<double> fused = Run<T>(c, true, &fused_ops);
  const std::vector<double> unfused = Run<T>(c, false, &unfused_ops);
  const std::string fused_op = c.conv ? "_FusedConv2D" : "_FusedMatMul";
  EXPECT_THAT(fused_ops, ::testing::Contains(fused_op));
  EXPECT_THAT(fused_ops, ::testing::Not(::testing::Contains("BiasAdd")));
  EXPECT_THAT(unfused_ops, ::testing::Not(::testing::Contains(fused_op)));
  EXPECT_THAT(unfused_ops, ::testing::Contains("BiasAdd"));
  ASSERT_EQ(fused.size(), unfused.size());
  ASSERT_FALSE(fused.empty());
  const double tolerance = std::is_same_v<T, float> ? 1e-4 : 1e-12;
  for (size_t i = 0; i < fused.size(); ++i) {
    ASSERT_NEAR(fused[i], unfused[i], tolerance * (1 + std::abs(unfused[i]))) << "at " << i;
  }
}

Case Conv(std::string activation) {
  Case c;
  c.what = "Conv2D + BiasAdd + " + (activation.empty() ? "nothing" : activation);
  c.activation = std::move(activation);
  c.x_dims = {2, 9, 7, 5};
  c.k_dims = {3, 3, 5, 6};
  c.channels = 6;
  return c;
}

Case MatMul(std::string activation, bool transpose_a, bool transpose_b) {
  Case c;
  c.what = absl::StrCat("MatMul(", transpose_a, ", ", transpose_b, ") + BiasAdd + ",
                        activation.empty() ? "nothing" : activation);
  c.conv = false;
  c.activation = std::move(activation);
  c.transpose_a = transpose_a;
  c.transpose_b = transpose_b;
  c.x_dims = transpose_a ? std::vector<int64_t>{33, 17} : std::vector<int64_t>{17, 33};
  c.k_dims = transpose_b ? std::vector<int64_t>{21, 33} : std::vector<int64_t>{33, 21};
  c.channels = 21;
  return c;
}

TEST(OpFusionSessionTest, FusedConvolutionsMatchTheUnfusedGraph) {
  for (const char* activation : {"", "Relu", "Relu6", "Elu", "LeakyRelu"}) {
    Check<float>(Conv(activation));
    Case c = Conv(activation);
    c.dtype = "DT_DOUBLE";
    c.what += " (double: the GEMM path's epilogue)";
    Check<double>(c);
  }
  Case nchw = Conv("Relu");
  nchw.nchw = true;
  nchw.x_dims = {2, 5, 9, 7};
  nchw.what += " in NCHW";
  Check<float>(nchw);
  // One image, 256 output channels, two threads: the output is cut into channel groups, each with
  // its part of the bias.
  Case groups = Conv("Relu6");
  groups.x_dims = {1, 8, 8, 64};
  groups.k_dims = {3, 3, 64, 256};
  groups.channels = 256;
  groups.threads = 2;
  groups.what += " cut into channel groups";
  Check<float>(groups);
}

TEST(OpFusionSessionTest, FusedProductsMatchTheUnfusedGraph) {
  for (const char* activation : {"", "Relu", "Relu6", "Elu", "LeakyRelu"}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) Check<float>(MatMul(activation, ta, tb));
    }
    Case c = MatMul(activation, false, true);
    c.dtype = "DT_DOUBLE";
    Check<double>(c);
  }
}

// NaN through a fused activation: the fused and unfused graphs agree on which outputs are NaN.
TEST(OpFusionSessionTest, NaNsPassThroughFusedActivationsAsUnfused) {
  for (const char* activation : {"Relu", "Relu6", "Elu", "LeakyRelu"}) {
    for (bool conv : {true, false}) {
      SCOPED_TRACE(std::string(activation) + (conv ? " conv" : " matmul"));
      Case c = conv ? Conv(activation) : MatMul(activation, false, false);
      std::vector<std::vector<float>> results;
      for (bool op_fusion : {true, false}) {
        tensorflow::GraphDef def;
        ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(GraphText(c), &def));
        SessionOptions options;
        options.op_fusion = op_fusion;
        auto session = Session::Create(options, def);
        ASSERT_TRUE(session.ok()) << session.status();
        Tensor x = Random<float>(TSR_DTYPE_FLOAT, c.x_dims, 1);
        x.flat<float>()[0] = std::nanf("");
        std::vector<std::pair<std::string, Tensor>> feeds = {
            {"x", x},
            {"k", Random<float>(TSR_DTYPE_FLOAT, c.k_dims, 2)},
            {"b", Random<float>(TSR_DTYPE_FLOAT, {c.channels}, 3)}};
        std::vector<Tensor> out;
        absl::Status status = (*session)->Run(feeds, {"y"}, {}, &out);
        ASSERT_TRUE(status.ok()) << status;
        results.emplace_back(out[0].flat<float>().begin(), out[0].flat<float>().end());
      }
      int nans = 0;
      for (size_t i = 0; i < results[0].size(); ++i) {
        nans += std::isnan(results[1][i]);
        EXPECT_EQ(std::isnan(results[0][i]), std::isnan(results[1][i])) << "at " << i;
      }
      EXPECT_GT(nans, 0);
    }
  }
}

// A fetched intermediate keeps its chain unfused (its value is needed), and both fetches are right.
TEST(OpFusionSessionTest, FetchingAnIntermediateKeepsItsChainUnfused) {
  Case c = Conv("Relu");
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(GraphText(c), &def));
  auto session = Session::Create(SessionOptions(), def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Random<float>(TSR_DTYPE_FLOAT, c.x_dims, 1)},
      {"k", Random<float>(TSR_DTYPE_FLOAT, c.k_dims, 2)},
      {"b", Random<float>(TSR_DTYPE_FLOAT, {c.channels}, 3)}};
  RunOptions options;
  options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run(options, feeds, {"bias", "y"}, {}, &out, &metadata);
  ASSERT_TRUE(status.ok()) << status;
  std::vector<std::string> ops;
  for (const DeviceStepStats& device : metadata.step_stats.devices) {
    for (const NodeExecStats& node : device.nodes) ops.push_back(node.op);
  }
  // conv + bias fuse (the conv's output is needed only by the BiasAdd); the Relu cannot join.
  EXPECT_THAT(ops, ::testing::Contains("_FusedConv2D"));
  EXPECT_THAT(ops, ::testing::Contains("Relu"));
  auto biased = out[0].flat<float>();
  auto relu = out[1].flat<float>();
  ASSERT_EQ(biased.size(), relu.size());
  for (size_t i = 0; i < biased.size(); ++i) {
    ASSERT_EQ(relu[i], biased[i] < 0 ? 0.0f : biased[i]) << "at " << i;
  }
}

// A graph may hold the fused ops itself, as TensorFlow's optimized graphs do; what the CPU kernels
// do not implement is refused with the op and the reason.
TEST(OpFusionSessionTest, FusedKernelsRefuseWhatTheyDoNotImplement) {
  struct Bad {
    std::string op, fused_ops, num_args, inputs;
    std::vector<int64_t> bias_dims;
    absl::StatusCode code;
    std::string message;
  };
  const std::string conv_attrs =
      "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
      "attr { key: 'padding' value { s: 'VALID' } }";
  const std::vector<Bad> cases = {
      {"_FusedConv2D", "s: 'BiasAdd' s: 'Sigmoid'", "1", "input: 'b'", {4},
       absl::StatusCode::kUnimplemented,
       "_FusedConv2D on CPU does not implement fused_ops [BiasAdd,Sigmoid]; it fuses BiasAdd, "
       "optionally followed by Relu, Relu6, Elu or LeakyRelu"},
      {"_FusedMatMul", "s: 'FusedBatchNorm'", "1", "input: 'b'", {4},
       absl::StatusCode::kUnimplemented,
       "_FusedMatMul on CPU does not implement fused_ops [FusedBatchNorm]"},
      {"_FusedMatMul", "s: 'BiasAdd'", "2", "input: 'b' input: 'b'", {4},
       absl::StatusCode::kInvalidArgument,
       "_FusedMatMul with fused_ops [BiasAdd] takes one argument (the bias), got num_args = 2"},
      {"_FusedConv2D", "s: 'BiasAdd'", "1", "input: 'b'", {3},
       absl::StatusCode::kInvalidArgument,
       "_FusedConv2D's bias must be a vector of the 4 output channels, got [3]"},
      {"_FusedMatMul", "s: 'BiasAdd' s: 'Relu'", "1", "input: 'b'", {5},
       absl::StatusCode::kInvalidArgument,
       "_FusedMatMul's bias must be a vector of the product's 4 columns, got [5]"},
      {"_FusedConv2D", "s: 'BiasAdd' s: 'Elu'", "1", "input: 'b'", {1, 4},
       absl::StatusCode::kInvalidArgument,
       "_FusedConv2D's bias must be a vector of the 4 output channels, got [1,4]"},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.message);
    const bool conv = bad.op == "_FusedConv2D";
    std::string text;
    for (const char* name : {"x", "k", "b"}) {
      absl::StrAppend(&text, "node { name: '", name,
                      "' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n");
    }
    absl::StrAppend(&text, "node { name: 'y' op: '", bad.op, "' input: 'x' input: 'k' ",
                    bad.inputs, " attr { key: 'T' value { type: DT_FLOAT } } ",
                    "attr { key: 'num_args' value { i: ", bad.num_args, " } } ",
                    "attr { key: 'fused_ops' value { list { ", bad.fused_ops, " } } } ",
                    conv ? conv_attrs : "", " }\n");
    tensorflow::GraphDef def;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    auto session = Session::Create(SessionOptions(), def);
    ASSERT_TRUE(session.ok()) << session.status();
    const std::vector<int64_t> x_dims = conv ? std::vector<int64_t>{1, 3, 3, 2}
                                             : std::vector<int64_t>{2, 3};
    const std::vector<int64_t> k_dims = conv ? std::vector<int64_t>{1, 1, 2, 4}
                                             : std::vector<int64_t>{3, 4};
    std::vector<std::pair<std::string, Tensor>> feeds = {
        {"x", Random<float>(TSR_DTYPE_FLOAT, x_dims, 1)},
        {"k", Random<float>(TSR_DTYPE_FLOAT, k_dims, 2)},
        {"b", Random<float>(TSR_DTYPE_FLOAT, bad.bias_dims, 3)}};
    std::vector<Tensor> out;
    absl::Status status = (*session)->Run(feeds, {"y"}, {}, &out);
    EXPECT_EQ(status.code(), bad.code) << status;
    EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr(bad.message));
  }
}

}  // namespace
}  // namespace tessera
