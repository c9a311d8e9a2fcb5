// Numeric checks of the array gradients: joining and cutting (ConcatV2, Pack, Unpack, Split,
// SplitV), permuting (Transpose, ReverseV2), slicing (Slice, StridedSlice with every mask),
// padding (Pad, PadV2, MirrorPad), Tile, BroadcastTo, GatherV2, Gather, GatherNd, ScatterNd,
// ReverseSequence, Reverse, Concat, MatrixBandPart, the space/batch/depth moves, DynamicStitch,
// IdentityN, Fill and the gradient helper ops themselves, with negative axes and size-1 dimensions
// throughout; and PreventGradient's refusal.
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/grad_util.h"
#include "host/client/gradients.h"
#include "host/client/ops.h"
#include "host/session/session.h"
#include "host/testing/gradient_checker.h"

namespace tessera {
namespace {

using ::tessera::testing::ComputeGradientError;
using Xs = std::vector<Output>;
using Fn = std::function<Xs(const Scope&, const Xs&)>;

Tensor RandomDoubles(const TensorShape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2, 2);
  Tensor t(TSR_DTYPE_DOUBLE, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(rng);
  return t;
}

// Builds ys = f(x...) on double placeholders of `shapes` fed random values and checks the
// Jacobian of every y numerically (outputs f leaves out get zero gradients).
void CheckGradients(const std::vector<TensorShape>& shapes, const Fn& f) {
  Scope root = Scope::NewRootScope();
  Xs xs;
  std::vector<Tensor> values;
  for (size_t i = 0; i < shapes.size(); ++i) {
    xs.push_back(ops::Placeholder(root.WithOpName("x", i), DT_DOUBLE));
    values.push_back(RandomDoubles(shapes[i], 71 + static_cast<uint32_t>(i)));
  }
  const Xs ys = f(root, xs);
  ASSERT_TRUE(root.ok()) << root.status();
  testing::GradientCheckOptions options;
  options.delta = 1e-5;
  absl::StatusOr<double> error = ComputeGradientError(root, xs, values, ys, options);
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_LT(*error, 1e-7);
}

// The same for a function of one output.
void CheckGradient(const std::vector<TensorShape>& shapes,
                   const std::function<Output(const Scope&, const Xs&)>& f) {
  CheckGradients(shapes, [&](const Scope& s, const Xs& x) { return Xs{f(s, x)}; });
}

Output Int64s(const Scope& s, std::initializer_list<int64_t> values) {
  return ops::Const(
      s, Tensor::FromVector<int64_t>(TensorShape{static_cast<int64_t>(values.size())}, values));
}

TEST(ArrayGradTest, ConcatV2AlongPositiveAndNegativeAxes) {
  CheckGradient({{2, 3}, {2, 1}, {2, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Concat(s, {x[0], x[1], x[2]}, 1);
  });
  CheckGradient({{2, 3}, {2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Concat(s, {x[0], x[1]}, -2);
  });
  CheckGradient({{1, 2, 1}, {1, 2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Concat(s, {x[0], x[1]}, ops::Const(s, int64_t{-1}));
  });
  // One input used twice: both slices reach it.
  CheckGradient({{2, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Concat(s, {x[0], ops::Square(s, x[0])}, 0);
  });
}

TEST(ArrayGradTest, PackAndUnpackWithNegativeAxes) {
  CheckGradient({{2, 3}, {2, 3}, {2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Pack(s, {x[0], x[1], x[2]}, ops::Pack::Axis(-1));
  });
  CheckGradient({{3}, {3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Pack(s, {x[0], x[1]});
  });
  CheckGradients({{2, 3, 4}}, [](const Scope& s, const Xs& x) {
    ops::Unstack parts(s, x[0], 3, ops::Unstack::Axis(-2));
    return parts.output;
  });
  // Only some outputs used: the others count as zeros.
  CheckGradients({{4, 1}}, [](const Scope& s, const Xs& x) {
    ops::Unstack parts(s, x[0], 4);
    return Xs{ops::Square(s, parts[1]), parts[3]};
  });
}

TEST(ArrayGradTest, SplitAndSplitVJoinTheOutputGradients) {
  CheckGradients({{2, 6}}, [](const Scope& s, const Xs& x) {
    ops::Split parts(s, -1, x[0], 3);
    return Xs{parts[0], ops::Square(s, parts[2])};
  });
  CheckGradients({{3, 2}},
                 [](const Scope& s, const Xs& x) { return ops::Split(s, 0, x[0], 1).output; });
  CheckGradients({{5, 2}}, [](const Scope& s, const Xs& x) {
    ops::SplitV parts(s, x[0], {2, -1, 1}, -2, 3);
    return Xs{parts[1], ops::Square(s, parts[0])};
  });
  CheckGradients({{2, 4}}, [](const Scope& s, const Xs& x) {
    ops::SplitV parts(s, x[0], Int64s(s, {1, 3}), 1, 2);
    return parts.output;
  });
}

TEST(ArrayGradTest, TransposeAndReverse) {
  CheckGradient({{2, 3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Transpose(s, x[0], {2, 0, 1});
  });
  CheckGradient({{2, 1, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Transpose(s, x[0], Int64s(s, {1, 2, 0}));
  });
  CheckGradient({{2, 3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Reverse(s, x[0], {0, -1});
  });
  CheckGradient({{3, 1}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Reverse(s, x[0], Int64s(s, {1}));
  });
}

TEST(ArrayGradTest, SlicePadsTheGradientBack) {
  CheckGradient({{4, 5}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Slice(s, x[0], {1, 0}, {2, -1});
  });
  CheckGradient({{3, 1, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Slice(s, x[0], Int64s(s, {2, 0, 1}), Int64s(s, {1, 1, 3}));
  });
}

// StridedSlice with the given masks (begin, end, ellipsis, new_axis, shrink_axis).
Output Strided(const Scope& s, const Output& x, const Input& begin, const Input& end,
               const Input& strides, std::vector<int64_t> masks) {
  masks.resize(5, 0);
  return ops::StridedSlice(s, x, begin, end, strides,
                           ops::StridedSlice::BeginMask(masks[0])
                               .EndMask(masks[1])
                               .EllipsisMask(masks[2])
                               .NewAxisMask(masks[3])
                               .ShrinkAxisMask(masks[4]));
}

TEST(ArrayGradTest, StridedSliceWithStepsAndMasks) {
  // x[1:4:2, ::-1]
  CheckGradient({{5, 3}}, [](const Scope& s, const Xs& x) {
    return Strided(s, x[0], {1, 0}, {4, 0}, {2, -1}, {2, 2});
  });
  // x[-1, ..., None] with int64 indices
  CheckGradient({{3, 2, 4}}, [](const Scope& s, const Xs& x) {
    return Strided(s, x[0], Int64s(s, {-1, 0, 0}), Int64s(s, {0, 0, 0}), Int64s(s, {1, 1, 1}),
                   {0, 0, 2, 4, 1});
  });
  // x[None, :, 1] on a size-1 first dimension
  CheckGradient({{1, 3}}, [](const Scope& s, const Xs& x) {
    return Strided(s, x[0], {0, 0, 1}, {0, 0, 2}, {1, 1, 1}, {2, 2, 0, 1, 4});
  });
  // x[..., 3:0:-2]
  CheckGradient({{2, 5}}, [](const Scope& s, const Xs& x) {
    return Strided(s, x[0], {0, 3}, {0, 0}, {1, -2}, {0, 0, 1});
  });
  // x[:] (every element: the gradient passes through unchanged)
  CheckGradient({{2, 2}}, [](const Scope& s, const Xs& x) {
    return Strided(s, x[0], {0}, {0}, {1}, {1, 1});
  });
}

TEST(ArrayGradTest, TileSumsTheCopies) {
  CheckGradient({{2, 1, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Tile(s, x[0], {2, 3, 1});
  });
  CheckGradient({{3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Tile(s, x[0], Int64s(s, {2}));
  });
  CheckGradient({{}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Tile(s, x[0], ops::Const(s, Tensor(DT_INT32, TensorShape{0})));
  });
}

TEST(ArrayGradTest, PadAndPadV2SliceTheGradient) {
  CheckGradient({{2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Pad(s, x[0], {{1, 0}, {2, 1}});
  });
  CheckGradient({{1, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::PadV2(
        s, x[0], ops::Const(s, Tensor::FromVector<int64_t>(TensorShape{2, 2}, {0, 2, 1, 1})), 0.5);
  });
}

TEST(ArrayGradTest, MirrorPadInBothModes) {
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::MirrorPad(s, x[0], {{2, 1}, {1, 3}}, "REFLECT");
  });
  CheckGradient({{3, 1}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::MirrorPad(
        s, x[0], ops::Const(s, Tensor::FromVector<int64_t>(TensorShape{2, 2}, {3, 2, 1, 0})),
        "SYMMETRIC");
  });
}

TEST(ArrayGradTest, GatherV2SumsRepeatedIndices) {
  CheckGradient({{4, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherV2(s, x[0], {2, 0, 2, 3}, 0);
  });
  CheckGradient({{2, 4, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherV2(s, x[0], ops::Const(s, {{1, 1}, {3, 0}, {2, 1}}), 1);
  });
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherV2(s, x[0], Int64s(s, {3, 3, 1}), ops::Const(s, int64_t{-1}));
  });
  CheckGradient({{5}},
                [](const Scope& s, const Xs& x) -> Output { return ops::GatherV2(s, x[0], 4, 0); });
}

TEST(ArrayGradTest, GatherV2WithBatchDimensions) {
  CheckGradient({{2, 4, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherV2(s, x[0], ops::Const(s, {{0, 3, 3}, {2, 2, 1}}), 1,
                         ops::GatherV2::BatchDims(1));
  });
  // batch_dims -1 counts from the indices' rank: 1 here, and 0 for a vector of indices.
  CheckGradient({{2, 4, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherV2(s, x[0], ops::Const(s, {{0, 3}, {2, 2}}), 1, ops::GatherV2::BatchDims(-1));
  });
  CheckGradient({{2, 3, 4, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherV2(s, x[0], Int64s(s, {1, 0}), -1, ops::GatherV2::BatchDims(-1));
  });
  CheckGradient({{2, 3, 5}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherV2(s, x[0], ops::Const(s, {{{4}, {0}, {4}}, {{1}, {1}, {2}}}), 2,
                         ops::GatherV2::BatchDims(2));
  });
}

TEST(ArrayGradTest, DynamicStitchGathersEachInputsRows) {
  // Scalar, vector and matrix indices; row 3 is never named and stays zero.
  CheckGradient({{2}, {2, 2}, {2, 2, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::DynamicStitch(s, {ops::Const(s, 6), ops::Const(s, {4, 2}),
                                  ops::Const(s, {{5, 1}, {0, 7}})},
                              {x[0], x[1], x[2]});
  });
  CheckGradient({{3}, {1}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::ParallelDynamicStitch(s, {ops::Const(s, {2, 0, 3}), ops::Const(s, {1})},
                                      {x[0], x[1]});
  });
}

TEST(ArrayGradTest, ReverseSequenceReversesTheGradient) {
  CheckGradient({{3, 4, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::ReverseSequence(s, x[0], Int64s(s, {2, 0, 4}), 1);
  });
  CheckGradient({{2, 3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::ReverseSequence(s, x[0], ops::Const(s, {1, 3, 0, 2}), 1,
                                ops::ReverseSequence::BatchDim(2));
  });
}

TEST(ArrayGradTest, GatherNdAndScatterNd) {
  // Repeated rows of indices sum their gradients.
  CheckGradient({{3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherNd(s, x[0], ops::Const(s, {{0, 1}, {2, 3}, {0, 1}}));
  });
  CheckGradient({{3, 2, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherNd(s, x[0],
                         ops::Const(s, Tensor::FromVector<int64_t>(TensorShape{1, 3}, {2, 0, 1})));
  });
  CheckGradient({{2, 1}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::GatherNd(s, x[0], ops::Const(s, {{{1}}, {{0}}}));
  });
  CheckGradient({{3, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::ScatterNd(s, ops::Const(s, {{0}, {2}, {0}}), x[0], ops::Const(s, {4, 2}));
  });
  CheckGradient({{2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::ScatterNd(s, ops::Const(s, {{1, 1}, {0, 2}}), x[0], ops::Const(s, {2, 3}));
  });
}

TEST(ArrayGradTest, FirstVersionsOfGatherReverseAndConcat) {
  CheckGradient({{4, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Gather(s, x[0], {2, 0, 2, 3});
  });
  CheckGradient({{5}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Gather(s, x[0], Int64s(s, {4, 1, 1}), ops::Gather::ValidateIndices(false));
  });
  CheckGradient({{2, 3, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return grad_util::UnaryT(s, "Reverse",
                             {x[0], ops::Const(s, Tensor::Vector<bool>({true, false, true}))});
  });
  CheckGradient({{2, 3}, {2, 1}}, [](const Scope& s, const Xs& x) -> Output {
    return grad_util::Node(
        s, "Concat", {ops::Const(s, -1), x[0], x[1]},
        [](OpBuilder& b) { b.AttrInt("N", 2).AttrType("T", DT_DOUBLE); }, {DT_DOUBLE})[0];
  });
}

TEST(ArrayGradTest, MatrixBandPartKeepsTheBand) {
  CheckGradient({{2, 3, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::MatrixBandPart(s, x[0], 1, 0);
  });
  CheckGradient({{4, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::MatrixBandPart(s, x[0], ops::Const(s, int64_t{-1}), ops::Const(s, int64_t{2}));
  });
}

TEST(ArrayGradTest, SpaceToBatchAndBatchToSpaceUndoEachOther) {
  CheckGradient({{2, 3, 4, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::SpaceToBatchND(s, x[0], ops::Const(s, {2, 3}), ops::Const(s, {{1, 0}, {1, 1}}));
  });
  CheckGradient({{6, 2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::BatchToSpaceND(
        s, x[0], ops::Const(s, {3}),
        ops::Const(s, Tensor::FromVector<int64_t>(TensorShape{1, 2}, {1, 2})));
  });
  CheckGradient({{1, 3, 2, 1}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::SpaceToBatch(s, x[0], ops::Const(s, {{1, 0}, {0, 0}}), 2);
  });
  CheckGradient({{4, 2, 1, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::BatchToSpace(s, x[0], ops::Const(s, {{0, 1}, {1, 0}}), 2);
  });
}

TEST(ArrayGradTest, SpaceToDepthAndDepthToSpaceUndoEachOther) {
  CheckGradient({{2, 4, 2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::SpaceToDepth(s, x[0], 2);
  });
  CheckGradient({{1, 2, 1, 8}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::DepthToSpace(s, x[0], 2);
  });
  CheckGradient({{1, 2, 3, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::SpaceToDepth(s, x[0], 3, ops::SpaceToDepth::DataFormat("NCHW"));
  });
  CheckGradient({{2, 9, 1, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::DepthToSpace(s, x[0], 3, ops::DepthToSpace::DataFormat("NCHW"));
  });
}

TEST(ArrayGradTest, MatrixDiagonals) {
  CheckGradient({{2, 3}},
                [](const Scope& s, const Xs& x) -> Output { return ops::MatrixDiag(s, x[0]); });
  CheckGradient({{2, 3, 4}},
                [](const Scope& s, const Xs& x) -> Output { return ops::MatrixDiagPart(s, x[0]); });
  CheckGradients({{3, 4}, {3}}, [](const Scope& s, const Xs& x) -> Xs {
    return {ops::MatrixSetDiag(s, x[0], x[1])};
  });
  for (const char* align : {"RIGHT_LEFT", "LEFT_RIGHT"}) {
    CheckGradient({{2, 3, 3}}, [&](const Scope& s, const Xs& x) -> Output {
      return ops::MatrixDiagV3(s, x[0], ops::Const(s, {-1, 1}), -1, 4, ops::Const(s, 0.5),
                               ops::MatrixDiagV3::Align(align));
    });
    CheckGradient({{3, 4}}, [&](const Scope& s, const Xs& x) -> Output {
      return ops::MatrixDiagPartV3(s, x[0], ops::Const(s, {-1, 2}), ops::Const(s, 0.0),
                                   ops::MatrixDiagPartV3::Align(align));
    });
    CheckGradients({{2, 3, 4}, {2, 2, 3}}, [&](const Scope& s, const Xs& x) -> Xs {
      return {ops::MatrixSetDiagV3(s, x[0], x[1], ops::Const(s, {0, 1}),
                                   ops::MatrixSetDiagV3::Align(align))};
    });
  }
}

TEST(ArrayGradTest, PreventGradientRefusesWithItsMessage) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::PreventGradient(root.WithOpName("guard"), ops::Square(root, x),
                                ops::PreventGradient::Message("second derivative not supported"));
  // Forward, the op is the identity.
  auto z = ops::Add(root, y, x);
  ASSERT_TRUE(root.ok()) << root.status();
  std::vector<Output> grads;
  absl::Status status = AddSymbolicGradients(root, {z}, {x}, &grads);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()),
              ::testing::HasSubstr(
                  "Gradient explicitly disabled. Reason: second derivative not supported"));
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("'guard'"));
}

TEST(ArrayGradTest, BroadcastToReducesTheBroadcastDimensions) {
  CheckGradient({{3, 1}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::BroadcastTo(s, x[0], {2, 3, 4});
  });
  CheckGradient({{}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::BroadcastTo(s, x[0], Int64s(s, {2, 2}));
  });
}

TEST(ArrayGradTest, IdentityNAndFill) {
  CheckGradients({{2}, {3}}, [](const Scope& s, const Xs& x) {
    ops::IdentityN both(s, {x[0], x[1]});
    return Xs{ops::Square(s, both[0]), both[1]};
  });
  CheckGradient({{}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Fill(s, {2, 3}, x[0]);
  });
}

TEST(ArrayGradTest, GradientHelperOpsHaveGradients) {
  // StridedSliceGrad is linear in dy; its gradient is the forward slice.
  CheckGradient({{2, 2}}, [](const Scope& s, const Xs& x) -> Output {
    return grad_util::Node(
        s, "StridedSliceGrad",
        {ops::Const(s, {4, 3}), ops::Const(s, {0, 1}), ops::Const(s, {4, 3}), ops::Const(s, {2, 1}),
         x[0]},
        [](OpBuilder& b) { b.AttrType("T", DT_DOUBLE).AttrType("Index", DT_INT32); },
        {DT_DOUBLE})[0];
  });
  CheckGradient({{5, 4}}, [](const Scope& s, const Xs& x) -> Output {
    return grad_util::Node(
        s, "MirrorPadGrad", {x[0], ops::Const(s, {{1, 1}, {0, 1}})},
        [](OpBuilder& b) {
          b.AttrType("T", DT_DOUBLE).AttrType("Tpaddings", DT_INT32).AttrString("mode", "REFLECT");
        },
        {DT_DOUBLE})[0];
  });
}

TEST(ArrayGradTest, IndexAndShapeOpsHaveNoGradient) {
  const GradientRegistry& registry = GradientRegistry::Standard();
  for (const char* op : {"Shape", "Size", "Rank", "ZerosLike", "OnesLike", "OneHot", "Range",
                         "Where", "InvertPermutation", "StopGradient", "BroadcastGradientArgs",
                         "ShapeN", "ConcatOffset"}) {
    EXPECT_TRUE(registry.Has(op)) << op;
  }
  // A path through Shape contributes nothing: d(x * size(x))/dx = size(x).
  CheckGradient({{2, 3}}, [](const Scope& s, const Xs& x) -> Output {
    return ops::Mul(s, x[0], ops::Cast(s, ops::Size(s, x[0]), DT_DOUBLE));
  });
}

}  // namespace
}  // namespace tessera
