// MirrorPadGrad (REFLECT and SYMMETRIC) against a reference fold (each padded element added to
// the element it mirrors) for ranks 0 to 5 and each real type, and TensorFlow's errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

Tensor Paddings(DataType dtype, const std::vector<int64_t>& pairs) {
  Tensor t = IndexVector(dtype, pairs);
  return t.Reshaped(TensorShape{static_cast<int64_t>(pairs.size() / 2), 2});
}

template <typename T>
Tensor ReferenceFold(const Tensor& padded, const std::vector<int64_t>& pairs, bool reflect) {
  const TensorShape& in_shape = padded.shape();
  TensorShape out_shape;
  for (int d = 0; d < in_shape.rank(); ++d) {
    out_shape.AddDim(in_shape.dim(d) - pairs[2 * d] - pairs[2 * d + 1]);
  }
  Tensor out(DataTypeOf<T>::value, out_shape);
  for (int64_t i = 0; i < out.NumElements(); ++i) out.data<T>()[i] = T(0);
  const int64_t offset = reflect ? 1 : 0;
  for (int64_t i = 0; i < padded.NumElements(); ++i) {
    std::vector<int64_t> c = Coordinates(in_shape, i);
    for (int d = 0; d < in_shape.rank(); ++d) {
      const int64_t n = out_shape.dim(d);
      int64_t j = c[d] - pairs[2 * d];
      if (j < 0) j = -j - 1 + offset;
      if (j >= n) j = 2 * n - j - 1 - offset;
      c[d] = j;
    }
    out.data<T>()[FlatIndex(out_shape, c)] += padded.data<T>()[i];
  }
  return out;
}

template <typename T>
void CheckMirrorPadGrad(const TensorShape& shape, const std::vector<int64_t>& pairs, bool reflect,
                        DataType pad_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " paddings " + ShapeString(pairs) +
               (reflect ? " REFLECT" : " SYMMETRIC"));
  TensorShape padded_shape;
  for (int d = 0; d < shape.rank(); ++d) {
    padded_shape.AddDim(pairs[2 * d] + shape.dim(d) + pairs[2 * d + 1]);
  }
  const Tensor padded = Random<T>(padded_shape, -4, 4);
  const Tensor expected = ReferenceFold<T>(padded, pairs, reflect);
  OpTester tester("MirrorPadGrad");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tpaddings", pad_type)
      .Attr("mode", std::string(reflect ? "REFLECT" : "SYMMETRIC"))
      .Input(padded)
      .Input(Paddings(pad_type, pairs));
  const Tensor actual = RunOk(tester);
  std::vector<T> values(expected.data<T>(), expected.data<T>() + expected.NumElements());
  ExpectTensorNear<T>(actual, DataTypeOf<T>::value, expected.shape(), values);
}

// Random paddings within the mode's limits for a random shape of `rank` dimensions.
std::vector<int64_t> RandomPairs(const TensorShape& shape, bool reflect) {
  std::vector<int64_t> pairs;
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t most = reflect ? shape.dim(d) - 1 : shape.dim(d);
    pairs.push_back(static_cast<int64_t>(Rng()() % (most + 1)));
    pairs.push_back(static_cast<int64_t>(Rng()() % (most + 1)));
  }
  return pairs;
}

TEST(MirrorPadGradOpTest, RandomPaddingsInBothModes) {
  for (int trial = 0; trial < 48; ++trial) {
    const int rank = trial % 6;
    const bool reflect = trial % 2 == 0;
    const TensorShape shape = RandomShape(rank, 2, 4);
    const std::vector<int64_t> pairs = RandomPairs(shape, reflect);
    const DataType pad_type = trial % 3 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32;
    switch (trial % 4) {
      case 0:
        CheckMirrorPadGrad<float>(shape, pairs, reflect, pad_type);
        break;
      case 1:
        CheckMirrorPadGrad<double>(shape, pairs, reflect, pad_type);
        break;
      case 2:
        CheckMirrorPadGrad<int32_t>(shape, pairs, reflect, pad_type);
        break;
      default:
        CheckMirrorPadGrad<int64_t>(shape, pairs, reflect, pad_type);
    }
  }
}

TEST(MirrorPadGradOpTest, EdgeCases) {
  CheckMirrorPadGrad<float>(Shape({3}), {2, 2}, true);   // [c b | a b c | b a]
  CheckMirrorPadGrad<float>(Shape({3}), {3, 3}, false);  // the whole row mirrored
  CheckMirrorPadGrad<float>(Shape({1, 4}), {1, 0, 0, 0}, false);
  CheckMirrorPadGrad<double>(Shape({2, 0}), {1, 1, 0, 0}, false);
  CheckMirrorPadGrad<int64_t>(Shape({2, 3}), {0, 0, 0, 0}, true);
  CheckMirrorPadGrad<int32_t>(Shape({}), {}, true);
}

TEST(MirrorPadGradOpTest, MatchesTensorFlowsExample) {
  // t = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], paddings [[0, 1], [0, 1]], SYMMETRIC.
  OpTester tester("MirrorPadGrad");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("mode", std::string("SYMMETRIC"))
      .Input(Make<float>(Shape({3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9}))
      .Input(Paddings(TSR_DTYPE_INT32, {0, 1, 0, 1}));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({2, 2}), {1, 5, 11, 28});
}

OpTester MirrorPadGradOf(const TensorShape& shape, const std::vector<int64_t>& pairs,
                         const std::string& mode) {
  OpTester tester("MirrorPadGrad");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("mode", mode)
      .Input(Random<float>(shape))
      .Input(Paddings(TSR_DTYPE_INT32, pairs));
  return tester;
}

TEST(MirrorPadGradOpTest, RejectsPaddingsBeyondTheEdge) {
  OpTester reflect = MirrorPadGradOf(Shape({5}), {2, 1}, "REFLECT");
  ExpectRunError(reflect, absl::StatusCode::kInvalidArgument,
                 "paddings must be less than the output dimension size: 2, 1 not less than 2");
  OpTester symmetric = MirrorPadGradOf(Shape({4}), {3, 0}, "SYMMETRIC");
  ExpectRunError(symmetric, absl::StatusCode::kInvalidArgument,
                 "paddings must be no greater than the output dimension size: 3, 0 greater "
                 "than 1");
  OpTester negative = MirrorPadGradOf(Shape({3}), {-1, 0}, "SYMMETRIC");
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Paddings must be non-negative: -1, 0");
  OpTester rows = MirrorPadGradOf(Shape({3, 2}), {1, 1}, "REFLECT");
  ExpectRunError(rows, absl::StatusCode::kInvalidArgument,
                 "The first dimension of paddings must be the rank of inputs[1,2] [3,2]");
  OpTester columns("MirrorPadGrad");
  columns.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("mode", std::string("REFLECT"))
      .Input(Random<float>(Shape({3})))
      .Input(Tensor::Vector<int32_t>({1, 1}));
  ExpectRunError(columns, absl::StatusCode::kInvalidArgument,
                 "paddings must be a matrix with 2 columns: [2]");
  OpTester mode = MirrorPadGradOf(Shape({3}), {1, 1}, "CONSTANT");
  ExpectRunError(mode, absl::StatusCode::kInvalidArgument, "CONSTANT");
}

}  // namespace
}  // namespace tessera::cpu::test
