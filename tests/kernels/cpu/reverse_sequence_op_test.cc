// ReverseSequence against a reference loop: random shapes (empty and size-1 dimensions
// included), every pair of seq_dim and batch_dim, both Tlen widths, several dtypes, TensorFlow's
// known answer, and its errors.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

OpTester ReverseSequenceOf(const Tensor& input, const Tensor& lengths, int64_t seq_dim,
                           int64_t batch_dim) {
  OpTester tester("ReverseSequence");
  tester.Attr("T", input.dtype())
      .Attr("Tlen", lengths.dtype())
      .Attr("seq_dim", seq_dim)
      .Attr("batch_dim", batch_dim)
      .Input(input)
      .Input(lengths);
  return tester;
}

TEST(ReverseSequenceOpTest, MatchesTheReferenceOnRandomShapes) {
  const std::vector<DataType> types = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32,
                                       TSR_DTYPE_INT64, TSR_DTYPE_BOOL, TSR_DTYPE_HALF};
  int trial = 0;
  for (int rank = 2; rank <= 4; ++rank) {
    for (int seq = 0; seq < rank; ++seq) {
      for (int batch = 0; batch < rank; ++batch) {
        if (seq == batch) continue;
        ++trial;
        const TensorShape shape = RandomShape(rank, trial % 5 == 0 ? 0 : 1, 4);
        const DataType dtype = types[trial % types.size()];
        std::vector<int64_t> lengths;
        for (int64_t b = 0; b < shape.dim(batch); ++b) {
          lengths.push_back(static_cast<int64_t>(Rng()() % (shape.dim(seq) + 1)));
        }
        const Tensor input = RandomOfType(dtype, shape);
        const Tensor expected = ReferenceCopy(input, shape, [&](const std::vector<int64_t>& c) {
          std::vector<int64_t> from = c;
          const int64_t length = lengths[c[batch]];
          if (c[seq] < length) from[seq] = length - 1 - c[seq];
          return FlatIndex(shape, from);
        });
        const DataType tlen = trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64;
        SCOPED_TRACE(shape.DebugString() + " seq_dim " + std::to_string(seq) + " batch_dim " +
                     std::to_string(batch) + " lengths " + ShapeString(lengths));
        OpTester tester = ReverseSequenceOf(input, IndexVector(tlen, lengths), seq, batch);
        ExpectSameBytes(RunOk(tester), expected);
      }
    }
  }
}

TEST(ReverseSequenceOpTest, KnownValues) {
  // TensorFlow's example: batch_dim 0, seq_dim 1.
  const Tensor input = Tensor::FromVector<int32_t>(
      TensorShape{4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  OpTester tester = ReverseSequenceOf(input, Tensor::Vector<int64_t>({1, 2, 3, 4}), 1, 0);
  ExpectSameBytes(RunOk(tester),
                  Tensor::FromVector<int32_t>(TensorShape{4, 4}, {1, 2, 3, 4, 6, 5, 7, 8, 11, 10,
                                                                  9, 12, 16, 15, 14, 13}));
}

TEST(ReverseSequenceOpTest, RejectsBadArguments) {
  const Tensor input = Random<float>(Shape({3, 4}));
  OpTester matrix = ReverseSequenceOf(
      input, Tensor::FromVector<int64_t>(TensorShape{3, 1}, {1, 1, 1}), 1, 0);
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument, "seq_lengths must be 1-dim, not 2");
  OpTester same = ReverseSequenceOf(input, Tensor::Vector<int64_t>({1, 1, 1}), 0, 0);
  ExpectRunError(same, absl::StatusCode::kInvalidArgument, "batch_dim == seq_dim == 0");
  OpTester negative = ReverseSequenceOf(input, Tensor::Vector<int64_t>({1, 1, 1}), -1, 0);
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "seq_dim and batch_dim must be non-negative, got -1 and 0");
  OpTester seq_rank = ReverseSequenceOf(input, Tensor::Vector<int64_t>({1, 1, 1}), 2, 0);
  ExpectRunError(seq_rank, absl::StatusCode::kInvalidArgument,
                 "seq_dim must be < input rank ( 2 vs. 2)");
  OpTester batch_rank = ReverseSequenceOf(input, Tensor::Vector<int64_t>({1, 1, 1}), 0, 3);
  ExpectRunError(batch_rank, absl::StatusCode::kInvalidArgument,
                 "batch_dim must be < input rank ( 3 vs. 2)");
  OpTester length = ReverseSequenceOf(input, Tensor::Vector<int32_t>({1, 1}), 1, 0);
  ExpectRunError(length, absl::StatusCode::kInvalidArgument,
                 "Length of seq_lengths != input.dims(0), (2 vs. 3)");
  OpTester below = ReverseSequenceOf(input, Tensor::Vector<int32_t>({1, -1, 1}), 1, 0);
  ExpectRunError(below, absl::StatusCode::kInvalidArgument, "seq_lens(1) < 0");
  OpTester above = ReverseSequenceOf(input, Tensor::Vector<int64_t>({1, 1, 5}), 1, 0);
  ExpectRunError(above, absl::StatusCode::kInvalidArgument, "seq_lens(2) > input.dims(1)");
}

}  // namespace
}  // namespace tessera::cpu::test
