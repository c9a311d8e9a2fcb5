// Numeric checks of the TensorArray gradients in straight-line graphs: read <-> write through the
// gradient array (including two reads of one element, whose gradients add up there), gather <->
// scatter and concat <-> split, and one gradient array per gradient computation.
#include <functional>
#include <random>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/gradients.h"
#include "host/client/ops.h"
#include "host/session/session.h"
#include "host/testing/gradient_checker.h"

namespace tessera {
namespace {

using ::tessera::testing::ComputeGradientError;
using Xs = std::vector<Output>;
using Fn = std::function<Output(const Scope&, const Xs&)>;

Tensor RandomDoubles(const TensorShape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2, 2);
  Tensor t(TSR_DTYPE_DOUBLE, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(rng);
  return t;
}

void CheckGradient(const std::vector<TensorShape>& shapes, const Fn& f) {
  Scope root = Scope::NewRootScope();
  Xs xs;
  std::vector<Tensor> values;
  for (size_t i = 0; i < shapes.size(); ++i) {
    xs.push_back(ops::Placeholder(root.WithOpName("x", i), DT_DOUBLE));
    values.push_back(RandomDoubles(shapes[i], 17 + static_cast<uint32_t>(i)));
  }
  const Output y = f(root, xs);
  ASSERT_TRUE(root.ok()) << root.status();
  testing::GradientCheckOptions options;
  options.delta = 1e-5;
  absl::StatusOr<double> error = ComputeGradientError(root, xs, values, {y}, options);
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_LT(*error, 1e-7);
}

TEST(DataFlowGradTest, WriteThenRead) {
  // y = [read(0) * 3, read(1) * read(2)] of x0, x1, x2 written to indices 0..2.
  CheckGradient({{2}, {2}, {2}}, [](const Scope& s, const Xs& x) -> Output {
    ops::TensorArray ta(s, 3, DT_DOUBLE);
    Output f = ops::TensorArrayWrite(s, ta.handle, 0, x[0], ta.flow);
    f = ops::TensorArrayWrite(s, ta.handle, 1, x[1], f);
    f = ops::TensorArrayWrite(s, ta.handle, 2, x[2], f);
    Output r0 = ops::TensorArrayRead(s, ta.handle, 0, f, DT_DOUBLE);
    Output r1 = ops::TensorArrayRead(s, ta.handle, 1, f, DT_DOUBLE);
    Output r2 = ops::TensorArrayRead(s, ta.handle, 2, f, DT_DOUBLE);
    return ops::Concat(s, {ops::Mul(s, r0, 3.0), ops::Mul(s, r1, r2)}, 0);
  });
}

TEST(DataFlowGradTest, TwoReadsOfOneElementAddUpInTheGradientArray) {
  CheckGradient({{3}}, [](const Scope& s, const Xs& x) -> Output {
    ops::TensorArray ta(s, 1, DT_DOUBLE, ops::TensorArray::ClearAfterRead(false));
    Output f = ops::TensorArrayWrite(s, ta.handle, 0, x[0], ta.flow);
    Output a = ops::TensorArrayRead(s, ta.handle, 0, f, DT_DOUBLE);
    Output b = ops::TensorArrayRead(s, ta.handle, 0, f, DT_DOUBLE);
    return ops::Mul(s, a, ops::Mul(s, b, b));
  });
}

TEST(DataFlowGradTest, ScatterThenGather) {
  CheckGradient({{3, 2}}, [](const Scope& s, const Xs& x) -> Output {
    ops::TensorArray ta(s, 3, DT_DOUBLE);
    Output f = ops::TensorArrayScatter(s, ta.handle, ops::Const(s, {2, 0, 1}), x[0], ta.flow);
    Output g = ops::TensorArrayGather(s, ta.handle, ops::Const(s, {1, 2, 0}), f, DT_DOUBLE);
    return ops::Mul(s, g, g);
  });
}

TEST(DataFlowGradTest, SplitThenConcat) {
  CheckGradient({{5, 2}}, [](const Scope& s, const Xs& x) -> Output {
    ops::TensorArray ta(s, 3, DT_DOUBLE);
    Output lengths = ops::Const(s, Tensor::FromVector<int64_t>(TensorShape{3}, {2, 0, 3}));
    Output f = ops::TensorArraySplit(s, ta.handle, x[0], lengths, ta.flow);
    ops::TensorArrayConcat concat(s, ta.handle, f, DT_DOUBLE);
    return ops::Mul(s, concat.value, ops::Const(s, 2.0));
  });
}

TEST(DataFlowGradTest, WriteThenGatherAndSplitThenRead) {
  CheckGradient({{2}, {2}, {4}}, [](const Scope& s, const Xs& x) -> Output {
    ops::TensorArray ta(s, 2, DT_DOUBLE);
    Output f = ops::TensorArrayWrite(s, ta.handle, 0, x[0], ta.flow);
    f = ops::TensorArrayWrite(s, ta.handle, 1, x[1], f);
    Output stacked = ops::TensorArrayGather(s, ta.handle, ops::Const(s, {0, 1}), f, DT_DOUBLE);
    ops::TensorArray tb(s, 2, DT_DOUBLE);
    Output lengths = ops::Const(s, Tensor::FromVector<int64_t>(TensorShape{2}, {1, 3}));
    Output g = ops::TensorArraySplit(s, tb.handle, x[2], lengths, tb.flow);
    Output second = ops::TensorArrayRead(s, tb.handle, 1, g, DT_DOUBLE);
    return ops::Concat(s, {ops::Reshape(s, ops::Square(s, stacked), {-1}), second}, 0);
  });
}

TEST(DataFlowGradTest, OneGradientArrayPerGradientComputation) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::TensorArray ta(root, 1, DT_FLOAT, ops::TensorArray::ClearAfterRead(false));
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, x, ta.flow);
  Output r = ops::TensorArrayRead(root, ta.handle, 0, f, DT_FLOAT);
  Output y = ops::Mul(root, r, r);
  std::vector<Output> first, second;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &first).ok());
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &second).ok());
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  ASSERT_TRUE(graph.ok());
  std::vector<std::string> sources;
  for (const tensorflow::NodeDef& node : graph->node()) {
    if (node.op() == "TensorArrayGradV3") sources.push_back(node.attr().at("source").s());
  }
  // The read's and the write's gradients of one call share their array; the calls do not.
  ASSERT_EQ(sources.size(), 4u);
  EXPECT_EQ(sources[0], sources[1]);
  EXPECT_EQ(sources[2], sources[3]);
  EXPECT_NE(sources[0], sources[2]);
  EXPECT_TRUE(absl::StartsWith(sources[0], "gradients")) << sources[0];
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), *graph);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({{"x", Tensor::FromVector<float>(TensorShape{2}, {1.5f, -2})}},
                        {first[0].name(), second[0].name()}, {}, &out)
                  .ok());
  for (const Tensor& g : out) {
    EXPECT_FLOAT_EQ(g.data<float>()[0], 3);
    EXPECT_FLOAT_EQ(g.data<float>()[1], -4);
  }
}

}  // namespace
}  // namespace tessera
