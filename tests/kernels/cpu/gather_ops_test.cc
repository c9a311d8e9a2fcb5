// GatherV2 (every axis, batch_dims, int32/int64 indices), Gather (axis 0, validate_indices either
// way) and OneHot (every axis, every index type) against reference loops, and TensorFlow's errors.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

Tensor RandomIndices(DataType dtype, const TensorShape& shape, int64_t lo, int64_t hi) {
  return dtype == TSR_DTYPE_INT32
             ? Random<int32_t>(shape, static_cast<double>(lo), static_cast<double>(hi))
             : Random<int64_t>(shape, static_cast<double>(lo), static_cast<double>(hi));
}

int64_t IndexValue(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case TSR_DTYPE_INT32:
      return t.data<int32_t>()[i];
    case TSR_DTYPE_INT64:
      return t.data<int64_t>()[i];
    case TSR_DTYPE_INT8:
      return t.data<int8_t>()[i];
    default:
      return t.data<uint8_t>()[i];
  }
}

void CheckGather(DataType dtype, const TensorShape& params_shape, const TensorShape& indices_shape,
                 int64_t axis_arg, int64_t batch_dims_arg, DataType index_type) {
  SCOPED_TRACE(params_shape.DebugString() + " indices " + indices_shape.DebugString() + " axis " +
               std::to_string(axis_arg) + " batch_dims " + std::to_string(batch_dims_arg));
  const Tensor params = RandomOfType(dtype, params_shape);
  const int axis = static_cast<int>(axis_arg < 0 ? axis_arg + params_shape.rank() : axis_arg);
  const int batch_dims =
      static_cast<int>(batch_dims_arg < 0 ? batch_dims_arg + indices_shape.rank() : batch_dims_arg);
  const Tensor indices = RandomIndices(index_type, indices_shape, 0, params_shape.dim(axis) - 1);
  // Output: params[:axis] + indices[batch_dims:] + params[axis + 1:].
  TensorShape out_shape;
  for (int d = 0; d < axis; ++d) out_shape.AddDim(params_shape.dim(d));
  for (int d = batch_dims; d < indices_shape.rank(); ++d) out_shape.AddDim(indices_shape.dim(d));
  for (int d = axis + 1; d < params_shape.rank(); ++d) out_shape.AddDim(params_shape.dim(d));
  const int index_rank = indices_shape.rank() - batch_dims;
  const Tensor expected = ReferenceCopy(params, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> index_coordinates(c.begin(), c.begin() + batch_dims);
    index_coordinates.insert(index_coordinates.end(), c.begin() + axis,
                             c.begin() + axis + index_rank);
    std::vector<int64_t> in(c.begin(), c.begin() + axis);
    in.push_back(IndexValue(indices, FlatIndex(indices_shape, index_coordinates)));
    in.insert(in.end(), c.begin() + axis + index_rank, c.end());
    return FlatIndex(params_shape, in);
  });
  OpTester tester("GatherV2");
  tester.Attr("Tparams", dtype)
      .Attr("Tindices", index_type)
      .Attr("Taxis", index_type)
      .Attr("batch_dims", batch_dims_arg)
      .Input(params)
      .Input(indices);
  if (index_type == TSR_DTYPE_INT32) {
    tester.Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(axis_arg)));
  } else {
    tester.Input(Tensor::Scalar<int64_t>(axis_arg));
  }
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(GatherV2OpTest, EveryAxisWithoutBatchDims) {
  int trial = 0;
  for (int rank = 1; rank <= 4; ++rank) {
    for (int axis = -rank; axis < rank; ++axis, ++trial) {
      const TensorShape indices_shape = RandomShape(trial % 3, 1, 3);
      CheckGather(ByteMovingTypes()[trial % ByteMovingTypes().size()], RandomShape(rank, 1, 4),
                  indices_shape, axis, 0, trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64);
    }
  }
}

TEST(GatherV2OpTest, BatchDims) {
  CheckGather(TSR_DTYPE_FLOAT, Shape({2, 5, 3}), Shape({2, 4}), 1, 1, TSR_DTYPE_INT32);
  CheckGather(TSR_DTYPE_FLOAT, Shape({2, 5, 3}), Shape({2, 4}), 2, 1, TSR_DTYPE_INT64);
  CheckGather(TSR_DTYPE_INT64, Shape({2, 3, 5, 2}), Shape({2, 3, 4}), 2, 2, TSR_DTYPE_INT32);
  CheckGather(TSR_DTYPE_INT64, Shape({2, 3, 5, 2}), Shape({2, 3, 4}), 3, -1, TSR_DTYPE_INT64);
  CheckGather(TSR_DTYPE_BOOL, Shape({3, 4}), Shape({3}), 1, 1, TSR_DTYPE_INT32);
}

TEST(GatherV2OpTest, EmptyIndicesAndParams) {
  CheckGather(TSR_DTYPE_FLOAT, Shape({4, 3}), Shape({0}), 0, 0, TSR_DTYPE_INT32);
  CheckGather(TSR_DTYPE_FLOAT, Shape({4, 0}), Shape({2}), 0, 0, TSR_DTYPE_INT64);
  CheckGather(TSR_DTYPE_FLOAT, Shape({1}), Shape({}), 0, 0, TSR_DTYPE_INT32);
}

// Gather (v1) along axis 0: output = indices' shape + params.shape[1:].
void CheckGatherV1(DataType dtype, const TensorShape& params_shape,
                   const TensorShape& indices_shape, DataType index_type, bool validate) {
  SCOPED_TRACE(params_shape.DebugString() + " indices " + indices_shape.DebugString());
  const Tensor params = RandomOfType(dtype, params_shape);
  const Tensor indices = RandomIndices(index_type, indices_shape, 0, params_shape.dim(0) - 1);
  TensorShape out_shape = indices_shape;
  for (int d = 1; d < params_shape.rank(); ++d) out_shape.AddDim(params_shape.dim(d));
  const Tensor expected = ReferenceCopy(params, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> index_coordinates(c.begin(), c.begin() + indices_shape.rank());
    std::vector<int64_t> in = {IndexValue(indices, FlatIndex(indices_shape, index_coordinates))};
    in.insert(in.end(), c.begin() + indices_shape.rank(), c.end());
    return FlatIndex(params_shape, in);
  });
  OpTester tester("Gather");
  tester.Attr("Tparams", dtype)
      .Attr("Tindices", index_type)
      .Attr("validate_indices", validate)
      .Input(params)
      .Input(indices);
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(GatherOpTest, GathersRowsOfParams) {
  for (int trial = 0; trial < 24; ++trial) {
    CheckGatherV1(ByteMovingTypes()[trial % ByteMovingTypes().size()],
                  RandomShape(1 + trial % 3, 1, 4), RandomShape(trial % 3, trial % 5 == 0 ? 0 : 1, 3),
                  trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64, trial % 3 != 0);
  }
  CheckGatherV1(TSR_DTYPE_FLOAT, Shape({3, 0}), Shape({2}), TSR_DTYPE_INT32, true);
}

TEST(GatherOpTest, RejectsBadIndicesAndScalarParams) {
  OpTester range("Gather");
  range.Attr("Tparams", TSR_DTYPE_FLOAT)
      .Attr("Tindices", TSR_DTYPE_INT64)
      .Input(Random<float>(Shape({3, 2})))
      .Input(Make<int64_t>(Shape({2}), {0, 3}));
  ExpectRunError(range, absl::StatusCode::kInvalidArgument, "indices[1] = 3 is not in [0, 3)");
  OpTester scalar("Gather");
  scalar.Attr("Tparams", TSR_DTYPE_FLOAT)
      .Attr("Tindices", TSR_DTYPE_INT32)
      .Input(Tensor::Scalar<float>(1))
      .Input(Make<int32_t>(Shape({1}), {0}));
  ExpectRunError(scalar, absl::StatusCode::kInvalidArgument,
                 "params must be at least 1 dimensional");
}

OpTester GatherOf(const TensorShape& params, const Tensor& indices, const Tensor& axis,
                  int64_t batch_dims = 0) {
  OpTester tester("GatherV2");
  tester.Attr("Tparams", TSR_DTYPE_FLOAT)
      .Attr("Tindices", indices.dtype())
      .Attr("Taxis", axis.dtype())
      .Attr("batch_dims", batch_dims)
      .Input(Random<float>(params))
      .Input(indices)
      .Input(axis);
  return tester;
}

TEST(GatherV2OpTest, RejectsBadIndicesAndAxes) {
  OpTester bad_index = GatherOf(Shape({5, 2}), Make<int32_t>(Shape({2, 2}), {0, 1, 7, 2}),
                                Tensor::Scalar<int32_t>(0));
  ExpectRunError(bad_index, absl::StatusCode::kInvalidArgument,
                 "indices[1,0] = 7 is not in [0, 5)");
  OpTester negative =
      GatherOf(Shape({5, 2}), Tensor::Vector<int64_t>({0, -1}), Tensor::Scalar<int64_t>(-1));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "indices[1] = -1 is not in [0, 2)");
  OpTester scalar_index =
      GatherOf(Shape({3}), Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(0));
  ExpectRunError(scalar_index, absl::StatusCode::kInvalidArgument, "indices = 3 is not in [0, 3)");
  OpTester far_axis =
      GatherOf(Shape({5, 2}), Tensor::Vector<int32_t>({0}), Tensor::Scalar<int32_t>(2));
  ExpectRunError(far_axis, absl::StatusCode::kInvalidArgument,
                 "Shape must be at least rank 3 but is rank 2");
  OpTester batch = GatherOf(Shape({2, 3}), Make<int32_t>(Shape({3, 1}), {0, 0, 0}),
                            Tensor::Scalar<int32_t>(1), 1);
  ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                 "params.shape[0]: 2 should be equal to indices.shape[0]: 3");
  OpTester batch_axis =
      GatherOf(Shape({2, 3}), Make<int32_t>(Shape({2, 1}), {0, 0}), Tensor::Scalar<int32_t>(0), 1);
  ExpectRunError(batch_axis, absl::StatusCode::kInvalidArgument,
                 "batch_dims (1) must be less than or equal to axis (0).");
  OpTester batch_range =
      GatherOf(Shape({2, 3}), Tensor::Vector<int32_t>({0}), Tensor::Scalar<int32_t>(1), 2);
  ExpectRunError(batch_range, absl::StatusCode::kInvalidArgument,
                 "Expected batch_dims in the range [-1, 1], but got 2");
  OpTester batch_rank =
      GatherOf(Shape({2}), Make<int32_t>(Shape({2, 1}), {0, 0}), Tensor::Scalar<int32_t>(0), 1);
  ExpectRunError(batch_rank, absl::StatusCode::kInvalidArgument,
                 "batch_dims (1) must be less than rank(params) (1).");
  OpTester vector_axis =
      GatherOf(Shape({5, 2}), Tensor::Vector<int32_t>({0}), Tensor::Vector<int32_t>({0}));
  ExpectRunError(vector_axis, absl::StatusCode::kInvalidArgument, "axis must be scalar");
  OpTester scalar_params =
      GatherOf(Shape({}), Tensor::Vector<int32_t>({0}), Tensor::Scalar<int32_t>(0));
  ExpectRunError(scalar_params, absl::StatusCode::kInvalidArgument,
                 "params must be at least 1 dimensional");
}

Tensor IndicesOfType(DataType dtype, const TensorShape& shape, int64_t depth) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    // Mostly in range, some out of range (negative where the type allows).
    const int64_t lo = dtype == TSR_DTYPE_UINT8 ? 0 : -2;
    const int64_t v = lo + static_cast<int64_t>(Rng()() % static_cast<uint64_t>(depth + 3 - lo));
    switch (dtype) {
      case TSR_DTYPE_UINT8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case TSR_DTYPE_INT8:
        t.data<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      case TSR_DTYPE_INT32:
        t.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      default:
        t.data<int64_t>()[i] = v;
    }
  }
  return t;
}

void CheckOneHot(DataType dtype, DataType index_type, const TensorShape& shape, int32_t depth,
                 int64_t axis_attr) {
  SCOPED_TRACE(shape.DebugString() + " depth " + std::to_string(depth) + " axis " +
               std::to_string(axis_attr));
  const Tensor indices = IndicesOfType(index_type, shape, depth);
  const Tensor on = RandomOfType(dtype, TensorShape{});
  const Tensor off = RandomOfType(dtype, TensorShape{});
  const int axis = axis_attr == -1 ? shape.rank() : static_cast<int>(axis_attr);
  TensorShape out_shape;
  for (int d = 0; d < axis; ++d) out_shape.AddDim(shape.dim(d));
  out_shape.AddDim(depth);
  for (int d = axis; d < shape.rank(); ++d) out_shape.AddDim(shape.dim(d));
  // Elements 0 and 1 of a two-element [off, on] tensor.
  Tensor values(dtype, TensorShape{2});
  const size_t size = DataTypeSize(dtype);
  std::memcpy(values.data(), off.data(), size);
  std::memcpy(static_cast<char*>(values.data()) + size, on.data(), size);
  const Tensor expected = ReferenceCopy(values, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> in(c);
    in.erase(in.begin() + axis);
    return IndexValue(indices, FlatIndex(shape, in)) == c[axis] ? int64_t{1} : int64_t{0};
  });
  OpTester tester("OneHot");
  tester.Attr("T", dtype)
      .Attr("TI", index_type)
      .Attr("axis", axis_attr)
      .Input(indices)
      .Input(Tensor::Scalar<int32_t>(depth))
      .Input(on)
      .Input(off);
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(OneHotOpTest, EveryAxisAndIndexType) {
  const DataType index_types[] = {TSR_DTYPE_UINT8, TSR_DTYPE_INT8, TSR_DTYPE_INT32,
                                  TSR_DTYPE_INT64};
  int trial = 0;
  for (int rank = 0; rank <= 3; ++rank) {
    for (int64_t axis = -1; axis <= rank; ++axis, ++trial) {
      CheckOneHot(ByteMovingTypes()[trial % ByteMovingTypes().size()], index_types[trial % 4],
                  RandomShape(rank, 1, 4), 1 + trial % 5, axis);
    }
  }
  CheckOneHot(TSR_DTYPE_FLOAT, TSR_DTYPE_INT64, Shape({3}), 0, -1);
  CheckOneHot(TSR_DTYPE_FLOAT, TSR_DTYPE_INT64, Shape({0, 2}), 3, 1);
}

OpTester OneHotOf(const Tensor& depth, int64_t axis, const TensorShape& on_shape) {
  OpTester tester("OneHot");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("TI", TSR_DTYPE_INT64)
      .Attr("axis", axis)
      .Input(Tensor::Vector<int64_t>({0, 1}))
      .Input(depth)
      .Input(Random<float>(on_shape))
      .Input(Tensor::Scalar<float>(0));
  return tester;
}

TEST(OneHotOpTest, RejectsBadArguments) {
  OpTester negative = OneHotOf(Tensor::Scalar<int32_t>(-1), -1, Shape({}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "depth must be non-negative, got: -1");
  OpTester axis = OneHotOf(Tensor::Scalar<int32_t>(3), 2, Shape({}));
  ExpectRunError(axis, absl::StatusCode::kInvalidArgument,
                 "Expected axis to be -1 or between [0, 2).  But received: 2");
  OpTester depth = OneHotOf(Tensor::Vector<int32_t>({3}), -1, Shape({}));
  ExpectRunError(depth, absl::StatusCode::kInvalidArgument, "depth must be a scalar, but got: [1]");
  OpTester on = OneHotOf(Tensor::Scalar<int32_t>(3), -1, Shape({2}));
  ExpectRunError(on, absl::StatusCode::kInvalidArgument, "on_value must be a scalar, but got: [2]");
  OpTester off("OneHot");
  off.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("TI", TSR_DTYPE_INT64)
      .Input(Tensor::Vector<int64_t>({0, 1}))
      .Input(Tensor::Scalar<int32_t>(2))
      .Input(Tensor::Scalar<float>(1))
      .Input(Tensor::Vector<float>({0}));
  ExpectRunError(off, absl::StatusCode::kInvalidArgument,
                 "off_value must be a scalar, but got: [1]");
  OpTester rank_nine("OneHot");
  rank_nine.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("TI", TSR_DTYPE_INT64)
      .Input(Random<int64_t>(Shape({1, 1, 1, 1, 1, 1, 1, 1}), 0, 1))
      .Input(Tensor::Scalar<int32_t>(2))
      .Input(Tensor::Scalar<float>(1))
      .Input(Tensor::Scalar<float>(0));
  ExpectRunError(rank_nine, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
}

}  // namespace
}  // namespace tessera::cpu::test
