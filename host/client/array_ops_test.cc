// Tests that the array op wrappers emit exactly TensorFlow's NodeDefs, and their errors.
#include "host/client/array_ops.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/client_test_util.h"
#include "host/client/math_ops.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

TEST(ArrayOpsTest, Const) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 2.5f);
  Output b = ops::Const(root.WithOpName("b"), {{1, 2}, {3, 4}});
  Output c = ops::Const(root.WithOpName("c"), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {3, 2});
  Output d = ops::Const(root, Tensor::Scalar<bool>(true));
  EXPECT_EQ(a.type(), DT_FLOAT);
  EXPECT_EQ(b.name(), "b:0");
  EXPECT_EQ(d.node_name(), "Const");
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "a", R"pb(
    name: "a" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2.5 } } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "b", R"pb(
    name: "b" op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 2 } }
      tensor_content: "\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000" } } }
  )pb"));
  EXPECT_EQ(def.node(2).attr().at("value").tensor().tensor_shape().dim(0).size(), 3);
  EXPECT_TRUE(NodeEquals(def, "Const", R"pb(
    name: "Const" op: "Const"
    attr { key: "dtype" value { type: DT_BOOL } }
    attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } }
  )pb"));
}

TEST(ArrayOpsTest, IdentityAndNoOp) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT64);
  auto y = ops::Identity(root, x);
  auto n = ops::NoOp(root);
  EXPECT_EQ(y.output.type(), DT_INT64);
  EXPECT_EQ(n.operation.num_outputs(), 0);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Identity", R"pb(
    name: "Identity" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "NoOp", R"pb(name: "NoOp" op: "NoOp")pb"));
}

TEST(ArrayOpsTest, Placeholders) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("any"), DT_FLOAT);
  ops::Placeholder(root.WithOpName("batch"), DT_FLOAT, ops::Placeholder::Shape({-1, 4}));
  auto d = ops::PlaceholderWithDefault(root.WithOpName("d"), {1, 2}, {2});
  EXPECT_EQ(d.output.type(), DT_INT32);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "any", R"pb(
    name: "any" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { unknown_rank: true } } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "batch", R"pb(
    name: "batch" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "d", R"pb(
    name: "d" op: "PlaceholderWithDefault" input: "Const/Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  )pb"));
}

TEST(ArrayOpsTest, ShapeOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Reshape(root.WithOpName("r"), x, {-1, 2});
  auto s = ops::Shape(root.WithOpName("s"), x);
  auto s64 = ops::Shape(root.WithOpName("s64"), x, ops::Shape::OutType(DT_INT64));
  ops::ExpandDims(root.WithOpName("e"), x, int64_t{0});
  ops::Squeeze(root.WithOpName("q"), x);
  ops::Squeeze(root.WithOpName("q1"), x, ops::Squeeze::Axis({1, -1}));
  EXPECT_EQ(s.output.type(), DT_INT32);
  EXPECT_EQ(s64.output.type(), DT_INT64);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "r", R"pb(
    name: "r" op: "Reshape" input: "x" input: "Const/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tshape" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "s", R"pb(
    name: "s" op: "Shape" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "out_type" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "e", R"pb(
    name: "e" op: "ExpandDims" input: "x" input: "Const_1/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tdim" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "q", R"pb(
    name: "q" op: "Squeeze" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "squeeze_dims" value { list {} } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "q1", R"pb(
    name: "q1" op: "Squeeze" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "squeeze_dims" value { list { i: 1 i: -1 } } }
  )pb"));
}

TEST(ArrayOpsTest, ConcatFillZerosLikePack) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  ops::Concat(root, {a, b}, 0);
  ops::Fill(root.WithOpName("f"), {2, 3}, 1.5f);
  ops::ZerosLike(root.WithOpName("z"), a);
  ops::Pack(root.WithOpName("p"), {a, b, a}, ops::Pack::Axis(1));
  ops::Pack(root.WithOpName("p0"), std::vector<Output>{a});
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Concat", R"pb(
    name: "Concat" op: "ConcatV2" input: "a" input: "b" input: "Const/Const"
    attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tidx" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "f", R"pb(
    name: "f" op: "Fill" input: "Const_1/Const" input: "Const_2/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "index_type" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "z", R"pb(
    name: "z" op: "ZerosLike" input: "a" attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "p", R"pb(
    name: "p" op: "Pack" input: "a" input: "b" input: "a"
    attr { key: "N" value { i: 3 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "axis" value { i: 1 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "p0", R"pb(
    name: "p0" op: "Pack" input: "a"
    attr { key: "N" value { i: 1 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "axis" value { i: 0 } }
  )pb"));
}

TEST(ArrayOpsTest, SlicingOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_INT64);
  auto e = ops::Placeholder(root.WithOpName("e"), DT_INT64);
  auto s = ops::Placeholder(root.WithOpName("s"), DT_INT64);
  auto d = ops::Placeholder(root.WithOpName("d"), DT_INT32);
  ops::Slice(root.WithOpName("slice"), x, b, s);
  ops::StridedSlice(root.WithOpName("ss"), x, b, e, s,
                    ops::StridedSlice::BeginMask(1).ShrinkAxisMask(4).NewAxisMask(2));
  auto split = ops::Split(root, d, x, 3);
  auto split_v = ops::SplitV(root.WithOpName("sv"), x, s, d, 2);
  auto unstack = ops::Unstack(root, x, 2, ops::Unstack::Axis(-1));
  ASSERT_EQ(split.output.size(), 3u);
  EXPECT_EQ(split[2].name(), "Split:2");
  EXPECT_EQ(split_v[1].type(), DT_FLOAT);
  EXPECT_EQ(unstack.operation.num_outputs(), 2);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "slice", R"pb(
    name: "slice" op: "Slice" input: "x" input: "b" input: "s"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Index" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "ss", R"pb(
    name: "ss" op: "StridedSlice" input: "x" input: "b" input: "e" input: "s"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Index" value { type: DT_INT64 } }
    attr { key: "begin_mask" value { i: 1 } }
    attr { key: "end_mask" value { i: 0 } }
    attr { key: "ellipsis_mask" value { i: 0 } }
    attr { key: "new_axis_mask" value { i: 2 } }
    attr { key: "shrink_axis_mask" value { i: 4 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Split", R"pb(
    name: "Split" op: "Split" input: "d" input: "x"
    attr { key: "num_split" value { i: 3 } }
    attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "sv", R"pb(
    name: "sv" op: "SplitV" input: "x" input: "s" input: "d"
    attr { key: "num_split" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tlen" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Unstack", R"pb(
    name: "Unstack" op: "Unpack" input: "x"
    attr { key: "num" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "axis" value { i: -1 } }
  )pb"));
}

TEST(ArrayOpsTest, ReorderingAndPaddingOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  auto i = ops::Placeholder(root.WithOpName("i"), DT_INT64);
  ops::Transpose(root, x, i);
  ops::Reverse(root, x, i);
  ops::Tile(root, x, i);
  ops::BroadcastTo(root, x, i);
  ops::Pad(root, x, i);
  ops::PadV2(root, x, i, x);
  ops::MirrorPad(root, x, i, "SYMMETRIC");
  tensorflow::GraphDef def = GraphOf(root);
  const struct {
    const char* name;
    const char* op;
    const char* index_attr;
  } kCases[] = {{"Transpose", "Transpose", "Tperm"},
                {"Reverse", "ReverseV2", "Tidx"},
                {"Tile", "Tile", "Tmultiples"},
                {"BroadcastTo", "BroadcastTo", "Tidx"},
                {"Pad", "Pad", "Tpaddings"}};
  for (const auto& c : kCases) {
    EXPECT_TRUE(NodeEquals(
        def, c.name,
        absl::StrCat("name: '", c.name, "' op: '", c.op, "' input: 'x' input: 'i' ",
                     "attr { key: 'T' value { type: DT_INT32 } } attr { key: '", c.index_attr,
                     "' value { type: DT_INT64 } }")));
  }
  EXPECT_TRUE(NodeEquals(def, "PadV2", R"pb(
    name: "PadV2" op: "PadV2" input: "x" input: "i" input: "x"
    attr { key: "T" value { type: DT_INT32 } }
    attr { key: "Tpaddings" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "MirrorPad", R"pb(
    name: "MirrorPad" op: "MirrorPad" input: "x" input: "i"
    attr { key: "T" value { type: DT_INT32 } }
    attr { key: "Tpaddings" value { type: DT_INT64 } }
    attr { key: "mode" value { s: "SYMMETRIC" } }
  )pb"));
}

TEST(ArrayOpsTest, GatherOneHotRangeWhere) {
  Scope root = Scope::NewRootScope();
  auto params = ops::Placeholder(root.WithOpName("params"), DT_DOUBLE);
  auto indices = ops::Placeholder(root.WithOpName("indices"), DT_INT32);
  auto axis = ops::Placeholder(root.WithOpName("axis"), DT_INT64);
  auto depth = ops::Placeholder(root.WithOpName("depth"), DT_INT32);
  auto on = ops::Placeholder(root.WithOpName("on"), DT_FLOAT);
  ops::GatherV2(root, params, indices, axis, ops::GatherV2::BatchDims(1));
  ops::OneHot(root, indices, depth, on, on);
  auto range = ops::Range(root, on, on, on);
  auto where = ops::Where(root, params);
  EXPECT_EQ(range.output.type(), DT_FLOAT);
  EXPECT_EQ(where.index.type(), DT_INT64);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "GatherV2", R"pb(
    name: "GatherV2" op: "GatherV2" input: "params" input: "indices" input: "axis"
    attr { key: "batch_dims" value { i: 1 } }
    attr { key: "Tparams" value { type: DT_DOUBLE } }
    attr { key: "Tindices" value { type: DT_INT32 } }
    attr { key: "Taxis" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "OneHot", R"pb(
    name: "OneHot" op: "OneHot" input: "indices" input: "depth" input: "on" input: "on"
    attr { key: "axis" value { i: -1 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "TI" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Range", R"pb(
    name: "Range" op: "Range" input: "on" input: "on" input: "on"
    attr { key: "Tidx" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Where", R"pb(
    name: "Where" op: "Where" input: "params" attr { key: "T" value { type: DT_DOUBLE } }
  )pb"));
}

TEST(ArrayOpsTest, IdentityFamilyAndShapeFacts) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT64);
  ops::OnesLike(root, x);
  auto identity_n = ops::IdentityN(root, {x, n});
  ops::StopGradient(root, x);
  ops::Snapshot(root, x);
  auto size = ops::Size(root, x, ops::Size::OutType(DT_INT64));
  auto rank = ops::Rank(root, x);
  auto args = ops::BroadcastGradientArgs(root, n, n);
  ASSERT_EQ(identity_n.output.size(), 2u);
  EXPECT_EQ(identity_n[1].type(), DT_INT64);
  EXPECT_EQ(size.output.type(), DT_INT64);
  EXPECT_EQ(rank.output.type(), DT_INT32);
  EXPECT_EQ(args.r1.name(), "BroadcastGradientArgs:1");
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "OnesLike", R"pb(
    name: "OnesLike" op: "OnesLike" input: "x" attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "IdentityN", R"pb(
    name: "IdentityN" op: "IdentityN" input: "x" input: "n"
    attr { key: "T" value { list { type: DT_FLOAT type: DT_INT64 } } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "StopGradient", R"pb(
    name: "StopGradient" op: "StopGradient" input: "x" attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Snapshot", R"pb(
    name: "Snapshot" op: "Snapshot" input: "x" attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Size", R"pb(
    name: "Size" op: "Size" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "out_type" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "Rank", R"pb(
    name: "Rank" op: "Rank" input: "x" attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "BroadcastGradientArgs", R"pb(
    name: "BroadcastGradientArgs" op: "BroadcastGradientArgs" input: "n" input: "n"
    attr { key: "T" value { type: DT_INT64 } }
  )pb"));
}

TEST(ArrayOpsTest, ShapeNConcatOffsetAndPreventGradient) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  auto shapes = ops::ShapeN(root, {x, y}, ops::ShapeN::OutType(DT_INT64));
  ASSERT_EQ(shapes.output.size(), 2u);
  EXPECT_EQ(shapes[1].type(), DT_INT64);
  EXPECT_EQ(shapes[1].name(), "ShapeN:1");
  auto offsets = ops::ConcatOffset(root, 1, {shapes[0], shapes[1]});
  ASSERT_EQ(offsets.offset.size(), 2u);
  EXPECT_EQ(offsets[0].type(), DT_INT64);
  ops::PreventGradient(root, x, ops::PreventGradient::Message("no second derivative"));
  ops::PreventGradient(root.WithOpName("plain"), y);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "ShapeN", R"pb(
    name: "ShapeN" op: "ShapeN" input: "x" input: "y"
    attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "out_type" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "ConcatOffset", R"pb(
    name: "ConcatOffset" op: "ConcatOffset" input: "Const/Const" input: "ShapeN"
    input: "ShapeN:1"
    attr { key: "N" value { i: 2 } }
    attr { key: "shape_type" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "PreventGradient", R"pb(
    name: "PreventGradient" op: "PreventGradient" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "message" value { s: "no second derivative" } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "plain", R"pb(
    name: "plain" op: "PreventGradient" input: "y"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "message" value { s: "" } }
  )pb"));
}

TEST(ArrayOpsTest, UniqueAndDynamicStitch) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto unique = ops::Unique(root, x, ops::Unique::OutIdx(DT_INT64));
  EXPECT_EQ(unique.y.type(), DT_FLOAT);
  EXPECT_EQ(unique.idx.type(), DT_INT64);
  EXPECT_EQ(unique.idx.name(), "Unique:1");
  auto i0 = ops::Placeholder(root.WithOpName("i0"), DT_INT32);
  auto i1 = ops::Placeholder(root.WithOpName("i1"), DT_INT32);
  auto d1 = ops::Placeholder(root.WithOpName("d1"), DT_FLOAT);
  auto stitched = ops::DynamicStitch(root, {i0, i1}, {x, d1});
  EXPECT_EQ(stitched.merged.type(), DT_FLOAT);
  ops::ParallelDynamicStitch(root, {i0}, {x});
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Unique", R"pb(
    name: "Unique" op: "Unique" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "out_idx" value { type: DT_INT64 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "DynamicStitch", R"pb(
    name: "DynamicStitch" op: "DynamicStitch" input: "i0" input: "i1" input: "x" input: "d1"
    attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "ParallelDynamicStitch", R"pb(
    name: "ParallelDynamicStitch" op: "ParallelDynamicStitch" input: "i0" input: "x"
    attr { key: "N" value { i: 1 } }
    attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
}

TEST(ArrayOpsTest, SpaceBatchAndDepthMoves) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto block = ops::Placeholder(root.WithOpName("block"), DT_INT64);
  auto pads = ops::Placeholder(root.WithOpName("pads"), DT_INT32);
  auto to_batch = ops::SpaceToBatchND(root, x, block, pads);
  EXPECT_EQ(to_batch.output.type(), DT_FLOAT);
  ops::BatchToSpaceND(root, x, block, pads);
  ops::SpaceToBatch(root, x, pads, 2);
  ops::BatchToSpace(root, x, pads, 3);
  ops::SpaceToDepth(root, x, 2);
  ops::DepthToSpace(root, x, 4, ops::DepthToSpace::DataFormat("NCHW"));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "SpaceToBatchND", R"pb(
    name: "SpaceToBatchND" op: "SpaceToBatchND" input: "x" input: "block" input: "pads"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tblock_shape" value { type: DT_INT64 } }
    attr { key: "Tpaddings" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "BatchToSpaceND", R"pb(
    name: "BatchToSpaceND" op: "BatchToSpaceND" input: "x" input: "block" input: "pads"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tblock_shape" value { type: DT_INT64 } }
    attr { key: "Tcrops" value { type: DT_INT32 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "SpaceToBatch", R"pb(
    name: "SpaceToBatch" op: "SpaceToBatch" input: "x" input: "pads"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tpaddings" value { type: DT_INT32 } }
    attr { key: "block_size" value { i: 2 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "BatchToSpace", R"pb(
    name: "BatchToSpace" op: "BatchToSpace" input: "x" input: "pads"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tidx" value { type: DT_INT32 } }
    attr { key: "block_size" value { i: 3 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "SpaceToDepth", R"pb(
    name: "SpaceToDepth" op: "SpaceToDepth" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "block_size" value { i: 2 } }
    attr { key: "data_format" value { s: "NHWC" } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "DepthToSpace", R"pb(
    name: "DepthToSpace" op: "DepthToSpace" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "block_size" value { i: 4 } }
    attr { key: "data_format" value { s: "NCHW" } }
  )pb"));
}

TEST(ArrayOpsTest, MatrixDiagonalOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto k = ops::Placeholder(root.WithOpName("k"), DT_INT32);
  ops::MatrixDiag(root, x);
  ops::MatrixDiagPart(root, x);
  ops::MatrixSetDiag(root, x, x);
  ops::MatrixDiagV3(root, x, k, k, k, x);
  ops::MatrixDiagPartV3(root, x, k, x, ops::MatrixDiagPartV3::Align("LEFT_LEFT"));
  ops::MatrixSetDiagV3(root, x, x, k);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "MatrixDiagPart", R"pb(
    name: "MatrixDiagPart" op: "MatrixDiagPart" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "MatrixDiagV3", R"pb(
    name: "MatrixDiagV3" op: "MatrixDiagV3" input: "x" input: "k" input: "k" input: "k"
    input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "align" value { s: "RIGHT_LEFT" } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "MatrixDiagPartV3", R"pb(
    name: "MatrixDiagPartV3" op: "MatrixDiagPartV3" input: "x" input: "k" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "align" value { s: "LEFT_LEFT" } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "MatrixSetDiagV3", R"pb(
    name: "MatrixSetDiagV3" op: "MatrixSetDiagV3" input: "x" input: "x" input: "k"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "align" value { s: "RIGHT_LEFT" } }
  )pb"));
}

TEST(ArrayOpsTest, ReverseSequenceGatherNdAndScatterNd) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto lengths = ops::Placeholder(root.WithOpName("lengths"), DT_INT32);
  auto i = ops::Placeholder(root.WithOpName("i"), DT_INT64);
  ops::ReverseSequence(root, x, lengths, 1);
  ops::ReverseSequence(root.WithOpName("batch2"), x, lengths, 0,
                       ops::ReverseSequence::BatchDim(2));
  auto gathered = ops::GatherNd(root, x, i);
  EXPECT_EQ(gathered.output.type(), DT_FLOAT);
  ops::ScatterNd(root, i, x, i);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "ReverseSequence", R"pb(
    name: "ReverseSequence" op: "ReverseSequence" input: "x" input: "lengths"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tlen" value { type: DT_INT32 } }
    attr { key: "batch_dim" value { i: 0 } }
    attr { key: "seq_dim" value { i: 1 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "batch2", R"pb(
    name: "batch2" op: "ReverseSequence" input: "x" input: "lengths"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tlen" value { type: DT_INT32 } }
    attr { key: "batch_dim" value { i: 2 } }
    attr { key: "seq_dim" value { i: 0 } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "GatherNd", R"pb(
    name: "GatherNd" op: "GatherNd" input: "x" input: "i"
    attr { key: "Tindices" value { type: DT_INT64 } }
    attr { key: "Tparams" value { type: DT_FLOAT } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "ScatterNd", R"pb(
    name: "ScatterNd" op: "ScatterNd" input: "i" input: "x" input: "i"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tindices" value { type: DT_INT64 } }
  )pb"));
}

TEST(ArrayOpsTest, GatherAndMatrixBandPart) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto i = ops::Placeholder(root.WithOpName("i"), DT_INT64);
  ops::Gather(root, x, i);
  ops::Gather(root.WithOpName("unchecked"), x, i, ops::Gather::ValidateIndices(false));
  auto band = ops::MatrixBandPart(root, x, i, i);
  EXPECT_EQ(band.band.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "Gather", R"pb(
    name: "Gather" op: "Gather" input: "x" input: "i"
    attr { key: "Tindices" value { type: DT_INT64 } }
    attr { key: "Tparams" value { type: DT_FLOAT } }
    attr { key: "validate_indices" value { b: true } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "unchecked", R"pb(
    name: "unchecked" op: "Gather" input: "x" input: "i"
    attr { key: "Tindices" value { type: DT_INT64 } }
    attr { key: "Tparams" value { type: DT_FLOAT } }
    attr { key: "validate_indices" value { b: false } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "MatrixBandPart", R"pb(
    name: "MatrixBandPart" op: "MatrixBandPart" input: "x" input: "i" input: "i"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tindex" value { type: DT_INT64 } }
  )pb"));
}

// ---- Errors -------------------------------------------------------------------------------

std::string ErrorOf(const Scope& scope) {
  EXPECT_EQ(scope.status().code(), absl::StatusCode::kInvalidArgument) << scope.status();
  return std::string(scope.status().message());
}

TEST(ArrayOpsErrorTest, ConstInitializerAndShape) {
  Scope root = Scope::NewRootScope();
  ops::Const(root, {{1, 2}, {3}});
  EXPECT_THAT(ErrorOf(root), HasSubstr("must have one shape"));
  Scope other = Scope::NewRootScope();
  ops::Const(other, {1, 2, 3}, {2, 2});
  EXPECT_THAT(ErrorOf(other), HasSubstr("Const: the initializer has 3 values but shape [2,2] "
                                        "needs 4"));
  Scope third = Scope::NewRootScope();
  ops::Const(third, Tensor());
  EXPECT_THAT(ErrorOf(third), HasSubstr("attr 'value' is an uninitialized tensor"));
}

TEST(ArrayOpsErrorTest, PlaceholderDtypeMustBeDense) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("p"), TSR_DTYPE_STRING);
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'p' (Placeholder): attr 'dtype' must "
                                       "be a dense type, got string"));
}

TEST(ArrayOpsErrorTest, IndexTypes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Reshape(root.WithOpName("r"), x, {2.f});
  EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'Tshape' (the type of input 'Const/Const:0') is "
                                       "float, not one of the allowed int32, int64"));
  Scope s2 = Scope::NewRootScope();
  ops::ExpandDims(s2, ops::Placeholder(s2, DT_FLOAT), 0.5);
  EXPECT_THAT(ErrorOf(s2), HasSubstr("attr 'Tdim'"));
  Scope s3 = Scope::NewRootScope();
  ops::Fill(s3, {2.f}, 1);
  EXPECT_THAT(ErrorOf(s3), HasSubstr("attr 'index_type'"));
  Scope s4 = Scope::NewRootScope();
  ops::Concat(s4, {1, 2}, true);
  EXPECT_THAT(ErrorOf(s4), HasSubstr("attr 'Tidx'"));
  Scope s5 = Scope::NewRootScope();
  ops::Shape(s5.WithOpName("s"), 1, ops::Shape::OutType(DT_FLOAT));
  EXPECT_THAT(ErrorOf(s5), HasSubstr("attr 'out_type' must be int32 or int64, got float"));
}

TEST(ArrayOpsErrorTest, ShapeNConcatOffsetUniqueAndStitchArguments) {
  Scope s1 = Scope::NewRootScope();
  ops::ShapeN(s1.WithOpName("s"), {1.f}, ops::ShapeN::OutType(DT_FLOAT));
  EXPECT_THAT(ErrorOf(s1), HasSubstr("attr 'out_type' must be int32 or int64, got float"));
  Scope s2 = Scope::NewRootScope();
  ops::ConcatOffset(s2.WithOpName("c"), 0, {{2, 3}});
  EXPECT_THAT(ErrorOf(s2), HasSubstr("attr 'N' must be at least 2, got 1 shapes"));
  Scope s3 = Scope::NewRootScope();
  ops::ConcatOffset(s3.WithOpName("c"), int64_t{0}, {{2, 3}, {2, 3}});
  EXPECT_THAT(ErrorOf(s3), HasSubstr("input 'concat_dim' must be int32, got int64"));
  Scope s4 = Scope::NewRootScope();
  ops::Unique(s4.WithOpName("u"), {1.f}, ops::Unique::OutIdx(DT_FLOAT));
  EXPECT_THAT(ErrorOf(s4), HasSubstr("attr 'out_idx' must be int32 or int64, got float"));
  Scope s5 = Scope::NewRootScope();
  ops::DynamicStitch(s5.WithOpName("d"), {{0}}, {{1.f}, {2.f}});
  EXPECT_THAT(ErrorOf(s5), HasSubstr("needs as many data inputs as indices inputs (at least 1), "
                                     "got 1 indices and 2 data"));
  Scope s6 = Scope::NewRootScope();
  ops::ParallelDynamicStitch(s6.WithOpName("d"), {{int64_t{0}}}, {{1.f}});
  EXPECT_THAT(ErrorOf(s6), HasSubstr("input 'indices' must be int32, got int64"));
}

TEST(ArrayOpsErrorTest, ReverseSequenceGatherNdAndScatterNdIndexTypes) {
  Scope s1 = Scope::NewRootScope();
  ops::ReverseSequence(s1.WithOpName("r"), {{1.f}}, {1.f}, 1);
  EXPECT_THAT(ErrorOf(s1), HasSubstr("attr 'Tlen'"));
  Scope s2 = Scope::NewRootScope();
  ops::GatherNd(s2.WithOpName("g"), {1.f}, {0.f});
  EXPECT_THAT(ErrorOf(s2), HasSubstr("attr 'Tindices'"));
  Scope s3 = Scope::NewRootScope();
  ops::ScatterNd(s3.WithOpName("s"), {{0}}, {1.f}, {int64_t{2}});
  EXPECT_THAT(ErrorOf(s3), HasSubstr("attr 'Tindices'"));
}

TEST(ArrayOpsErrorTest, GatherAndMatrixBandPartIndexTypes) {
  Scope s1 = Scope::NewRootScope();
  ops::Gather(s1.WithOpName("g"), {1.f}, {0.f});
  EXPECT_THAT(ErrorOf(s1), HasSubstr("attr 'Tindices'"));
  Scope s2 = Scope::NewRootScope();
  ops::MatrixBandPart(s2.WithOpName("b"), {{1.f}}, 0, int64_t{0});
  EXPECT_THAT(ErrorOf(s2), HasSubstr("inconsistent values for attr 'Tindex'"));
  Scope s3 = Scope::NewRootScope();
  ops::MatrixBandPart(s3.WithOpName("b"), {{1.f}}, 0.f, 0.f);
  EXPECT_THAT(ErrorOf(s3), HasSubstr("attr 'Tindex'"));
}

TEST(ArrayOpsErrorTest, ListLengthsAndTypes) {
  Scope root = Scope::NewRootScope();
  ops::Concat(root.WithOpName("c"), {1}, 0);
  EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'N' must be at least 2, got 1 values"));
  Scope s2 = Scope::NewRootScope();
  ops::Pack(s2, std::vector<Output>{});
  EXPECT_THAT(ErrorOf(s2), HasSubstr("attr 'N' must be at least 1, got 0 values"));
  Scope s3 = Scope::NewRootScope();
  ops::Pack(s3, {1, 2.f});
  EXPECT_THAT(ErrorOf(s3), HasSubstr("inconsistent values for attr 'T': input 0 is int32 but "
                                     "input 1 is float"));
}

TEST(ArrayOpsErrorTest, SlicingAndGatheringTypes) {
  Scope s1 = Scope::NewRootScope();
  ops::Split(s1.WithOpName("split"), 1.5f, ops::Placeholder(s1, DT_FLOAT), 2);
  EXPECT_THAT(ErrorOf(s1), HasSubstr("while building node 'split' (Split): input 'split_dim' "
                                     "must be int32, got float"));
  Scope s2 = Scope::NewRootScope();
  ops::Split(s2, 0, ops::Placeholder(s2, DT_FLOAT), 0);
  EXPECT_THAT(ErrorOf(s2), HasSubstr("attr 'num_split' must be at least 1, got 0"));
  Scope s3 = Scope::NewRootScope();
  ops::Slice(s3, ops::Placeholder(s3, DT_FLOAT), {int64_t{0}}, {1});
  EXPECT_THAT(ErrorOf(s3), HasSubstr("inconsistent values for attr 'Index': input 0 is int64 but "
                                     "input 1 is int32"));
  Scope s4 = Scope::NewRootScope();
  ops::OneHot(s4, {1, 2}, int64_t{3}, 1.f, 0.f);
  EXPECT_THAT(ErrorOf(s4), HasSubstr("input 'depth' must be int32, got int64"));
  Scope s5 = Scope::NewRootScope();
  ops::Range(s5, 0, 5.f, 1);
  EXPECT_THAT(ErrorOf(s5), HasSubstr("inconsistent values for attr 'Tidx'"));
  Scope s6 = Scope::NewRootScope();
  ops::Range(s6, true, true, true);
  EXPECT_THAT(ErrorOf(s6), HasSubstr("attr 'Tidx' (the type of input 'Const/Const:0') is bool"));
  Scope s7 = Scope::NewRootScope();
  ops::MirrorPad(s7, ops::Placeholder(s7, DT_FLOAT), {{1, 1}}, "EDGE");
  EXPECT_THAT(ErrorOf(s7), HasSubstr("attr 'mode' must be REFLECT or SYMMETRIC, got 'EDGE'"));
  Scope s8 = Scope::NewRootScope();
  ops::GatherV2(s8, ops::Placeholder(s8, DT_FLOAT), {0.5f}, 0);
  EXPECT_THAT(ErrorOf(s8), HasSubstr("attr 'Tindices'"));
  Scope s9 = Scope::NewRootScope();
  ops::Unstack(s9, ops::Placeholder(s9, DT_FLOAT), -1);
  EXPECT_THAT(ErrorOf(s9), HasSubstr("attr 'num' must be at least 0, got -1"));
  Scope s10 = Scope::NewRootScope();
  ops::Size(s10, 1, ops::Size::OutType(DT_BOOL));
  EXPECT_THAT(ErrorOf(s10), HasSubstr("attr 'out_type' must be int32 or int64, got bool"));
  Scope s11 = Scope::NewRootScope();
  ops::BroadcastGradientArgs(s11, {1.f}, {2.f});
  EXPECT_THAT(ErrorOf(s11), HasSubstr("attr 'T'"));
  Scope s12 = Scope::NewRootScope();
  ops::SplitV(s12, ops::Placeholder(s12, DT_FLOAT), {1.f}, 0, 1);
  EXPECT_THAT(ErrorOf(s12), HasSubstr("attr 'Tlen'"));
  Scope s13 = Scope::NewRootScope();
  ops::IdentityN(s13, {ops::Placeholder(s13, DT_FLOAT), Output()});
  EXPECT_FALSE(s13.ok());
}

TEST(ArrayOpsErrorTest, WrappersAfterAnErrorAddNothing) {
  Scope root = Scope::NewRootScope();
  root.UpdateStatus(absl::InvalidArgumentError("earlier"));
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto y = ops::Identity(root, x);
  EXPECT_FALSE(ops::Const(root, 1).valid());
  EXPECT_FALSE(y.output.valid());
  ops::NoOp noop(root);
  ops::PlaceholderWithDefault(root, 1, {});
  ops::Reshape(root, x, {1});
  ops::Shape(root, x);
  ops::ExpandDims(root, x, 0);
  ops::Squeeze(root, x);
  ops::Concat(root, {x, x}, 0);
  ops::Fill(root, {1}, 1);
  ops::ZerosLike(root, x);
  ops::Pack(root, {x});
  ops::OnesLike(root, x);
  EXPECT_TRUE(ops::IdentityN(root, {x}).output.empty());
  ops::StopGradient(root, x);
  ops::Snapshot(root, x);
  ops::Size(root, x);
  ops::Rank(root, x);
  ops::BroadcastGradientArgs(root, x, x);
  ops::Where(root, x);
  ops::Range(root, 0, 1, 1);
  ops::Transpose(root, x, {0});
  ops::Reverse(root, x, {0});
  ops::Slice(root, x, {0}, {1});
  ops::StridedSlice(root, x, {0}, {1}, {1});
  EXPECT_TRUE(ops::Split(root, 0, x, 2).output.empty());
  ops::SplitV(root, x, {1}, 0, 1);
  ops::Unstack(root, x, 1);
  ops::Tile(root, x, {1});
  ops::BroadcastTo(root, x, {1});
  ops::Pad(root, x, {{0, 0}});
  ops::PadV2(root, x, {{0, 0}}, 0.f);
  ops::MirrorPad(root, x, {{0, 0}}, "REFLECT");
  ops::GatherV2(root, x, {0}, 0);
  ops::OneHot(root, {0}, 2, 1.f, 0.f);
  EXPECT_EQ(root.status().message(), "earlier");
}

}  // namespace
}  // namespace tessera
