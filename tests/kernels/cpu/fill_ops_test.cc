// Fill and ZerosLike for several dtypes, and Fill's errors.
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T, typename Index>
void CheckFill(const std::vector<Index>& dims, T value) {
  TensorShape shape;
  for (Index d : dims) shape.AddDim(d);
  OpTester tester("Fill");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("index_type", DataTypeOf<Index>::value)
      .Input(Tensor::Vector<Index>(dims))
      .Input(Tensor::Scalar<T>(value));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape,
                      std::vector<T>(static_cast<size_t>(shape.num_elements()), value));
}

TEST(FillOpTest, FillsEveryDtype) {
  CheckFill<float, int32_t>({2, 3}, 1.5f);
  CheckFill<double, int64_t>({4}, -2.25);
  CheckFill<int32_t, int32_t>({}, 7);
  CheckFill<int64_t, int64_t>({3, 0}, 9);
  CheckFill<bool, int32_t>({5}, true);
  CheckFill<uint8_t, int32_t>({1000}, 200);
  CheckFill<int16_t, int32_t>({2, 2, 2}, -3);
}

OpTester Fill(const Tensor& dims, const Tensor& value) {
  OpTester tester("Fill");
  tester.Attr("T", value.dtype()).Attr("index_type", dims.dtype()).Input(dims).Input(value);
  return tester;
}

TEST(FillOpTest, RejectsDimsThatAreNotAVector) {
  OpTester tester = Fill(Make<int32_t>(Shape({1, 2}), {2, 2}), Tensor::Scalar<float>(1));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "dims must be a vector, got shape [1,2]");
}

TEST(FillOpTest, RejectsValueThatIsNotAScalar) {
  OpTester tester = Fill(Tensor::Vector<int32_t>({2}), Tensor::Vector<float>({1, 2}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "value must be a scalar, got shape [2]");
}

TEST(FillOpTest, RejectsNegativeDimension) {
  OpTester tester = Fill(Tensor::Vector<int64_t>({2, -1}), Tensor::Scalar<float>(1));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "Dimension -1 must be >= 0");
}

TEST(FillOpTest, RejectsRankAboveEight) {
  OpTester tester =
      Fill(Tensor::Vector<int32_t>(std::vector<int32_t>(9, 1)), Tensor::Scalar<float>(1));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "dims has 9 entries, more than the maximum rank 8");
}

template <typename T>
void CheckZerosLike(const TensorShape& shape) {
  OpTester tester("ZerosLike");
  tester.Attr("T", DataTypeOf<T>::value).Input(Random<T>(shape, 1, 9));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape,
                      std::vector<T>(static_cast<size_t>(shape.num_elements()), T(0)));
}

TEST(ZerosLikeOpTest, ZeroesEveryDtype) {
  CheckZerosLike<float>(Shape({3, 4}));
  CheckZerosLike<double>(Shape({}));
  CheckZerosLike<int32_t>(Shape({0}));
  CheckZerosLike<int64_t>(Shape({5}));
  CheckZerosLike<bool>(Shape({2, 2}));
}

}  // namespace
}  // namespace tessera::cpu::test
