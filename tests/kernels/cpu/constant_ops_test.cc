// Const, Identity, NoOp, Placeholder and PlaceholderWithDefault.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

TEST(ConstOpTest, OutputsItsValue) {
  for (const Tensor& value :
       {Random<float>(Shape({2, 3})), Random<float>(Shape({})), Random<float>(Shape({0, 4}))}) {
    OpTester tester("Const");
    tester.Attr("dtype", TSR_DTYPE_FLOAT).Attr("value", value);
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, value.shape(), Values<float>(value));
  }
  Tensor flags = Random<bool>(Shape({5}));
  OpTester booleans("Const");
  booleans.Attr("dtype", TSR_DTYPE_BOOL).Attr("value", flags);
  ExpectTensorNear<bool>(RunOk(booleans), TSR_DTYPE_BOOL, Shape({5}), Values<bool>(flags));
}

TEST(ConstOpTest, RejectsValueOfAnotherDtype) {
  OpTester tester("Const");
  tester.Attr("dtype", TSR_DTYPE_INT32).Attr("value", Random<float>(Shape({2})));
  // Shape inference or the kernel refuses it; both name the attr's dtype.
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "int32");
}

TEST(IdentityOpTest, ForwardsEveryDtype) {
  Tensor f = Random<float>(Shape({3, 2}));
  OpTester floats("Identity");
  floats.Attr("T", TSR_DTYPE_FLOAT).Input(f);
  ExpectTensorNear<float>(RunOk(floats), TSR_DTYPE_FLOAT, Shape({3, 2}), Values<float>(f));
  Tensor b = Random<bool>(Shape({4}));
  OpTester booleans("Identity");
  booleans.Attr("T", TSR_DTYPE_BOOL).Input(b);
  ExpectTensorNear<bool>(RunOk(booleans), TSR_DTYPE_BOOL, Shape({4}), Values<bool>(b));
  Tensor i = Random<int64_t>(Shape({}));
  OpTester ints("Identity");
  ints.Attr("T", TSR_DTYPE_INT64).Input(i);
  ExpectTensorNear<int64_t>(RunOk(ints), TSR_DTYPE_INT64, Shape({}), Values<int64_t>(i));
}

TEST(NoOpTest, RunsWithoutOutputs) {
  OpTester tester("NoOp");
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(0);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_TRUE(outputs->empty());
}

TEST(PlaceholderOpTest, FailsWhenRunUnfed) {
  OpTester tester("Placeholder");
  tester.Attr("dtype", TSR_DTYPE_FLOAT);
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "You must feed a value for placeholder tensor");
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "with dtype float");
}

TEST(PlaceholderWithDefaultOpTest, ForwardsItsInput) {
  Tensor x = Random<int32_t>(Shape({2, 2}));
  OpTester tester("PlaceholderWithDefault");
  tensorflow::AttrValue shape;
  shape.mutable_shape()->add_dim()->set_size(2);
  shape.mutable_shape()->add_dim()->set_size(2);
  tester.Attr("dtype", TSR_DTYPE_INT32).Attr("shape", shape).Input(x);
  ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, Shape({2, 2}), Values<int32_t>(x));
}

}  // namespace
}  // namespace tessera::cpu::test
