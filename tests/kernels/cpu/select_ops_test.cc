// Select and SelectV2 against reference loops: Select's scalar, same-shape and vector conditions,
// SelectV2's three-way broadcasting, several element sizes, empty tensors and the shape errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

// The flat index into an operand of shape `in` broadcast to `out` (numpy's rules).
template <typename T>
std::vector<T> SelectReference(const Tensor& cond, const Tensor& t, const Tensor& e,
                               const TensorShape& out) {
  std::vector<T> expected(static_cast<size_t>(out.num_elements()));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    const bool c = cond.data<bool>()[BroadcastIndex(out, cond.shape(), i)];
    expected[i] = c ? t.data<T>()[BroadcastIndex(out, t.shape(), i)]
                    : e.data<T>()[BroadcastIndex(out, e.shape(), i)];
  }
  return expected;
}

template <typename T>
void CheckSelectV2(const TensorShape& cond_shape, const TensorShape& t_shape,
                   const TensorShape& e_shape) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + cond_shape.DebugString() + " " +
               t_shape.DebugString() + " " + e_shape.DebugString());
  Tensor cond = Random<bool>(cond_shape);
  Tensor t = Random<T>(t_shape, -100, 100);
  Tensor e = Random<T>(e_shape, -100, 100);
  const TensorShape out = BroadcastShape(BroadcastShape(cond_shape, t_shape), e_shape);
  OpTester tester("SelectV2");
  tester.Attr("T", DataTypeOf<T>::value).Input(cond).Input(t).Input(e);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out, SelectReference<T>(cond, t, e, out),
                      0);
}

template <typename T>
void CheckSelectV2Shapes() {
  const std::vector<std::vector<TensorShape>> cases = {
      {Shape({}), Shape({}), Shape({})},
      {Shape({5}), Shape({5}), Shape({5})},
      {Shape({}), Shape({2, 3}), Shape({2, 3})},
      {Shape({}), Shape({2, 3}), Shape({3})},
      {Shape({2, 1}), Shape({3}), Shape({})},
      {Shape({4, 1, 3}), Shape({5, 1}), Shape({1, 1, 3})},
      {Shape({3}), Shape({2, 3}), Shape({2, 1})},
      {Shape({0}), Shape({1}), Shape({})},
      {Shape({2, 0}), Shape({2, 1}), Shape({0})},
      {Shape({300, 1}), Shape({1, 257}), Shape({257})},
      {Shape({10000}), Shape({10000}), Shape({10000})},
  };
  for (const auto& c : cases) CheckSelectV2<T>(c[0], c[1], c[2]);
}

TEST(SelectOpsTest, SelectV2BroadcastsAllThree) {
  CheckSelectV2Shapes<float>();
  CheckSelectV2Shapes<int64_t>();
  CheckSelectV2Shapes<bool>();
  CheckSelectV2Shapes<int16_t>();
}

// complex128 elements are 16 bytes: each picks both halves from the same operand.
TEST(SelectOpsTest, SixteenByteElements) {
  for (const char* op : {"Select", "SelectV2"}) {
    Tensor t(TSR_DTYPE_COMPLEX128, Shape({3}));
    Tensor e(TSR_DTYPE_COMPLEX128, Shape({3}));
    for (int i = 0; i < 6; ++i) {
      t.data<double>()[i] = i;
      e.data<double>()[i] = -i;
    }
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_COMPLEX128)
        .Input(Make<bool>(Shape({3}), {true, false, true}))
        .Input(t)
        .Input(e);
    Tensor out = RunOk(tester);
    ASSERT_EQ(out.dtype(), TSR_DTYPE_COMPLEX128);
    ASSERT_EQ(out.NumElements(), 3);
    EXPECT_THAT(std::vector<double>(out.data<double>(), out.data<double>() + 6),
                ::testing::ElementsAre(0, 1, -2, -3, 4, 5))
        << op;
  }
}

template <typename T>
void CheckSelect(const TensorShape& cond_shape, const TensorShape& shape) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + cond_shape.DebugString() + " " +
               shape.DebugString());
  Tensor cond = Random<bool>(cond_shape);
  Tensor t = Random<T>(shape, -100, 100);
  Tensor e = Random<T>(shape, -100, 100);
  std::vector<T> expected(static_cast<size_t>(shape.num_elements()));
  const int64_t rows = cond_shape.rank() == 1 && shape.rank() != 1 ? cond_shape.dim(0) : 0;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    bool c;
    if (cond_shape.rank() == 0) {
      c = cond.data<bool>()[0];
    } else if (rows > 0) {
      c = cond.data<bool>()[i / (shape.num_elements() / rows)];
    } else {
      c = cond.data<bool>()[i];
    }
    expected[i] = c ? t.data<T>()[i] : e.data<T>()[i];
  }
  OpTester tester("Select");
  tester.Attr("T", DataTypeOf<T>::value).Input(cond).Input(t).Input(e);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, 0);
}

template <typename T>
void CheckSelectShapes() {
  CheckSelect<T>(Shape({}), Shape({}));
  CheckSelect<T>(Shape({}), Shape({2, 3}));
  CheckSelect<T>(Shape({}), Shape({0}));
  CheckSelect<T>(Shape({6}), Shape({6}));
  CheckSelect<T>(Shape({2, 3}), Shape({2, 3}));
  CheckSelect<T>(Shape({0, 3}), Shape({0, 3}));
  // A vector condition picks whole rows of higher-rank t and e.
  CheckSelect<T>(Shape({4}), Shape({4, 5}));
  CheckSelect<T>(Shape({3}), Shape({3, 2, 7}));
  CheckSelect<T>(Shape({2}), Shape({2, 0}));
  CheckSelect<T>(Shape({1000}), Shape({1000, 33}));
  CheckSelect<T>(Shape({100000}), Shape({100000}));
}

TEST(SelectOpsTest, SelectFollowsTensorFlowsConditionRule) {
  CheckSelectShapes<float>();
  CheckSelectShapes<double>();
  CheckSelectShapes<int32_t>();
  CheckSelectShapes<uint8_t>();
  CheckSelectShapes<bool>();
}

void ExpectSelectError(const char* op, const TensorShape& cond, const TensorShape& t,
                       const TensorShape& e, const std::string& message) {
  SCOPED_TRACE(std::string(op) + " " + cond.DebugString() + " " + t.DebugString() + " " +
               e.DebugString());
  OpTester tester(op);
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<bool>(cond))
      .Input(Random<float>(t))
      .Input(Random<float>(e));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, message);
}

TEST(SelectOpsTest, SelectRejectsMismatchedShapes) {
  ExpectSelectError("Select", Shape({}), Shape({2}), Shape({3}),
                    "'then' and 'else' must have the same size.  but received: [2] vs. [3]");
  ExpectSelectError("Select", Shape({2}), Shape({2, 3}), Shape({2, 4}),
                    "'then' and 'else' must have the same size.  but received: [2,3] vs. [2,4]");
  ExpectSelectError("Select", Shape({2}), Shape({}), Shape({}),
                    "'then' must be at least a vector, but saw shape: []");
  ExpectSelectError("Select", Shape({2}), Shape({3, 4}), Shape({3, 4}),
                    "Number of batches of 'then' must match size of 'cond', but saw: 3 vs. 2");
  ExpectSelectError("Select", Shape({3}), Shape({4}), Shape({4}),
                    "of type Select must have the same size and shape.  Input 0: [3] != input "
                    "1: [4]");
  ExpectSelectError("Select", Shape({2, 3}), Shape({2, 3}), Shape({3, 2}),
                    "of type Select must have the same size and shape.  Input 0: [2,3] != input "
                    "2: [3,2]");
}

TEST(SelectOpsTest, SelectV2RejectsShapesThatDoNotBroadcast) {
  ExpectSelectError("SelectV2", Shape({2}), Shape({3}), Shape({}),
                    "condition [2], then [3], and else [] must be broadcastable");
  ExpectSelectError("SelectV2", Shape({}), Shape({2, 3}), Shape({2, 2}),
                    "condition [], then [2,3], and else [2,2] must be broadcastable");
}

}  // namespace
}  // namespace tessera::cpu::test
