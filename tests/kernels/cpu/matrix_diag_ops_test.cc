// MatrixDiag, MatrixDiagPart and MatrixSetDiag in versions 1 to 3 against reference loops:
// random batch and matrix shapes (empty and size-1 included), single diagonals and bands, every
// alignment, num_rows/num_cols given or inferred, several dtypes, TensorFlow's documented
// examples, and the errors.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<std::string>& Alignments() {
  static const auto* aligns =
      new std::vector<std::string>{"RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"};
  return *aligns;
}

int64_t DiagLen(int64_t d, int64_t rows, int64_t cols) {
  return std::min(rows + std::min<int64_t>(0, d), cols - std::max<int64_t>(0, d));
}

// Where diagonal d starts in its packed row.
int64_t Offset(int64_t d, int64_t max_len, int64_t rows, int64_t cols, const std::string& align) {
  const bool left_super = align.rfind("LEFT", 0) == 0;
  const bool left_sub = align.size() >= 4 && align.compare(align.size() - 4, 4, "LEFT") == 0;
  const bool left = (d >= 0 && left_super) || (d <= 0 && left_sub);
  return left ? 0 : max_len - DiagLen(d, rows, cols);
}

Tensor KTensor(int64_t lower, int64_t upper) {
  if (lower == upper) return Tensor::Scalar<int32_t>(static_cast<int32_t>(lower));
  return Tensor::Vector<int32_t>({static_cast<int32_t>(lower), static_cast<int32_t>(upper)});
}

// The packed diagonals of `matrix` ([batch..., rows, cols]) for band [lower, upper].
Tensor ReferencePart(const Tensor& matrix, int64_t lower, int64_t upper, const std::string& align,
                     const void* padding) {
  const TensorShape& shape = matrix.shape();
  const int rank = shape.rank();
  const int64_t rows = shape.dim(rank - 2);
  const int64_t cols = shape.dim(rank - 1);
  const int64_t max_len = std::max<int64_t>(
      0, std::min(rows + std::min<int64_t>(upper, 0), cols - std::max<int64_t>(lower, 0)));
  TensorShape out;
  for (int d = 0; d < rank - 2; ++d) out.AddDim(shape.dim(d));
  if (lower != upper) out.AddDim(upper - lower + 1);
  out.AddDim(max_len);
  return ReferenceCopy(
      matrix, out,
      [&](const std::vector<int64_t>& c) -> int64_t {
        const int64_t d = lower == upper ? lower : upper - c[c.size() - 2];
        const int64_t p = c.back() - Offset(d, max_len, rows, cols, align);
        if (p < 0 || p >= DiagLen(d, rows, cols)) return -1;
        std::vector<int64_t> from(c.begin(), c.begin() + (rank - 2));
        from.push_back(p + std::max<int64_t>(0, -d));
        from.push_back(p + std::max<int64_t>(0, d));
        return FlatIndex(shape, from);
      },
      padding);
}

OpTester DiagPartV3(const Tensor& input, int64_t lower, int64_t upper, const Tensor& padding,
                    const std::string& align) {
  OpTester tester("MatrixDiagPartV3");
  tester.Attr("T", input.dtype())
      .Attr("align", align)
      .Input(input)
      .Input(KTensor(lower, upper))
      .Input(padding);
  return tester;
}

OpTester DiagV3(const Tensor& diagonal, int64_t lower, int64_t upper, int64_t rows, int64_t cols,
                const Tensor& padding, const std::string& align) {
  OpTester tester("MatrixDiagV3");
  tester.Attr("T", diagonal.dtype())
      .Attr("align", align)
      .Input(diagonal)
      .Input(KTensor(lower, upper))
      .Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(rows)))
      .Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(cols)))
      .Input(padding);
  return tester;
}

OpTester SetDiagV3(const Tensor& input, const Tensor& diagonal, int64_t lower, int64_t upper,
                   const std::string& align) {
  OpTester tester("MatrixSetDiagV3");
  tester.Attr("T", input.dtype())
      .Attr("align", align)
      .Input(input)
      .Input(diagonal)
      .Input(KTensor(lower, upper));
  return tester;
}

TEST(MatrixDiagOpsTest, MatchTheReferenceOnRandomShapes) {
  const std::vector<DataType> types = {TSR_DTYPE_FLOAT, TSR_DTYPE_INT64, TSR_DTYPE_BOOL,
                                       TSR_DTYPE_HALF, TSR_DTYPE_COMPLEX128};
  for (int trial = 0; trial < 48; ++trial) {
    const DataType dtype = types[trial % types.size()];
    const std::string& align = Alignments()[trial % 4];
    TensorShape shape = RandomShape(trial % 3, trial % 11 == 0 ? 0 : 1, 3);
    const int64_t rows = 1 + static_cast<int64_t>(Rng()() % 4);
    const int64_t cols = 1 + static_cast<int64_t>(Rng()() % 4);
    shape.AddDim(rows);
    shape.AddDim(cols);
    // A band inside the matrix: both bounds in (-rows, cols).
    int64_t lower = -rows + 1 + static_cast<int64_t>(Rng()() % (rows + cols - 1));
    int64_t upper = -rows + 1 + static_cast<int64_t>(Rng()() % (rows + cols - 1));
    if (lower > upper) std::swap(lower, upper);
    if (trial % 5 == 0) upper = lower;
    SCOPED_TRACE(shape.DebugString() + " k [" + std::to_string(lower) + ", " +
                 std::to_string(upper) + "] " + align);
    const Tensor matrix = RandomOfType(dtype, shape);
    const Tensor padding = RandomOfType(dtype, TensorShape{});
    // MatrixDiagPartV3.
    OpTester part = DiagPartV3(matrix, lower, upper, padding, align);
    const Tensor diagonals = RunOk(part);
    const Tensor expected_part = ReferencePart(matrix, lower, upper, align, padding.data());
    ExpectSameBytes(diagonals, expected_part);
    // MatrixDiagV3 of those diagonals with the matrix's size: the band kept, padding elsewhere.
    OpTester diag = DiagV3(diagonals, lower, upper, rows, cols, padding, align);
    const Tensor expected_diag = ReferenceCopy(
        matrix, shape,
        [&](const std::vector<int64_t>& c) -> int64_t {
          const int64_t d = c.back() - c[c.size() - 2];
          return d >= lower && d <= upper ? FlatIndex(shape, c) : -1;
        },
        padding.data());
    ExpectSameBytes(RunOk(diag), expected_diag);
    // MatrixSetDiagV3 of random diagonals: the band replaced, the rest kept.
    const Tensor replacement = RandomOfType(dtype, diagonals.shape());
    OpTester set = SetDiagV3(matrix, replacement, lower, upper, align);
    const Tensor set_out = RunOk(set);
    const Tensor outside = ReferenceCopy(
        matrix, shape,
        [&](const std::vector<int64_t>& c) -> int64_t {
          const int64_t d = c.back() - c[c.size() - 2];
          return d >= lower && d <= upper ? -1 : FlatIndex(shape, c);
        },
        padding.data());
    const Tensor set_outside = ReferenceCopy(
        set_out, shape,
        [&](const std::vector<int64_t>& c) -> int64_t {
          const int64_t d = c.back() - c[c.size() - 2];
          return d >= lower && d <= upper ? -1 : FlatIndex(shape, c);
        },
        padding.data());
    ExpectSameBytes(set_outside, outside);
    // The band read back equals the replacement where it holds elements.
    const Tensor replaced_part = ReferencePart(set_out, lower, upper, align, padding.data());
    const Tensor expected_replaced = ReferenceCopy(
        replacement, replacement.shape(),
        [&](const std::vector<int64_t>& c) -> int64_t {
          const int64_t d = lower == upper ? lower : upper - c[c.size() - 2];
          const int64_t max_len = replacement.shape().dim(replacement.shape().rank() - 1);
          const int64_t p = c.back() - Offset(d, max_len, rows, cols, align);
          return p < 0 || p >= DiagLen(d, rows, cols) ? -1 : FlatIndex(replacement.shape(), c);
        },
        padding.data());
    ExpectSameBytes(replaced_part, expected_replaced);
  }
}

TEST(MatrixDiagOpsTest, FirstAndSecondVersions) {
  const Tensor matrix = Random<float>(Shape({2, 3, 4}));
  const Tensor zero = Tensor::Scalar<float>(0);
  OpTester part("MatrixDiagPart");
  part.Attr("T", TSR_DTYPE_FLOAT).Input(matrix);
  const Tensor main = RunOk(part);
  ExpectSameBytes(main, ReferencePart(matrix, 0, 0, "LEFT_LEFT", zero.data()));
  OpTester diag("MatrixDiag");
  diag.Attr("T", TSR_DTYPE_FLOAT).Input(main);
  const Tensor square = RunOk(diag);
  ASSERT_EQ(square.shape(), Shape({2, 3, 3}));
  ExpectSameBytes(square, ReferenceCopy(
                              main, Shape({2, 3, 3}),
                              [&](const std::vector<int64_t>& c) -> int64_t {
                                return c[1] == c[2] ? c[0] * 3 + c[1] : -1;
                              },
                              zero.data()));
  OpTester set("MatrixSetDiag");
  const Tensor values = Random<float>(Shape({2, 3}));
  set.Attr("T", TSR_DTYPE_FLOAT).Input(matrix).Input(values);
  OpTester reread("MatrixDiagPart");
  reread.Attr("T", TSR_DTYPE_FLOAT).Input(RunOk(set));
  ExpectSameBytes(RunOk(reread), values);
  // Version 2 packs LEFT_LEFT.
  OpTester part_v2("MatrixDiagPartV2");
  part_v2.Attr("T", TSR_DTYPE_FLOAT)
      .Input(matrix)
      .Input(KTensor(-1, 2))
      .Input(Tensor::Scalar<float>(9));
  const Tensor nine = Tensor::Scalar<float>(9);
  ExpectSameBytes(RunOk(part_v2), ReferencePart(matrix, -1, 2, "LEFT_LEFT", nine.data()));
}

TEST(MatrixDiagOpsTest, TensorFlowsExamples) {
  // MatrixDiagPartV3 of [[1,2,3,4],[5,6,7,8],[9,8,7,6]] with k = [-1, 2], padding 9.
  const Tensor input =
      Tensor::FromVector<int32_t>(TensorShape{3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6});
  OpTester right_left = DiagPartV3(input, -1, 2, Tensor::Scalar<int32_t>(9), "RIGHT_LEFT");
  ExpectSameBytes(RunOk(right_left), Tensor::FromVector<int32_t>(
                                         TensorShape{4, 3}, {9, 3, 8, 2, 7, 6, 1, 6, 7, 5, 8, 9}));
  OpTester left_right = DiagPartV3(input, -1, 2, Tensor::Scalar<int32_t>(9), "LEFT_RIGHT");
  ExpectSameBytes(RunOk(left_right), Tensor::FromVector<int32_t>(
                                         TensorShape{4, 3}, {3, 8, 9, 2, 7, 6, 1, 6, 7, 9, 5, 8}));
  // MatrixDiagV3 of a tridiagonal band with k = [-1, 1] (RIGHT_LEFT): a 3x3 matrix.
  const Tensor band = Tensor::FromVector<int32_t>(TensorShape{3, 3}, {0, 8, 9, 1, 2, 3, 4, 5, 0});
  OpTester tri = DiagV3(band, -1, 1, -1, -1, Tensor::Scalar<int32_t>(0), "RIGHT_LEFT");
  ExpectSameBytes(RunOk(tri),
                  Tensor::FromVector<int32_t>(TensorShape{3, 3}, {1, 8, 0, 4, 2, 9, 0, 5, 3}));
}

TEST(MatrixDiagOpsTest, RejectsBadArguments) {
  const Tensor matrix = Random<float>(Shape({3, 4}));
  const Tensor zero = Tensor::Scalar<float>(0);
  OpTester reversed("MatrixDiagPartV3");
  reversed.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("align", std::string("RIGHT_LEFT"))
      .Input(matrix)
      .Input(Tensor::Vector<int32_t>({1, 0}))
      .Input(zero);
  ExpectRunError(reversed, absl::StatusCode::kInvalidArgument,
                 "lower_diag_index must not be larger than upper_diag_index: 1 > 0");
  OpTester three("MatrixDiagPartV3");
  three.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("align", std::string("RIGHT_LEFT"))
      .Input(matrix)
      .Input(Tensor::Vector<int32_t>({0, 1, 2}))
      .Input(zero);
  ExpectRunError(three, absl::StatusCode::kInvalidArgument,
                 "diag_index must have only one or two elements, received 3 elements.");
  OpTester far = DiagPartV3(matrix, 4, 4, zero, "RIGHT_LEFT");
  ExpectRunError(far, absl::StatusCode::kInvalidArgument,
                 "lower_diag_index is out of bound: 4. It must be between -3 and 4");
  OpTester vector = DiagPartV3(Random<float>(Shape({3})), 0, 0, zero, "RIGHT_LEFT");
  ExpectRunError(vector, absl::StatusCode::kInvalidArgument, "at least 2-dim");
  OpTester bands = DiagV3(Random<float>(Shape({2, 3})), -1, 1, -1, -1, zero, "RIGHT_LEFT");
  ExpectRunError(bands, absl::StatusCode::kInvalidArgument,
                 "The number of diagonals provided in the input does not match the "
                 "lower_diag_index and upper_diag_index range.");
  OpTester small = DiagV3(Random<float>(Shape({3})), 0, 0, 2, -1, zero, "RIGHT_LEFT");
  ExpectRunError(small, absl::StatusCode::kInvalidArgument, "The number of rows is too small.");
  OpTester inconsistent = DiagV3(Random<float>(Shape({3})), 0, 0, 4, 4, zero, "RIGHT_LEFT");
  ExpectRunError(inconsistent, absl::StatusCode::kInvalidArgument,
                 "The number of rows or columns is not consistent");
  OpTester set = SetDiagV3(matrix, Random<float>(Shape({4})), 0, 0, "RIGHT_LEFT");
  ExpectRunError(set, absl::StatusCode::kInvalidArgument,
                 "diagonal must have shape [3] for input shape [3,4]");
}

}  // namespace
}  // namespace tessera::cpu::test
