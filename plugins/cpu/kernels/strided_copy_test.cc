// StridedCopy's plan (unit dimensions dropped, contiguous dimensions merged) and its copies with
// negative and zero strides, padding, offset tables, odd element sizes and partial row ranges.
#include "plugins/cpu/kernels/strided_copy.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace tessera::cpu {
namespace {

std::vector<int32_t> Iota(int n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

std::vector<int32_t> CopyAll(const StridedCopy& copy, const std::vector<int32_t>& src, int32_t fill,
                             int64_t size) {
  std::vector<int32_t> dst(static_cast<size_t>(size), -7);
  copy.CopyRows(src.data(), dst.data(), &fill, 0, copy.num_rows());
  return dst;
}

CopyDim Dim(int64_t size, int64_t stride) {
  CopyDim d;
  d.size = size;
  d.stride = stride;
  return d;
}

TEST(StridedCopyTest, MergesContiguousDimensionsIntoOneRow) {
  const StridedCopy copy(4, 0, {Dim(2, 12), Dim(1, 99), Dim(3, 4), Dim(4, 1)});
  EXPECT_EQ(copy.rank(), 1);
  EXPECT_EQ(copy.num_rows(), 1);
  EXPECT_EQ(copy.row_length(), 24);
  EXPECT_EQ(CopyAll(copy, Iota(24), 0, 24), Iota(24));
}

TEST(StridedCopyTest, TransposesWithPermutedStrides) {
  // A [2,3] source read as its [3,2] transpose.
  const StridedCopy copy(4, 0, {Dim(3, 1), Dim(2, 3)});
  EXPECT_EQ(CopyAll(copy, Iota(6), 0, 6), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(StridedCopyTest, ReversesWithNegativeStridesAndRepeatsWithZeroStrides) {
  const StridedCopy reverse(4, 5, {Dim(2, -3), Dim(3, -1)});
  EXPECT_EQ(reverse.rank(), 1);  // both reversed dimensions merge
  EXPECT_EQ(CopyAll(reverse, Iota(6), 0, 6), (std::vector<int32_t>{5, 4, 3, 2, 1, 0}));
  const StridedCopy tile(4, 0, {Dim(2, 0), Dim(3, 1)});
  EXPECT_EQ(CopyAll(tile, Iota(3), 0, 6), (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
}

TEST(StridedCopyTest, PadsEdgesAndEntireRows) {
  CopyDim rows = Dim(4, 2);
  rows.pad_before = 1;
  rows.pad_after = 1;
  CopyDim cols = Dim(3, 1);
  cols.pad_after = 1;
  const StridedCopy copy(4, 0, {rows, cols});
  EXPECT_EQ(copy.num_rows(), 4);
  EXPECT_EQ(CopyAll(copy, Iota(4), 9, 12),
            (std::vector<int32_t>{9, 9, 9, 0, 1, 9, 2, 3, 9, 9, 9, 9}));
}

TEST(StridedCopyTest, ReadsOffsetTables) {
  CopyDim mirrored = Dim(5, 1);
  mirrored.offsets = {1, 0, 1, 2, kPadOffset};
  const StridedCopy copy(4, 0, {Dim(2, 3), mirrored});
  EXPECT_EQ(CopyAll(copy, Iota(6), 8, 10), (std::vector<int32_t>{1, 0, 1, 2, 8, 4, 3, 4, 5, 8}));
}

TEST(StridedCopyTest, CopiesRowRangesAndOddElementSizes) {
  // Three-byte elements, rows 1..2 of a [3,2] transpose of [2,3].
  std::vector<uint8_t> src(18);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i);
  const StridedCopy copy(3, 0, {Dim(3, 1), Dim(2, 3)});
  std::vector<uint8_t> dst(18, 0);
  copy.CopyRows(src.data(), dst.data(), nullptr, 1, 3);
  const std::vector<uint8_t> expected = {0,  0,  0,  0, 0, 0, 3,  4,  5,
                                         12, 13, 14, 6, 7, 8, 15, 16, 17};
  EXPECT_EQ(dst, expected);
}

TEST(StridedCopyTest, TransposesInBlocksOverPartialRowRanges) {
  // A [45, 70] source read as its [70, 45] transpose, under two batch entries: rows go in blocks
  // of the next-to-last dimension that never cross a batch entry or the requested range.
  const int64_t rows = 70;
  const int64_t cols = 45;
  const StridedCopy copy(4, 0, {Dim(2, rows * cols), Dim(rows, 1), Dim(cols, rows)});
  EXPECT_EQ(copy.num_rows(), 2 * rows);
  const std::vector<int32_t> src = Iota(static_cast<int>(2 * rows * cols));
  std::vector<int32_t> dst(src.size(), -1);
  copy.CopyRows(src.data(), dst.data(), nullptr, 3, 2 * rows - 5);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t row = b * rows + i;
      for (int64_t j = 0; j < cols; ++j) {
        const int32_t expected = row < 3 || row >= 2 * rows - 5
                                     ? -1
                                     : static_cast<int32_t>(b * rows * cols + j * rows + i);
        ASSERT_EQ(dst[row * cols + j], expected) << "row " << row << " column " << j;
      }
    }
  }
}

TEST(StridedCopyTest, EmptyDimensionsCopyNothing) {
  const StridedCopy copy(4, 0, {Dim(3, 1), Dim(0, 3)});
  EXPECT_EQ(copy.num_rows(), 0);
  const StridedCopy scalar(8, 2, {});
  EXPECT_EQ(scalar.num_rows(), 1);
  EXPECT_EQ(scalar.row_length(), 1);
  const std::vector<int64_t> src = {10, 11, 12};
  int64_t dst = 0;
  scalar.CopyRows(src.data(), &dst, nullptr, 0, 1);
  EXPECT_EQ(dst, 12);
}

}  // namespace
}  // namespace tessera::cpu
