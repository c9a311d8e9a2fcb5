// Pad, PadV2 and MirrorPad (REFLECT and SYMMETRIC) against reference index maps for ranks 0 to
// 5, every element size, empty dimensions, and TensorFlow's errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

Tensor Paddings(DataType dtype, const std::vector<int64_t>& pairs) {
  Tensor t = IndexVector(dtype, pairs);
  return t.Reshaped(TensorShape{static_cast<int64_t>(pairs.size() / 2), 2});
}

TensorShape PaddedShape(const TensorShape& shape, const std::vector<int64_t>& pairs) {
  TensorShape out;
  for (int d = 0; d < shape.rank(); ++d) out.AddDim(pairs[2 * d] + shape.dim(d) + pairs[2 * d + 1]);
  return out;
}

// PadV2 when `constant` is set, Pad otherwise (zero fill).
void CheckPad(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& pairs,
              bool with_constant, DataType pad_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " paddings " + ShapeString(pairs) +
               (with_constant ? " PadV2" : " Pad"));
  const Tensor input = RandomOfType(dtype, shape);
  const Tensor constant = RandomOfType(dtype, TensorShape{});
  const Tensor zero(dtype, TensorShape{});
  std::memset(zero.data(), 0, zero.TotalBytes());
  const Tensor expected = ReferenceCopy(
      input, PaddedShape(shape, pairs),
      [&](const std::vector<int64_t>& c) -> int64_t {
        std::vector<int64_t> in(c);
        for (int d = 0; d < shape.rank(); ++d) {
          in[d] -= pairs[2 * d];
          if (in[d] < 0 || in[d] >= shape.dim(d)) return -1;
        }
        return FlatIndex(shape, in);
      },
      with_constant ? constant.data() : zero.data());
  OpTester tester(with_constant ? "PadV2" : "Pad");
  tester.Attr("T", dtype).Attr("Tpaddings", pad_type).Input(input).Input(Paddings(pad_type, pairs));
  if (with_constant) tester.Input(constant);
  ExpectSameBytes(RunOk(tester), expected);
}

std::vector<int64_t> RandomPairs(int rank, int64_t most) {
  std::vector<int64_t> pairs;
  for (int i = 0; i < 2 * rank; ++i) pairs.push_back(static_cast<int64_t>(Rng()() % (most + 1)));
  return pairs;
}

TEST(PadOpTest, RandomPaddingsOfRanksZeroToFive) {
  for (int trial = 0; trial < 48; ++trial) {
    const int rank = trial % 6;
    CheckPad(ByteMovingTypes()[trial % ByteMovingTypes().size()], RandomShape(rank, 0, 3),
             RandomPairs(rank, 2), trial % 2 == 0,
             trial % 3 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32);
  }
}

TEST(PadOpTest, EdgeCases) {
  CheckPad(TSR_DTYPE_FLOAT, Shape({2, 3}), {0, 0, 0, 0}, false);
  CheckPad(TSR_DTYPE_FLOAT, Shape({2, 3}), {1, 0, 0, 2}, true);
  CheckPad(TSR_DTYPE_FLOAT, Shape({0, 3}), {1, 1, 0, 0}, true);
  CheckPad(TSR_DTYPE_INT64, Shape({}), {}, true);
  CheckPad(TSR_DTYPE_UINT8, Shape({1, 1, 1}), {2, 3, 0, 1, 1, 0}, false);
}

OpTester PadOf(const char* op, const TensorShape& shape, const Tensor& paddings) {
  OpTester tester(op);
  tester.Attr("T", TSR_DTYPE_FLOAT).Attr("Tpaddings", paddings.dtype());
  tester.Input(Random<float>(shape)).Input(paddings);
  return tester;
}

TEST(PadOpTest, RejectsBadPaddings) {
  OpTester columns = PadOf("Pad", Shape({2, 3}), Tensor::Vector<int32_t>({1, 1}));
  ExpectRunError(columns, absl::StatusCode::kInvalidArgument,
                 "paddings must be a matrix with 2 columns: [2]");
  OpTester rows = PadOf("Pad", Shape({2, 3}), Paddings(TSR_DTYPE_INT32, {1, 1}));
  ExpectRunError(rows, absl::StatusCode::kInvalidArgument,
                 "The first dimension of paddings must be the rank of inputs[1,2] [2,3]");
  OpTester negative = PadOf("Pad", Shape({2, 3}), Paddings(TSR_DTYPE_INT64, {1, 1, -1, 0}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "Paddings must be non-negative: -1 0");
  OpTester constant = PadOf("PadV2", Shape({2}), Paddings(TSR_DTYPE_INT32, {1, 1}));
  constant.Input(Random<float>(Shape({1})));
  ExpectRunError(constant, absl::StatusCode::kInvalidArgument,
                 "constant_values must be a scalar. Found: [1]");
}

void CheckMirrorPad(DataType dtype, const TensorShape& shape, const std::vector<int64_t>& pairs,
                    bool reflect, DataType pad_type = TSR_DTYPE_INT32) {
  SCOPED_TRACE(shape.DebugString() + " paddings " + ShapeString(pairs) +
               (reflect ? " REFLECT" : " SYMMETRIC"));
  const Tensor input = RandomOfType(dtype, shape);
  const int64_t offset = reflect ? 1 : 0;
  const Tensor expected =
      ReferenceCopy(input, PaddedShape(shape, pairs), [&](const std::vector<int64_t>& c) {
        std::vector<int64_t> in(c);
        for (int d = 0; d < shape.rank(); ++d) {
          const int64_t n = shape.dim(d);
          int64_t j = c[d] - pairs[2 * d];
          if (j < 0) j = -j - 1 + offset;
          if (j >= n) j = 2 * n - j - 1 - offset;
          in[d] = j;
        }
        return FlatIndex(shape, in);
      });
  OpTester tester("MirrorPad");
  tester.Attr("T", dtype)
      .Attr("Tpaddings", pad_type)
      .Attr("mode", std::string(reflect ? "REFLECT" : "SYMMETRIC"))
      .Input(input)
      .Input(Paddings(pad_type, pairs));
  ExpectSameBytes(RunOk(tester), expected);
}

TEST(MirrorPadOpTest, RandomPaddingsInBothModes) {
  for (int trial = 0; trial < 48; ++trial) {
    const int rank = trial % 6;
    const bool reflect = trial % 2 == 0;
    const TensorShape shape = RandomShape(rank, 2, 4);
    std::vector<int64_t> pairs;
    for (int d = 0; d < rank; ++d) {
      const int64_t most = reflect ? shape.dim(d) - 1 : shape.dim(d);
      pairs.push_back(static_cast<int64_t>(Rng()() % (most + 1)));
      pairs.push_back(static_cast<int64_t>(Rng()() % (most + 1)));
    }
    CheckMirrorPad(ByteMovingTypes()[trial % ByteMovingTypes().size()], shape, pairs, reflect,
                   trial % 3 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32);
  }
}

TEST(MirrorPadOpTest, EdgeCases) {
  CheckMirrorPad(TSR_DTYPE_FLOAT, Shape({3}), {2, 2}, true);   // [c b | a b c | b a]
  CheckMirrorPad(TSR_DTYPE_FLOAT, Shape({3}), {3, 3}, false);  // the whole row mirrored
  CheckMirrorPad(TSR_DTYPE_FLOAT, Shape({1, 4}), {1, 0, 0, 0}, false);
  CheckMirrorPad(TSR_DTYPE_FLOAT, Shape({2, 0}), {1, 1, 0, 0}, false);
  CheckMirrorPad(TSR_DTYPE_INT64, Shape({2, 3}), {0, 0, 0, 0}, true);
}

OpTester MirrorPadOf(const TensorShape& shape, const std::vector<int64_t>& pairs,
                     const std::string& mode) {
  OpTester tester("MirrorPad");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("mode", mode)
      .Input(Random<float>(shape))
      .Input(Paddings(TSR_DTYPE_INT32, pairs));
  return tester;
}

TEST(MirrorPadOpTest, RejectsPaddingsBeyondTheEdge) {
  OpTester reflect = MirrorPadOf(Shape({3}), {3, 0}, "REFLECT");
  ExpectRunError(reflect, absl::StatusCode::kInvalidArgument,
                 "paddings must be less than the dimension size: 3, 0 not less than 3");
  OpTester symmetric = MirrorPadOf(Shape({3}), {1, 4}, "SYMMETRIC");
  ExpectRunError(symmetric, absl::StatusCode::kInvalidArgument,
                 "paddings must be no greater than the dimension size: 1, 4 greater than 3");
  OpTester negative = MirrorPadOf(Shape({3}), {-1, 0}, "SYMMETRIC");
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument,
                 "paddings must be non-negative: -1 0");
  OpTester rows = MirrorPadOf(Shape({3, 2}), {1, 1}, "REFLECT");
  ExpectRunError(rows, absl::StatusCode::kInvalidArgument,
                 "The first dimension of paddings must be the rank of inputs[1,2], [3,2]");
  OpTester mode = MirrorPadOf(Shape({3}), {1, 1}, "CONSTANT");
  ExpectRunError(mode, absl::StatusCode::kInvalidArgument, "CONSTANT");
}

}  // namespace
}  // namespace tessera::cpu::test
