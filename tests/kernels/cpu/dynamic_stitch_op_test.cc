// DynamicStitch and ParallelDynamicStitch against a reference loop: indices of rank 0 to 2 spread
// over several inputs (with repeats, gaps and empty inputs), rows of several dtypes, TensorFlow's
// known answers, and its errors.
#include <algorithm>
#include <cstring>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

struct StitchCase {
  std::vector<Tensor> indices;
  std::vector<Tensor> data;
};

OpTester StitchOf(const char* op, DataType dtype, const StitchCase& c) {
  OpTester tester(op);
  tester.Attr("T", dtype).Attr("N", static_cast<int64_t>(c.indices.size()));
  for (const Tensor& indices : c.indices) tester.Input(indices);
  for (const Tensor& data : c.data) tester.Input(data);
  return tester;
}

// merged[indices_k[j]] = data_k[j], the later input winning; rows never named stay zero.
Tensor ReferenceStitch(const StitchCase& c, DataType dtype, const TensorShape& row_shape) {
  int64_t max_index = -1;
  for (const Tensor& indices : c.indices) {
    for (int64_t j = 0; j < indices.NumElements(); ++j) {
      max_index = std::max<int64_t>(max_index, indices.data<int32_t>()[j]);
    }
  }
  TensorShape out_shape{max_index + 1};
  for (int d = 0; d < row_shape.rank(); ++d) out_shape.AddDim(row_shape.dim(d));
  Tensor out(dtype, out_shape);
  const size_t row_bytes = DataTypeSize(dtype) * static_cast<size_t>(row_shape.num_elements());
  if (out.TotalBytes() == 0) return out;
  char* dst = static_cast<char*>(out.data());
  std::memset(dst, 0, out.TotalBytes());
  for (size_t k = 0; k < c.indices.size(); ++k) {
    const char* src = static_cast<const char*>(c.data[k].data());
    for (int64_t j = 0; j < c.indices[k].NumElements(); ++j) {
      std::memcpy(dst + c.indices[k].data<int32_t>()[j] * row_bytes, src + j * row_bytes,
                  row_bytes);
    }
  }
  return out;
}

TEST(DynamicStitchOpTest, MatchesTheReferenceOnRandomIndices) {
  const std::vector<DataType> types = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32,
                                       TSR_DTYPE_INT64, TSR_DTYPE_BOOL, TSR_DTYPE_HALF};
  for (int trial = 0; trial < 60; ++trial) {
    const DataType dtype = types[trial % types.size()];
    const int n = 1 + trial % 3;
    const TensorShape row_shape = RandomShape(trial % 3, 0, 3);
    const int64_t range = 1 + static_cast<int64_t>(Rng()() % 8);
    StitchCase c;
    for (int k = 0; k < n; ++k) {
      const TensorShape indices_shape = RandomShape(static_cast<int>(Rng()() % 3), 0, 3);
      std::vector<int32_t> ids;
      for (int64_t j = 0; j < indices_shape.num_elements(); ++j) {
        ids.push_back(static_cast<int32_t>(Rng()() % range));
      }
      c.indices.push_back(Tensor::FromVector<int32_t>(indices_shape, ids));
      TensorShape data_shape = indices_shape;
      for (int d = 0; d < row_shape.rank(); ++d) data_shape.AddDim(row_shape.dim(d));
      c.data.push_back(RandomOfType(dtype, data_shape));
    }
    const Tensor expected = ReferenceStitch(c, dtype, row_shape);
    for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeString(dtype) + " trial " +
                   std::to_string(trial));
      OpTester tester = StitchOf(op, dtype, c);
      ExpectSameBytes(RunOk(tester), expected);
    }
  }
}

TEST(DynamicStitchOpTest, KnownValues) {
  // TensorFlow's example: scalar, vector and matrix indices with rows of two.
  StitchCase c;
  c.indices = {Tensor::Scalar<int32_t>(6), Tensor::Vector<int32_t>({4, 1}),
               Tensor::FromVector<int32_t>(TensorShape{2, 2}, {5, 2, 0, 3})};
  c.data = {Make<float>(Shape({2}), {61, 62}), Make<float>(Shape({2, 2}), {41, 42, 11, 12}),
            Make<float>(Shape({2, 2, 2}), {51, 52, 21, 22, 1, 2, 31, 32})};
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    OpTester tester = StitchOf(op, TSR_DTYPE_FLOAT, c);
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({7, 2}),
                            {1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62});
  }
  // A repeated index takes the value of the last input holding it; a gap stays zero.
  StitchCase repeated;
  repeated.indices = {Tensor::Vector<int32_t>({0, 3}), Tensor::Vector<int32_t>({3})};
  repeated.data = {Tensor::Vector<int32_t>({1, 2}), Tensor::Vector<int32_t>({9})};
  OpTester tester = StitchOf("DynamicStitch", TSR_DTYPE_INT32, repeated);
  ExpectSameBytes(RunOk(tester), Tensor::Vector<int32_t>({1, 0, 0, 9}));
  // Every indices input empty: no rows.
  StitchCase empty;
  empty.indices = {Tensor::Vector<int32_t>({})};
  empty.data = {Tensor(TSR_DTYPE_FLOAT, Shape({0, 3}))};
  OpTester none = StitchOf("DynamicStitch", TSR_DTYPE_FLOAT, empty);
  ExpectSameBytes(RunOk(none), Tensor(TSR_DTYPE_FLOAT, Shape({0, 3})));
}

TEST(DynamicStitchOpTest, RejectsBadArguments) {
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    SCOPED_TRACE(op);
    StitchCase negative;
    negative.indices = {Tensor::Vector<int32_t>({0, -1, 2})};
    negative.data = {Tensor::Vector<float>({1, 2, 3})};
    OpTester out_of_range = StitchOf(op, TSR_DTYPE_FLOAT, negative);
    ExpectRunError(out_of_range, absl::StatusCode::kInvalidArgument,
                   "indices[1] is out of range: -1 (input 0) is not in [0, 3)");
    StitchCase rank;
    rank.indices = {Tensor::Vector<int32_t>({0, 4, 7}),
                    Tensor::FromVector<int32_t>(TensorShape{1, 5}, {1, 6, 2, 3, 5})};
    rank.data = {Tensor::Vector<float>({0, 40, 70}), Tensor::Vector<float>({10, 60, 20, 30, 50})};
    OpTester prefix = StitchOf(op, TSR_DTYPE_FLOAT, rank);
    ExpectRunError(prefix, absl::StatusCode::kInvalidArgument,
                   "data[1].shape = [5] does not start with indices[1].shape = [1,5]");
    StitchCase extra;
    extra.indices = {Tensor::Vector<int32_t>({0, 4, 7}), Tensor::Vector<int32_t>({1, 6})};
    extra.data = {Tensor(TSR_DTYPE_FLOAT, Shape({3, 1})), Tensor(TSR_DTYPE_FLOAT, Shape({2, 2}))};
    OpTester rows = StitchOf(op, TSR_DTYPE_FLOAT, extra);
    ExpectRunError(rows, absl::StatusCode::kInvalidArgument,
                   "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [3,1], "
                   "data[1].shape = [2,2], indices[0].shape = [3], indices[1].shape = [2]");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
