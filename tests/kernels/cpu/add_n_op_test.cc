// AddN against a reference loop for one to many inputs of several shapes (scalars, empty and
// large tensors) and every registered type, plus its shape errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckAddN(const TensorShape& shape, int n) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString() +
               " N=" + std::to_string(n));
  OpTester tester("AddN");
  tester.Attr("T", DataTypeOf<T>::value).Attr("N", static_cast<int64_t>(n));
  std::vector<T> expected(static_cast<size_t>(shape.num_elements()), T(0));
  for (int i = 0; i < n; ++i) {
    Tensor input = Random<T>(shape, -100, 100);
    for (size_t k = 0; k < expected.size(); ++k) expected[k] += input.data<T>()[k];
    tester.Input(input);
  }
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected, 1e-5);
}

template <typename T>
void CheckAll() {
  for (const TensorShape& shape :
       {Shape({}), Shape({0}), Shape({7}), Shape({3, 0, 2}), Shape({4, 5, 6}), Shape({100003})}) {
    for (int n : {1, 2, 3, 9}) CheckAddN<T>(shape, n);
  }
}

TEST(AddNOpTest, FloatMatchesReference) { CheckAll<float>(); }
TEST(AddNOpTest, DoubleMatchesReference) { CheckAll<double>(); }
TEST(AddNOpTest, Int32MatchesReference) { CheckAll<int32_t>(); }
TEST(AddNOpTest, Int64MatchesReference) { CheckAll<int64_t>(); }

TEST(AddNOpTest, RejectsDifferentShapes) {
  // Shapes that only broadcast are still an error: AddN does not broadcast.
  OpTester tester("AddN");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", int64_t{3})
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({3})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Inputs to operation op_under_test of type AddN must have the same size and "
                 "shape.  Input 0: [2,3] != input 2: [3]");
}

}  // namespace
}  // namespace tessera::cpu::test
