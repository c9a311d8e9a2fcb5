// ConcatV2, Concat (the axis first) and Pack against reference copies for several dtypes and
// axes, and their errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

// Reference: output row r is input 0 row r, input 1 row r, ... (rows = product before axis).
template <typename T>
std::vector<T> ConcatReference(const std::vector<Tensor>& inputs, int axis) {
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= inputs[0].shape().dim(d);
  std::vector<T> out;
  for (int64_t r = 0; r < rows; ++r) {
    for (const Tensor& t : inputs) {
      const int64_t row = rows == 0 ? 0 : t.NumElements() / rows;
      for (int64_t k = 0; k < row; ++k) out.push_back(t.data<T>()[r * row + k]);
    }
  }
  return out;
}

// `v1`: the op Concat, which takes the axis (concat_dim, int32) before the values.
template <typename T>
void CheckConcat(const std::vector<TensorShape>& shapes, int axis, int axis_arg,
                 bool v1 = false) {
  SCOPED_TRACE("axis " + std::to_string(axis_arg) + " first " + shapes[0].DebugString());
  std::vector<Tensor> inputs;
  for (const TensorShape& s : shapes) inputs.push_back(Random<T>(s, -100, 100));
  TensorShape out_shape = shapes[0];
  int64_t total = 0;
  for (const TensorShape& s : shapes) total += s.dim(axis);
  out_shape.set_dim(axis, total);
  OpTester tester(v1 ? "Concat" : "ConcatV2");
  tester.Attr("T", DataTypeOf<T>::value).Attr("N", static_cast<int64_t>(inputs.size()));
  if (v1) {
    tester.Input(Tensor::Scalar<int32_t>(axis_arg));
    for (const Tensor& t : inputs) tester.Input(t);
  } else {
    tester.Attr("Tidx", TSR_DTYPE_INT32);
    for (const Tensor& t : inputs) tester.Input(t);
    tester.Input(Tensor::Scalar<int32_t>(axis_arg));
  }
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape,
                      ConcatReference<T>(inputs, axis));
}

template <typename T>
void CheckConcatCases(bool v1 = false) {
  CheckConcat<T>({Shape({2}), Shape({3})}, 0, 0, v1);
  CheckConcat<T>({Shape({2, 3}), Shape({2, 5}), Shape({2, 1})}, 1, 1, v1);
  CheckConcat<T>({Shape({2, 3}), Shape({4, 3})}, 0, -2, v1);
  CheckConcat<T>({Shape({2, 3, 4}), Shape({2, 0, 4}), Shape({2, 2, 4})}, 1, -2, v1);
  CheckConcat<T>({Shape({3, 2, 2}), Shape({3, 2, 5})}, 2, -1, v1);
  CheckConcat<T>({Shape({0, 2}), Shape({0, 3})}, 1, 1, v1);
}

TEST(ConcatV2OpTest, FloatMatchesReference) { CheckConcatCases<float>(); }
TEST(ConcatV2OpTest, Int64MatchesReference) { CheckConcatCases<int64_t>(); }
TEST(ConcatV2OpTest, BoolMatchesReference) { CheckConcatCases<bool>(); }
TEST(ConcatV2OpTest, Uint8MatchesReference) { CheckConcatCases<uint8_t>(); }

TEST(ConcatOpTest, TakesTheAxisFirst) {
  CheckConcatCases<float>(/*v1=*/true);
  CheckConcatCases<double>(/*v1=*/true);
  CheckConcatCases<int32_t>(/*v1=*/true);
  CheckConcatCases<int64_t>(/*v1=*/true);
}

TEST(ConcatOpTest, RejectsBadConcatDim) {
  OpTester range("Concat");
  range.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", int64_t{2})
      .Input(Tensor::Scalar<int32_t>(2))
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({2, 3})));
  ExpectRunError(range, absl::StatusCode::kInvalidArgument,
                 "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2");
  OpTester vector("Concat");
  vector.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", int64_t{2})
      .Input(Tensor::Vector<int32_t>({0}))
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({2, 3})));
  ExpectRunError(vector, absl::StatusCode::kInvalidArgument,
                 "concat_dim tensor should be a scalar integer, but got shape [1]");
  OpTester mismatch("Concat");
  mismatch.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", int64_t{2})
      .Input(Tensor::Scalar<int32_t>(0))
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({2, 4})));
  ExpectRunError(mismatch, absl::StatusCode::kInvalidArgument,
                 "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. "
                 "shape[1] = [2,4]");
}

OpTester Concat(const std::vector<TensorShape>& shapes, const Tensor& axis) {
  OpTester tester("ConcatV2");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", static_cast<int64_t>(shapes.size()))
      .Attr("Tidx", axis.dtype());
  for (const TensorShape& s : shapes) tester.Input(Random<float>(s));
  tester.Input(axis);
  return tester;
}

TEST(ConcatV2OpTest, RejectsAxisOutOfRange) {
  OpTester tester = Concat({Shape({2, 3}), Shape({2, 3})}, Tensor::Scalar<int32_t>(2));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2");
  OpTester scalars = Concat({Shape({}), Shape({})}, Tensor::Scalar<int64_t>(0));
  ExpectRunError(scalars, absl::StatusCode::kInvalidArgument,
                 "ConcatOp : Expected concatenating dimensions in the range [0, 0), but got 0");
}

TEST(ConcatV2OpTest, RejectsRankMismatch) {
  OpTester tester = Concat({Shape({2, 3}), Shape({2})}, Tensor::Scalar<int32_t>(0));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. "
                 "shape[1] = [2]");
}

TEST(ConcatV2OpTest, RejectsDimensionMismatch) {
  OpTester tester = Concat({Shape({2, 3}), Shape({2, 4})}, Tensor::Scalar<int32_t>(0));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. "
                 "shape[1] = [2,4]");
}

TEST(ConcatV2OpTest, RejectsAxisThatIsNotAScalar) {
  OpTester tester = Concat({Shape({2}), Shape({2})}, Tensor::Vector<int32_t>({0}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "axis tensor should be a scalar integer, but got shape [1]");
}

template <typename T>
void CheckPack(const TensorShape& shape, int num, int64_t axis) {
  SCOPED_TRACE(shape.DebugString() + " axis " + std::to_string(axis));
  const int64_t positive = axis < 0 ? axis + shape.rank() + 1 : axis;
  std::vector<Tensor> inputs;
  std::vector<Tensor> expanded;
  TensorShape expanded_shape;
  for (int d = 0; d < shape.rank(); ++d) {
    if (d == positive) expanded_shape.AddDim(1);
    expanded_shape.AddDim(shape.dim(d));
  }
  if (positive == shape.rank()) expanded_shape.AddDim(1);
  for (int i = 0; i < num; ++i) {
    inputs.push_back(Random<T>(shape, -100, 100));
    expanded.push_back(inputs.back().Reshaped(expanded_shape));
  }
  TensorShape out_shape = expanded_shape;
  out_shape.set_dim(static_cast<int>(positive), num);
  OpTester tester("Pack");
  tester.Attr("T", DataTypeOf<T>::value).Attr("N", static_cast<int64_t>(num)).Attr("axis", axis);
  for (const Tensor& t : inputs) tester.Input(t);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape,
                      ConcatReference<T>(expanded, static_cast<int>(positive)));
}

TEST(PackOpTest, StacksAlongEveryAxis) {
  CheckPack<float>(Shape({}), 3, 0);
  CheckPack<float>(Shape({2, 3}), 4, 0);
  CheckPack<int32_t>(Shape({2, 3}), 2, 1);
  CheckPack<int64_t>(Shape({2, 3}), 3, 2);
  CheckPack<double>(Shape({2, 3}), 3, -1);
  CheckPack<bool>(Shape({4, 1, 2}), 2, -3);
  CheckPack<float>(Shape({0, 2}), 2, 1);
  CheckPack<float>(Shape({5}), 1, 0);
}

TEST(PackOpTest, RejectsAxisOutOfRange) {
  OpTester tester("Pack");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", int64_t{2})
      .Attr("axis", int64_t{3})
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({2, 3})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "axis = 3 not in [-3, 3)");
}

TEST(PackOpTest, RejectsRankAboveEight) {
  OpTester tester("Pack");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", int64_t{1})
      .Attr("axis", int64_t{0})
      .Input(Random<float>(Shape({1, 1, 1, 1, 1, 1, 1, 1})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
}

TEST(PackOpTest, RejectsShapeMismatch) {
  OpTester tester("Pack");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("N", int64_t{2})
      .Attr("axis", int64_t{0})
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({3, 2})));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Shapes of all inputs must match: values[0].shape = [2,3] != values[1].shape = "
                 "[3,2]");
}

}  // namespace
}  // namespace tessera::cpu::test
