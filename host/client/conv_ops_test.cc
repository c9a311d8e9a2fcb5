// Tests that the convolution and BatchMatMul (all versions) wrappers emit exactly TensorFlow's
// NodeDefs, and their errors.
#include "host/client/conv_ops.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/array_ops.h"
#include "host/client/client_test_util.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

TEST(ConvOpsTest, Conv2DWritesEveryAttr) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  auto y = ops::Conv2D(root, x, w, {1, 2, 2, 1}, "SAME");
  EXPECT_EQ(y.output.type(), DT_FLOAT);
  ops::Conv2D(root.WithOpName("nchw"), x, w, {1, 1, 1, 1}, "EXPLICIT",
              ops::Conv2D::DataFormat("NCHW")
                  .ExplicitPaddings({0, 0, 0, 0, 1, 1, 2, 2})
                  .Dilations({1, 1, 2, 2})
                  .UseCudnnOnGpu(false));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Conv2D", R"pb(
    name: "Conv2D"
    op: "Conv2D"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 2 i: 2 i: 1 } }
    }
    attr {
      key: "use_cudnn_on_gpu"
      value { b: true }
    }
    attr {
      key: "padding"
      value { s: "SAME" }
    }
    attr {
      key: "explicit_paddings"
      value { list {} }
    }
    attr {
      key: "data_format"
      value { s: "NHWC" }
    }
    attr {
      key: "dilations"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "nchw", R"pb(
    name: "nchw"
    op: "Conv2D"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "use_cudnn_on_gpu"
      value { b: false }
    }
    attr {
      key: "padding"
      value { s: "EXPLICIT" }
    }
    attr {
      key: "explicit_paddings"
      value { list { i: 0 i: 0 i: 0 i: 0 i: 1 i: 1 i: 2 i: 2 } }
    }
    attr {
      key: "data_format"
      value { s: "NCHW" }
    }
    attr {
      key: "dilations"
      value { list { i: 1 i: 1 i: 2 i: 2 } }
    }
  )pb"));
}

TEST(ConvOpsTest, GradientsAndDepthwise) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_DOUBLE);
  auto dy = ops::Placeholder(root.WithOpName("dy"), DT_DOUBLE);
  auto sizes = ops::Placeholder(root.WithOpName("sizes"), DT_INT32);
  EXPECT_EQ(ops::Conv2DBackpropInput(root, sizes, w, dy, {1, 1, 1, 1}, "VALID").output.type(),
            DT_DOUBLE);
  ops::Conv2DBackpropFilter(root, x, sizes, dy, {1, 1, 1, 1}, "VALID",
                            ops::Conv2DBackpropFilter::Dilations({1, 2, 2, 1}));
  ops::DepthwiseConv2dNative(root, x, w, {1, 1, 1, 1}, "SAME",
                             ops::DepthwiseConv2dNative::DataFormat("NCHW"));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Conv2DBackpropInput", R"pb(
    name: "Conv2DBackpropInput"
    op: "Conv2DBackpropInput"
    input: "sizes"
    input: "w"
    input: "dy"
    attr {
      key: "T"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "use_cudnn_on_gpu"
      value { b: true }
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
    attr {
      key: "dilations"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Conv2DBackpropFilter", R"pb(
    name: "Conv2DBackpropFilter"
    op: "Conv2DBackpropFilter"
    input: "x"
    input: "sizes"
    input: "dy"
    attr {
      key: "T"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "use_cudnn_on_gpu"
      value { b: true }
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
    attr {
      key: "dilations"
      value { list { i: 1 i: 2 i: 2 i: 1 } }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "DepthwiseConv2dNative", R"pb(
    name: "DepthwiseConv2dNative"
    op: "DepthwiseConv2dNative"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_DOUBLE }
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
      key: "explicit_paddings"
      value { list {} }
    }
    attr {
      key: "data_format"
      value { s: "NCHW" }
    }
    attr {
      key: "dilations"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
  )pb"));
}

TEST(ConvOpsTest, BatchMatMulV2) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  EXPECT_EQ(ops::BatchMatMulV2(root, x, x).output.type(), DT_FLOAT);
  ops::BatchMatMulV2(root.WithOpName("adj"), x, x,
                     ops::BatchMatMulV2::AdjX(true).AdjY(true).GradX(true).GradY(true));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "BatchMatMulV2", R"pb(
    name: "BatchMatMulV2"
    op: "BatchMatMulV2"
    input: "x"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "adj_x"
      value { b: false }
    }
    attr {
      key: "adj_y"
      value { b: false }
    }
    attr {
      key: "grad_x"
      value { b: false }
    }
    attr {
      key: "grad_y"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "adj", R"pb(
    name: "adj"
    op: "BatchMatMulV2"
    input: "x"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "adj_x"
      value { b: true }
    }
    attr {
      key: "adj_y"
      value { b: true }
    }
    attr {
      key: "grad_x"
      value { b: true }
    }
    attr {
      key: "grad_y"
      value { b: true }
    }
  )pb"));
}

TEST(ConvOpsTest, BatchMatMulAndBatchMatMulV3) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE);
  EXPECT_EQ(
      ops::BatchMatMul(root.WithOpName("v1"), x, y, ops::BatchMatMul::AdjX(true)).output.type(),
      DT_DOUBLE);
  EXPECT_EQ(
      ops::BatchMatMulV3(root.WithOpName("v3"), x, y, DT_FLOAT, ops::BatchMatMulV3::AdjY(true))
          .output.type(),
      DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "v1", R"pb(
    name: "v1"
    op: "BatchMatMul"
    input: "x"
    input: "y"
    attr {
      key: "T"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "adj_x"
      value { b: true }
    }
    attr {
      key: "adj_y"
      value { b: false }
    }
    attr {
      key: "grad_x"
      value { b: false }
    }
    attr {
      key: "grad_y"
      value { b: false }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "v3", R"pb(
    name: "v3"
    op: "BatchMatMulV3"
    input: "x"
    input: "y"
    attr {
      key: "Ta"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "Tb"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "Tout"
      value { type: DT_FLOAT }
    }
    attr {
      key: "adj_x"
      value { b: false }
    }
    attr {
      key: "adj_y"
      value { b: true }
    }
    attr {
      key: "grad_x"
      value { b: false }
    }
    attr {
      key: "grad_y"
      value { b: false }
    }
  )pb"));
}

std::string ErrorOf(const Scope& root) { return std::string(root.status().message()); }

// The depthwise gradients write DepthwiseConv2dNative's attrs (no use_cudnn_on_gpu) and check
// that the sizes are int32.
TEST(ConvOpsTest, DepthwiseGradients) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  auto dy = ops::Placeholder(root.WithOpName("dy"), DT_FLOAT);
  auto sizes = ops::Placeholder(root.WithOpName("sizes"), DT_INT32);
  ops::DepthwiseConv2dNativeBackpropInput(
      root.WithOpName("di"), sizes, w, dy, {1, 1, 2, 2}, "EXPLICIT",
      ops::DepthwiseConv2dNativeBackpropInput::DataFormat("NCHW").ExplicitPaddings(
          {0, 0, 0, 0, 1, 1, 0, 2}));
  EXPECT_EQ(ops::DepthwiseConv2dNativeBackpropFilter(root.WithOpName("df"), x, sizes, dy,
                                                     {1, 1, 1, 1}, "VALID")
                .output.type(),
            DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "di", R"pb(
    name: "di"
    op: "DepthwiseConv2dNativeBackpropInput"
    input: "sizes"
    input: "w"
    input: "dy"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 2 i: 2 } }
    }
    attr {
      key: "padding"
      value { s: "EXPLICIT" }
    }
    attr {
      key: "explicit_paddings"
      value { list { i: 0 i: 0 i: 0 i: 0 i: 1 i: 1 i: 0 i: 2 } }
    }
    attr {
      key: "data_format"
      value { s: "NCHW" }
    }
    attr {
      key: "dilations"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "df", R"pb(
    name: "df"
    op: "DepthwiseConv2dNativeBackpropFilter"
    input: "x"
    input: "sizes"
    input: "dy"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
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
    attr {
      key: "dilations"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
  )pb"));
  Scope bad = Scope::NewRootScope();
  ops::DepthwiseConv2dNativeBackpropFilter(bad.WithOpName("f"), {{{{1.f}}}}, {1.f, 2.f},
                                           {{{{1.f}}}}, {1, 1, 1, 1}, "VALID");
  EXPECT_THAT(ErrorOf(bad), HasSubstr("attr 'filter_sizes' (the type of input"));
  Scope bad_input = Scope::NewRootScope();
  ops::DepthwiseConv2dNativeBackpropInput(bad_input.WithOpName("i"), {1.f, 2.f}, {{{{1.f}}}},
                                          {{{{1.f}}}}, {1, 1, 1, 1}, "VALID");
  EXPECT_THAT(ErrorOf(bad_input), HasSubstr("is float, not one of the allowed int32"));
}

TEST(ConvOpsErrorTest, BadAttrs) {
  {
    Scope root = Scope::NewRootScope();
    ops::Conv2D(root.WithOpName("c"), {{{{1.f}}}}, {{{{1.f}}}}, {1, 1, 1}, "SAME");
    EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'c' (Conv2D): attr 'strides' must "
                                         "have 4 values, got 3"));
  }
  {
    Scope root = Scope::NewRootScope();
    ops::Conv2D(root.WithOpName("c"), {{{{1.f}}}}, {{{{1.f}}}}, {1, 1, 1, 1}, "FULL");
    EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'padding' must be one of \"SAME\", \"VALID\", "
                                         "\"EXPLICIT\", got \"FULL\""));
  }
  {
    Scope root = Scope::NewRootScope();
    ops::DepthwiseConv2dNative(root.WithOpName("d"), {{{{1.f}}}}, {{{{1.f}}}}, {1, 1, 1, 1}, "SAME",
                               ops::DepthwiseConv2dNative::DataFormat("NWHC"));
    EXPECT_THAT(ErrorOf(root),
                HasSubstr("attr 'data_format' must be one of \"NHWC\", \"NCHW\", got \"NWHC\""));
  }
  {
    Scope root = Scope::NewRootScope();
    ops::Conv2DBackpropFilter(root.WithOpName("f"), {{{{1.f}}}}, {1, 1, 1, 1}, {{{{1.f}}}},
                              {1, 1, 1, 1}, "VALID", ops::Conv2DBackpropFilter::Dilations({1, 1}));
    EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'dilations' must have 4 values, got 2"));
  }
}

TEST(ConvOpsErrorTest, BadTypes) {
  {
    Scope root = Scope::NewRootScope();
    ops::Conv2DBackpropInput(root.WithOpName("b"), {1.f, 2.f}, {{{{1.f}}}}, {{{{1.f}}}},
                             {1, 1, 1, 1}, "VALID");
    EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'input_sizes' (the type of input"));
    EXPECT_THAT(ErrorOf(root), HasSubstr("is float, not one of the allowed int32"));
  }
  {
    Scope root = Scope::NewRootScope();
    ops::BatchMatMulV2(root.WithOpName("m"), {{1.f}}, {{1}});
    EXPECT_THAT(ErrorOf(root), HasSubstr("inconsistent values for attr 'T': input 0 is float but "
                                         "input 1 is int32"));
  }
}

TEST(ConvOpsErrorTest, WrappersAfterAnErrorAddNothing) {
  Scope root = Scope::NewRootScope();
  root.UpdateStatus(absl::InvalidArgumentError("earlier"));
  EXPECT_FALSE(ops::Conv2D(root, {{{{1.f}}}}, {{{{1.f}}}}, {1, 1, 1, 1}, "SAME").operation.valid());
  EXPECT_FALSE(ops::BatchMatMulV2(root, {{1.f}}, {{1.f}}).operation.valid());
  EXPECT_EQ(root.status().message(), "earlier");
}

}  // namespace
}  // namespace tessera
