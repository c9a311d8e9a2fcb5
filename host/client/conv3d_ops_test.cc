// Tests that the 3-D convolution and pooling wrappers emit TensorFlow's NodeDefs (every attr the
// registry knows written out), and their errors.
#include "host/client/conv3d_ops.h"

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "host/client/array_ops.h"
#include "host/client/client_test_util.h"
#include "host/graph/graph.h"
#include "host/ops/op_registry.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

std::string ErrorOf(const Scope& root) { return std::string(root.status().message()); }

TEST(Conv3DOpsTest, Conv3DWritesEveryAttr) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  auto y = ops::Conv3D(root, x, w, {1, 2, 2, 1, 1}, "SAME",
                       ops::Conv3D::DataFormat("NCDHW").Dilations({1, 1, 1, 2, 2}));
  EXPECT_EQ(y.output.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Conv3D", R"pb(
    name: "Conv3D"
    op: "Conv3D"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 2 i: 2 i: 1 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "SAME" }
    }
    attr {
      key: "data_format"
      value { s: "NCDHW" }
    }
    attr {
      key: "dilations"
      value { list { i: 1 i: 1 i: 1 i: 2 i: 2 } }
    }
  )pb"));
}

TEST(Conv3DOpsTest, WrappersWriteEveryAttrTheRegistryKnows) {
  Scope root = Scope::NewRootScope();
  auto x =
      ops::Placeholder(root.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({2, 4, 4, 4, 3}));
  auto w =
      ops::Placeholder(root.WithOpName("w"), DT_FLOAT, ops::Placeholder::Shape({2, 2, 2, 3, 5}));
  auto y = ops::Conv3D(root, x, w, {1, 1, 1, 1, 1}, "SAME");
  ops::Conv3DBackpropInputV2(root, ops::Shape(root, x), w, y, {1, 1, 1, 1, 1}, "SAME");
  ops::Conv3DBackpropFilterV2(root, x, ops::Shape(root, w), y, {1, 1, 1, 1, 1}, "SAME");
  ops::MaxPool3D max(root, x, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID");
  ops::MaxPool3DGrad(root, x, max, max, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID");
  ops::AvgPool3D avg(root, x, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "SAME");
  ops::AvgPool3DGrad(root, ops::Shape(root, x), avg, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "SAME");
  tensorflow::GraphDef def = GraphOf(root);
  ASSERT_TRUE(root.ok()) << root.status();
  std::unique_ptr<OpRegistry> registry = OpRegistry::CreateStandard();
  absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, *registry);
  ASSERT_TRUE(graph.ok()) << graph.status();
  int compared = 0;
  for (const tensorflow::NodeDef& built : def.node()) {
    const Node* node = (*graph)->FindNode(built.name());
    ASSERT_NE(node, nullptr) << built.name();
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(built, node->def()))
        << "node '" << built.name() << "' (" << built.op() << "): " << diff;
    ++compared;
  }
  EXPECT_GE(compared, 9);
}

TEST(Conv3DOpsErrorTest, BadAttrsAndTypes) {
  {
    Scope root = Scope::NewRootScope();
    ops::Conv3D(root.WithOpName("c"), {1.f}, {1.f}, {1, 1, 1, 1}, "SAME");
    EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'c' (Conv3D): attr 'strides' must "
                                         "have 5 values, got 4"));
  }
  {
    Scope root = Scope::NewRootScope();
    ops::Conv3D(root.WithOpName("c"), {1.f}, {1.f}, {1, 1, 1, 1, 1}, "EXPLICIT");
    EXPECT_THAT(ErrorOf(root),
                HasSubstr("attr 'padding' must be one of \"SAME\", \"VALID\", got \"EXPLICIT\""));
  }
  {
    Scope root = Scope::NewRootScope();
    ops::MaxPool3D(root.WithOpName("p"), {1.f}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME",
                   ops::MaxPool3D::DataFormat("NHWC"));
    EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'data_format' must be one of \"NDHWC\", "
                                         "\"NCDHW\", got \"NHWC\""));
  }
  {
    Scope root = Scope::NewRootScope();
    ops::Conv3DBackpropInputV2(root.WithOpName("b"), {1.f, 2.f}, {1.f}, {1.f}, {1, 1, 1, 1, 1},
                               "VALID");
    EXPECT_THAT(ErrorOf(root), HasSubstr("is float, not one of the allowed int32, int64"));
  }
  {
    Scope root = Scope::NewRootScope();
    root.UpdateStatus(absl::InvalidArgumentError("earlier"));
    EXPECT_FALSE(
        ops::AvgPool3D(root, {1.f}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME").operation.valid());
    EXPECT_EQ(root.status().message(), "earlier");
  }
}

}  // namespace
}  // namespace tessera
