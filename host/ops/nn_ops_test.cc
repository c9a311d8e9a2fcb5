// Tests of the neural-network ops' definitions and shape functions.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

constexpr char kFloat[] = R"pb(attr {
                                 key: "T"
                                 value { type: DT_FLOAT }
                               })pb";

class NnOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();

  const tensorflow::OpDef& Def(const char* op) { return ops_->Find(op)->op_def; }
  const tensorflow::OpDef::AttrDef* Attr(const char* op, const std::string& name) {
    for (const auto& attr : Def(op).attr()) {
      if (attr.name() == name) return &attr;
    }
    return nullptr;
  }
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& substring) {
    ASSERT_FALSE(out.ok()) << "expected an error containing '" << substring << "'";
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(substring));
  }
};

// Pooling attrs in text format.
std::string PoolAttrs(const std::string& padding, std::vector<int> ksize, std::vector<int> strides,
                      const std::string& data_format = "NHWC") {
  std::string text = absl::StrCat(kFloat, " attr { key: 'padding' value { s: '", padding,
                                  "' } } attr { key: 'data_format' value { s: '", data_format,
                                  "' } } attr { key: 'ksize' value { list {");
  for (int k : ksize) absl::StrAppend(&text, " i: ", k);
  absl::StrAppend(&text, " } } } attr { key: 'strides' value { list {");
  for (int s : strides) absl::StrAppend(&text, " i: ", s);
  absl::StrAppend(&text, " } } }");
  return text;
}

TEST_F(NnOpsTest, ActivationsKeepTheShape) {
  for (const char* op : {"Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "LeakyRelu"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, -1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1}))) << op;
    EXPECT_EQ(Def(op).input_arg(0).name(), "features") << op;
    EXPECT_EQ(Def(op).output_arg(0).name(), "activations") << op;
  }
  EXPECT_FLOAT_EQ(Attr("LeakyRelu", "alpha")->default_value().f(), 0.2f);
  EXPECT_EQ(Attr("LeakyRelu", "T")->default_value().type(), tensorflow::DT_FLOAT);
  // Elu's types are the floating ones only.
  auto out = InferShapes(*ops_, "Elu", R"pb(attr {
                                              key: "T"
                                              value { type: DT_INT32 }
                                            })pb",
                         {PartialShape({2})});
  ExpectError(out, "not in the allowed list");
  // So are Softsign's.
  out = InferShapes(*ops_, "Softsign", R"pb(attr {
                                              key: "T"
                                              value { type: DT_INT32 }
                                            })pb",
                    {PartialShape({2})});
  ExpectError(out, "not in the allowed list");
}

TEST_F(NnOpsTest, ActivationGradientsMergeTheirInputs) {
  for (const char* op : {"ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "SoftplusGrad",
                         "SoftsignGrad", "LeakyReluGrad"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, -1}), PartialShape({-1, 3})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3}))) << op;
    EXPECT_EQ(Def(op).input_arg(0).name(), "gradients") << op;
    EXPECT_EQ(Def(op).output_arg(0).name(), "backprops") << op;
  }
  EXPECT_EQ(Def("EluGrad").input_arg(1).name(), "outputs");
  EXPECT_EQ(Def("SeluGrad").input_arg(1).name(), "outputs");
  EXPECT_EQ(Def("ReluGrad").input_arg(1).name(), "features");
  EXPECT_EQ(Def("SoftsignGrad").input_arg(1).name(), "features");
  auto out = InferShapes(*ops_, "ReluGrad", kFloat, {PartialShape({2, 3}), PartialShape({2, 4})});
  ExpectError(out, "ReluGrad: dimension 1 in both shapes must be equal, but are 3 and 4");
}

TEST_F(NnOpsTest, SigmoidAndTanhGradTakeYThenDy) {
  for (const char* op : {"SigmoidGrad", "TanhGrad"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({4, 5}), PartialShape({-1, -1})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({4, 5})));
    EXPECT_EQ(Def(op).input_arg(0).name(), "y");
    EXPECT_EQ(Def(op).input_arg(1).name(), "dy");
    EXPECT_EQ(Def(op).output_arg(0).name(), "z");
  }
}

TEST_F(NnOpsTest, BiasAddMergesTheChannel) {
  auto out = InferShapes(*ops_, "BiasAdd", kFloat, {PartialShape({8, -1}), PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({8, 5})));
  out = InferShapes(*ops_, "BiasAdd",
                    R"pb(attr {
                           key: "T"
                           value { type: DT_FLOAT }
                         }
                         attr {
                           key: "data_format"
                           value { s: "NCHW" }
                         })pb",
                    {PartialShape({8, 3, 4, 4}), PartialShape({3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({8, 3, 4, 4})));
  out = InferShapes(*ops_, "BiasAdd", kFloat, {PartialShape({8, 4}), PartialShape({5})});
  ExpectError(out, "BiasAdd: dimensions must be equal, but are 4 and 5");
  out = InferShapes(*ops_, "BiasAdd", kFloat, {PartialShape({8}), PartialShape({5})});
  ExpectError(out, "shape must be at least rank 2 but is rank 1 (input 0)");
  EXPECT_EQ(Def("BiasAdd").attr(1).default_value().s(), "NHWC");
}

TEST_F(NnOpsTest, BiasAddV1HasNoDataFormatAndUsesTheLastDimension) {
  auto out = InferShapes(*ops_, "BiasAddV1", kFloat, {PartialShape({8, 3, -1}), PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({8, 3, 5})));
  ASSERT_EQ(Def("BiasAddV1").attr_size(), 1);
  EXPECT_EQ(Def("BiasAddV1").attr(0).name(), "T");
  EXPECT_EQ(Def("BiasAddV1").input_arg(0).name(), "value");
  EXPECT_EQ(Def("BiasAddV1").input_arg(1).name(), "bias");
  EXPECT_EQ(Def("BiasAddV1").output_arg(0).name(), "output");
  out = InferShapes(*ops_, "BiasAddV1", kFloat, {PartialShape({8, 4}), PartialShape({5})});
  ExpectError(out, "BiasAddV1: dimensions must be equal, but are 4 and 5");
  out = InferShapes(*ops_, "BiasAddV1", kFloat, {PartialShape({8}), PartialShape({5})});
  ExpectError(out, "shape must be at least rank 2 but is rank 1 (input 0)");
}

TEST_F(NnOpsTest, BiasAddGradIsAVectorOfTheChannel) {
  auto out = InferShapes(*ops_, "BiasAddGrad", kFloat, {PartialShape({8, 4, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({5})));
  out = InferShapes(*ops_, "BiasAddGrad",
                    R"pb(attr {
                           key: "T"
                           value { type: DT_FLOAT }
                         }
                         attr {
                           key: "data_format"
                           value { s: "NCHW" }
                         })pb",
                    {PartialShape({8, 3, 4, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3})));
  out = InferShapes(*ops_, "BiasAddGrad", kFloat, {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1})));
  out = InferShapes(*ops_, "BiasAddGrad", kFloat, {PartialShape({3})});
  ExpectError(out, "shape must be at least rank 2 but is rank 1 (input 0)");
  EXPECT_EQ(Def("BiasAddGrad").input_arg(0).name(), "out_backprop");
}

TEST_F(NnOpsTest, SoftmaxAndLogSoftmaxNeedAtLeastAVector) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 10})});
    ASSERT_TRUE(out.ok());
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 10})));
    out = InferShapes(*ops_, op, kFloat, {PartialShape::Scalar()});
    ExpectError(out, absl::StrCat(op, ": shape must be at least rank 1 but is rank 0"));
  }
  EXPECT_EQ(Def("LogSoftmax").output_arg(0).name(), "logsoftmax");
}

TEST_F(NnOpsTest, SoftmaxCrossEntropyMergesOrBroadcastsToAMatrix) {
  const char* op = "SoftmaxCrossEntropyWithLogits";
  auto out = InferShapes(*ops_, op, kFloat, {PartialShape({-1, 5}), PartialShape({4, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4}), PartialShape({4, 5})));
  out = InferShapes(*ops_, op, kFloat, {PartialShape({4, 5}), PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4}), PartialShape({4, 5})));
  out = InferShapes(*ops_, op, kFloat, {PartialShape({1, 5}), PartialShape({3, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3}), PartialShape({3, 5})));
  out = InferShapes(*ops_, op, kFloat, {PartialShape({5}), PartialShape({5})});
  ExpectError(out, "Shape must be broadcasted with rank 2, but is rank 1");
  out = InferShapes(*ops_, op, kFloat, {PartialShape({5}), PartialShape::Unknown()});
  ExpectError(out, "Shape must be broadcasted with rank 2, but is rank is unknown.");
  out = InferShapes(*ops_, op, kFloat, {PartialShape({4, 5}), PartialShape({4, 6})});
  ExpectError(out, "incompatible shapes for broadcasting: [4,5] and [4,6]");
}

TEST_F(NnOpsTest, SparseSoftmaxCrossEntropyMergesTheBatch) {
  const char* op = "SparseSoftmaxCrossEntropyWithLogits";
  auto out = InferShapes(*ops_, op, kFloat, {PartialShape({-1, 5}), PartialShape({4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4}), PartialShape({4, 5})));
  out = InferShapes(*ops_, op, kFloat, {PartialShape({3, 5}), PartialShape({4})});
  ExpectError(out, "dimensions must be equal, but are 3 and 4");
  out = InferShapes(*ops_, op, kFloat, {PartialShape({3, 5}), PartialShape({3, 1})});
  ExpectError(out, "shape must be rank 1 but is rank 2 (input 1)");
  EXPECT_EQ(Attr(op, "Tlabels")->default_value().type(), tensorflow::DT_INT64);
}

TEST_F(NnOpsTest, L2LossIsAScalarAndLrnKeepsARank4Shape) {
  auto out = InferShapes(*ops_, "L2Loss", kFloat, {PartialShape({3, 4})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape::Scalar()));
  out = InferShapes(*ops_, "LRN", kFloat, {PartialShape({1, 2, 3, 4})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 2, 3, 4})));
  ExpectError(InferShapes(*ops_, "LRN", kFloat, {PartialShape({2, 3, 4})}),
              "LRN: shape must be rank 4 but is rank 3");
  out = InferShapes(
      *ops_, "LRNGrad", kFloat,
      {PartialShape({1, -1, 3, 4}), PartialShape({-1, 2, 3, 4}), PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 2, 3, 4})));
  ExpectError(InferShapes(*ops_, "LRNGrad", kFloat,
                          {PartialShape({1, 2, 3, 4}), PartialShape({1, 2, 3, 5}),
                           PartialShape({1, 2, 3, 4})}),
              "dimension 3 in both shapes must be equal, but are 4 and 5");
  EXPECT_EQ(Attr("LRN", "depth_radius")->default_value().i(), 5);
  EXPECT_FLOAT_EQ(Attr("LRN", "bias")->default_value().f(), 1.0f);
  EXPECT_FLOAT_EQ(Attr("LRN", "alpha")->default_value().f(), 1.0f);
  EXPECT_FLOAT_EQ(Attr("LRNGrad", "beta")->default_value().f(), 0.5f);
}

TEST_F(NnOpsTest, PoolingValidAndSamePadding) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    // VALID: (in - k + stride) / stride; SAME: ceil(in / stride).
    auto out = InferShapes(*ops_, op, PoolAttrs("VALID", {1, 3, 2, 1}, {1, 2, 2, 1}),
                           {PartialShape({2, 7, 6, 3})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 3, 3})));
    out = InferShapes(*ops_, op, PoolAttrs("SAME", {1, 3, 2, 1}, {1, 2, 2, 1}),
                      {PartialShape({2, 7, 6, 3})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3, 3})));
    out = InferShapes(*ops_, op, PoolAttrs("SAME", {1, 1, 3, 2}, {1, 1, 2, 2}, "NCHW"),
                      {PartialShape({2, 3, 7, 6})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 4, 3})));
    out = InferShapes(*ops_, op, PoolAttrs("VALID", {1, 2, 2, 1}, {1, 1, 1, 1}),
                      {PartialShape({-1, -1, 5, 3})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, 4, 3})));
  }
}

TEST_F(NnOpsTest, PoolingErrorsFollowTensorFlow) {
  ExpectError(InferShapes(*ops_, "MaxPool", PoolAttrs("VALID", {1, 3, 3, 1}, {1, 1, 1, 1}),
                          {PartialShape({1, 2, 5, 1})}),
              "Negative dimension size caused by subtracting 3 from 2");
  ExpectError(InferShapes(*ops_, "AvgPool", PoolAttrs("VALID", {1, 1, 1, 1}, {1, 0, 1, 1}),
                          {PartialShape({1, 2, 5, 1})}),
              "Stride must be > 0, but got 0");
  ExpectError(InferShapes(*ops_, "MaxPool", PoolAttrs("VALID", {1, 0, 1, 1}, {1, 1, 1, 1}),
                          {PartialShape({1, 2, 5, 1})}),
              "Sliding window ksize for dimension 1 was zero.");
  ExpectError(InferShapes(*ops_, "AvgPool", PoolAttrs("VALID", {1, 1, 1, 1, 1}, {1, 1, 1, 1}),
                          {PartialShape({1, 2, 5, 1})}),
              "AvgPool requires the ksize attribute to contain 4 values, but got: 5");
  ExpectError(InferShapes(*ops_, "MaxPool", PoolAttrs("VALID", {1, 1, 1, 1}, {1, 1, 1, 1, 1}),
                          {PartialShape({1, 2, 5, 1})}),
              "MaxPool requires the stride attribute to contain 4 values, but got: 5");
  ExpectError(InferShapes(*ops_, "AvgPool", PoolAttrs("VALID", {1, 1, 1, 1}, {1, 1, 1, 1}),
                          {PartialShape({2, 5, 1})}),
              "AvgPool: shape must be rank 4 but is rank 3 (input 0)");
  // list(int) >= 4 and the padding values are checked against the definition.
  ExpectError(InferShapes(*ops_, "AvgPool", PoolAttrs("VALID", {1, 1, 1}, {1, 1, 1, 1}),
                          {PartialShape({1, 2, 5, 1})}),
              "ksize");
  ExpectError(InferShapes(*ops_, "AvgPool", PoolAttrs("EXPLICIT", {1, 1, 1, 1}, {1, 1, 1, 1}),
                          {PartialShape({1, 2, 5, 1})}),
              "EXPLICIT");
}

TEST_F(NnOpsTest, MaxPoolExplicitPaddingAndDepthPooling) {
  const std::string explicit_attrs =
      PoolAttrs("EXPLICIT", {1, 3, 3, 1}, {1, 2, 2, 1}) +
      " attr { key: 'explicit_paddings' value { list { i: 0 i: 0 i: 1 i: 2 i: 0 i: 1 i: 0 i: 0 "
      "} } }";
  auto out = InferShapes(*ops_, "MaxPool", explicit_attrs, {PartialShape({1, 5, 5, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  // rows: (5 + 3 - 3 + 2) / 2 = 3; cols: (5 + 1 - 3 + 2) / 2 = 2.
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 3, 2, 2})));
  ExpectError(InferShapes(*ops_, "MaxPool",
                          PoolAttrs("EXPLICIT", {1, 3, 3, 1}, {1, 2, 2, 1}) +
                              " attr { key: 'explicit_paddings' value { list { i: 1 i: 0 i: 0 "
                              "i: 0 i: 0 i: 0 i: 0 i: 0 } } }",
                          {PartialShape({1, 5, 5, 2})}),
              "Nonzero explicit padding in the batch or depth dimensions is not supported");
  ExpectError(InferShapes(*ops_, "MaxPool",
                          PoolAttrs("EXPLICIT", {1, 3, 3, 1}, {1, 2, 2, 1}) +
                              " attr { key: 'explicit_paddings' value { list { i: 0 i: 0 } } }",
                          {PartialShape({1, 5, 5, 2})}),
              "explicit_paddings attribute must contain 8 values, but got: 2");
  ExpectError(InferShapes(*ops_, "MaxPool",
                          PoolAttrs("VALID", {1, 3, 3, 1}, {1, 2, 2, 1}) +
                              " attr { key: 'explicit_paddings' value { list { i: 0 i: 0 } } }",
                          {PartialShape({1, 5, 5, 2})}),
              "explicit_paddings attribute must be empty if the padding attribute is not "
              "EXPLICIT");
  ExpectError(InferShapes(*ops_, "MaxPool",
                          PoolAttrs("EXPLICIT", {1, 3, 3, 1}, {1, 2, 2, 1}) +
                              " attr { key: 'explicit_paddings' value { list { i: 0 i: 0 i: 0 "
                              "i: -1 i: 0 i: 0 i: 0 i: 0 } } }",
                          {PartialShape({1, 5, 5, 2})}),
              "All elements of explicit_paddings must be nonnegative");
  // Depth pooling (MaxPool only): the channel dimension is windowed too.
  out = InferShapes(*ops_, "MaxPool", PoolAttrs("VALID", {1, 1, 1, 2}, {1, 1, 1, 2}),
                    {PartialShape({1, 5, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 5, 5, 3})));
  EXPECT_EQ(Attr("MaxPool", "T")->default_value().type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(Attr("MaxPool", "explicit_paddings")->default_value().list().i_size(), 0);
  EXPECT_EQ(Attr("MaxPool", "ksize")->minimum(), 4);
}

TEST_F(NnOpsTest, MaxPoolV2TakesKsizeAndStridesFromItsInputs) {
  const std::string attrs =
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'padding' value { s: 'SAME' } }";
  Tensor ksize = Tensor::Vector<int32_t>({1, 3, 3, 1});
  Tensor strides = Tensor::Vector<int32_t>({1, 2, 2, 1});
  auto out = InferShapes(*ops_, "MaxPoolV2", attrs,
                         {PartialShape({1, 5, 7, 2}), PartialShape({4}), PartialShape({4})},
                         {nullptr, &ksize, &strides});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 3, 4, 2})));
  // Unknown values: an unknown shape.
  out = InferShapes(*ops_, "MaxPoolV2", attrs,
                    {PartialShape({1, 5, 7, 2}), PartialShape({4}), PartialShape({4})},
                    {nullptr, &ksize});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape()));
  ExpectError(InferShapes(*ops_, "MaxPoolV2", attrs,
                          {PartialShape({1, 5, 7, 2}), PartialShape({3}), PartialShape({4})}),
              "Dimension must be 4 but is 3 (ksize)");
  Tensor three = Tensor::Vector<int32_t>({1, 2, 2});
  ExpectError(InferShapes(*ops_, "MaxPoolV2", attrs,
                          {PartialShape({1, 5, 7, 2}), PartialShape({4}), PartialShape({-1})},
                          {nullptr, &ksize, &three}),
              "MaxPool requires the stride attribute to contain 4 values, but got: 3");
  out = InferShapes(*ops_, "MaxPoolGradV2", attrs,
                    {PartialShape({1, 5, 7, 2}), PartialShape({1, 3, 4, 2}),
                     PartialShape({1, 3, 4, 2}), PartialShape({4}), PartialShape({4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 5, 7, 2})));
  EXPECT_EQ(Def("MaxPoolV2").input_arg(1).type(), tensorflow::DT_INT32);
  EXPECT_EQ(Def("MaxPoolGradV2").input_arg(4).name(), "strides");
}

TEST_F(NnOpsTest, PoolingGradientShapes) {
  auto out = InferShapes(
      *ops_, "MaxPoolGrad", PoolAttrs("VALID", {1, 2, 2, 1}, {1, 2, 2, 1}),
      {PartialShape({1, 4, 4, 2}), PartialShape({1, 2, 2, 2}), PartialShape({1, 2, 2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 4, 4, 2})));
  ExpectError(
      InferShapes(*ops_, "MaxPoolGrad", PoolAttrs("VALID", {1, 2, 2, 1}, {1, 2, 2, 1}),
                  {PartialShape({4, 4, 2}), PartialShape::Unknown(), PartialShape::Unknown()}),
      "MaxPoolGrad: shape must be rank 4 but is rank 3 (input 0)");
  EXPECT_EQ(Def("MaxPoolGrad").input_arg(1).name(), "orig_output");

  const std::string avg = PoolAttrs("VALID", {1, 2, 2, 1}, {1, 2, 2, 1});
  out = InferShapes(*ops_, "AvgPoolGrad", avg, {PartialShape({4}), PartialShape({1, 2, 2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1, -1})));
  Tensor shape(TSR_DTYPE_INT32, TensorShape({4}));
  const int32_t dims[] = {1, 4, 5, 2};
  for (int i = 0; i < 4; ++i) shape.data<int32_t>()[i] = dims[i];
  out = InferShapes(*ops_, "AvgPoolGrad", avg, {PartialShape({4}), PartialShape({1, 2, 2, 2})},
                    {&shape, nullptr});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 4, 5, 2})));
  ExpectError(InferShapes(*ops_, "AvgPoolGrad", avg, {PartialShape({3}), PartialShape::Unknown()}),
              "AvgPoolGrad: shape must be rank 4 but is rank 3 (orig_input_shape)");
  EXPECT_EQ(Def("AvgPoolGrad").input_arg(0).type(), tensorflow::DT_INT32);
}

constexpr char kBatchNorm[] = R"pb(attr {
                                     key: "T"
                                     value { type: DT_FLOAT }
                                   }
                                   attr {
                                     key: "U"
                                     value { type: DT_FLOAT }
                                   })pb";

TEST_F(NnOpsTest, FusedBatchNormV3MergesTheChannels) {
  auto out = InferShapes(*ops_, "FusedBatchNormV3", kBatchNorm,
                         {PartialShape({2, 4, 4, -1}), PartialShape({3}), PartialShape({-1}),
                          PartialShape({0}), PartialShape({0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 4, 3}), PartialShape({3}), PartialShape({3}),
                                PartialShape({3}), PartialShape({3}), PartialShape::Unknown()));
  // Inference checks mean and variance too.
  const std::string inference =
      std::string(kBatchNorm) + " attr { key: 'is_training' value { b: false } }";
  ExpectError(InferShapes(*ops_, "FusedBatchNormV3", inference,
                          {PartialShape({2, 4, 4, 3}), PartialShape({3}), PartialShape({3}),
                           PartialShape({0}), PartialShape({3})}),
              "dimensions must be equal, but are 3 and 0");
  const std::string nchw =
      std::string(kBatchNorm) + " attr { key: 'data_format' value { s: 'NCHW' } }";
  out = InferShapes(*ops_, "FusedBatchNormV3", nchw,
                    {PartialShape({2, -1, 4, 4}), PartialShape({5}), PartialShape({5}),
                     PartialShape::Unknown(), PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], PartialShape({2, 5, 4, 4}));
  const std::string ncdhw =
      std::string(kBatchNorm) + " attr { key: 'data_format' value { s: 'NCDHW' } }";
  ExpectError(InferShapes(*ops_, "FusedBatchNormV3", ncdhw,
                          {PartialShape({2, 5, 4, 4}), PartialShape({5}), PartialShape({5}),
                           PartialShape({5}), PartialShape({5})}),
              "shape must be rank 5 but is rank 4 (input 0)");
  EXPECT_FLOAT_EQ(Attr("FusedBatchNormV3", "epsilon")->default_value().f(), 0.0001f);
  EXPECT_FLOAT_EQ(Attr("FusedBatchNormV3", "exponential_avg_factor")->default_value().f(), 1.0f);
  EXPECT_TRUE(Attr("FusedBatchNormV3", "is_training")->default_value().b());
  EXPECT_EQ(Def("FusedBatchNormV3").output_arg(5).name(), "reserve_space_3");
}

TEST_F(NnOpsTest, FusedBatchNormGradV3Shapes) {
  auto out =
      InferShapes(*ops_, "FusedBatchNormGradV3", kBatchNorm,
                  {PartialShape({2, 4, 4, -1}), PartialShape({2, 4, 4, 3}), PartialShape({3}),
                   PartialShape({3}), PartialShape({3}), PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 4, 3}), PartialShape({3}), PartialShape({3}),
                                PartialShape({0}), PartialShape({0})));
  ExpectError(
      InferShapes(*ops_, "FusedBatchNormGradV3", kBatchNorm,
                  {PartialShape({2, 4, 4, 3}), PartialShape({2, 4, 4, 3}), PartialShape({3}),
                   PartialShape({4}), PartialShape({3}), PartialShape::Unknown()}),
      "dimensions must be equal, but are 3 and 4");
  EXPECT_EQ(Def("FusedBatchNormGradV3").input_arg(2).type(), tensorflow::DT_FLOAT);
}

// FusedBatchNorm (all float T) and FusedBatchNormV2 (U for the statistics) with their gradients:
// V3's shapes without reserve_space_3, 4-D formats only.
TEST_F(NnOpsTest, FusedBatchNormV1AndV2) {
  const std::string v1 = "attr { key: 'T' value { type: DT_FLOAT } }";
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2"}) {
    SCOPED_TRACE(op);
    const std::string attrs = std::string(op) == "FusedBatchNorm" ? v1 : kBatchNorm;
    auto out = InferShapes(*ops_, op, attrs,
                           {PartialShape({2, 4, 4, -1}), PartialShape({3}), PartialShape({-1}),
                            PartialShape({0}), PartialShape({0})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 4, 3}), PartialShape({3}),
                                  PartialShape({3}), PartialShape({3}), PartialShape({3})));
    EXPECT_EQ(Def(op).output_arg_size(), 5);
    EXPECT_EQ(Def(op).output_arg(4).name(), "reserve_space_2");
    EXPECT_FLOAT_EQ(Attr(op, "exponential_avg_factor")->default_value().f(), 1.0f);
    EXPECT_THAT(Attr(op, "data_format")->allowed_values().list().s(), ElementsAre("NHWC", "NCHW"));
    const std::string ndhwc = attrs + " attr { key: 'data_format' value { s: 'NDHWC' } }";
    EXPECT_FALSE(InferShapes(*ops_, op, ndhwc,
                             {PartialShape({2, 4, 4, 4, 3}), PartialShape({3}), PartialShape({3}),
                              PartialShape({3}), PartialShape({3})})
                     .ok());
  }
  EXPECT_EQ(Def("FusedBatchNorm").input_arg(1).type_attr(), "T");
  EXPECT_EQ(Def("FusedBatchNormV2").input_arg(1).type_attr(), "U");
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2"}) {
    SCOPED_TRACE(op);
    const std::string attrs = std::string(op) == "FusedBatchNormGrad" ? v1 : kBatchNorm;
    auto out = InferShapes(*ops_, op, attrs,
                           {PartialShape({2, 4, 4, -1}), PartialShape({2, 4, 4, 3}),
                            PartialShape({3}), PartialShape({3}), PartialShape({3})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 4, 3}), PartialShape({3}),
                                  PartialShape({3}), PartialShape({0}), PartialShape({0})));
    EXPECT_EQ(Def(op).input_arg_size(), 5);
    EXPECT_EQ(Def(op).output_arg(3).name(), "reserve_space_3");
  }
  EXPECT_EQ(Def("FusedBatchNormGradV2").input_arg(2).type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(Def("FusedBatchNormGrad").input_arg(2).type_attr(), "T");
}

TEST_F(NnOpsTest, TopKV2ReplacesTheLastDimensionByK) {
  Tensor k = Tensor::Scalar<int32_t>(2);
  auto out = InferShapes(*ops_, "TopKV2", kFloat, {PartialShape({3, -1, 5}), PartialShape::Scalar()},
                         {nullptr, &k});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, -1, 2}), PartialShape({3, -1, 2})));
  out = InferShapes(*ops_, "TopKV2", kFloat, {PartialShape({4}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1}), PartialShape({-1})));
  EXPECT_TRUE(Attr("TopKV2", "sorted")->default_value().b());
  EXPECT_EQ(Attr("TopKV2", "Tk")->default_value().type(), tensorflow::DT_INT32);
  EXPECT_EQ(Attr("TopKV2", "index_type")->default_value().type(), tensorflow::DT_INT32);
  EXPECT_EQ(Attr("TopKV2", "index_type")->allowed_values().list().type_size(), 3);
}

TEST_F(NnOpsTest, TopKV2RejectsBadK) {
  Tensor k = Tensor::Scalar<int32_t>(6);
  ExpectError(InferShapes(*ops_, "TopKV2", kFloat, {PartialShape({3, 5}), PartialShape::Scalar()},
                          {nullptr, &k}),
              "input must have last dimension >= k = 6 but is 5");
  Tensor negative = Tensor::Scalar<int32_t>(-1);
  ExpectError(InferShapes(*ops_, "TopKV2", kFloat, {PartialShape({3, 5}), PartialShape::Scalar()},
                          {nullptr, &negative}),
              "must be non-negative but is -1");
  ExpectError(InferShapes(*ops_, "TopKV2", kFloat, {PartialShape::Scalar(), PartialShape::Scalar()}),
              "must be at least rank 1");
  ExpectError(InferShapes(*ops_, "TopKV2", kFloat, {PartialShape({3}), PartialShape({1})}),
              "must be rank 0");
}

}  // namespace
}  // namespace tessera
