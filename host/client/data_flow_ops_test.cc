// TensorArray and Stack through real sessions: every op's values and TensorFlow's errors (code
// and message), gradient arrays, a forward dynamic RNN (a v1 while loop reading one step of a
// TensorArray per iteration and writing the outputs to another), a stack pushed by one while
// loop and popped by a second, as a while loop's backprop does, and the same ops on a device
// whose memory the host cannot reach.
#include "host/client/data_flow_ops.h"

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/op_builder.h"
#include "host/client/ops.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<std::vector<Tensor>> RunGraph(const tensorflow::GraphDef& graph,
                                             const std::vector<Output>& fetches,
                                             const std::vector<Operation>& targets = {},
                                             const SessionOptions& options = SessionOptions()) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, graph);
  if (!session.ok()) return session.status();
  std::vector<std::string> names;
  for (const Output& o : fetches) names.push_back(o.name());
  std::vector<std::string> target_names;
  for (const Operation& op : targets) target_names.push_back(op.node_name());
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({}, names, target_names, &out);
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<std::vector<Tensor>> RunScope(const Scope& root, const std::vector<Output>& fetches,
                                             const std::vector<Operation>& targets = {}) {
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  if (!graph.ok()) return graph.status();
  return RunGraph(*graph, fetches, targets);
}

std::vector<float> Floats(const Tensor& t) {
  EXPECT_EQ(t.dtype(), TSR_DTYPE_FLOAT);
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

Output FloatConst(const Scope& s, const TensorShape& shape, const std::vector<float>& values) {
  return ops::Const(s, Tensor::FromVector<float>(shape, values));
}

// Expects `result` to fail with `code` and a message containing `text`.
template <typename T>
void ExpectError(const absl::StatusOr<T>& result, absl::StatusCode code, const std::string& text) {
  ASSERT_FALSE(result.ok()) << "expected an error containing: " << text;
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_THAT(std::string(result.status().message()), HasSubstr(text));
}

// ---- Values ----

TEST(TensorArrayTest, WritesAndReadsElements) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 3, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1, 2}, {4, 5}), ta.flow);
  f = ops::TensorArrayWrite(root, ta.handle, 1, FloatConst(root, {1, 2}, {1, 3}), f);
  f = ops::TensorArrayWrite(root, ta.handle, 2, FloatConst(root, {1, 2}, {7, -8.5f}), f);
  auto out = RunScope(root, {ops::TensorArrayRead(root, ta.handle, 0, f, DT_FLOAT),
                             ops::TensorArrayRead(root, ta.handle, 1, f, DT_FLOAT),
                             ops::TensorArrayRead(root, ta.handle, 2, f, DT_FLOAT),
                             ops::TensorArraySize(root, ta.handle, f), f});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(4, 5));
  EXPECT_EQ((*out)[0].shape(), (TensorShape{1, 2}));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(1, 3));
  EXPECT_THAT(Floats((*out)[2]), ElementsAre(7, -8.5f));
  EXPECT_EQ(*(*out)[3].data<int32_t>(), 3);
  EXPECT_EQ((*out)[4].shape(), TensorShape{});  // the flow is a float scalar
}

TEST(TensorArrayTest, GatherScatterConcatSplit) {
  Scope root = Scope::NewRootScope();
  // Scatter rows to 2, 0, 1 and gather them back in another order.
  ops::TensorArray ta(root, 3, DT_FLOAT);
  Output value = FloatConst(root, {3, 2}, {1, 2, 3, 4, 5, 6});
  Output f = ops::TensorArrayScatter(root, ta.handle, ops::Const(root, {2, 0, 1}), value, ta.flow);
  Output gathered = ops::TensorArrayGather(root, ta.handle, ops::Const(root, {0, 2}), f, DT_FLOAT);
  // Split 5 rows into pieces of 2, 0 and 3 rows and concatenate them back.
  ops::TensorArray tb(root, 3, DT_FLOAT);
  Output rows = FloatConst(root, {5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Output lengths = ops::Const(root, Tensor::FromVector<int64_t>(TensorShape{3}, {2, 0, 3}));
  Output g = ops::TensorArraySplit(root, tb.handle, rows, lengths, tb.flow);
  ops::TensorArrayConcat concat(root, tb.handle, g, DT_FLOAT);
  auto out = RunScope(root, {gathered, concat.value, concat.lengths});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (TensorShape{2, 2}));
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(3, 4, 1, 2));
  EXPECT_EQ((*out)[1].shape(), (TensorShape{5, 2}));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_THAT(std::vector<int64_t>((*out)[2].data<int64_t>(), (*out)[2].data<int64_t>() + 3),
              ElementsAre(2, 0, 3));
}

TEST(TensorArrayTest, EmptyArraysAndEmptyElements) {
  Scope root = Scope::NewRootScope();
  // Empty arrays: gather takes its element shape attr, concat its element_shape_except0.
  ops::TensorArray ta(root, 0, DT_FLOAT);
  Output empty_gather =
      ops::TensorArrayGather(root, ta.handle, ops::Const(root, Tensor(DT_INT32, TensorShape{0})),
                             ta.flow, DT_FLOAT, ops::TensorArrayGather::ElementShape({2, 3}));
  ops::TensorArrayConcat empty_concat(root, ta.handle, ta.flow, DT_FLOAT,
                                      ops::TensorArrayConcat::ElementShapeExcept0({4}));
  // Elements with no values move as well as any.
  ops::TensorArray tb(root, 2, DT_FLOAT);
  Output f = ops::TensorArrayWrite(root, tb.handle, 0, FloatConst(root, {0, 1}, {}), tb.flow);
  f = ops::TensorArrayWrite(root, tb.handle, 1, FloatConst(root, {0, 1}, {}), f);
  Output stacked = ops::TensorArrayGather(root, tb.handle, ops::Const(root, {0, 1}), f, DT_FLOAT);
  auto out = RunScope(root, {ops::TensorArraySize(root, ta.handle, ta.flow), empty_gather,
                             empty_concat.value, stacked});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*(*out)[0].data<int32_t>(), 0);
  EXPECT_EQ((*out)[1].shape(), (TensorShape{0, 2, 3}));
  EXPECT_EQ((*out)[2].shape(), (TensorShape{0, 4}));
  EXPECT_EQ((*out)[3].shape(), (TensorShape{2, 0, 1}));
}

TEST(TensorArrayTest, ReadingAnUnwrittenElementOfKnownShapeGivesZeros) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 2, DT_FLOAT, ops::TensorArray::ElementShape({2}));
  auto out = RunScope(root, {ops::TensorArrayRead(root, ta.handle, 1, ta.flow, DT_FLOAT)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(0, 0));
}

TEST(TensorArrayTest, ClearAfterReadFalseAllowsRereads) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 1, DT_FLOAT, ops::TensorArray::ClearAfterRead(false));
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1}, {3}), ta.flow);
  Output r0 = ops::TensorArrayRead(root, ta.handle, 0, f, DT_FLOAT);
  Output r1 = ops::TensorArrayRead(root.WithControlDependencies(r0), ta.handle, 0, f, DT_FLOAT);
  auto out = RunScope(root, {r0, r1});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(3));
}

TEST(TensorArrayTest, DynamicSizeGrowsOnWrite) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 0, DT_FLOAT, ops::TensorArray::DynamicSize(true));
  Output f = ops::TensorArrayWrite(root, ta.handle, 2, FloatConst(root, {1}, {5}), ta.flow);
  f = ops::TensorArrayWrite(root, ta.handle, 4, FloatConst(root, {1}, {6}), f);
  auto out = RunScope(root, {ops::TensorArraySize(root, ta.handle, f),
                             ops::TensorArrayRead(root, ta.handle, 4, f, DT_FLOAT)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*(*out)[0].data<int32_t>(), 5);
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(6));
}

TEST(TensorArrayTest, EachStepGetsFreshArraysAndStacks) {
  // TensorFlow scopes both to the step: a second run writes index 0 and pushes again without
  // seeing the first run's values.
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 1, DT_FLOAT);
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1}, {2}), ta.flow);
  Output r = ops::TensorArrayRead(root, ta.handle, 0, f, DT_FLOAT);
  ops::Stack stack(root, 1, DT_FLOAT);
  ops::StackPush push(root, stack.handle, FloatConst(root, {1}, {3}));
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), *graph);
  ASSERT_TRUE(session.ok()) << session.status();
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    absl::Status status = (*session)->Run({}, {r.name(), push.output.name()}, {}, &out);
    ASSERT_TRUE(status.ok()) << "step " << step << ": " << status;
    EXPECT_THAT(Floats(out[0]), ElementsAre(2));
  }
}

// ---- Errors ----

TEST(TensorArrayErrorsTest, ReadingAnUnwrittenElementOfUnknownShape) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 2, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  ExpectError(RunScope(root, {ops::TensorArrayRead(root, ta.handle, 1, ta.flow, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument,
              "TensorArray foo: Could not read from TensorArray index 1.  Furthermore, the "
              "element shape is not fully defined: <unknown>.");
}

TEST(TensorArrayErrorsTest, ReadingAClearedElementTwice) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 1, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1}, {3}), ta.flow);
  Output r0 = ops::TensorArrayRead(root, ta.handle, 0, f, DT_FLOAT);
  Output r1 = ops::TensorArrayRead(root.WithControlDependencies(r0), ta.handle, 0, f, DT_FLOAT);
  ExpectError(RunScope(root, {r1}), absl::StatusCode::kInvalidArgument,
              "TensorArray foo: Could not read index 0 twice because it was cleared after a "
              "previous read (perhaps try setting clear_after_read = false?).");
}

TEST(TensorArrayErrorsTest, WritingAnIndexTwiceOrAfterItWasRead) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 2, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1}, {3}), ta.flow);
  f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1}, {4}), f);
  ExpectError(RunScope(root, {f}), absl::StatusCode::kInvalidArgument,
              "TensorArray foo: Could not write to TensorArray index 0 because it has already "
              "been written to.");

  Scope root2 = Scope::NewRootScope();
  ops::TensorArray tb(root2, 2, DT_FLOAT,
                      ops::TensorArray::ElementShape({1}).TensorArrayName("bar"));
  Output r = ops::TensorArrayRead(root2, tb.handle, 1, tb.flow, DT_FLOAT);
  Output g = ops::TensorArrayWrite(root2.WithControlDependencies(r), tb.handle, 1,
                                   FloatConst(root2, {1}, {4}), tb.flow);
  ExpectError(RunScope(root2, {g}), absl::StatusCode::kInvalidArgument,
              "TensorArray bar: Could not write to TensorArray index 1 because it has already "
              "been read.");
}

TEST(TensorArrayErrorsTest, WritingAValueOfAnotherShapeOrDtype) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 2, DT_FLOAT,
                      ops::TensorArray::ElementShape({2}).TensorArrayName("foo"));
  ExpectError(RunScope(root, {ops::TensorArrayWrite(root, ta.handle, 0,
                                                    FloatConst(root, {3}, {1, 2, 3}), ta.flow)}),
              absl::StatusCode::kInvalidArgument,
              "TensorArray foo: Could not write to TensorArray index 0 because the value shape "
              "is [3] which is incompatible with the TensorArray's inferred element shape: [2] "
              "(consider setting infer_shape=False).");

  Scope root2 = Scope::NewRootScope();
  ops::TensorArray tb(root2, 2, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  ExpectError(RunScope(root2, {ops::TensorArrayWrite(root2, tb.handle, 0, ops::Const(root2, {1, 2}),
                                                     tb.flow)}),
              absl::StatusCode::kInvalidArgument,
              "TensorArray foo: Could not write to TensorArray index 0 because the value dtype "
              "is int32 but TensorArray dtype is float.");

  // identical_element_shapes: the first write fixes the shape of the rest.
  Scope root3 = Scope::NewRootScope();
  ops::TensorArray tc(root3, 2, DT_FLOAT,
                      ops::TensorArray::IdenticalElementShapes(true).TensorArrayName("baz"));
  Output f = ops::TensorArrayWrite(root3, tc.handle, 0, FloatConst(root3, {2}, {1, 2}), tc.flow);
  f = ops::TensorArrayWrite(root3, tc.handle, 1, FloatConst(root3, {3}, {1, 2, 3}), f);
  ExpectError(RunScope(root3, {f}), absl::StatusCode::kInvalidArgument,
              "because the value shape is [3] which is incompatible with the TensorArray's "
              "inferred element shape: [2]");
}

TEST(TensorArrayErrorsTest, ReadingWithAnotherDtype) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 2, DT_FLOAT);
  ExpectError(RunScope(root, {ops::TensorArrayRead(root, ta.handle, 0, ta.flow, DT_INT32)}),
              absl::StatusCode::kInvalidArgument,
              "TensorArray dtype is float but Op requested dtype int32.");
}

TEST(TensorArrayErrorsTest, IndexOutOfRange) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 2, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  ExpectError(RunScope(root, {ops::TensorArrayWrite(root, ta.handle, 2, FloatConst(root, {1}, {1}),
                                                    ta.flow)}),
              absl::StatusCode::kInvalidArgument,
              "TensorArray foo: Tried to write to index 2 but array is not resizeable and size "
              "is: 2");
  Scope root2 = Scope::NewRootScope();
  ops::TensorArray tb(root2, 2, DT_FLOAT, ops::TensorArray::DynamicSize(true));
  ExpectError(RunScope(root2, {ops::TensorArrayWrite(root2, tb.handle, -1,
                                                     FloatConst(root2, {1}, {1}), tb.flow)}),
              absl::StatusCode::kInvalidArgument, "Tried to write to index -1");
  Scope root3 = Scope::NewRootScope();
  ops::TensorArray tc(root3, 2, DT_FLOAT);
  ExpectError(RunScope(root3, {ops::TensorArrayRead(root3, tc.handle, 5, tc.flow, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument,
              "Tried to read from index 5 but array size is: 2");
  Scope root4 = Scope::NewRootScope();
  ops::TensorArray td(root4, -1, DT_FLOAT);
  ExpectError(RunScope(root4, {td.flow}), absl::StatusCode::kInvalidArgument,
              "Size should be >= 0.");
}

TEST(TensorArrayErrorsTest, UsingAClosedArray) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 2, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  ops::TensorArrayClose close(root, ta.handle);
  Output size =
      ops::TensorArraySize(root.WithControlDependencies({close.operation}), ta.handle, ta.flow);
  ExpectError(RunScope(root, {size}), absl::StatusCode::kInvalidArgument,
              "TensorArray foo has already been closed.");
}

TEST(TensorArrayErrorsTest, GatherScatterConcatSplitChecks) {
  {
    Scope root = Scope::NewRootScope();
    ops::TensorArray ta(root, 2, DT_FLOAT);
    Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1}, {1}), ta.flow);
    f = ops::TensorArrayWrite(root, ta.handle, 1, FloatConst(root, {2}, {1, 2}), f);
    ExpectError(RunScope(root, {ops::TensorArrayGather(root, ta.handle, ops::Const(root, {0, 1}), f,
                                                       DT_FLOAT)}),
                absl::StatusCode::kInvalidArgument,
                "TensorArray has inconsistent shapes.  Index 0 has shape: [1] but index 1 has "
                "shape: [2]");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::TensorArray ta(root, 2, DT_FLOAT);
    Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {1, 2}, {1, 2}), ta.flow);
    f = ops::TensorArrayWrite(root, ta.handle, 1, FloatConst(root, {1, 3}, {1, 2, 3}), f);
    ExpectError(RunScope(root, {ops::TensorArrayConcat(root, ta.handle, f, DT_FLOAT).value}),
                absl::StatusCode::kInvalidArgument,
                "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) "
                "shape: [2] but index 1 has (excepting dimension 0) shape: [3]");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::TensorArray ta(root, 1, DT_FLOAT);
    Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {}, {1}), ta.flow);
    ExpectError(RunScope(root, {ops::TensorArrayConcat(root, ta.handle, f, DT_FLOAT).value}),
                absl::StatusCode::kInvalidArgument, "Concat saw a scalar shape at index 0");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::TensorArray ta(root, 3, DT_FLOAT);
    ExpectError(
        RunScope(root, {ops::TensorArrayScatter(root, ta.handle, ops::Const(root, {0, 1}),
                                                FloatConst(root, {3}, {1, 2, 3}), ta.flow)}),
        absl::StatusCode::kInvalidArgument,
        "Expected len(indices) == values.shape[0], but saw: 2 vs. 3");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::TensorArray ta(root, 2, DT_FLOAT);
    Output lengths = ops::Const(root, Tensor::FromVector<int64_t>(TensorShape{2}, {1, 1}));
    ExpectError(
        RunScope(root, {ops::TensorArraySplit(root, ta.handle, FloatConst(root, {3}, {1, 2, 3}),
                                              lengths, ta.flow)}),
        absl::StatusCode::kInvalidArgument,
        "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
        "2 and value's shape is: [3]");
    Output three = ops::Const(root, Tensor::FromVector<int64_t>(TensorShape{3}, {1, 1, 1}));
    ExpectError(
        RunScope(root, {ops::TensorArraySplit(root, ta.handle, FloatConst(root, {3}, {1, 2, 3}),
                                              three, ta.flow)}),
        absl::StatusCode::kInvalidArgument,
        "TensorArray's size is not equal to the size of lengths (2 vs. 3), and the "
        "TensorArray is not marked as dynamically resizeable");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::TensorArray ta(root, 2, DT_FLOAT);
    ExpectError(RunScope(root, {ops::TensorArrayScatter(root, ta.handle, ops::Const(root, {0, 2}),
                                                        FloatConst(root, {2}, {1, 2}), ta.flow)}),
                absl::StatusCode::kInvalidArgument, "Max index must be < array size (2 vs. 2)");
    ExpectError(RunScope(root, {ops::TensorArrayScatter(root, ta.handle, ops::Const(root, {0}),
                                                        ops::Const(root, {1}), ta.flow)}),
                absl::StatusCode::kInvalidArgument,
                "TensorArray dtype is float but Op is trying to write dtype int32.");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::TensorArray ta(root, 0, DT_FLOAT);
    ExpectError(
        RunScope(root, {ops::TensorArrayGather(root, ta.handle,
                                               ops::Const(root, Tensor(DT_INT32, TensorShape{0})),
                                               ta.flow, DT_FLOAT)}),
        absl::StatusCode::kUnimplemented,
        "TensorArray has size zero, but element shape <unknown> is not fully defined.");
  }
}

TEST(TensorArrayErrorsTest, HandlesOfOtherResourcesAreRefused) {
  Scope root = Scope::NewRootScope();
  ops::VarHandleOp var(root, DT_FLOAT, PartialTensorShape({1}));
  ExpectError(RunScope(root, {ops::TensorArraySize(root, var.resource, 0.f)}),
              absl::StatusCode::kInvalidArgument, "expected a TensorArray handle");
  Scope root2 = Scope::NewRootScope();
  ops::Stack stack(root2, -1, DT_FLOAT);
  ExpectError(RunScope(root2, {ops::TensorArraySize(root2, stack.handle, 0.f)}),
              absl::StatusCode::kInvalidArgument, "expected a TensorArray handle");
  Scope root3 = Scope::NewRootScope();
  ops::TensorArray ta(root3, 1, DT_FLOAT);
  ExpectError(RunScope(root3, {ops::ReadVariableOp(root3, ta.handle, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument, "expected a resource handle");
}

// ---- Gradient arrays ----

TEST(TensorArrayGradTest, OneGradientArrayPerSourceWhoseWritesAddUp) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 3, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {2}, {1, 2}), ta.flow);
  f = ops::TensorArrayWrite(root, ta.handle, 1, FloatConst(root, {2}, {3, 4}), f);
  ops::TensorArrayGrad g1(root, ta.handle, f, "gradients");
  Output w =
      ops::TensorArrayWrite(root, g1.grad_handle, 0, FloatConst(root, {2}, {1, 1}), g1.flow_out);
  w = ops::TensorArrayWrite(root, g1.grad_handle, 0, FloatConst(root, {2}, {10, 20}), w);
  // The same source gives the same array; another source a fresh one.
  ops::TensorArrayGrad g2(root.WithControlDependencies(w), ta.handle, f, "gradients");
  ops::TensorArrayGrad other(root.WithControlDependencies(w), ta.handle, f, "gradients_1");
  auto out =
      RunScope(root, {ops::TensorArrayRead(root, g2.grad_handle, 0, g2.flow_out, DT_FLOAT),
                      ops::TensorArrayRead(root, g2.grad_handle, 1, g2.flow_out, DT_FLOAT),
                      ops::TensorArraySize(root, g2.grad_handle, g2.flow_out),
                      ops::TensorArrayRead(root, other.grad_handle, 0, other.flow_out, DT_FLOAT)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(11, 21));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(0, 0));  // unwritten: zeros of the forward's shape
  EXPECT_EQ(*(*out)[2].data<int32_t>(), 3);
  EXPECT_THAT(Floats((*out)[3]), ElementsAre(0, 0));
}

TEST(TensorArrayGradTest, GradWithShapePrependsToTheRecordedShapes) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 1, DT_FLOAT);
  Output f = ops::TensorArrayWrite(root, ta.handle, 0, FloatConst(root, {2}, {1, 2}), ta.flow);
  ops::TensorArrayGradWithShape g(root, ta.handle, f, ops::Const(root, {3}), "gradients");
  auto out = RunScope(root, {ops::TensorArrayRead(root, g.grad_handle, 0, g.flow_out, DT_FLOAT)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (TensorShape{3, 2}));
}

TEST(TensorArrayGradTest, AggregatingWritesOfAnotherShapeFail) {
  Scope root = Scope::NewRootScope();
  ops::TensorArray ta(root, 1, DT_FLOAT, ops::TensorArray::TensorArrayName("foo"));
  ops::TensorArrayGrad g(root, ta.handle, ta.flow, "gradients");
  Output w =
      ops::TensorArrayWrite(root, g.grad_handle, 0, FloatConst(root, {2}, {1, 1}), g.flow_out);
  w = ops::TensorArrayWrite(root, g.grad_handle, 0, FloatConst(root, {3}, {1, 1, 1}), w);
  ExpectError(RunScope(root, {w}), absl::StatusCode::kInvalidArgument,
              "TensorArray foo@gradients: Could not aggregate to TensorArray index 0 because "
              "the existing shape is [2] but the new input shape is [3].");
}

// ---- Stacks ----

TEST(StackTest, PushesAndPopsInReverseOrder) {
  Scope root = Scope::NewRootScope();
  ops::Stack stack(root, -1, DT_FLOAT, ops::Stack::StackName("s"));
  ops::StackPush p1(root, stack.handle, FloatConst(root, {2}, {1, 2}));
  ops::StackPush p2(root.WithControlDependencies(p1.output), stack.handle,
                    FloatConst(root, {1}, {3}), /*swap_memory=*/true);
  ops::StackPop a(root.WithControlDependencies(p2.output), stack.handle, DT_FLOAT);
  ops::StackPop b(root.WithControlDependencies(a.elem), stack.handle, DT_FLOAT);
  auto out = RunScope(root, {p2.output, a.elem, b.elem});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(3));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(3));
  EXPECT_THAT(Floats((*out)[2]), ElementsAre(1, 2));
}

TEST(StackTest, Errors) {
  {
    Scope root = Scope::NewRootScope();
    ops::Stack stack(root, -1, DT_FLOAT, ops::Stack::StackName("s"));
    ExpectError(RunScope(root, {ops::StackPop(root, stack.handle, DT_FLOAT)}),
                absl::StatusCode::kInvalidArgument, "Stack[s] is empty when calling Pop().");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::Stack stack(root, 1, DT_FLOAT, ops::Stack::StackName("s"));
    ops::StackPush p1(root, stack.handle, 1.f);
    ops::StackPush p2(root.WithControlDependencies(p1.output), stack.handle, 2.f);
    ExpectError(RunScope(root, {p2.output}), absl::StatusCode::kInvalidArgument,
                "Stack[s] overflowed its max_size (1)");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::Stack stack(root, -1, DT_FLOAT, ops::Stack::StackName("s"));
    ops::StackClose close(root, stack.handle);
    ops::StackPush p(root.WithControlDependencies({close.operation}), stack.handle, 1.f);
    ExpectError(RunScope(root, {p.output}), absl::StatusCode::kInvalidArgument,
                "Stack[s] has already been closed.");
  }
  {
    Scope root = Scope::NewRootScope();
    ops::Stack stack(root, -1, DT_FLOAT, ops::Stack::StackName("s"));
    ExpectError(RunScope(root, {ops::StackPush(root, stack.handle, 1).output}),
                absl::StatusCode::kInvalidArgument, "Must have type float but got int32");
  }
}

// ---- While loops ----

// A v1 while loop as tf.while_loop builds it: per loop variable Enter, Merge (its second input the
// NextIteration, patched into the GraphDef, since the client adds nodes with existing inputs
// only), Switch on LoopCond, Identity into the body, NextIteration and Exit. `invariants` enter
// the frame as constants.
struct WhileLoop {
  using Body = std::function<std::vector<Output>(const Scope&, const std::vector<Output>& vars,
                                                 const std::vector<Output>& invariants)>;
  using Cond = std::function<Output(const Scope&, const std::vector<Output>& vars,
                                    const std::vector<Output>& invariants)>;

  WhileLoop(const Scope& root, const std::string& name, const std::vector<Output>& initial,
            const std::vector<Output>& invariants, const Cond& cond, const Body& body) {
    Scope s = root.NewSubScope(name);
    const std::string frame = name;
    auto enter = [&](const Output& x, bool constant) {
      OpBuilder b(s, "Enter");
      b.Input(x)
          .AttrType("T", x.type())
          .AttrString("frame_name", frame)
          .AttrBool("is_constant", constant)
          .AttrInt("parallel_iterations", 10);
      return b.Finalize({x.type()}).output(0);
    };
    std::vector<Output> merges, constants;
    for (const Output& x : invariants) constants.push_back(enter(x, true));
    for (const Output& x : initial) {
      Output e = enter(x, false);
      OpBuilder b(s, "Merge");
      b.Inputs({e, e}).AttrType("T", x.type()).AttrInt("N", 2);
      merges.push_back(b.Finalize({x.type(), DT_INT32}).output(0));
    }
    OpBuilder lc(s, "LoopCond");
    lc.Input(cond(s, merges, constants));
    Output pred = lc.Finalize({DT_BOOL}).output(0);
    std::vector<Output> vars;
    for (const Output& m : merges) {
      OpBuilder sw(s, "Switch");
      sw.Input(m).Input(pred).AttrType("T", m.type());
      Operation op = sw.Finalize({m.type(), m.type()});
      OpBuilder ex(s, "Exit");
      ex.Input(op.output(0)).AttrType("T", m.type());
      exits.push_back(ex.Finalize({m.type()}).output(0));
      vars.push_back(ops::Identity(s, op.output(1)));
    }
    std::vector<Output> next = body(s, vars, constants);
    for (size_t i = 0; i < next.size(); ++i) {
      OpBuilder ni(s, "NextIteration");
      ni.Input(next[i]).AttrType("T", next[i].type());
      back_edges.emplace_back(merges[i].node_name(), ni.Finalize({next[i].type()}).node_name());
    }
  }

  // Points each Merge's second input at its NextIteration.
  void Patch(tensorflow::GraphDef* graph) const {
    for (tensorflow::NodeDef& node : *graph->mutable_node()) {
      for (const auto& [merge, next] : back_edges) {
        if (node.name() == merge) node.set_input(1, next);
      }
    }
  }

  std::vector<Output> exits;
  std::vector<std::pair<std::string, std::string>> back_edges;
};

// Runs `root`'s graph with every loop patched.
absl::StatusOr<std::vector<Tensor>> RunLoops(const Scope& root,
                                             const std::vector<const WhileLoop*>& loops,
                                             const std::vector<Output>& fetches,
                                             const SessionOptions& options = SessionOptions()) {
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  if (!graph.ok()) return graph.status();
  for (const WhileLoop* loop : loops) loop->Patch(&*graph);
  return RunGraph(*graph, fetches, {}, options);
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// A tanh RNN over T steps as tf.nn.dynamic_rnn runs it: the inputs unstacked into a TensorArray,
// one step read per iteration, each output written to a second TensorArray, stacked at the end.
void CheckDynamicRnn(const SessionOptions& options) {
  constexpr int T = 5, B = 2, D = 3, H = 4;
  const std::vector<float> x = RandomFloats(T * B * D, 1);
  const std::vector<float> wx = RandomFloats(D * H, 2);
  const std::vector<float> wh = RandomFloats(H * H, 3);
  const std::vector<float> bias = RandomFloats(H, 4);

  Scope root = Scope::NewRootScope();
  Output inputs = FloatConst(root, {T, B, D}, x);
  ops::TensorArray input_ta(root, T, DT_FLOAT, ops::TensorArray::ElementShape({B, D}));
  Output input_flow = ops::TensorArrayScatter(root, input_ta.handle, ops::Range(root, 0, T, 1),
                                              inputs, input_ta.flow);
  ops::TensorArray output_ta(root, T, DT_FLOAT);
  Output h0 = FloatConst(root, {B, H}, std::vector<float>(B * H, 0.f));
  WhileLoop loop(
      root, "rnn", {ops::Const(root, 0), h0, output_ta.flow},
      {input_ta.handle, input_flow, output_ta.handle, FloatConst(root, {D, H}, wx),
       FloatConst(root, {H, H}, wh), FloatConst(root, {H}, bias), ops::Const(root, T)},
      [](const Scope& s, const std::vector<Output>& v, const std::vector<Output>& c) {
        return ops::Less(s, v[0], c[6]);
      },
      [](const Scope& s, const std::vector<Output>& v, const std::vector<Output>& c) {
        Output x_t = ops::TensorArrayRead(s, c[0], v[0], c[1], DT_FLOAT);
        Output pre =
            ops::Add(s, ops::Add(s, ops::MatMul(s, x_t, c[3]), ops::MatMul(s, v[1], c[4])), c[5]);
        Output h = ops::Tanh(s, pre);
        Output flow = ops::TensorArrayWrite(s, c[2], v[0], h, v[2]);
        Output one = ops::Const(s.WithControlDependencies(v[0]), 1);
        return std::vector<Output>{ops::Add(s, v[0], one), h, flow};
      });
  Output outputs = ops::TensorArrayGather(root, output_ta.handle, ops::Range(root, 0, T, 1),
                                          loop.exits[2], DT_FLOAT);
  ASSERT_TRUE(root.ok()) << root.status();
  auto out = RunLoops(root, {&loop}, {outputs, loop.exits[1], loop.exits[0]}, options);
  ASSERT_TRUE(out.ok()) << out.status();

  // The recurrence, computed here.
  std::vector<float> h(B * H, 0.f), expected;
  for (int t = 0; t < T; ++t) {
    std::vector<float> next(B * H);
    for (int b = 0; b < B; ++b) {
      for (int j = 0; j < H; ++j) {
        double acc = bias[j];
        for (int d = 0; d < D; ++d) acc += x[(t * B + b) * D + d] * wx[d * H + j];
        for (int k = 0; k < H; ++k) acc += h[b * H + k] * wh[k * H + j];
        next[b * H + j] = static_cast<float>(std::tanh(acc));
      }
    }
    h = next;
    expected.insert(expected.end(), h.begin(), h.end());
  }
  EXPECT_EQ((*out)[0].shape(), (TensorShape{T, B, H}));
  const std::vector<float> got = Floats((*out)[0]);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << i;
  const std::vector<float> last = Floats((*out)[1]);
  for (size_t i = 0; i < last.size(); ++i) EXPECT_NEAR(last[i], h[i], 1e-5);
  EXPECT_EQ(*(*out)[2].data<int32_t>(), T);
}

TEST(DataFlowLoopTest, DynamicRnnMatchesTheRecurrence) { CheckDynamicRnn(SessionOptions()); }

// The forward loop pushes t*t for t = 0..N-1; the backward loop pops N values and writes the
// i-th pop to index N-1-i, so the gathered array is the pushes in order again.
void CheckStackLoops(const SessionOptions& options) {
  constexpr int N = 6;
  Scope root = Scope::NewRootScope();
  ops::Stack stack(root, -1, DT_FLOAT, ops::Stack::StackName("history"));
  WhileLoop forward(
      root, "forward", {ops::Const(root, 0)}, {stack.handle, ops::Const(root, N)},
      [](const Scope& s, const std::vector<Output>& v, const std::vector<Output>& c) {
        return ops::Less(s, v[0], c[1]);
      },
      [](const Scope& s, const std::vector<Output>& v, const std::vector<Output>& c) {
        Output value = ops::Cast(s, ops::Mul(s, v[0], v[0]), DT_FLOAT);
        ops::StackPush push(s, c[0], value);
        Output one = ops::Const(s.WithControlDependencies(push.output), 1);
        return std::vector<Output>{ops::Add(s, v[0], one)};
      });
  ops::TensorArray popped(root, N, DT_FLOAT);
  WhileLoop backward(
      root, "backward", {forward.exits[0], popped.flow, ops::Const(root, 0.f)},
      {stack.handle, popped.handle},
      [](const Scope& s, const std::vector<Output>& v, const std::vector<Output>&) {
        return ops::Greater(s, v[0], ops::Const(s.WithControlDependencies(v[0]), 0));
      },
      [](const Scope& s, const std::vector<Output>& v, const std::vector<Output>& c) {
        Output i = ops::Sub(s, v[0], ops::Const(s.WithControlDependencies(v[0]), 1));
        // Ordered after this iteration's counter, as TensorFlow's backprop orders its pops.
        Output value = ops::StackPop(s.WithControlDependencies(i), c[0], DT_FLOAT);
        Output flow = ops::TensorArrayWrite(s, c[1], i, value, v[1]);
        return std::vector<Output>{i, flow, ops::Add(s, v[2], value)};
      });
  Output all = ops::TensorArrayGather(root, popped.handle, ops::Range(root, 0, N, 1),
                                      backward.exits[1], DT_FLOAT);
  ASSERT_TRUE(root.ok()) << root.status();
  auto out = RunLoops(root, {&forward, &backward}, {all, backward.exits[2]}, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(0, 1, 4, 9, 16, 25));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(55));
}

TEST(DataFlowLoopTest, StackFilledByOneLoopIsEmptiedByAnother) {
  CheckStackLoops(SessionOptions());
}

// ---- A device whose memory the host cannot reach ----

SessionOptions TestDeviceOptions() {
  SessionOptions options;
  options.plugin_paths.push_back(TESSERA_TESTDEVICE_PLUGIN_DIR);
  return options;
}

TEST(DataFlowTestDeviceTest, GatherScatterConcatSplitAndZerosThroughDeviceCopies) {
  Scope root = Scope::NewRootScope().WithDevice("/device:TESTDEV:0");
  ops::TensorArray ta(root, 3, DT_FLOAT, ops::TensorArray::ElementShape({2}));
  Output value = FloatConst(root, {2, 2}, {1, 2, 3, 4});
  Output f = ops::TensorArrayScatter(root, ta.handle, ops::Const(root, {2, 0}), value, ta.flow);
  Output gathered =
      ops::TensorArrayGather(root, ta.handle, ops::Const(root, {0, 1, 2}), f, DT_FLOAT);
  ops::TensorArray tb(root, 2, DT_FLOAT);
  Output lengths = ops::Const(root, Tensor::FromVector<int64_t>(TensorShape{2}, {1, 2}));
  Output g =
      ops::TensorArraySplit(root, tb.handle, FloatConst(root, {3}, {5, 6, 7}), lengths, tb.flow);
  ops::TensorArrayConcat concat(root, tb.handle, g, DT_FLOAT);
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto out = RunGraph(*graph, {gathered, concat.value}, {}, TestDeviceOptions());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(3, 4, 0, 0, 1, 2));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(5, 6, 7));
}

}  // namespace
}  // namespace tessera
