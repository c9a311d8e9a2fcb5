// LogicalAnd, LogicalOr and LogicalNot against reference loops on random bools, over
// broadcasting shape pairs (scalars, size-1 and empty dimensions, large tensors).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<std::pair<TensorShape, TensorShape>>& ShapePairs() {
  static const auto* pairs = new std::vector<std::pair<TensorShape, TensorShape>>{
      {Shape({}), Shape({})},
      {Shape({9}), Shape({9})},
      {Shape({}), Shape({4})},
      {Shape({2, 3}), Shape({3})},
      {Shape({2, 3}), Shape({2, 1})},
      {Shape({2, 1}), Shape({1, 3})},
      {Shape({3, 1, 4}), Shape({2, 1})},
      {Shape({1}), Shape({7})},
      {Shape({2, 1, 4, 1, 3}), Shape({5, 1, 2, 1})},
      {Shape({0}), Shape({1})},
      {Shape({0, 3}), Shape({3})},
      {Shape({2, 0}), Shape({})},
      {Shape({100003}), Shape({100003})},
      {Shape({300, 257}), Shape({257})},
      {Shape({129, 1}), Shape({1, 65})},
  };
  return *pairs;
}

void CheckLogical(const std::string& op, const std::function<bool(bool, bool)>& reference) {
  for (const auto& [x_shape, y_shape] : ShapePairs()) {
    for (bool swap : {false, true}) {
      const TensorShape& xs = swap ? y_shape : x_shape;
      const TensorShape& ys = swap ? x_shape : y_shape;
      SCOPED_TRACE(op + " " + xs.DebugString() + " vs " + ys.DebugString());
      Tensor x = Random<bool>(xs);
      Tensor y = Random<bool>(ys);
      const TensorShape out_shape = BroadcastShape(xs, ys);
      std::vector<bool> expected(static_cast<size_t>(out_shape.num_elements()));
      for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
        expected[i] = reference(x.data<bool>()[BroadcastIndex(out_shape, xs, i)],
                                y.data<bool>()[BroadcastIndex(out_shape, ys, i)]);
      }
      OpTester tester(op);
      tester.Input(x).Input(y);
      ExpectTensorNear<bool>(RunOk(tester), TSR_DTYPE_BOOL, out_shape, expected);
    }
  }
}

TEST(LogicalOpsTest, LogicalAndMatchesReference) {
  CheckLogical("LogicalAnd", [](bool a, bool b) { return a && b; });
}

TEST(LogicalOpsTest, LogicalOrMatchesReference) {
  CheckLogical("LogicalOr", [](bool a, bool b) { return a || b; });
}

TEST(LogicalOpsTest, TruthTables) {
  const Tensor x = Make<bool>(Shape({4}), {false, false, true, true});
  const Tensor y = Make<bool>(Shape({4}), {false, true, false, true});
  OpTester logical_and("LogicalAnd");
  logical_and.Input(x).Input(y);
  ExpectTensorNear<bool>(RunOk(logical_and), TSR_DTYPE_BOOL, Shape({4}),
                         {false, false, false, true});
  OpTester logical_or("LogicalOr");
  logical_or.Input(x).Input(y);
  ExpectTensorNear<bool>(RunOk(logical_or), TSR_DTYPE_BOOL, Shape({4}), {false, true, true, true});
  OpTester logical_not("LogicalNot");
  logical_not.Input(x);
  ExpectTensorNear<bool>(RunOk(logical_not), TSR_DTYPE_BOOL, Shape({4}),
                         {true, true, false, false});
}

TEST(LogicalOpsTest, LogicalNotMatchesReference) {
  for (const TensorShape& shape :
       {Shape({}), Shape({0}), Shape({7}), Shape({3, 0, 2}), Shape({4, 5, 6}), Shape({100003})}) {
    SCOPED_TRACE(shape.DebugString());
    Tensor x = Random<bool>(shape);
    std::vector<bool> expected(static_cast<size_t>(x.NumElements()));
    for (int64_t i = 0; i < x.NumElements(); ++i) expected[i] = !x.data<bool>()[i];
    OpTester tester("LogicalNot");
    tester.Input(x);
    ExpectTensorNear<bool>(RunOk(tester), TSR_DTYPE_BOOL, shape, expected);
  }
}

TEST(LogicalOpsTest, RejectsIncompatibleShapes) {
  for (const char* op : {"LogicalAnd", "LogicalOr"}) {
    SCOPED_TRACE(op);
    OpTester tester(op);
    tester.Input(Random<bool>(Shape({2, 3}))).Input(Random<bool>(Shape({2})));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Incompatible shapes: [2,3] vs. [2]");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
