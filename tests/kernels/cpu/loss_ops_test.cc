// SoftmaxCrossEntropyWithLogits (with broadcasting), SparseSoftmaxCrossEntropyWithLogits and
// L2Loss against reference loops; the backprops against central differences of the loss.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/cpu/nn_test_util.h"

namespace tessera::cpu::test {
namespace {

// Value (r, c) of a rank <= 2 tensor broadcast to [rows, cols].
double BroadcastAt(const std::vector<double>& v, const TensorShape& shape, int64_t r, int64_t c) {
  const int64_t d1 = shape.rank() >= 1 ? shape.dim(shape.rank() - 1) : 1;
  const int64_t d0 = shape.rank() >= 2 ? shape.dim(shape.rank() - 2) : 1;
  return v[(d0 == 1 ? 0 : r) * d1 + (d1 == 1 ? 0 : c)];
}

// Per row: loss = sum(labels * (logsumexp(logits) - logits)); backprop = softmax - labels.
void ReferenceXent(const std::vector<double>& x, const TensorShape& x_shape,
                   const std::vector<double>& y, const TensorShape& y_shape, int64_t rows,
                   int64_t cols, std::vector<double>* loss, std::vector<double>* backprop) {
  loss->assign(rows, 0);
  backprop->assign(rows * cols, 0);
  for (int64_t r = 0; r < rows; ++r) {
    double max = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) max = std::max(max, BroadcastAt(x, x_shape, r, c));
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(BroadcastAt(x, x_shape, r, c) - max);
    const double lse = max + std::log(sum);
    for (int64_t c = 0; c < cols; ++c) {
      const double logit = BroadcastAt(x, x_shape, r, c);
      const double label = BroadcastAt(y, y_shape, r, c);
      (*loss)[r] += label * (lse - logit);
      (*backprop)[r * cols + c] = std::exp(logit - lse) - label;
    }
  }
}

template <typename T>
void CheckXent(const TensorShape& x_shape, const TensorShape& y_shape, int64_t rows, int64_t cols) {
  SCOPED_TRACE(x_shape.DebugString() + " " + y_shape.DebugString());
  const std::vector<double> x =
      Values(FromValues<T>(x_shape, RandomValues(x_shape.num_elements(), -20, 20)));
  const std::vector<double> y =
      Values(FromValues<T>(y_shape, RandomValues(y_shape.num_elements(), 0, 1)));
  std::vector<double> loss;
  std::vector<double> backprop;
  ReferenceXent(x, x_shape, y, y_shape, rows, cols, &loss, &backprop);
  OpTester tester("SoftmaxCrossEntropyWithLogits");
  tester.Attr("T", DataTypeOf<T>::value)
      .Input(FromValues<T>(x_shape, x))
      .Input(FromValues<T>(y_shape, y));
  std::vector<Tensor> out = RunAll(tester, 2);
  ASSERT_EQ(out.size(), 2u);
  const double tolerance = sizeof(T) == 4 ? 2e-5 : 1e-11;
  ExpectValuesNear(out[0], Shape({rows}), loss, tolerance);
  ExpectValuesNear(out[1], Shape({rows, cols}), backprop, tolerance);
}

template <typename T>
void CheckAllXentShapes() {
  CheckXent<T>(Shape({4, 7}), Shape({4, 7}), 4, 7);
  CheckXent<T>(Shape({1, 1}), Shape({1, 1}), 1, 1);
  CheckXent<T>(Shape({0, 5}), Shape({0, 5}), 0, 5);
  CheckXent<T>(Shape({300, 1001}), Shape({300, 1001}), 300, 1001);
  // TensorFlow broadcasts features and labels to a matrix.
  CheckXent<T>(Shape({4, 7}), Shape({7}), 4, 7);
  CheckXent<T>(Shape({1, 7}), Shape({5, 1}), 5, 7);
  CheckXent<T>(Shape({3, 1}), Shape({3, 6}), 3, 6);
  CheckXent<T>(Shape({}), Shape({2, 3}), 2, 3);
}

TEST(SoftmaxCrossEntropyOpTest, FloatMatchesReference) { CheckAllXentShapes<float>(); }
TEST(SoftmaxCrossEntropyOpTest, DoubleMatchesReference) { CheckAllXentShapes<double>(); }

TEST(SoftmaxCrossEntropyOpTest, BackpropIsTheGradientOfTheLoss) {
  const int64_t rows = 3;
  const int64_t cols = 5;
  const TensorShape shape = Shape({rows, cols});
  const std::vector<double> x = RandomValues(rows * cols, -3, 3);
  // Labels that sum to one per row: then backprop is exactly d loss / d logits.
  std::vector<double> y = RandomValues(rows * cols, 0, 1);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += y[r * cols + c];
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] /= sum;
  }
  OpTester tester("SoftmaxCrossEntropyWithLogits");
  tester.Attr("T", TSR_DTYPE_DOUBLE)
      .Input(FromValues<double>(shape, x))
      .Input(FromValues<double>(shape, y));
  std::vector<Tensor> out = RunAll(tester, 2);
  ASSERT_EQ(out.size(), 2u);
  const std::vector<double> loss_weights = {0.5, -1.0, 2.0};
  const std::vector<double> numeric = NumericGradient(
      [&](const std::vector<double>& logits) {
        std::vector<double> loss, backprop;
        ReferenceXent(logits, shape, y, shape, rows, cols, &loss, &backprop);
        double total = 0;
        for (int64_t r = 0; r < rows; ++r) total += loss_weights[r] * loss[r];
        return total;
      },
      x);
  const std::vector<double> backprop = Values(out[1]);
  for (int64_t i = 0; i < rows * cols; ++i) {
    EXPECT_NEAR(loss_weights[i / cols] * backprop[i], numeric[i], 1e-7) << "at " << i;
  }
}

TEST(SoftmaxCrossEntropyOpTest, Errors) {
  OpTester incompatible("SoftmaxCrossEntropyWithLogits");
  incompatible.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({2, 4})));
  ExpectRunError(incompatible, absl::StatusCode::kInvalidArgument,
                 "logits and labels must be broadcastable: logits_size=[2,3] labels_size=[2,4]");
  for (const TensorShape& shape : {Shape({5}), Shape({2, 3, 4})}) {
    OpTester tester("SoftmaxCrossEntropyWithLogits");
    tester.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(shape)).Input(Random<float>(shape));
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                   "logits and labels must be either 2-dimensional, or broadcasted to be "
                   "2-dimensional");
  }
}

template <typename T, typename Index>
void CheckSparseXent(int64_t rows, int64_t cols) {
  SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
  const TensorShape shape = Shape({rows, cols});
  const std::vector<double> x = Values(FromValues<T>(shape, RandomValues(rows * cols, -20, 20)));
  Tensor labels = Random<Index>(Shape({rows}), 0, cols - 1);
  std::vector<double> onehot(rows * cols, 0);
  for (int64_t r = 0; r < rows; ++r) onehot[r * cols + labels.data<Index>()[r]] = 1;
  std::vector<double> loss;
  std::vector<double> backprop;
  ReferenceXent(x, shape, onehot, shape, rows, cols, &loss, &backprop);
  OpTester tester("SparseSoftmaxCrossEntropyWithLogits");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tlabels", DataTypeOf<Index>::value)
      .Input(FromValues<T>(shape, x))
      .Input(labels);
  std::vector<Tensor> out = RunAll(tester, 2);
  ASSERT_EQ(out.size(), 2u);
  const double tolerance = sizeof(T) == 4 ? 2e-5 : 1e-11;
  ExpectValuesNear(out[0], Shape({rows}), loss, tolerance);
  ExpectValuesNear(out[1], shape, backprop, tolerance);
}

TEST(SparseSoftmaxCrossEntropyOpTest, MatchesReference) {
  for (auto [rows, cols] :
       std::vector<std::pair<int64_t, int64_t>>{{4, 7}, {1, 1}, {0, 3}, {257, 1000}}) {
    CheckSparseXent<float, int32_t>(rows, cols);
    CheckSparseXent<float, int64_t>(rows, cols);
    CheckSparseXent<double, int32_t>(rows, cols);
    CheckSparseXent<double, int64_t>(rows, cols);
  }
}

TEST(SparseSoftmaxCrossEntropyOpTest, BackpropIsTheGradientOfTheLoss) {
  const int64_t rows = 4;
  const int64_t cols = 6;
  const TensorShape shape = Shape({rows, cols});
  const std::vector<double> x = RandomValues(rows * cols, -3, 3);
  const std::vector<int64_t> labels = {5, 0, 3, 3};
  std::vector<double> onehot(rows * cols, 0);
  for (int64_t r = 0; r < rows; ++r) onehot[r * cols + labels[r]] = 1;
  OpTester tester("SparseSoftmaxCrossEntropyWithLogits");
  tester.Attr("T", TSR_DTYPE_DOUBLE)
      .Attr("Tlabels", TSR_DTYPE_INT64)
      .Input(FromValues<double>(shape, x))
      .Input(Make<int64_t>(Shape({rows}), labels));
  std::vector<Tensor> out = RunAll(tester, 2);
  ASSERT_EQ(out.size(), 2u);
  const std::vector<double> numeric = NumericGradient(
      [&](const std::vector<double>& logits) {
        std::vector<double> loss, backprop;
        ReferenceXent(logits, shape, onehot, shape, rows, cols, &loss, &backprop);
        double total = 0;
        for (double l : loss) total += l;
        return total;
      },
      x);
  ExpectValuesNear(out[1], shape, numeric, 1e-7);
}

OpTester Sparse(const TensorShape& logits, const Tensor& labels) {
  OpTester tester("SparseSoftmaxCrossEntropyWithLogits");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tlabels", labels.dtype())
      .Input(Random<float>(logits))
      .Input(labels);
  return tester;
}

TEST(SparseSoftmaxCrossEntropyOpTest, RejectsLabelsOutOfRange) {
  OpTester high = Sparse(Shape({3, 4}), Make<int32_t>(Shape({3}), {1, 4, 2}));
  ExpectRunError(high, absl::StatusCode::kInvalidArgument,
                 "Received a label value of 4 which is outside the valid range of [0, 4).  Label "
                 "values: 1 4 2");
  OpTester low = Sparse(Shape({3, 4}), Make<int64_t>(Shape({3}), {1, 7, -2}));
  ExpectRunError(low, absl::StatusCode::kInvalidArgument,
                 "Received a label value of -2 which is outside the valid range of [0, 4).  Label "
                 "values: 1 7 -2");
}

TEST(SparseSoftmaxCrossEntropyOpTest, RejectsBadShapes) {
  OpTester rank1 = Sparse(Shape({4}), Make<int32_t>(Shape({4}), {0, 0, 0, 0}));
  ExpectRunError(rank1, absl::StatusCode::kInvalidArgument,
                 "logits must be 2-D, but got shape [4]");
  OpTester labels2 = Sparse(Shape({2, 4}), Make<int32_t>(Shape({2, 1}), {0, 0}));
  ExpectRunError(labels2, absl::StatusCode::kInvalidArgument,
                 "labels must be 1-D, but got shape [2,1]");
  OpTester batch = Sparse(Shape({2, 4}), Make<int32_t>(Shape({3}), {0, 0, 0}));
  ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                 "logits and labels must have the same first dimension, got logits shape [2,4] "
                 "and labels shape [3]");
  OpTester classes = Sparse(Shape({2, 0}), Make<int32_t>(Shape({2}), {0, 0}));
  ExpectRunError(classes, absl::StatusCode::kInvalidArgument,
                 "Must have at least one class, but got logits shape [2,0]");
}

template <typename T>
void CheckL2Loss(const TensorShape& shape) {
  SCOPED_TRACE(shape.DebugString());
  const std::vector<double> x =
      Values(FromValues<T>(shape, RandomValues(shape.num_elements(), -3, 3)));
  double sum = 0;
  for (double v : x) sum += v * v;
  OpTester tester("L2Loss");
  tester.Attr("T", DataTypeOf<T>::value).Input(FromValues<T>(shape, x));
  ExpectValuesNear(RunOk(tester), Shape({}), {sum / 2}, sizeof(T) == 4 ? 1e-6 : 1e-12);
}

TEST(L2LossOpTest, MatchesReference) {
  for (const TensorShape& shape :
       {Shape({}), Shape({0}), Shape({7}), Shape({3, 0}), Shape({100, 1000})}) {
    CheckL2Loss<float>(shape);
    CheckL2Loss<double>(shape);
  }
}

}  // namespace
}  // namespace tessera::cpu::test
