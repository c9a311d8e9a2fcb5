// Bucketize against std::upper_bound for every registered type (empty, scalar, size-1 and large
// inputs; empty and unsorted boundaries), TensorFlow's example, NaN and infinities.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

tensorflow::AttrValue Boundaries(const std::vector<float>& values) {
  tensorflow::AttrValue attr;
  attr.mutable_list();
  for (float v : values) attr.mutable_list()->add_f(v);
  return attr;
}

template <typename T>
void CheckBucketize(const std::vector<float>& boundaries) {
  for (const TensorShape& shape : {Shape({}), Shape({0}), Shape({1}), Shape({3, 0, 2}),
                                   Shape({1, 1, 5}), Shape({4, 5, 6}), Shape({100003})}) {
    SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + shape.DebugString() + " " +
                 std::to_string(boundaries.size()) + " boundaries");
    Tensor x = Random<T>(shape, -12, 12);
    OpTester tester("Bucketize");
    tester.Attr("T", DataTypeOf<T>::value).Attr("boundaries", Boundaries(boundaries)).Input(x);
    std::vector<int32_t> expected;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const T v = x.data<T>()[i];
      expected.push_back(
          static_cast<int32_t>(std::upper_bound(boundaries.begin(), boundaries.end(), v,
                                                [](T value, float b) { return value < b; }) -
                               boundaries.begin()));
    }
    ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, shape, expected);
  }
}

template <typename T>
void CheckAll() {
  CheckBucketize<T>({-10, -3.5f, 0, 0, 1, 4.25f, 9});
  CheckBucketize<T>({2});
  CheckBucketize<T>({});
}

TEST(BucketizeOpTest, FloatMatchesReference) { CheckAll<float>(); }
TEST(BucketizeOpTest, DoubleMatchesReference) { CheckAll<double>(); }
TEST(BucketizeOpTest, Int32MatchesReference) { CheckAll<int32_t>(); }
TEST(BucketizeOpTest, Int64MatchesReference) { CheckAll<int64_t>(); }

// TensorFlow's example: boundaries [0, 10, 100]; a value on a boundary goes to the bucket above.
TEST(BucketizeOpTest, TensorFlowsExampleAndSpecialValues) {
  OpTester tester("Bucketize");
  tester.Attr("T", TSR_DTYPE_INT32)
      .Attr("boundaries", Boundaries({0, 10, 100}))
      .Input(Make<int32_t>(Shape({2, 3}), {-5, 10000, 150, 10, 5, 100}));
  ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, Shape({2, 3}), {0, 3, 3, 2, 1, 3});
  const double inf = std::numeric_limits<double>::infinity();
  OpTester special("Bucketize");
  special.Attr("T", TSR_DTYPE_DOUBLE)
      .Attr("boundaries", Boundaries({0, 10, 100}))
      .Input(Make<double>(Shape({4}), {-inf, inf, std::nan(""), 9.999999}));
  ExpectTensorNear<int32_t>(RunOk(special), TSR_DTYPE_INT32, Shape({4}), {0, 3, 3, 1});
}

TEST(BucketizeOpTest, RejectsUnsortedBoundaries) {
  OpTester tester("Bucketize");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("boundaries", Boundaries({1, 3, 2}))
      .Input(Random<float>(Shape({4})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "Expected sorted boundaries");
}

}  // namespace
}  // namespace tessera::cpu::test
