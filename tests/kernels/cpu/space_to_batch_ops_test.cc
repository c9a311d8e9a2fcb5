// SpaceToBatchND, BatchToSpaceND, SpaceToBatch and BatchToSpace against reference loops: random
// shapes (empty and size-1 dimensions included), one to three block dimensions with remaining
// dimensions after them, int32 and int64 block shapes, paddings and crops, several dtypes,
// TensorFlow's documented examples, round trips, and every error.
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

// [M, 2] paddings or crops of `dtype`.
Tensor Amounts(DataType dtype, const std::vector<int64_t>& values) {
  Tensor t = IndexVector(dtype, values);
  return t.Reshaped(TensorShape{static_cast<int64_t>(values.size() / 2), 2});
}

OpTester SpaceBatchNd(const char* op, const Tensor& input, const Tensor& block,
                      const Tensor& amounts) {
  const bool to_batch = std::string(op) == "SpaceToBatchND";
  OpTester tester(op);
  tester.Attr("T", input.dtype())
      .Attr("Tblock_shape", block.dtype())
      .Attr(to_batch ? "Tpaddings" : "Tcrops", amounts.dtype())
      .Input(input)
      .Input(block)
      .Input(amounts);
  return tester;
}

// The reference SpaceToBatchND: output batch entry o * batch + n, o the block offset in
// row-major order, reads input entry n at position s * block + o - pad_start (zero outside).
Tensor ReferenceSpaceToBatch(const Tensor& input, const std::vector<int64_t>& block,
                             const std::vector<int64_t>& paddings) {
  const int m = static_cast<int>(block.size());
  TensorShape out_shape = input.shape();
  int64_t product = 1;
  for (int64_t b : block) product *= b;
  out_shape.set_dim(0, input.shape().dim(0) * product);
  for (int i = 0; i < m; ++i) {
    out_shape.set_dim(
        i + 1, (input.shape().dim(i + 1) + paddings[2 * i] + paddings[2 * i + 1]) / block[i]);
  }
  const Tensor zero(input.dtype(), TensorShape{});
  std::vector<char> fill(DataTypeSize(input.dtype()), 0);
  return ReferenceCopy(
      input, out_shape,
      [&](const std::vector<int64_t>& c) -> int64_t {
        std::vector<int64_t> from = c;
        from[0] = c[0] % input.shape().dim(0);
        int64_t offset = c[0] / input.shape().dim(0);
        for (int i = m - 1; i >= 0; --i) {
          from[i + 1] = c[i + 1] * block[i] + offset % block[i] - paddings[2 * i];
          offset /= block[i];
          if (from[i + 1] < 0 || from[i + 1] >= input.shape().dim(i + 1)) return -1;
        }
        return FlatIndex(input.shape(), from);
      },
      fill.data());
}

// The reference BatchToSpaceND: the inverse placement, then the crops.
Tensor ReferenceBatchToSpace(const Tensor& input, const std::vector<int64_t>& block,
                             const std::vector<int64_t>& crops) {
  const int m = static_cast<int>(block.size());
  TensorShape out_shape = input.shape();
  int64_t product = 1;
  for (int64_t b : block) product *= b;
  const int64_t batch = input.shape().dim(0) / product;
  out_shape.set_dim(0, batch);
  for (int i = 0; i < m; ++i) {
    out_shape.set_dim(i + 1, input.shape().dim(i + 1) * block[i] - crops[2 * i] - crops[2 * i + 1]);
  }
  return ReferenceCopy(input, out_shape, [&](const std::vector<int64_t>& c) {
    std::vector<int64_t> from = c;
    int64_t offset = 0;
    for (int i = 0; i < m; ++i) {
      const int64_t uncropped = c[i + 1] + crops[2 * i];
      offset = offset * block[i] + uncropped % block[i];
      from[i + 1] = uncropped / block[i];
    }
    from[0] = offset * batch + c[0];
    return FlatIndex(input.shape(), from);
  });
}

const std::vector<DataType>& Types() {
  static const auto* types =
      new std::vector<DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_INT64,  TSR_DTYPE_UINT8,
                                TSR_DTYPE_HALF,  TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32};
  return *types;
}

TEST(SpaceToBatchOpsTest, MatchTheReferenceOnRandomShapes) {
  std::uniform_int_distribution<int64_t> block_dist(1, 3);
  std::uniform_int_distribution<int64_t> pad_dist(0, 2);
  for (int trial = 0; trial < 60; ++trial) {
    const int m = 1 + trial % 3;
    const int remaining = trial % 2;
    std::vector<int64_t> block;
    std::vector<int64_t> paddings;
    TensorShape shape;
    shape.AddDim(trial % 10 == 0 ? 0 : 1 + trial % 3);
    for (int i = 0; i < m; ++i) {
      block.push_back(block_dist(Rng()));
      const int64_t start = pad_dist(Rng());
      const int64_t end = pad_dist(Rng());
      // A size that, padded, the block divides (0 and 1 included).
      int64_t size = static_cast<int64_t>(Rng()() % 4);
      while ((size + start + end) % block.back() != 0) ++size;
      shape.AddDim(size);
      paddings.push_back(start);
      paddings.push_back(end);
    }
    for (int r = 0; r < remaining; ++r) shape.AddDim(1 + trial % 3);
    const DataType dtype = Types()[trial % Types().size()];
    const DataType index = trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64;
    const DataType amount = trial % 3 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64;
    SCOPED_TRACE(shape.DebugString() + " block " + ShapeString(block) + " paddings " +
                 ShapeString(paddings));
    const Tensor input = RandomOfType(dtype, shape);
    OpTester to_batch =
        SpaceBatchNd("SpaceToBatchND", input, IndexVector(index, block), Amounts(amount, paddings));
    const Tensor batched = RunOk(to_batch);
    ExpectSameBytes(batched, ReferenceSpaceToBatch(input, block, paddings));
    // BatchToSpaceND with the paddings as crops undoes it.
    OpTester back = SpaceBatchNd("BatchToSpaceND", batched, IndexVector(index, block),
                                 Amounts(amount, paddings));
    ExpectSameBytes(RunOk(back), input);
    // And on a random input of the batched shape.
    const Tensor other = RandomOfType(dtype, batched.shape());
    OpTester to_space =
        SpaceBatchNd("BatchToSpaceND", other, IndexVector(index, block), Amounts(amount, paddings));
    ExpectSameBytes(RunOk(to_space), ReferenceBatchToSpace(other, block, paddings));
  }
}

TEST(SpaceToBatchOpsTest, TensorFlowsExamples) {
  // A [2, 2, 4, 1] input, block [2, 2], paddings [[0, 0], [2, 0]]: eight [1, 3, 1] outputs.
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = static_cast<float>(i + 1);
  const Tensor x = Tensor::FromVector<float>(TensorShape{2, 2, 4, 1}, values);
  OpTester tester = SpaceBatchNd("SpaceToBatchND", x, Tensor::Vector<int32_t>({2, 2}),
                                 Amounts(TSR_DTYPE_INT32, {0, 0, 2, 0}));
  const Tensor expected = Tensor::FromVector<float>(
      TensorShape{8, 1, 3, 1},
      {0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16});
  ExpectSameBytes(RunOk(tester), expected);
  // A [1, 4, 4, 1] input, block [2, 2].
  const Tensor square = Tensor::FromVector<int32_t>(
      TensorShape{1, 4, 4, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  OpTester square_tester = SpaceBatchNd("SpaceToBatchND", square, Tensor::Vector<int64_t>({2, 2}),
                                        Amounts(TSR_DTYPE_INT64, {0, 0, 0, 0}));
  ExpectSameBytes(RunOk(square_tester), Tensor::FromVector<int32_t>(TensorShape{4, 2, 2, 1},
                                                                    {1, 3, 9, 11, 2, 4, 10, 12, 5,
                                                                     7, 13, 15, 6, 8, 14, 16}));
  // BatchToSpaceND of [4, 1, 1, 3] with block [2, 2] and no crops.
  std::vector<float> depth(12);
  for (int i = 0; i < 12; ++i) depth[i] = static_cast<float>(i + 1);
  OpTester back =
      SpaceBatchNd("BatchToSpaceND", Tensor::FromVector<float>(TensorShape{4, 1, 1, 3}, depth),
                   Tensor::Vector<int32_t>({2, 2}), Amounts(TSR_DTYPE_INT32, {0, 0, 0, 0}));
  ExpectSameBytes(RunOk(back), Tensor::FromVector<float>(TensorShape{1, 2, 2, 3}, depth));
  // No block dimensions: the input unchanged.
  OpTester none = SpaceBatchNd("SpaceToBatchND", square, IndexVector(TSR_DTYPE_INT32, {}),
                               Tensor(TSR_DTYPE_INT32, TensorShape{0, 2}));
  ExpectSameBytes(RunOk(none), square);
}

TEST(SpaceToBatchOpsTest, FirstVersionsTakeOneBlockSize) {
  const Tensor x = Random<float>(Shape({2, 3, 5, 2}));
  const std::vector<int64_t> paddings = {1, 0, 0, 1};
  OpTester tester("SpaceToBatch");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tpaddings", TSR_DTYPE_INT64)
      .Attr("block_size", int64_t{2})
      .Input(x)
      .Input(Amounts(TSR_DTYPE_INT64, paddings));
  const Tensor batched = RunOk(tester);
  ExpectSameBytes(batched, ReferenceSpaceToBatch(x, {2, 2}, paddings));
  OpTester back("BatchToSpace");
  back.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tidx", TSR_DTYPE_INT32)
      .Attr("block_size", int64_t{2})
      .Input(batched)
      .Input(Amounts(TSR_DTYPE_INT32, paddings));
  ExpectSameBytes(RunOk(back), x);
  OpTester rank3("SpaceToBatch");
  rank3.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Tpaddings", TSR_DTYPE_INT32)
      .Attr("block_size", int64_t{2})
      .Input(Random<float>(Shape({2, 4, 4})))
      .Input(Amounts(TSR_DTYPE_INT32, {0, 0, 0, 0}));
  ExpectRunError(rank3, absl::StatusCode::kInvalidArgument,
                 "Input rank should be: 4 instead of: 3");
}

TEST(SpaceToBatchOpsTest, RejectsBadArguments) {
  const Tensor x = Random<float>(Shape({2, 4, 3}));
  const Tensor block = Tensor::Vector<int32_t>({2, 3});
  const Tensor no_pad = Amounts(TSR_DTYPE_INT32, {0, 0, 0, 0});
  OpTester matrix = SpaceBatchNd("SpaceToBatchND", x,
                                 Tensor::FromVector<int32_t>(TensorShape{1, 2}, {2, 3}), no_pad);
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "block_shape rank should be 1 instead of 2");
  OpTester rank = SpaceBatchNd("SpaceToBatchND", Random<float>(Shape({2, 4})), block, no_pad);
  ExpectRunError(rank, absl::StatusCode::kInvalidArgument,
                 "input rank should be >= 3 instead of 2");
  OpTester shape = SpaceBatchNd("SpaceToBatchND", x, block,
                                Tensor::FromVector<int32_t>(TensorShape{2, 3}, {0, 0, 0, 0, 0, 0}));
  ExpectRunError(shape, absl::StatusCode::kInvalidArgument,
                 "paddings should have shape [2, 2] instead of [2,3]");
  OpTester zero = SpaceBatchNd("SpaceToBatchND", x, Tensor::Vector<int32_t>({2, 0}), no_pad);
  ExpectRunError(zero, absl::StatusCode::kInvalidArgument,
                 "All values in block_shape must be positive, got value, 0 at index 1.");
  OpTester negative =
      SpaceBatchNd("SpaceToBatchND", x, block, Amounts(TSR_DTYPE_INT32, {0, 0, -1, 1}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "Paddings must be non-negative");
  OpTester divisible =
      SpaceBatchNd("SpaceToBatchND", x, block, Amounts(TSR_DTYPE_INT32, {0, 0, 0, 1}));
  ExpectRunError(divisible, absl::StatusCode::kInvalidArgument,
                 "padded_shape[1]=4 is not divisible by block_shape[1]=3");
  const Tensor batched = Random<float>(Shape({10, 2, 2}));
  OpTester batch = SpaceBatchNd("BatchToSpaceND", batched, block, no_pad);
  ExpectRunError(batch, absl::StatusCode::kInvalidArgument,
                 "Input batch dimension (10) is not divisible by product of block sizes (6)");
  const Tensor six = Random<float>(Shape({6, 2, 2}));
  OpTester crops =
      SpaceBatchNd("BatchToSpaceND", six, block, Amounts(TSR_DTYPE_INT64, {0, -1, 0, 0}));
  ExpectRunError(crops, absl::StatusCode::kInvalidArgument, "Crops must be non-negative");
  OpTester cropped =
      SpaceBatchNd("BatchToSpaceND", six, block, Amounts(TSR_DTYPE_INT64, {0, 0, 4, 3}));
  ExpectRunError(cropped, absl::StatusCode::kInvalidArgument,
                 "cropped_shape[1]=-1 must be non-negative");
}

}  // namespace
}  // namespace tessera::cpu::test
