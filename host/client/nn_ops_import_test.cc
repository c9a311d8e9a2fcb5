// Checks the neural-network op wrappers against the standard op registry: a graph using each of
// them imports, and filling in default attrs changes no NodeDef (the wrappers write every attr).
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "host/client/array_ops.h"
#include "host/client/client_test_util.h"
#include "host/client/image_ops.h"
#include "host/client/nn_ops.h"
#include "host/graph/graph.h"
#include "host/ops/op_registry.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;

tensorflow::GraphDef GraphWithEveryNnWrapper() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({2, 4, 4, 3}));
  auto m = ops::Placeholder(root.WithOpName("m"), DT_FLOAT, ops::Placeholder::Shape({2, 3}));
  auto v = ops::Placeholder(root.WithOpName("v"), DT_FLOAT, ops::Placeholder::Shape({3}));
  auto ids = ops::Placeholder(root.WithOpName("ids"), DT_INT32, ops::Placeholder::Shape({2}));
  ops::Elu elu(root, x);
  ops::Selu selu(root, x);
  ops::Softplus(root, x);
  ops::LeakyRelu(root, x, ops::LeakyRelu::Alpha(0.1f));
  ops::ReluGrad(root, x, x);
  ops::Relu6Grad(root, x, x);
  ops::EluGrad(root, x, elu);
  ops::SeluGrad(root, x, selu);
  ops::SoftplusGrad(root, x, x);
  ops::LeakyReluGrad(root, x, x);
  ops::SigmoidGrad(root, x, x);
  ops::TanhGrad(root, x, x);
  ops::BiasAddGrad(root, x);
  ops::LogSoftmax(root, m);
  ops::SoftmaxCrossEntropyWithLogits(root, m, m);
  ops::SparseSoftmaxCrossEntropyWithLogits(root, m, ids);
  ops::L2Loss(root, x);
  ops::LRN lrn(root, x, ops::LRN::DepthRadius(1));
  ops::LRNGrad(root, x, x, lrn);
  ops::MaxPool max(root, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  ops::MaxPool(root, x, {1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT",
               ops::MaxPool::ExplicitPaddings({0, 0, 1, 1, 1, 1, 0, 0}));
  ops::MaxPoolGrad(root, x, max, max, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  ops::MaxPoolV2 max_v2(root, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  ops::MaxPoolGradV2(root, x, max_v2, max_v2, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  ops::AvgPool avg(root, x, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  ops::AvgPoolGrad(root, {2, 4, 4, 3}, avg, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  ops::FusedBatchNormV3 bn(root, x, v, v, v, v, ops::FusedBatchNormV3::IsTraining(false));
  ops::FusedBatchNormGradV3(root, x, x, v, bn.reserve_space_1, bn.reserve_space_2,
                            bn.reserve_space_3);
  ops::ResizeBilinear bilinear(root, x, {8, 6}, ops::ResizeBilinear::HalfPixelCenters(true));
  ops::ResizeBilinearGrad(root, bilinear, x, ops::ResizeBilinearGrad::HalfPixelCenters(true));
  ops::ResizeNearestNeighbor(root, x, {2, 2}, ops::ResizeNearestNeighbor::AlignCorners(true));
  ops::ResizeNearestNeighborGrad(root, x, {8, 8});
  ops::CropAndResize(root, x, {{0.f, 0.f, 1.f, 1.f}}, {1}, {3, 3},
                     ops::CropAndResize::Method("nearest").ExtrapolationValue(-1));
  auto boxes = ops::Reshape(root, x, {-1, 4});
  auto scores = ops::Reshape(root, ops::Slice(root, x, {0, 0, 0, 0}, {2, 4, 3, 1}), {-1});
  ops::NonMaxSuppressionV2(root, boxes, scores, 5, 0.5f);
  ops::NonMaxSuppressionV3(root, boxes, scores, 5, 0.5f, 0.1f);
  ops::NonMaxSuppressionV4(root, boxes, scores, 5, 0.5f, 0.1f,
                           ops::NonMaxSuppressionV4::PadToMaxOutputSize(true));
  ops::NonMaxSuppressionV5(root, boxes, scores, 5, 0.5f, 0.1f, 0.5f);
  return GraphOf(root);
}

TEST(NnOpsImportTest, WrappersWriteEveryAttrTheRegistryKnows) {
  tensorflow::GraphDef def = GraphWithEveryNnWrapper();
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
  EXPECT_EQ(compared, def.node_size());
  EXPECT_GT(compared, 30);
}

}  // namespace
}  // namespace tessera
