// Tests of the 3-D convolution and pooling ops' definitions and shape functions.
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

class Conv3DOpsTest : public ::testing::Test {
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

std::string IntList(const char* name, const std::vector<int64_t>& values) {
  std::string text = absl::StrCat(" attr { key: '", name, "' value { list {");
  for (int64_t v : values) absl::StrAppend(&text, " i: ", v);
  return absl::StrCat(text, " } } }");
}

std::string Conv3DAttrs(const std::string& padding, const std::vector<int64_t>& strides,
                        const std::vector<int64_t>& dilations = {1, 1, 1, 1, 1},
                        const std::string& data_format = "NDHWC") {
  return absl::StrCat(
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'padding' value { s: '", padding,
      "' } } attr { key: 'data_format' value { s: '", data_format, "' } }",
      IntList("strides", strides), IntList("dilations", dilations));
}

std::string Pool3DAttrs(const std::string& padding, const std::vector<int64_t>& ksize,
                        const std::vector<int64_t>& strides,
                        const std::string& data_format = "NDHWC") {
  return absl::StrCat(
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'padding' value { s: '", padding,
      "' } } attr { key: 'data_format' value { s: '", data_format, "' } }", IntList("ksize", ksize),
      IntList("strides", strides));
}

TEST_F(Conv3DOpsTest, DefinitionsHaveTensorFlowsArgumentsAndAttrs) {
  EXPECT_THAT(AttrNames("Conv3D"),
              ElementsAre("T", "strides", "padding", "data_format", "dilations"));
  EXPECT_THAT(AttrNames("Conv3DBackpropInputV2"),
              ElementsAre("T", "strides", "padding", "data_format", "dilations", "Tshape"));
  EXPECT_THAT(AttrNames("Conv3DBackpropFilterV2"),
              ElementsAre("T", "strides", "padding", "data_format", "dilations"));
  EXPECT_THAT(AttrNames("Conv3DBackpropInput"),
              ElementsAre("T", "strides", "padding", "dilations"));
  EXPECT_THAT(AttrNames("Conv3DBackpropFilter"),
              ElementsAre("T", "strides", "padding", "dilations"));
  EXPECT_EQ(Attr("Conv3D", "strides")->minimum(), 5);
  EXPECT_THAT(Attr("Conv3D", "dilations")->default_value().list().i(), ElementsAre(1, 1, 1, 1, 1));
  EXPECT_EQ(Attr("Conv3D", "data_format")->default_value().s(), "NDHWC");
  EXPECT_THAT(Attr("Conv3D", "padding")->allowed_values().list().s(), ElementsAre("SAME", "VALID"));
  EXPECT_EQ(Attr("Conv3DBackpropInputV2", "Tshape")->default_value().type(), tensorflow::DT_INT32);
  EXPECT_EQ(Def("Conv3DBackpropFilterV2").input_arg(1).type(), tensorflow::DT_INT32);
  EXPECT_THAT(AttrNames("MaxPool3D"),
              ElementsAre("ksize", "strides", "padding", "data_format", "T"));
  EXPECT_THAT(AttrNames("MaxPool3DGrad"),
              ElementsAre("ksize", "strides", "padding", "data_format", "T", "TInput"));
  EXPECT_THAT(AttrNames("AvgPool3DGrad"),
              ElementsAre("ksize", "strides", "padding", "data_format", "T"));
  EXPECT_THAT(Attr("MaxPool3D", "T")->allowed_values().list().type(),
              ElementsAre(tensorflow::DT_HALF, tensorflow::DT_BFLOAT16, tensorflow::DT_FLOAT));
  EXPECT_THAT(Attr("AvgPool3D", "T")->allowed_values().list().type(),
              ElementsAre(tensorflow::DT_HALF, tensorflow::DT_BFLOAT16, tensorflow::DT_FLOAT,
                          tensorflow::DT_DOUBLE));
}

TEST_F(Conv3DOpsTest, Conv3DOutputSizes) {
  auto out = InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1, 1}),
                         {PartialShape({2, 5, 6, 7, 3}), PartialShape({3, 2, 3, 3, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 5, 5, 8})));
  out = InferShapes(*ops_, "Conv3D", Conv3DAttrs("SAME", {1, 2, 3, 1, 1}, {1, 1, 1, 2, 1}),
                    {PartialShape({2, 5, 7, 6, 3}), PartialShape({3, 3, 3, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 3, 6, 4})));
  // NCDHW: strides and dilations are indexed by the data format.
  out =
      InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 2, 1, 1}, {1, 1, 1, 1, 2}, "NCDHW"),
                  {PartialShape({1, 3, 7, 6, 9}), PartialShape({3, 2, 3, 3, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 5, 3, 5, 5})));
  out = InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1, 1}),
                    {PartialShape({-1, 5, -1, 7, 3}), PartialShape({3, 2, 3, 3, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3, -1, 5, -1})));
}

TEST_F(Conv3DOpsTest, Conv3DRejectsBadShapesAndAttrs) {
  ExpectError(InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1, 1}),
                          {PartialShape({2, 5, 6, 7}), PartialShape({3, 2, 3, 3, 8})}),
              "must be rank 5");
  ExpectError(InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1, 1}),
                          {PartialShape({2, 5, 6, 7, 4}), PartialShape({3, 2, 3, 3, 8})}),
              "Depth of input (4) is not a multiple of input depth of filter (3)");
  ExpectError(InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1, 1}),
                          {PartialShape({2, 5, 6, 7, 6}), PartialShape({3, 2, 3, 3, 5})}),
              "Depth of output (5) is not a multiple of the number of groups (2)");
  ExpectError(InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1, 1}, {1, 1, 1, 1}),
                          {PartialShape({2, 5, 6, 7, 3}), PartialShape({3, 2, 3, 3, 8})}),
              "Conv3D requires the dilation attribute to contain 5 values, but got: 4");
  ExpectError(InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1, 1}),
                          {PartialShape({2, 2, 6, 7, 3}), PartialShape({3, 2, 3, 3, 8})}),
              "Negative dimension size caused by subtracting 3 from 2");
  // strides has at least 5 values.
  EXPECT_FALSE(InferShapes(*ops_, "Conv3D", Conv3DAttrs("VALID", {1, 1, 1, 1}),
                           {PartialShape({2, 5, 6, 7, 3}), PartialShape({3, 2, 3, 3, 8})})
                   .ok());
}

TEST_F(Conv3DOpsTest, GradientsTakeTheirShapesFromTheirSizes) {
  const std::string attrs = Conv3DAttrs("SAME", {1, 1, 1, 1, 1});
  Tensor input_sizes = Tensor::Vector<int32_t>({2, 4, 5, 6, 3});
  auto out =
      InferShapes(*ops_, "Conv3DBackpropInputV2", attrs,
                  {PartialShape({5}), PartialShape({3, 3, 3, 3, 4}), PartialShape({2, 4, 5, 6, 4})},
                  {&input_sizes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 5, 6, 3})));
  out = InferShapes(
      *ops_, "Conv3DBackpropInputV2", attrs,
      {PartialShape({5}), PartialShape({3, 3, 3, 3, 4}), PartialShape({2, 4, 5, 6, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape::UnknownOfRank(5)));
  Tensor four = Tensor::Vector<int32_t>({2, 4, 5, 6});
  ExpectError(
      InferShapes(*ops_, "Conv3DBackpropInputV2", attrs,
                  {PartialShape({4}), PartialShape({3, 3, 3, 3, 4}), PartialShape({2, 4, 5, 6, 4})},
                  {&four}),
      "Shape must be rank 5 but is rank 4 (input_sizes)");
  Tensor filter_sizes = Tensor::Vector<int32_t>({3, 3, 3, 3, 4});
  out =
      InferShapes(*ops_, "Conv3DBackpropFilterV2", attrs,
                  {PartialShape({2, 4, 5, 6, 3}), PartialShape({5}), PartialShape({2, 4, 5, 6, 4})},
                  {nullptr, &filter_sizes});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, 3, 3, 3, 4})));
  // The V1 forms: the shape of the input (filter) tensor.
  const std::string v1 = absl::StrCat(
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'padding' value { s: 'SAME' } }",
      IntList("strides", {1, 1, 1, 1, 1}));
  out = InferShapes(*ops_, "Conv3DBackpropInput", v1,
                    {PartialShape({2, 4, 5, 6, 3}), PartialShape({3, 3, 3, 3, 4}),
                     PartialShape({2, 4, 5, 6, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 5, 6, 3})));
  out = InferShapes(*ops_, "Conv3DBackpropFilter", v1,
                    {PartialShape({2, 4, 5, 6, 3}), PartialShape({3, 3, 3, 3, 4}),
                     PartialShape({2, 4, 5, 6, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, 3, 3, 3, 4})));
}

TEST_F(Conv3DOpsTest, Pool3DOutputSizes) {
  auto out = InferShapes(*ops_, "MaxPool3D", Pool3DAttrs("VALID", {1, 2, 2, 3, 1}, {1, 2, 1, 2, 1}),
                         {PartialShape({2, 5, 6, 7, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 2, 5, 3, 3})));
  out = InferShapes(*ops_, "AvgPool3D",
                    Pool3DAttrs("SAME", {1, 1, 2, 2, 3}, {1, 1, 2, 2, 2}, "NCDHW"),
                    {PartialShape({2, 3, 5, 6, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 3, 3, 4})));
  // ksize and strides have at least 5 values.
  ExpectError(InferShapes(*ops_, "MaxPool3D", Pool3DAttrs("VALID", {1, 2, 2, 1}, {1, 1, 1, 1, 1}),
                          {PartialShape({2, 5, 6, 7, 3})}),
              "list has 4 elements, fewer than the minimum 5");
  ExpectError(
      InferShapes(*ops_, "MaxPool3D", Pool3DAttrs("VALID", {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}),
                  {PartialShape({2, 5, 6, 3})}),
      "must be rank 5");
  Tensor shape = Tensor::Vector<int32_t>({2, 5, 6, 7, 3});
  out = InferShapes(*ops_, "AvgPool3DGrad", Pool3DAttrs("VALID", {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}),
                    {PartialShape({5}), PartialShape({2, 4, 5, 6, 3})}, {&shape});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 6, 7, 3})));
  out = InferShapes(*ops_, "MaxPool3DGrad",
                    absl::StrCat(Pool3DAttrs("VALID", {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}),
                                 " attr { key: 'TInput' value { type: DT_FLOAT } }"),
                    {PartialShape({2, 5, 6, 7, 3}), PartialShape({2, 4, 5, 6, 3}),
                     PartialShape({2, 4, 5, 6, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 6, 7, 3})));
}

}  // namespace
}  // namespace tessera
