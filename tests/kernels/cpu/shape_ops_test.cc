// Reshape, Shape, ExpandDims and Squeeze: shapes, preserved values for several dtypes, and
// TensorFlow's error messages.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

template <typename Index>
OpTester Reshape(const Tensor& input, const std::vector<Index>& sizes) {
  OpTester tester("Reshape");
  tester.Attr("T", input.dtype())
      .Attr("Tshape", DataTypeOf<Index>::value)
      .Input(input)
      .Input(Tensor::Vector<Index>(sizes));
  return tester;
}

TEST(ReshapeOpTest, ReshapesAndInfersOneDimension) {
  Tensor x = Random<float>(Shape({2, 3, 4}));
  OpTester plain = Reshape<int32_t>(x, {4, 6});
  ExpectTensorNear<float>(RunOk(plain), TSR_DTYPE_FLOAT, Shape({4, 6}), Values<float>(x));
  OpTester inferred = Reshape<int64_t>(x, {-1, 2});
  ExpectTensorNear<float>(RunOk(inferred), TSR_DTYPE_FLOAT, Shape({12, 2}), Values<float>(x));
  OpTester to_scalar = Reshape<int32_t>(Make<int64_t>(Shape({1, 1}), {42}), {});
  ExpectTensorNear<int64_t>(RunOk(to_scalar), TSR_DTYPE_INT64, Shape({}), {42});
  Tensor flags = Random<bool>(Shape({6}));
  OpTester booleans = Reshape<int32_t>(flags, {3, -1});
  ExpectTensorNear<bool>(RunOk(booleans), TSR_DTYPE_BOOL, Shape({3, 2}), Values<bool>(flags));
  // -1 next to a zero size: inferred from the non-empty dimensions.
  OpTester empty = Reshape<int32_t>(Tensor(TSR_DTYPE_FLOAT, Shape({0, 6})), {0, -1, 3});
  ExpectTensorNear<float>(RunOk(empty), TSR_DTYPE_FLOAT, Shape({0, 2, 3}), {});
}

TEST(ReshapeOpTest, RejectsWrongElementCount) {
  OpTester tester = Reshape<int32_t>(Random<float>(Shape({2, 3})), {2, 2});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Input to reshape is a tensor with 6 values, but the requested shape has 4");
}

TEST(ReshapeOpTest, RejectsIndivisibleInferredDimension) {
  OpTester tester = Reshape<int32_t>(Random<float>(Shape({2, 3})), {4, -1});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Input to reshape is a tensor with 6 values, but the requested shape requires a "
                 "multiple of 4");
}

TEST(ReshapeOpTest, RejectsTwoInferredDimensions) {
  OpTester tester = Reshape<int32_t>(Random<float>(Shape({2, 3})), {-1, 3, -1});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Only one input size may be -1, not both 0 and 2");
}

TEST(ReshapeOpTest, RejectsNegativeSize) {
  OpTester tester = Reshape<int64_t>(Random<float>(Shape({2, 3})), {2, -3});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "Size 1 must be non-negative, not -3");
}

TEST(ReshapeOpTest, RejectsShapeThatIsNotAVector) {
  OpTester tester("Reshape");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tshape", TSR_DTYPE_INT32)
      .Input(Random<float>(Shape({4})))
      .Input(Make<int32_t>(Shape({2, 1}), {2, 2}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "sizes input must be 1-D, not [2,1]");
}

TEST(ReshapeOpTest, RejectsRankAboveEight) {
  OpTester tester = Reshape<int32_t>(Random<float>(Shape({1})), {1, 1, 1, 1, 1, 1, 1, 1, 1});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
}

TEST(ShapeOpTest, WritesDimensionsAsInt32OrInt64) {
  OpTester int32("Shape");
  int32.Attr("T", TSR_DTYPE_BOOL)
      .Attr("out_type", TSR_DTYPE_INT32)
      .Input(Random<bool>(Shape({2, 0, 5})));
  ExpectTensorNear<int32_t>(RunOk(int32), TSR_DTYPE_INT32, Shape({3}), {2, 0, 5});
  OpTester int64("Shape");
  int64.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("out_type", TSR_DTYPE_INT64)
      .Input(Random<float>(Shape({})));
  ExpectTensorNear<int64_t>(RunOk(int64), TSR_DTYPE_INT64, Shape({0}), {});
}

OpTester ExpandDims(const Tensor& input, const Tensor& dim) {
  OpTester tester("ExpandDims");
  tester.Attr("T", input.dtype()).Attr("Tdim", dim.dtype()).Input(input).Input(dim);
  return tester;
}

TEST(ExpandDimsOpTest, InsertsDimensionAtEveryPosition) {
  Tensor x = Random<int32_t>(Shape({2, 3}));
  const std::vector<std::pair<int32_t, TensorShape>> cases = {{0, Shape({1, 2, 3})},
                                                              {1, Shape({2, 1, 3})},
                                                              {2, Shape({2, 3, 1})},
                                                              {-1, Shape({2, 3, 1})},
                                                              {-3, Shape({1, 2, 3})}};
  for (const auto& [dim, shape] : cases) {
    OpTester tester = ExpandDims(x, Tensor::Scalar<int32_t>(dim));
    ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, shape, Values<int32_t>(x));
  }
  OpTester one_element_vector = ExpandDims(x, Tensor::Vector<int64_t>({1}));
  ExpectTensorNear<int32_t>(RunOk(one_element_vector), TSR_DTYPE_INT32, Shape({2, 1, 3}),
                            Values<int32_t>(x));
}

TEST(ExpandDimsOpTest, RejectsDimOutOfRange) {
  OpTester tester = ExpandDims(Random<float>(Shape({2})), Tensor::Scalar<int32_t>(3));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Tried to expand dim index 3 for tensor with 1 dimensions.");
  OpTester negative = ExpandDims(Random<float>(Shape({2})), Tensor::Scalar<int32_t>(-3));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Tried to expand dim index -3 for tensor with 1 dimensions.");
}

TEST(ExpandDimsOpTest, RejectsDimWithSeveralValues) {
  OpTester tester = ExpandDims(Random<float>(Shape({2})), Tensor::Vector<int32_t>({0, 1}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "'dim' must be a tensor with a single value");
}

TEST(ExpandDimsOpTest, RejectsRankAboveEight) {
  OpTester tester =
      ExpandDims(Random<float>(Shape({1, 1, 1, 1, 1, 1, 1, 1})), Tensor::Scalar<int32_t>(0));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
}

OpTester Squeeze(const Tensor& input, const std::vector<int64_t>& dims) {
  OpTester tester("Squeeze");
  tester.Attr("T", input.dtype()).Attr("squeeze_dims", dims).Input(input);
  return tester;
}

TEST(SqueezeOpTest, RemovesAllOrListedSizeOneDimensions) {
  Tensor x = Random<double>(Shape({1, 2, 1, 3, 1}));
  OpTester all = Squeeze(x, {});
  ExpectTensorNear<double>(RunOk(all), TSR_DTYPE_DOUBLE, Shape({2, 3}), Values<double>(x));
  OpTester listed = Squeeze(x, {0, -1});
  ExpectTensorNear<double>(RunOk(listed), TSR_DTYPE_DOUBLE, Shape({2, 1, 3}), Values<double>(x));
}

TEST(SqueezeOpTest, RejectsDimensionNotOfSizeOne) {
  OpTester tester = Squeeze(Random<float>(Shape({1, 3})), {1});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Can not squeeze dim[1], expected a dimension of 1, got 3");
}

TEST(SqueezeOpTest, RejectsDimensionOutOfRange) {
  OpTester tester = Squeeze(Random<float>(Shape({1, 3})), {2});
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Tried to squeeze dim index 2 for tensor with 2 dimensions.");
}

}  // namespace
}  // namespace tessera::cpu::test
