// Checks every op wrapper against the standard op registry: a graph using all of them imports,
// and filling in default attrs changes no NodeDef (the wrappers already write every attr).
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "host/client/client_test_util.h"
#include "host/client/ops.h"
#include "host/graph/graph.h"
#include "host/ops/op_registry.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;

tensorflow::GraphDef GraphWithEveryWrapper() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({2, 3}));
  auto d = ops::PlaceholderWithDefault(root, {{1.f, 2.f, 3.f}}, {1, 3});
  auto i = ops::Identity(root, x);
  ops::NoOp noop(root);
  for (auto out : std::vector<Output>{ops::Add(root, x, i), ops::AddV2(root, x, d),
                                      ops::Sub(root, x, 1.f), ops::Mul(root, x, x),
                                      ops::RealDiv(root, x, 2.f), ops::Maximum(root, x, 0.f),
                                      ops::Minimum(root, x, 6.f)}) {
    ops::Identity(root, out);
  }
  auto pos = ops::Abs(root, ops::Neg(root, x));
  ops::Exp(root, x);
  ops::Log(root, pos);
  ops::Sqrt(root, pos);
  ops::Rsqrt(root, pos);
  ops::Square(root, x);
  ops::Tanh(root, x);
  ops::Sigmoid(root, x);
  ops::Relu(root, x);
  ops::Relu6(root, x);
  auto mm = ops::MatMul(root, x, x, ops::MatMul::TransposeB(true));
  ops::BiasAdd(root, mm, {1.f, 2.f});
  ops::Softmax(root, mm);
  ops::Sum(root, x, {1});
  ops::Mean(root, x, int64_t{0}, ops::Mean::KeepDims(true));
  ops::Max(root, x, {0, 1});
  ops::Reshape(root, x, {3, 2});
  ops::Shape(root, x, ops::Shape::OutType(DT_INT64));
  auto e = ops::ExpandDims(root, x, 0);
  ops::Squeeze(root, e, ops::Squeeze::Axis({0}));
  ops::Concat(root, {x, x}, 1);
  ops::Cast(root, x, DT_INT32, ops::Cast::Truncate(true));
  ops::Fill(root, {2, 2}, 0.5f);
  ops::ZerosLike(root, x);
  ops::Pack(root, {x, x}, ops::Pack::Axis(-1));
  auto shapes = ops::ShapeN(root, {x, e});
  ops::ConcatOffset(root, 1, {shapes[0], shapes[0]});
  ops::PreventGradient(root, x, ops::PreventGradient::Message("why"));
  ops::Unique(root, ops::Reshape(root, x, {-1}), ops::Unique::OutIdx(DT_INT64));
  ops::DynamicStitch(root, {ops::Const(root, {0, 1})}, {x});
  ops::ParallelDynamicStitch(root, {ops::Const(root, {1, 0})}, {x});
  ops::ReverseSequence(root, x, ops::Const(root, {1, 2}), 1);
  ops::GatherNd(root, x, ops::Const(root, {{0, 1}, {1, 2}}));
  ops::ScatterNd(root, ops::Const(root, {{1}, {0}}), x, ops::Const(root, {2, 3}));
  ops::Gather(root, x, {1, 0});
  ops::MatrixBandPart(root, x, int64_t{0}, int64_t{-1});
  auto image = ops::Reshape(root, x, {1, 2, 3, 1});
  ops::SpaceToBatchND(root, x, {2}, {{0, 1}});
  ops::BatchToSpaceND(root, x, {2}, {{0, 1}});
  ops::BatchToSpace(root, ops::SpaceToBatch(root, image, {{0, 0}, {1, 0}}, 2), {{0, 0}, {1, 0}}, 2);
  ops::DepthToSpace(
      root, ops::SpaceToDepth(root, ops::Pad(root, image, {{0, 0}, {0, 0}, {0, 1}, {0, 0}}), 2), 2,
      ops::DepthToSpace::DataFormat("NHWC"));
  ops::MatrixSetDiag(root, x, ops::MatrixDiagPart(root, x));
  ops::MatrixDiag(root, ops::MatrixDiagPart(root, x));
  ops::MatrixSetDiagV3(root, x, ops::MatrixDiagPartV3(root, x, {-1, 1}, 0.f), {-1, 1});
  ops::MatrixDiagV3(root, {1.f, 2.f}, 1, -1, -1, 0.f);
  ops::Sin(root, x);
  ops::Cos(root, x);
  ops::Tan(root, x);
  ops::Asin(root, x);
  ops::Acos(root, x);
  ops::Atan(root, x);
  ops::Sinh(root, x);
  ops::Cosh(root, x);
  ops::Atan2(root, x, d);
  ops::Rint(root, x);
  ops::IsNan(root, x);
  ops::IsInf(root, x);
  ops::IsFinite(root, x);
  ops::Softsign(root, x);
  ops::SoftsignGrad(root, x, x);
  ops::Cumprod(root, x, 1, ops::Cumprod::Exclusive(true));
  ops::ClipByValue(root, x, 0.f, 1.f);
  ops::CheckNumerics(root, x, "x");
  ops::LinSpace(root, 0.f, 1.f, 5);
  ops::Bucketize(root, x, {0.f, 1.f});
  ops::BiasAddV1(root, mm, {1.f, 2.f});
  auto batch = ops::Reshape(root, x, {1, 2, 3});
  ops::BatchMatMul(root, batch, batch, ops::BatchMatMul::AdjY(true));
  ops::BatchMatMulV3(root, batch, x, DT_FLOAT, ops::BatchMatMulV3::AdjY(true));
  ops::TensorArray ta(root, 2, DT_FLOAT, ops::TensorArray::ElementShape({2, 3}));
  Output flow = ops::TensorArrayWrite(root, ta.handle, 0, x, ta.flow);
  flow = ops::TensorArrayScatter(root, ta.handle, {1}, batch, flow);
  ops::TensorArrayRead(root, ta.handle, 0, flow, DT_FLOAT);
  ops::TensorArrayGather(root, ta.handle, {0, 1}, flow, DT_FLOAT,
                         ops::TensorArrayGather::ElementShape({2, 3}));
  ops::TensorArrayConcat(root, ta.handle, flow, DT_FLOAT);
  ops::TensorArraySplit(root, ta.handle, x, ops::Const(root, {int64_t{1}, int64_t{1}}), flow);
  ops::TensorArraySize(root, ta.handle, flow);
  ops::TensorArrayGrad(root, ta.handle, flow, "gradients");
  ops::TensorArrayGradWithShape(root, ta.handle, flow, {1}, "gradients");
  ops::TensorArrayClose(root, ta.handle);
  ops::Stack stack(root, -1, DT_FLOAT, ops::Stack::StackName("s"));
  ops::StackPush(root, stack.handle, x);
  ops::StackPop(root, stack.handle, DT_FLOAT);
  ops::StackClose(root, stack.handle);
  return GraphOf(root);
}

TEST(OpsImportTest, WrappersWriteEveryAttrTheRegistryKnows) {
  tensorflow::GraphDef def = GraphWithEveryWrapper();
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
  EXPECT_GT(compared, 40);
}

}  // namespace
}  // namespace tessera
