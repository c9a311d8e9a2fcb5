// Tests of the convolution ops' definitions and shape functions, and of those of BatchMatMul,
// BatchMatMulV2 and BatchMatMulV3 (defined with the math ops).
#include <limits>
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

class ConvOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();

  const tensorflow::OpDef& Def(const char* op) { return ops_->Find(op)->op_def; }
  const tensorflow::OpDef::AttrDef* Attr(const char* op, const std::string& name) {
    for (const auto& attr : Def(op).attr()) {
      if (attr.name() == name) return &attr;
    }
    return nullptr;
  }
  std::vector<std::string> AttrNames(const char* op) {
    std::vector<std::string> names;
    for (const auto& attr : Def(op).attr()) names.push_back(attr.name());
    return names;
  }
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& substring) {
    ASSERT_FALSE(out.ok()) << "expected an error containing '" << substring << "'";
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(substring));
  }
};

// Conv attrs in text format; `paddings` is only written when non-empty.
std::string ConvAttrs(const std::string& padding, std::vector<int64_t> strides,
                      std::vector<int64_t> dilations = {1, 1, 1, 1},
                      const std::string& data_format = "NHWC", std::vector<int64_t> paddings = {}) {
  std::string text =
      absl::StrCat("attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'padding' value { s: '",
                   padding, "' } } attr { key: 'data_format' value { s: '", data_format,
                   "' } } attr { key: 'strides' value { list {");
  for (int64_t s : strides) absl::StrAppend(&text, " i: ", s);
  absl::StrAppend(&text, " } } } attr { key: 'dilations' value { list {");
  for (int64_t d : dilations) absl::StrAppend(&text, " i: ", d);
  absl::StrAppend(&text, " } } }");
  if (!paddings.empty()) {
    absl::StrAppend(&text, " attr { key: 'explicit_paddings' value { list {");
    for (int64_t p : paddings) absl::StrAppend(&text, " i: ", p);
    absl::StrAppend(&text, " } } }");
  }
  return text;
}

TEST_F(ConvOpsTest, DefinitionsHaveTensorFlowsArgumentsAndAttrs) {
  EXPECT_THAT(AttrNames("Conv2D"), ElementsAre("T", "strides", "use_cudnn_on_gpu", "padding",
                                               "explicit_paddings", "data_format", "dilations"));
  EXPECT_THAT(AttrNames("Conv2DBackpropInput"),
              ElementsAre("T", "strides", "use_cudnn_on_gpu", "padding", "explicit_paddings",
                          "data_format", "dilations"));
  EXPECT_THAT(AttrNames("Conv2DBackpropFilter"),
              ElementsAre("T", "strides", "use_cudnn_on_gpu", "padding", "explicit_paddings",
                          "data_format", "dilations"));
  EXPECT_THAT(
      AttrNames("DepthwiseConv2dNative"),
      ElementsAre("T", "strides", "padding", "explicit_paddings", "data_format", "dilations"));
  EXPECT_EQ(Def("Conv2D").input_arg(0).name(), "input");
  EXPECT_EQ(Def("Conv2D").input_arg(1).name(), "filter");
  EXPECT_EQ(Def("Conv2DBackpropInput").input_arg(0).name(), "input_sizes");
  EXPECT_EQ(Def("Conv2DBackpropInput").input_arg(0).type(), tensorflow::DT_INT32);
  EXPECT_EQ(Def("Conv2DBackpropInput").input_arg(2).name(), "out_backprop");
  EXPECT_EQ(Def("Conv2DBackpropFilter").input_arg(1).name(), "filter_sizes");
  EXPECT_EQ(Def("Conv2DBackpropFilter").input_arg(1).type(), tensorflow::DT_INT32);
  EXPECT_TRUE(Attr("Conv2D", "use_cudnn_on_gpu")->default_value().b());
  EXPECT_EQ(Attr("Conv2D", "data_format")->default_value().s(), "NHWC");
  EXPECT_THAT(Attr("Conv2D", "data_format")->allowed_values().list().s(),
              ElementsAre("NHWC", "NCHW"));
  EXPECT_THAT(Attr("Conv2D", "padding")->allowed_values().list().s(),
              ElementsAre("SAME", "VALID", "EXPLICIT"));
  EXPECT_THAT(Attr("Conv2D", "dilations")->default_value().list().i(), ElementsAre(1, 1, 1, 1));
  EXPECT_EQ(Attr("Conv2D", "explicit_paddings")->default_value().list().i_size(), 0);
  EXPECT_FALSE(Attr("Conv2D", "strides")->has_default_value());
  EXPECT_THAT(Attr("Conv2D", "T")->allowed_values().list().type(),
              ElementsAre(tensorflow::DT_HALF, tensorflow::DT_BFLOAT16, tensorflow::DT_FLOAT,
                          tensorflow::DT_DOUBLE, tensorflow::DT_INT32));
  EXPECT_THAT(Attr("Conv2DBackpropFilter", "T")->allowed_values().list().type(),
              ElementsAre(tensorflow::DT_HALF, tensorflow::DT_BFLOAT16, tensorflow::DT_FLOAT,
                          tensorflow::DT_DOUBLE));
  EXPECT_THAT(Attr("DepthwiseConv2dNative", "T")->allowed_values().list().type(),
              ElementsAre(tensorflow::DT_HALF, tensorflow::DT_BFLOAT16, tensorflow::DT_FLOAT,
                          tensorflow::DT_DOUBLE));
}

TEST_F(ConvOpsTest, Conv2DOutputSizes) {
  // VALID, SAME (ceil(input / stride)) and EXPLICIT, with strides and dilations.
  auto out = InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                         {PartialShape({2, 5, 7, 3}), PartialShape({3, 3, 3, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 5, 8})));
  out = InferShapes(*ops_, "Conv2D", ConvAttrs("SAME", {1, 2, 3, 1}),
                    {PartialShape({2, 5, 7, 3}), PartialShape({3, 3, 3, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 3, 8})));
  out = InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}, {1, 2, 2, 1}),
                    {PartialShape({1, 9, 9, 3}), PartialShape({3, 3, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 5, 5, 4})));
  out = InferShapes(
      *ops_, "Conv2D",
      ConvAttrs("EXPLICIT", {1, 2, 1, 1}, {1, 1, 1, 1}, "NHWC", {0, 0, 1, 2, 3, 0, 0, 0}),
      {PartialShape({1, 6, 4, 3}), PartialShape({2, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 4, 6, 4})));
  // NCHW: strides and dilations are indexed by the data format.
  out = InferShapes(*ops_, "Conv2D", ConvAttrs("SAME", {1, 1, 2, 2}, {1, 1, 1, 1}, "NCHW"),
                    {PartialShape({2, 3, 8, 6}), PartialShape({3, 3, 3, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 4, 3})));
  // Unknown dimensions stay unknown; SAME needs no filter size.
  out = InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                    {PartialShape({-1, 5, -1, 3}), PartialShape({3, -1, 3, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3, -1, -1})));
  out = InferShapes(*ops_, "Conv2D", ConvAttrs("SAME", {1, 1, 1, 1}),
                    {PartialShape({1, 5, 5, 3}), PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 5, 5, -1})));
  // Grouped: input depth 6 over filter depth 2 is 3 groups.
  out = InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                    {PartialShape({1, 3, 3, 6}), PartialShape({1, 1, 2, 9})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 3, 3, 9})));
}

TEST_F(ConvOpsTest, Conv2DErrors) {
  const std::vector<PartialShape> shapes = {PartialShape({1, 5, 5, 4}), PartialShape({3, 3, 4, 8})};
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1}), shapes),
              "Conv2D on data format NHWC requires the stride attribute to contain 4 values, but "
              "got: 3");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}, {1, 1}), shapes),
              "Conv2D requires the dilation attribute to contain 4 values, but got: 2");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 0, 1, 1}), shapes),
              "Stride must be > 0, but got 0");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}, {1, 0, 1, 1}), shapes),
              "Dilation rate must be >= 1, but got 0");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                          {PartialShape({1, 2, 5, 4}), PartialShape({3, 3, 4, 8})}),
              "Negative dimension size caused by subtracting 3 from 2");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}, {1, 2, 1, 1}),
                          {PartialShape({1, 4, 5, 4}), PartialShape({3, 3, 4, 8})}),
              "Negative dimension size caused by subtracting 5 from 4");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                          {PartialShape({1, 5, 5, 5}), PartialShape({3, 3, 2, 8})}),
              "Depth of input (5) is not a multiple of input depth of filter (2)");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                          {PartialShape({1, 5, 5, 4}), PartialShape({3, 3, 0, 8})}),
              "Depth of filter must not be 0");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                          {PartialShape({1, 5, 5, 6}), PartialShape({3, 3, 2, 8})}),
              "Depth of output (8) is not a multiple of the number of groups (3)");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("VALID", {1, 1, 1, 1}),
                          {PartialShape({5, 5, 4}), PartialShape({3, 3, 4, 8})}),
              "shape must be rank 4 but is rank 3");
  // Sizes whose arithmetic would not fit in 64 bits are refused, never wrapped.
  constexpr int64_t k2p62 = int64_t{1} << 62;
  ExpectError(InferShapes(*ops_, "Conv2D",
                          ConvAttrs("EXPLICIT", {1, 1, 1, 1}, {1, 1, 1, 1}, "NHWC",
                                    {0, 0, k2p62, k2p62, 0, 0, 0, 0}),
                          shapes),
              "the window of 3 elements dilated by 1 over 5 padded by 4611686018427387904 and "
              "4611686018427387904 does not fit in 64 bits");
  ExpectError(InferShapes(*ops_, "Conv2D",
                          ConvAttrs("VALID", {1, 1, 1, 1},
                                    {1, std::numeric_limits<int64_t>::max(), 1, 1}),
                          {PartialShape({1, 5, 5, 4}), PartialShape({0, 3, 4, 8})}),
              "the window of 0 elements dilated by 9223372036854775807 over 5 gives an output "
              "size beyond 64 bits");
  // Explicit paddings.
  ExpectError(
      InferShapes(*ops_, "Conv2D",
                  ConvAttrs("SAME", {1, 1, 1, 1}, {1, 1, 1, 1}, "NHWC", {0, 0, 1, 1}), shapes),
      "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  ExpectError(InferShapes(*ops_, "Conv2D", ConvAttrs("EXPLICIT", {1, 1, 1, 1}), shapes),
              "explicit_paddings attribute must contain 8 values, but got: 0");
  ExpectError(InferShapes(*ops_, "Conv2D",
                          ConvAttrs("EXPLICIT", {1, 1, 1, 1}, {1, 1, 1, 1}, "NHWC",
                                    {0, 0, -1, 1, 1, 1, 0, 0}),
                          shapes),
              "All elements of explicit_paddings must be nonnegative");
  ExpectError(InferShapes(*ops_, "Conv2D",
                          ConvAttrs("EXPLICIT", {1, 1, 1, 1}, {1, 1, 1, 1}, "NHWC",
                                    {0, 0, 1, 1, 1, 1, 0, 1}),
                          shapes),
              "Nonzero explicit padding in the batch or depth dimensions is not supported");
  ExpectError(InferShapes(*ops_, "Conv2D",
                          ConvAttrs("EXPLICIT", {1, 1, 1, 1}, {1, 1, 1, 1}, "NCHW",
                                    {0, 0, 1, 1, 1, 1, 0, 0}),
                          {PartialShape({1, 4, 5, 5}), PartialShape({3, 3, 4, 8})}),
              "Nonzero explicit padding in the batch or depth dimensions is not supported");
}

TEST_F(ConvOpsTest, DepthwiseConv2dNativeMultipliesTheDepth) {
  auto out = InferShapes(*ops_, "DepthwiseConv2dNative", ConvAttrs("SAME", {1, 2, 2, 1}),
                         {PartialShape({2, 7, 7, 3}), PartialShape({3, 3, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 4, 12})));
  out = InferShapes(*ops_, "DepthwiseConv2dNative",
                    ConvAttrs("VALID", {1, 1, 1, 1}, {1, 1, 1, 1}, "NCHW"),
                    {PartialShape({2, -1, 7, 7}), PartialShape({3, 3, 3, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1, 5, 5})));
  ExpectError(InferShapes(*ops_, "DepthwiseConv2dNative", ConvAttrs("SAME", {1, 1, 1, 1}),
                          {PartialShape({2, 7, 7, 3}), PartialShape({3, 3, 4, 2})}),
              "dimensions must be equal, but are 3 and 4");
  ExpectError(InferShapes(*ops_, "DepthwiseConv2dNative", ConvAttrs("SAME", {1, 1}),
                          {PartialShape({2, 7, 7, 3}), PartialShape({3, 3, 3, 2})}),
              "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: 2");
  ExpectError(
      InferShapes(*ops_, "DepthwiseConv2dNative", ConvAttrs("SAME", {1, 1, 1, 1}, {1, 1, 1}),
                  {PartialShape({2, 7, 7, 3}), PartialShape({3, 3, 3, 2})}),
      "DepthwiseConv2D requires the dilations attribute to contain 4 values, but got: 3");
}

TEST_F(ConvOpsTest, Conv2DBackpropInputTakesItsShapeFromInputSizes) {
  const std::string attrs = ConvAttrs("SAME", {1, 1, 1, 1});
  Tensor four = Tensor::Vector<int32_t>({2, 9, 8, 3});
  auto out = InferShapes(
      *ops_, "Conv2DBackpropInput", attrs,
      {PartialShape({4}), PartialShape({3, 3, 3, 5}), PartialShape({-1, 9, 8, 5})}, {&four});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 9, 8, 3})));
  // Two values are the spatial sizes: batch from out_backprop, depth from the filter.
  Tensor two = Tensor::Vector<int32_t>({9, 8});
  out = InferShapes(*ops_, "Conv2DBackpropInput", attrs,
                    {PartialShape({2}), PartialShape({3, 3, 3, 5}), PartialShape({6, 9, 8, 5})},
                    {&two});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({6, 9, 8, 3})));
  // NCHW puts the sizes in the data format's order.
  out = InferShapes(
      *ops_, "Conv2DBackpropInput", ConvAttrs("SAME", {1, 1, 1, 1}, {1, 1, 1, 1}, "NCHW"),
      {PartialShape({2}), PartialShape({3, 3, 3, 5}), PartialShape({6, 5, 9, 8})}, {&two});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({6, 3, 9, 8})));
  // Unknown values: a 4-D shape of unknown dimensions, batch from out_backprop.
  out = InferShapes(*ops_, "Conv2DBackpropInput", attrs,
                    {PartialShape({-1}), PartialShape({3, 3, 3, 5}), PartialShape({6, 9, 8, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({6, -1, -1, -1})));
  Tensor three = Tensor::Vector<int32_t>({9, 8, 3});
  ExpectError(
      InferShapes(*ops_, "Conv2DBackpropInput", attrs,
                  {PartialShape({3}), PartialShape({3, 3, 3, 5}), PartialShape({6, 9, 8, 5})},
                  {&three}),
      "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: 3");
  ExpectError(
      InferShapes(*ops_, "Conv2DBackpropInput", attrs,
                  {PartialShape({4}), PartialShape({3, 3, 3, 5}), PartialShape({6, 9, 8, 4})}),
      "dimensions must be equal, but are 4 and 5");
  Tensor other_batch = Tensor::Vector<int32_t>({3, 9, 8, 3});
  ExpectError(
      InferShapes(*ops_, "Conv2DBackpropInput", attrs,
                  {PartialShape({4}), PartialShape({3, 3, 3, 5}), PartialShape({6, 9, 8, 5})},
                  {&other_batch}),
      "dimensions must be equal, but are 3 and 6");
}

TEST_F(ConvOpsTest, Conv2DBackpropFilterTakesItsShapeFromFilterSizes) {
  const std::string attrs = ConvAttrs("VALID", {1, 1, 1, 1});
  Tensor sizes = Tensor::Vector<int32_t>({3, 3, 4, 8});
  auto out =
      InferShapes(*ops_, "Conv2DBackpropFilter", attrs,
                  {PartialShape({1, 5, 5, 4}), PartialShape({4}), PartialShape({1, 3, 3, 8})},
                  {nullptr, &sizes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, 3, 4, 8})));
  out = InferShapes(
      *ops_, "Conv2DBackpropFilter", attrs,
      {PartialShape({1, 5, 5, 4}), PartialShape::Unknown(), PartialShape({1, 3, 3, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1, -1})));
  Tensor short_sizes = Tensor::Vector<int32_t>({3, 3, 4});
  ExpectError(
      InferShapes(*ops_, "Conv2DBackpropFilter", attrs,
                  {PartialShape({1, 5, 5, 4}), PartialShape({3}), PartialShape({1, 3, 3, 8})},
                  {nullptr, &short_sizes}),
      "Shape must be rank 4 but is rank 3 (filter_sizes)");
}

TEST_F(ConvOpsTest, DepthwiseGradientsTakeTheirShapeFromTheSizes) {
  for (const char* op :
       {"DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"}) {
    EXPECT_THAT(AttrNames(op), ElementsAre("T", "strides", "padding", "explicit_paddings",
                                           "data_format", "dilations"));
  }
  EXPECT_EQ(Def("DepthwiseConv2dNativeBackpropInput").input_arg(0).name(), "input_sizes");
  EXPECT_EQ(Def("DepthwiseConv2dNativeBackpropInput").input_arg(0).type(), tensorflow::DT_INT32);
  EXPECT_EQ(Def("DepthwiseConv2dNativeBackpropFilter").input_arg(1).name(), "filter_sizes");
  EXPECT_EQ(Def("DepthwiseConv2dNativeBackpropFilter").input_arg(1).type(), tensorflow::DT_INT32);
  const std::string attrs = ConvAttrs("SAME", {1, 2, 2, 1});
  Tensor input_sizes = Tensor::Vector<int32_t>({2, 9, 8, 3});
  auto out = InferShapes(
      *ops_, "DepthwiseConv2dNativeBackpropInput", attrs,
      {PartialShape({4}), PartialShape({3, 3, 3, 2}), PartialShape({2, 5, 4, 6})}, {&input_sizes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 9, 8, 3})));
  out = InferShapes(*ops_, "DepthwiseConv2dNativeBackpropInput", attrs,
                    {PartialShape::Unknown(), PartialShape({3, 3, 3, 2}), PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1, -1})));
  Tensor two = Tensor::Vector<int32_t>({9, 8});
  ExpectError(
      InferShapes(*ops_, "DepthwiseConv2dNativeBackpropInput", attrs,
                  {PartialShape({2}), PartialShape({3, 3, 3, 2}), PartialShape::Unknown()}, {&two}),
      "Shape must be rank 4 but is rank 2 (input_sizes)");
  Tensor filter_sizes = Tensor::Vector<int32_t>({3, 3, 3, 2});
  out = InferShapes(*ops_, "DepthwiseConv2dNativeBackpropFilter", attrs,
                    {PartialShape({2, 9, 8, 3}), PartialShape({4}), PartialShape({2, 5, 4, 6})},
                    {nullptr, &filter_sizes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, 3, 3, 2})));
  Tensor three = Tensor::Vector<int32_t>({3, 3, 3});
  ExpectError(InferShapes(*ops_, "DepthwiseConv2dNativeBackpropFilter", attrs,
                          {PartialShape::Unknown(), PartialShape({3}), PartialShape::Unknown()},
                          {nullptr, &three}),
              "Shape must be rank 4 but is rank 3 (filter_sizes)");
}

// Attrs of a float BatchMatMulV2.
std::string BatchMatMulAttrs(bool adj_x, bool adj_y) {
  return absl::StrCat("attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'adj_x' value { b: ",
                      adj_x ? "true" : "false",
                      " } } attr { key: 'adj_y' value { b: ", adj_y ? "true" : "false", " } }");
}

TEST_F(ConvOpsTest, BatchMatMulV2BroadcastsBatchDimensions) {
  EXPECT_THAT(AttrNames("BatchMatMulV2"), ElementsAre("T", "adj_x", "adj_y", "grad_x", "grad_y"));
  EXPECT_EQ(Def("BatchMatMulV2").output_arg(0).name(), "output");
  auto out = InferShapes(*ops_, "BatchMatMulV2", BatchMatMulAttrs(false, false),
                         {PartialShape({2, 1, 3, 4}), PartialShape({5, 4, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 3, 6})));
  out = InferShapes(*ops_, "BatchMatMulV2", BatchMatMulAttrs(true, true),
                    {PartialShape({4, 3}), PartialShape({7, 6, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({7, 3, 6})));
  out = InferShapes(*ops_, "BatchMatMulV2", BatchMatMulAttrs(false, false),
                    {PartialShape::Unknown(), PartialShape({4, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  ExpectError(InferShapes(*ops_, "BatchMatMulV2", BatchMatMulAttrs(false, false),
                          {PartialShape({2, 3, 4}), PartialShape({2, 5, 6})}),
              "dimensions must be equal, but are 4 and 5");
  ExpectError(InferShapes(*ops_, "BatchMatMulV2", BatchMatMulAttrs(false, false),
                          {PartialShape({2, 3, 4}), PartialShape({3, 4, 6})}),
              "Incompatible shapes: [2] vs. [3]");
  ExpectError(InferShapes(*ops_, "BatchMatMulV2", BatchMatMulAttrs(false, false),
                          {PartialShape({4}), PartialShape({4, 6})}),
              "shape must be at least rank 2 but is rank 1 (input 0)");
}

TEST_F(ConvOpsTest, BatchMatMulMergesBatchDimensions) {
  EXPECT_THAT(AttrNames("BatchMatMul"), ElementsAre("T", "adj_x", "adj_y", "grad_x", "grad_y"));
  EXPECT_EQ(Def("BatchMatMul").output_arg(0).name(), "output");
  auto out = InferShapes(*ops_, "BatchMatMul", BatchMatMulAttrs(false, false),
                         {PartialShape({2, -1, 3, 4}), PartialShape({-1, 5, 4, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 3, 6})));
  out = InferShapes(*ops_, "BatchMatMul", BatchMatMulAttrs(true, true),
                    {PartialShape({7, 4, 3}), PartialShape({7, 6, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({7, 3, 6})));
  // No broadcasting: batch dimensions of 1 and of different ranks do not match.
  EXPECT_FALSE(InferShapes(*ops_, "BatchMatMul", BatchMatMulAttrs(false, false),
                           {PartialShape({2, 1, 3, 4}), PartialShape({2, 5, 4, 6})})
                   .ok());
  auto ranks = InferShapes(*ops_, "BatchMatMul", BatchMatMulAttrs(false, false),
                           {PartialShape({2, 3, 4}), PartialShape({4, 6})});
  EXPECT_EQ(ranks.status().code(), absl::StatusCode::kInvalidArgument);
  ExpectError(InferShapes(*ops_, "BatchMatMul", BatchMatMulAttrs(false, false),
                          {PartialShape({2, 3, 4}), PartialShape({2, 5, 6})}),
              "dimensions must be equal, but are 4 and 5");
  ExpectError(InferShapes(*ops_, "BatchMatMul", BatchMatMulAttrs(false, false),
                          {PartialShape({4}), PartialShape({4, 6})}),
              "shape must be at least rank 2 but is rank 1 (input 0)");
}

TEST_F(ConvOpsTest, BatchMatMulV3HasThreeTypesAndBroadcasts) {
  EXPECT_THAT(AttrNames("BatchMatMulV3"),
              ElementsAre("Ta", "Tb", "Tout", "adj_x", "adj_y", "grad_x", "grad_y"));
  const std::string attrs =
      "attr { key: 'Ta' value { type: DT_INT8 } } attr { key: 'Tb' value { type: DT_INT8 } } "
      "attr { key: 'Tout' value { type: DT_INT32 } }";
  auto out = InferShapes(*ops_, "BatchMatMulV3", attrs,
                         {PartialShape({2, 1, 3, 4}), PartialShape({5, 4, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 3, 6})));
  ExpectError(InferShapes(*ops_, "BatchMatMulV3", attrs,
                          {PartialShape({2, 3, 4}), PartialShape({3, 4, 6})}),
              "Incompatible shapes: [2] vs. [3]");
  // uint8 operands are allowed, a uint8 output is not.
  auto uint8_out = InferShapes(
      *ops_, "BatchMatMulV3",
      "attr { key: 'Ta' value { type: DT_UINT8 } } attr { key: 'Tb' value { type: DT_UINT8 } } "
      "attr { key: 'Tout' value { type: DT_UINT8 } }",
      {PartialShape({2, 2}), PartialShape({2, 2})});
  EXPECT_THAT(std::string(uint8_out.status().message()), HasSubstr("is not in the allowed list"));
}

}  // namespace
}  // namespace tessera
