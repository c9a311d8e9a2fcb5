// StridedCopy: plan simplification (dropping unit dimensions, merging source-contiguous ones) and
// the row loop, with element copies specialized on the element size.
#include "plugins/cpu/kernels/strided_copy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace tessera::cpu {
namespace {

bool IsPlain(const CopyDim& dim) {
  return dim.offsets.empty() && dim.pad_before == 0 && dim.pad_after == 0;
}

}  // namespace

StridedCopy::StridedCopy(size_t element_size, int64_t base, std::vector<CopyDim> dims)
    : element_size_(element_size), base_(base) {
  for (const CopyDim& dim : dims) {
    if (dim.size == 0) {
      num_rows_ = 0;
      dims_.clear();
      return;
    }
  }
  for (CopyDim& dim : dims) {
    if (dim.size == 1 && IsPlain(dim)) continue;  // contributes offset 0
    if (dim.size == 1 && !dim.offsets.empty() && dim.offsets[0] != kPadOffset) {
      base_ += dim.offsets[0];
      continue;
    }
    // Two plain dimensions where stepping the outer one equals running through the inner one
    // are a single dimension of the source.
    if (!dims_.empty() && IsPlain(dims_.back()) && IsPlain(dim) &&
        dims_.back().stride == dim.stride * dim.size) {
      dims_.back().size *= dim.size;
      dims_.back().stride = dim.stride;
      continue;
    }
    dims_.push_back(std::move(dim));
  }
  if (dims_.empty()) dims_.push_back(CopyDim{});
  num_rows_ = 1;
  for (size_t d = 0; d + 1 < dims_.size(); ++d) num_rows_ *= dims_[d].size;
}

int64_t StridedCopy::OffsetOf(int d, int64_t index) const {
  const CopyDim& dim = dims_[d];
  if (!dim.offsets.empty()) return dim.offsets[index];
  if (index < dim.pad_before || index >= dim.size - dim.pad_after) return kPadOffset;
  return (index - dim.pad_before) * dim.stride;
}

template <size_t kSize>
void StridedCopy::CopyRow(const char* src, char* dst, const char* fill, int64_t base) const {
  const CopyDim& dim = dims_.back();
  if (!dim.offsets.empty()) {
    for (int64_t i = 0; i < dim.size; ++i, dst += kSize) {
      const int64_t offset = dim.offsets[i];
      std::memcpy(dst, offset == kPadOffset ? fill : src + (base + offset) * kSize, kSize);
    }
    return;
  }
  for (int64_t i = 0; i < dim.pad_before; ++i, dst += kSize) std::memcpy(dst, fill, kSize);
  const int64_t count = dim.size - dim.pad_before - dim.pad_after;
  const char* from = src + base * static_cast<int64_t>(kSize);
  if (dim.stride == 1) {
    // memcpy needs valid pointers even for zero bytes; an empty source may have none.
    if (count > 0) std::memcpy(dst, from, static_cast<size_t>(count) * kSize);
    dst += count * static_cast<int64_t>(kSize);
  } else {
    const int64_t step = dim.stride * static_cast<int64_t>(kSize);
    for (int64_t i = 0; i < count; ++i, dst += kSize, from += step) std::memcpy(dst, from, kSize);
  }
  for (int64_t i = 0; i < dim.pad_after; ++i, dst += kSize) std::memcpy(dst, fill, kSize);
}

constexpr int64_t kBlock = 32;

// Worth it when the innermost dimension jumps through the source and the one before it walks
// through it more closely.
bool StridedCopy::BlocksRows() const {
  if (dims_.size() < 2) return false;
  const CopyDim& inner = dims_.back();
  const CopyDim& outer = dims_[dims_.size() - 2];
  return IsPlain(inner) && IsPlain(outer) && inner.size > 1 && std::abs(inner.stride) > 1 &&
         std::abs(outer.stride) < std::abs(inner.stride);
}

template <size_t kSize>
void StridedCopy::CopyRowBlock(const char* src, char* dst, int64_t base, int64_t rows) const {
  const CopyDim& inner = dims_.back();
  const int64_t row_step = dims_[dims_.size() - 2].stride;
  const int64_t size = static_cast<int64_t>(kSize);
  for (int64_t j0 = 0; j0 < inner.size; j0 += kBlock) {
    const int64_t j1 = std::min(inner.size, j0 + kBlock);
    for (int64_t r = 0; r < rows; ++r) {
      const char* from = src + (base + r * row_step + j0 * inner.stride) * size;
      char* to = dst + (r * inner.size + j0) * size;
      for (int64_t j = j0; j < j1; ++j, to += size, from += inner.stride * size) {
        std::memcpy(to, from, kSize);
      }
    }
  }
}

void StridedCopy::CopyRowAnySize(const char* src, char* dst, const char* fill, int64_t base) const {
  const int64_t size = static_cast<int64_t>(element_size_);
  const int last = static_cast<int>(dims_.size()) - 1;
  for (int64_t i = 0; i < dims_.back().size; ++i, dst += size) {
    const int64_t offset = OffsetOf(last, i);
    std::memcpy(dst, offset == kPadOffset ? fill : src + (base + offset) * size, element_size_);
  }
}

void StridedCopy::CopyRows(const void* src_data, void* dst_data, const void* fill_data,
                           int64_t begin, int64_t end) const {
  if (begin >= end || num_rows_ == 0) return;
  const char* src = static_cast<const char*>(src_data);
  const char* fill = static_cast<const char*>(fill_data);
  const int64_t row_bytes = row_length() * static_cast<int64_t>(element_size_);
  char* dst = static_cast<char*>(dst_data) + begin * row_bytes;
  // An odometer over the outer dimensions, started at row `begin`.
  const int outer = static_cast<int>(dims_.size()) - 1;
  std::vector<int64_t> coordinate(outer, 0);
  std::vector<int64_t> offset(outer, 0);
  int64_t offset_sum = 0;
  int padded = 0;
  int64_t rest = begin;
  for (int d = outer - 1; d >= 0; --d) {
    coordinate[d] = rest % dims_[d].size;
    rest /= dims_[d].size;
  }
  for (int d = 0; d < outer; ++d) {
    offset[d] = OffsetOf(d, coordinate[d]);
    if (offset[d] == kPadOffset) {
      ++padded;
    } else {
      offset_sum += offset[d];
    }
  }
  const bool blocked =
      BlocksRows() && (element_size_ == 1 || element_size_ == 2 || element_size_ == 4 ||
                       element_size_ == 8 || element_size_ == 16);
  // Moves the odometer one row on.
  auto advance = [&] {
    for (int d = outer - 1; d >= 0; --d) {
      if (offset[d] == kPadOffset) {
        --padded;
      } else {
        offset_sum -= offset[d];
      }
      const bool carry = ++coordinate[d] == dims_[d].size;
      if (carry) coordinate[d] = 0;
      offset[d] = OffsetOf(d, coordinate[d]);
      if (offset[d] == kPadOffset) {
        ++padded;
      } else {
        offset_sum += offset[d];
      }
      if (!carry) break;
    }
  };
  for (int64_t row = begin; row < end;) {
    if (blocked && padded == 0) {
      // Short rows are taken more at a time, so that a block still reads about kBlock x kBlock
      // elements.
      const int64_t block_rows = std::max(kBlock, kBlock * kBlock / dims_.back().size);
      const int64_t rows =
          std::min({block_rows, dims_[outer - 1].size - coordinate[outer - 1], end - row});
      const int64_t base = base_ + offset_sum;
      switch (element_size_) {
        case 1:
          CopyRowBlock<1>(src, dst, base, rows);
          break;
        case 2:
          CopyRowBlock<2>(src, dst, base, rows);
          break;
        case 4:
          CopyRowBlock<4>(src, dst, base, rows);
          break;
        case 8:
          CopyRowBlock<8>(src, dst, base, rows);
          break;
        default:
          CopyRowBlock<16>(src, dst, base, rows);
      }
      // The rows of a block stay within the last outer dimension (plain: no padding, no offset
      // table), so the odometer jumps to the block's last row and then moves one on.
      const int last = outer - 1;
      offset_sum -= offset[last];
      coordinate[last] += rows - 1;
      offset[last] = OffsetOf(last, coordinate[last]);
      offset_sum += offset[last];
      advance();
      row += rows;
      dst += rows * row_bytes;
      continue;
    }
    if (padded > 0) {
      for (int64_t i = 0; i < row_length(); ++i) {
        std::memcpy(dst + i * static_cast<int64_t>(element_size_), fill, element_size_);
      }
    } else {
      const int64_t base = base_ + offset_sum;
      switch (element_size_) {
        case 1:
          CopyRow<1>(src, dst, fill, base);
          break;
        case 2:
          CopyRow<2>(src, dst, fill, base);
          break;
        case 4:
          CopyRow<4>(src, dst, fill, base);
          break;
        case 8:
          CopyRow<8>(src, dst, fill, base);
          break;
        case 16:
          CopyRow<16>(src, dst, fill, base);
          break;
        default:
          CopyRowAnySize(src, dst, fill, base);
      }
    }
    advance();
    ++row;
    dst += row_bytes;
  }
}

}  // namespace tessera::cpu
