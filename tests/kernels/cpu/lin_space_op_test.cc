// LinSpace against a reference for both types and both num types (num 1, small and large, rising
// and falling ranges), TensorFlow's example, and the errors for non-scalar inputs and num <= 0.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T, typename Index>
void CheckLinSpace(T start, T stop, Index num) {
  SCOPED_TRACE(DataTypeString(DataTypeOf<T>::value) + " " + std::to_string(start) + " to " +
               std::to_string(stop) + " in " + std::to_string(num));
  std::vector<T> expected;
  const T step = num > 1 ? (stop - start) / static_cast<T>(num - 1) : T(0);
  for (Index i = 0; i < num; ++i) expected.push_back(start + step * static_cast<T>(i));
  expected.back() = num > 1 ? stop : start;
  OpTester tester("LinSpace");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tidx", DataTypeOf<Index>::value)
      .Input(Tensor::Scalar<T>(start))
      .Input(Tensor::Scalar<T>(stop))
      .Input(Tensor::Scalar<Index>(num));
  Tensor out = RunOk(tester);
  ExpectTensorNear<T>(out, DataTypeOf<T>::value, Shape({static_cast<int64_t>(num)}), expected,
                      sizeof(T) == 4 ? 1e-6 : 1e-14);
  // The last value is exactly stop.
  if (num > 1 && out.NumElements() == num) {
    EXPECT_EQ(out.data<T>()[num - 1], stop);
  }
}

template <typename T>
void CheckAll() {
  for (int64_t num : {1, 2, 3, 7, 100000}) {
    CheckLinSpace<T, int32_t>(T(-3.5), T(12.25), static_cast<int32_t>(num));
    CheckLinSpace<T, int64_t>(T(10), T(-0.1), num);
  }
  CheckLinSpace<T, int32_t>(T(5), T(5), 4);
}

TEST(LinSpaceOpTest, FloatMatchesReference) { CheckAll<float>(); }
TEST(LinSpaceOpTest, DoubleMatchesReference) { CheckAll<double>(); }

TEST(LinSpaceOpTest, TensorFlowsExample) {
  OpTester tester("LinSpace");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Tensor::Scalar<float>(10))
      .Input(Tensor::Scalar<float>(12))
      .Input(Tensor::Scalar<int32_t>(3));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({3}), {10, 11, 12}, 0);
}

TEST(LinSpaceOpTest, RejectsNonScalarsAndNonPositiveNum) {
  for (int32_t num : {0, -2}) {
    OpTester tester("LinSpace");
    tester.Attr("T", TSR_DTYPE_DOUBLE)
        .Input(Tensor::Scalar<double>(0))
        .Input(Tensor::Scalar<double>(1))
        .Input(Tensor::Scalar<int32_t>(num));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "Requires num > 0: " + std::to_string(num));
  }
  OpTester start("LinSpace");
  start.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({2}), {0, 1}))
      .Input(Tensor::Scalar<float>(1))
      .Input(Tensor::Scalar<int32_t>(3));
  ExpectRunError(start, absl::StatusCode::kInvalidArgument,
                 "start must be a scalar, not shape [2]");
  OpTester stop("LinSpace");
  stop.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Tensor::Scalar<float>(1))
      .Input(Make<float>(Shape({1, 1}), {2}))
      .Input(Tensor::Scalar<int32_t>(3));
  ExpectRunError(stop, absl::StatusCode::kInvalidArgument,
                 "stop must be a scalar, not shape [1,1]");
  OpTester num("LinSpace");
  num.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tidx", TSR_DTYPE_INT64)
      .Input(Tensor::Scalar<float>(1))
      .Input(Tensor::Scalar<float>(2))
      .Input(Tensor::Vector<int64_t>({3, 4}));
  ExpectRunError(num, absl::StatusCode::kInvalidArgument, "num must be a scalar, not shape [2]");
}

}  // namespace
}  // namespace tessera::cpu::test
