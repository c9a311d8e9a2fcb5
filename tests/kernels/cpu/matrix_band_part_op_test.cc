// MatrixBandPart against a reference loop: batches of matrices (empty and size-1 dimensions
// included), every band from none to all, negative (unbounded) limits, both index types, several
// dtypes, TensorFlow's known answer, and its errors.
#include <cstring>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

Tensor IndexScalar(DataType dtype, int64_t value) {
  return dtype == TSR_DTYPE_INT32 ? Tensor::Scalar<int32_t>(static_cast<int32_t>(value))
                                  : Tensor::Scalar<int64_t>(value);
}

OpTester BandPartOf(const Tensor& input, const Tensor& lower, const Tensor& upper) {
  OpTester tester("MatrixBandPart");
  tester.Attr("T", input.dtype())
      .Attr("Tindex", lower.dtype())
      .Input(input)
      .Input(lower)
      .Input(upper);
  return tester;
}

TEST(MatrixBandPartOpTest, MatchesTheReferenceForEveryBand) {
  const std::vector<DataType> types = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32,
                                       TSR_DTYPE_INT64, TSR_DTYPE_BOOL, TSR_DTYPE_COMPLEX64};
  int trial = 0;
  for (const TensorShape& shape : {Shape({3, 4}), Shape({2, 4, 3}), Shape({1, 1}),
                                   Shape({2, 0, 3}), Shape({2, 2, 1, 5})}) {
    const int64_t rows = shape.dim(shape.rank() - 2);
    const int64_t cols = shape.dim(shape.rank() - 1);
    for (int64_t lower = -1; lower <= rows; ++lower) {
      for (int64_t upper = -1; upper <= cols; ++upper, ++trial) {
        SCOPED_TRACE(shape.DebugString() + " lower " + std::to_string(lower) + " upper " +
                     std::to_string(upper));
        const DataType dtype = types[trial % types.size()];
        const Tensor input = RandomOfType(dtype, shape);
        Tensor expected(dtype, shape);
        const size_t size = DataTypeSize(dtype);
        const char* src = static_cast<const char*>(input.data());
        char* dst = static_cast<char*>(expected.data());
        for (int64_t i = 0; i < input.NumElements(); ++i) {
          const int64_t m = (i / cols) % rows;
          const int64_t n = i % cols;
          const bool keep = (lower < 0 || m - n <= lower) && (upper < 0 || n - m <= upper);
          if (keep) {
            std::memcpy(dst + i * size, src + i * size, size);
          } else {
            std::memset(dst + i * size, 0, size);
          }
        }
        const DataType index_type = trial % 2 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32;
        OpTester tester = BandPartOf(input, IndexScalar(index_type, lower),
                                     IndexScalar(index_type, upper));
        ExpectSameBytes(RunOk(tester), expected);
      }
    }
  }
}

TEST(MatrixBandPartOpTest, KnownValues) {
  // TensorFlow's example: the tridiagonal part of a 4x4 matrix.
  const Tensor input = Tensor::FromVector<int32_t>(
      TensorShape{4, 4}, {0, 1, 2, 3, -1, 0, 1, 2, -2, -1, 0, 1, -3, -2, -1, 0});
  OpTester tester = BandPartOf(input, Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(-1));
  ExpectSameBytes(RunOk(tester),
                  Tensor::FromVector<int32_t>(TensorShape{4, 4}, {0, 1, 2, 3, -1, 0, 1, 2, 0, -1,
                                                                  0, 1, 0, 0, -1, 0}));
}

TEST(MatrixBandPartOpTest, RejectsBadArguments) {
  OpTester vector = BandPartOf(Random<float>(Shape({3})), Tensor::Scalar<int64_t>(0),
                               Tensor::Scalar<int64_t>(0));
  ExpectRunError(vector, absl::StatusCode::kInvalidArgument,
                 "input must be at least 2-dim, received shape: [3]");
  OpTester lower_shape = BandPartOf(Random<float>(Shape({3, 3})), Tensor::Vector<int64_t>({0}),
                                    Tensor::Scalar<int64_t>(0));
  ExpectRunError(lower_shape, absl::StatusCode::kInvalidArgument,
                 "num_lower must be scalar, got shape [1]");
  OpTester upper_shape = BandPartOf(Random<float>(Shape({3, 3})), Tensor::Scalar<int32_t>(0),
                                    Tensor::Vector<int32_t>({0}));
  ExpectRunError(upper_shape, absl::StatusCode::kInvalidArgument,
                 "num_upper must be scalar, got shape [1]");
  OpTester lower = BandPartOf(Random<float>(Shape({3, 5})), Tensor::Scalar<int64_t>(4),
                              Tensor::Scalar<int64_t>(0));
  ExpectRunError(lower, absl::StatusCode::kInvalidArgument,
                 "num_lower must be negative or less or equal to number of rows (3) got: 4");
  OpTester upper = BandPartOf(Random<float>(Shape({3, 5})), Tensor::Scalar<int64_t>(0),
                              Tensor::Scalar<int64_t>(6));
  ExpectRunError(upper, absl::StatusCode::kInvalidArgument,
                 "num_upper must be negative or less or equal to number of columns (5) got: 6");
}

}  // namespace
}  // namespace tessera::cpu::test
