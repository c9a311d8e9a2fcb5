// GatherNd and ScatterNd against reference loops: random params/output shapes (empty and size-1
// dimensions included), every index depth, int16/int32/int64 indices, several dtypes,
// TensorFlow's known answers (repeated ScatterNd indices sum), and their errors.
#include <cstring>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<DataType>& IndexTypesUnderTest() {
  static const auto* types =
      new std::vector<DataType>{TSR_DTYPE_INT16, TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}

// An integer tensor of `dtype` (int16, int32 or int64) and `shape`.
Tensor Indices(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& values) {
  Tensor t(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == TSR_DTYPE_INT16) {
      t.data<int16_t>()[i] = static_cast<int16_t>(values[i]);
    } else if (dtype == TSR_DTYPE_INT32) {
      t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    } else {
      t.data<int64_t>()[i] = values[i];
    }
  }
  return t;
}

// `rows` index rows of `depth` coordinates, each within the first dimensions of `shape`.
std::vector<int64_t> RandomRows(int64_t rows, int depth, const TensorShape& shape) {
  std::vector<int64_t> values;
  for (int64_t r = 0; r < rows; ++r) {
    for (int j = 0; j < depth; ++j) values.push_back(static_cast<int64_t>(Rng()() % shape.dim(j)));
  }
  return values;
}

TEST(GatherNdOpTest, MatchesTheReferenceOnRandomShapes) {
  const std::vector<DataType> types = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32,
                                       TSR_DTYPE_INT64, TSR_DTYPE_BOOL, TSR_DTYPE_COMPLEX64};
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 1 + trial % 3;
    const TensorShape params_shape = RandomShape(rank, 1, 4);
    const int depth = static_cast<int>(Rng()() % (rank + 1));
    TensorShape indices_shape = RandomShape(trial % 3, trial % 7 == 0 ? 0 : 1, 3);
    const int64_t rows = indices_shape.num_elements();
    indices_shape.AddDim(depth);
    const DataType dtype = types[trial % types.size()];
    const DataType index_type = IndexTypesUnderTest()[trial % 3];
    const Tensor params = RandomOfType(dtype, params_shape);
    const std::vector<int64_t> rows_values = RandomRows(rows, depth, params_shape);
    TensorShape out_shape;
    for (int d = 0; d + 1 < indices_shape.rank(); ++d) out_shape.AddDim(indices_shape.dim(d));
    for (int d = depth; d < rank; ++d) out_shape.AddDim(params_shape.dim(d));
    const Tensor expected = ReferenceCopy(params, out_shape, [&](const std::vector<int64_t>& c) {
      const int outer = indices_shape.rank() - 1;
      std::vector<int64_t> row_coords(c.begin(), c.begin() + outer);
      TensorShape rows_shape;
      for (int d = 0; d < outer; ++d) rows_shape.AddDim(indices_shape.dim(d));
      const int64_t r = FlatIndex(rows_shape, row_coords);
      std::vector<int64_t> from(rows_values.begin() + r * depth,
                                rows_values.begin() + (r + 1) * depth);
      from.insert(from.end(), c.begin() + outer, c.end());
      return FlatIndex(params_shape, from);
    });
    SCOPED_TRACE(params_shape.DebugString() + " indices " + indices_shape.DebugString());
    OpTester tester("GatherNd");
    tester.Attr("Tparams", dtype)
        .Attr("Tindices", index_type)
        .Input(params)
        .Input(Indices(index_type, indices_shape, rows_values));
    ExpectSameBytes(RunOk(tester), expected);
  }
}

TEST(GatherNdOpTest, KnownValues) {
  OpTester tester("GatherNd");
  tester.Attr("Tparams", TSR_DTYPE_FLOAT)
      .Attr("Tindices", TSR_DTYPE_INT32)
      .Input(Make<float>(Shape({2, 2}), {1, 2, 3, 4}))
      .Input(Tensor::FromVector<int32_t>(TensorShape{2, 2}, {0, 0, 1, 1}));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({2}), {1, 4});
  OpTester rows("GatherNd");
  rows.Attr("Tparams", TSR_DTYPE_FLOAT)
      .Attr("Tindices", TSR_DTYPE_INT64)
      .Input(Make<float>(Shape({2, 2}), {1, 2, 3, 4}))
      .Input(Tensor::FromVector<int64_t>(TensorShape{2, 1}, {1, 0}));
  ExpectTensorNear<float>(RunOk(rows), TSR_DTYPE_FLOAT, Shape({2, 2}), {3, 4, 1, 2});
}

OpTester GatherNdOf(const TensorShape& params, const Tensor& indices) {
  OpTester tester("GatherNd");
  tester.Attr("Tparams", TSR_DTYPE_FLOAT)
      .Attr("Tindices", indices.dtype())
      .Input(Random<float>(params))
      .Input(indices);
  return tester;
}

TEST(GatherNdOpTest, RejectsBadArguments) {
  OpTester range = GatherNdOf(Shape({2, 2}), Tensor::FromVector<int32_t>(TensorShape{2, 2},
                                                                           {0, 1, 3, 0}));
  ExpectRunError(range, absl::StatusCode::kInvalidArgument,
                 "indices[1] = [3, 0] does not index into param shape [2,2]");
  OpTester negative = GatherNdOf(
      Shape({2, 2}), Tensor::FromVector<int64_t>(TensorShape{1, 2, 1}, {0, -1}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "indices[0,1] = [-1] does not index into param shape [2,2]");
  OpTester deep = GatherNdOf(Shape({2}), Tensor::FromVector<int32_t>(TensorShape{1, 2}, {0, 0}));
  ExpectRunError(deep, absl::StatusCode::kInvalidArgument,
                 "index innermost dimension length must be <= params rank; saw: 2 vs. 1");
  OpTester scalar_params = GatherNdOf(Shape({}), Tensor::Vector<int32_t>({0}));
  ExpectRunError(scalar_params, absl::StatusCode::kInvalidArgument,
                 "params must be at least a vector");
  OpTester scalar_indices = GatherNdOf(Shape({2}), Tensor::Scalar<int32_t>(0));
  ExpectRunError(scalar_indices, absl::StatusCode::kInvalidArgument,
                 "indices must be at least a vector");
  OpTester empty = GatherNdOf(Shape({3, 0}), Tensor::FromVector<int32_t>(TensorShape{2, 1}, {0, 1}));
  ExpectRunError(empty, absl::StatusCode::kInvalidArgument,
                 "Requested more than 0 entries, but params is empty.  Params shape: [3,0]");
}

template <typename T>
void CheckScatterNd(int trial) {
  const int rank = 1 + trial % 3;
  const TensorShape shape = RandomShape(rank, 1, 4);
  const int depth = 1 + static_cast<int>(Rng()() % rank);
  TensorShape indices_shape = RandomShape(1 + trial % 2, trial % 5 == 0 ? 0 : 1, 4);
  const int64_t rows = indices_shape.num_elements();
  indices_shape.AddDim(depth);
  const std::vector<int64_t> rows_values = RandomRows(rows, depth, shape);
  TensorShape updates_shape;
  for (int d = 0; d + 1 < indices_shape.rank(); ++d) updates_shape.AddDim(indices_shape.dim(d));
  int64_t slice = 1;
  for (int d = depth; d < rank; ++d) {
    updates_shape.AddDim(shape.dim(d));
    slice *= shape.dim(d);
  }
  const Tensor updates = Random<T>(updates_shape, -4, 4);
  // Repeated rows add up.
  std::vector<T> expected(static_cast<size_t>(shape.num_elements()), T(0));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (int j = 0; j < depth; ++j) offset = offset * shape.dim(j) + rows_values[r * depth + j];
    for (int64_t c = 0; c < slice; ++c) {
      expected[offset * slice + c] += updates.data<T>()[r * slice + c];
    }
  }
  const DataType index_type = IndexTypesUnderTest()[trial % 3];
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(shape.dim(d));
  SCOPED_TRACE(shape.DebugString() + " indices " + indices_shape.DebugString());
  OpTester tester("ScatterNd");
  tester.Attr("T", DataTypeOf<T>::value)
      .Attr("Tindices", index_type)
      .Input(Indices(index_type, indices_shape, rows_values))
      .Input(updates)
      .Input(Indices(index_type, TensorShape{rank}, dims));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, shape, expected);
}

TEST(ScatterNdOpTest, MatchesTheReferenceOnRandomShapes) {
  for (int trial = 0; trial < 48; ++trial) {
    switch (trial % 4) {
      case 0:
        CheckScatterNd<float>(trial);
        break;
      case 1:
        CheckScatterNd<double>(trial);
        break;
      case 2:
        CheckScatterNd<int32_t>(trial);
        break;
      default:
        CheckScatterNd<int64_t>(trial);
    }
  }
}

TEST(ScatterNdOpTest, KnownValues) {
  // TensorFlow's example, with index 4 given twice: its updates add.
  OpTester tester("ScatterNd");
  tester.Attr("T", TSR_DTYPE_INT32)
      .Attr("Tindices", TSR_DTYPE_INT32)
      .Input(Tensor::FromVector<int32_t>(TensorShape{5, 1}, {4, 3, 1, 7, 4}))
      .Input(Tensor::Vector<int32_t>({9, 10, 11, 12, 5}))
      .Input(Tensor::Vector<int32_t>({8}));
  ExpectSameBytes(RunOk(tester), Tensor::Vector<int32_t>({0, 11, 0, 10, 14, 0, 0, 12}));
  // A vector of indices holds one-coordinate rows.
  OpTester vector("ScatterNd");
  vector.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tindices", TSR_DTYPE_INT64)
      .Input(Tensor::Vector<int64_t>({2, 0}))
      .Input(Make<float>(Shape({2, 2}), {1, 2, 3, 4}))
      .Input(Tensor::Vector<int64_t>({3, 2}));
  ExpectTensorNear<float>(RunOk(vector), TSR_DTYPE_FLOAT, Shape({3, 2}), {3, 4, 0, 0, 1, 2});
}

OpTester ScatterNdOf(const Tensor& indices, const TensorShape& updates, const Tensor& shape) {
  OpTester tester("ScatterNd");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tindices", indices.dtype())
      .Input(indices)
      .Input(Random<float>(updates))
      .Input(shape);
  return tester;
}

TEST(ScatterNdOpTest, RejectsBadArguments) {
  const Tensor rows = Tensor::FromVector<int32_t>(TensorShape{2, 1}, {0, 4});
  OpTester range = ScatterNdOf(rows, Shape({2, 2}), Tensor::Vector<int32_t>({3, 2}));
  ExpectRunError(range, absl::StatusCode::kInvalidArgument,
                 "indices[1] = [4] does not index into shape [3,2]");
  const Tensor good = Tensor::FromVector<int32_t>(TensorShape{2, 1}, {0, 1});
  OpTester matrix_shape =
      ScatterNdOf(good, Shape({2, 2}), Tensor::FromVector<int32_t>(TensorShape{1, 2}, {3, 2}));
  ExpectRunError(matrix_shape, absl::StatusCode::kInvalidArgument, "Shape must be a vector");
  OpTester negative = ScatterNdOf(good, Shape({2, 2}), Tensor::Vector<int32_t>({3, -2}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "Dimension -2 must be >= 0");
  OpTester scalar_indices = ScatterNdOf(Tensor::Scalar<int32_t>(0), Shape({2}),
                                        Tensor::Vector<int32_t>({3}));
  ExpectRunError(scalar_indices, absl::StatusCode::kInvalidArgument,
                 "Indices shape must have rank at least one. Found:[]");
  OpTester scalar_updates = ScatterNdOf(good, Shape({}), Tensor::Vector<int32_t>({3}));
  ExpectRunError(scalar_updates, absl::StatusCode::kInvalidArgument,
                 "Updates shape must have rank at least one. Found:[]");
  OpTester scalar_output = ScatterNdOf(good, Shape({2}), Tensor::Vector<int32_t>({}));
  ExpectRunError(scalar_output, absl::StatusCode::kInvalidArgument,
                 "Output must be at least 1-D, got shape: []");
  OpTester empty = ScatterNdOf(good, Shape({2, 0}), Tensor::Vector<int32_t>({3, 0}));
  ExpectRunError(empty, absl::StatusCode::kInvalidArgument,
                 "Indices and updates specified for empty output.  indices shape: [2,1]");
  OpTester first = ScatterNdOf(good, Shape({3, 2}), Tensor::Vector<int32_t>({3, 2}));
  ExpectRunError(first, absl::StatusCode::kInvalidArgument,
                 "Dimensions [0,1) of indices[shape=[2,1]] = 2 must match dimensions [0,1) of "
                 "updates[shape=[3,2]] = 3");
  const Tensor batched = Tensor::FromVector<int32_t>(TensorShape{2, 2, 1}, {0, 1, 2, 0});
  OpTester prefix = ScatterNdOf(batched, Shape({2, 3, 2}), Tensor::Vector<int32_t>({3, 2}));
  ExpectRunError(prefix, absl::StatusCode::kInvalidArgument,
                 "Dimensions [0,2) of indices[shape=[2,2,1]] must match dimensions [0,2) of "
                 "updates[shape=[2,3,2]]");
  OpTester suffix = ScatterNdOf(good, Shape({2, 5}), Tensor::Vector<int32_t>({3, 2}));
  ExpectRunError(suffix, absl::StatusCode::kInvalidArgument,
                 "Dimensions [1,2) of input[shape=[3,2]] must match dimensions [1,2) of "
                 "updates[shape=[2,5]]");
}

}  // namespace
}  // namespace tessera::cpu::test
