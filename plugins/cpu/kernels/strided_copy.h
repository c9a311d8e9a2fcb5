// StridedCopy: fills a dense output from a source whose layout is described per output dimension
// (a stride that may be negative or zero, edge padding, or an explicit offset table). It moves
// elements by size only, and is the core of Transpose, Slice, StridedSlice, ReverseV2, Tile,
// BroadcastTo, Pad, PadV2 and MirrorPad. Plain C++: no host, no Eigen.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_STRIDED_COPY_H_
#define TESSERA_PLUGINS_CPU_KERNELS_STRIDED_COPY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::cpu {

// How output dimension d maps to a source offset, in elements. Output index i of this dimension
// adds `offsets[i]` when `offsets` is not empty, else (i - pad_before) * stride; the first
// `pad_before` and last `pad_after` indices (and offset entries equal to kPadOffset) take the
// fill value instead of a source element.
struct CopyDim {
  int64_t size = 1;
  int64_t stride = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
  std::vector<int64_t> offsets;
};

inline constexpr int64_t kPadOffset = INT64_MIN;

class StridedCopy {
 public:
  // Output element (i_0, ..., i_n) comes from source element `base` + sum over d of the offset
  // of i_d in dims[d]. The plan merges dimensions that are contiguous in the source, so the
  // caller may describe the output in whatever rank is convenient (Tile uses twice the rank).
  StridedCopy(size_t element_size, int64_t base, std::vector<CopyDim> dims);

  // The copy runs as rows of the innermost (merged) dimension; shard over [0, num_rows()).
  int64_t num_rows() const { return num_rows_; }
  int64_t row_length() const { return dims_.empty() ? 1 : dims_.back().size; }
  // The number of merged dimensions (for tests of the plan).
  int rank() const { return static_cast<int>(dims_.size()); }

  // Writes rows [begin, end) of `dst` (the whole output) from `src`; `fill` points at one
  // element, read only where the plan pads (it may be null otherwise).
  void CopyRows(const void* src, void* dst, const void* fill, int64_t begin, int64_t end) const;

 private:
  // The source offset of `index` in dimension `d`, or kPadOffset.
  int64_t OffsetOf(int d, int64_t index) const;
  template <size_t kSize>
  void CopyRow(const char* src, char* dst, const char* fill, int64_t base) const;
  // Copies `rows` consecutive rows (consecutive indices of the next-to-last dimension) in
  // square blocks, so that a source read across rows stays in cache (transposes).
  template <size_t kSize>
  void CopyRowBlock(const char* src, char* dst, int64_t base, int64_t rows) const;
  bool BlocksRows() const;
  void CopyRowAnySize(const char* src, char* dst, const char* fill, int64_t base) const;

  size_t element_size_;
  int64_t base_;
  std::vector<CopyDim> dims_;
  int64_t num_rows_ = 0;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_STRIDED_COPY_H_
