// Helpers shared by the CPU array kernels (slicing, transposing, tiling, padding, gathering):
// integer host-memory inputs of any width, row-major strides, element fills and the sharded run
// of a StridedCopy on the host's pool.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_ARRAY_UTIL_H_
#define TESSERA_PLUGINS_CPU_KERNELS_ARRAY_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/strided_copy.h"

namespace tessera::cpu {

// Value `i` of an integer tensor (int8, uint8, int16, uint16, int32, uint32, int64).
inline int64_t IntegerAt(const TensorView& view, int64_t i) {
  switch (view.dtype()) {
    case TSR_DTYPE_INT8:
      return view.data<const int8_t>()[i];
    case TSR_DTYPE_UINT8:
      return view.data<const uint8_t>()[i];
    case TSR_DTYPE_INT16:
      return view.data<const int16_t>()[i];
    case TSR_DTYPE_UINT16:
      return view.data<const uint16_t>()[i];
    case TSR_DTYPE_INT32:
      return view.data<const int32_t>()[i];
    case TSR_DTYPE_UINT32:
      return view.data<const uint32_t>()[i];
    default:
      return view.data<const int64_t>()[i];
  }
}

// Every value of an integer tensor, flattened.
inline std::vector<int64_t> IntegersOf(const TensorView& view) {
  std::vector<int64_t> values(static_cast<size_t>(view.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = IntegerAt(view, static_cast<int64_t>(i));
  return values;
}

// Row-major strides of `shape`, in elements.
inline std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(static_cast<size_t>(shape.rank()), 1);
  for (int d = shape.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim(d + 1);
  return strides;
}

// TensorFlow's SliceDebugString: the multi-index of flat element `flat` of `shape`, "[1]" or
// "[0,2]"; "" for a scalar. Index errors name the offending element with it.
inline std::string SliceIndexString(const Shape& shape, int64_t flat) {
  if (shape.rank() == 0) return "";
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  std::string out;
  for (int d = 0; d < shape.rank(); ++d) {
    out += (d == 0 ? "[" : ",") + std::to_string(flat / strides[d]);
    flat %= strides[d];
  }
  return out + "]";
}

// Whether the first dimensions of `shape` are `prefix`.
inline bool ShapeStartsWith(const Shape& shape, const Shape& prefix) {
  if (prefix.rank() > shape.rank()) return false;
  for (int d = 0; d < prefix.rank(); ++d) {
    if (shape.dim(d) != prefix.dim(d)) return false;
  }
  return true;
}

inline Status RankAboveMaximum(const KernelContext& ctx, int64_t rank) {
  return sdk::InvalidArgument("node '", ctx.node_name(), "' would produce a tensor of rank ", rank,
                              ", more than the maximum ", Shape::kMaxRank);
}

// Writes `n` copies of the `element_size`-byte value at `value` to `out`.
inline void FillWithElement(const KernelContext& ctx, void* out, int64_t n, size_t element_size,
                            const void* value) {
  char* dst = static_cast<char*>(out);
  const int64_t size = static_cast<int64_t>(element_size);
  ctx.ParallelFor(n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) std::memcpy(dst + i * size, value, element_size);
  });
}

// Runs `copy` over the whole output, sharded by rows on the host's pool.
inline void RunStridedCopy(const KernelContext& ctx, const StridedCopy& copy, const void* src,
                           void* dst, const void* fill = nullptr) {
  const int64_t cost = copy.row_length() + 8;
  ctx.ParallelFor(copy.num_rows(), cost,
                  [&](int64_t begin, int64_t end) { copy.CopyRows(src, dst, fill, begin, end); });
}

// The CopyDims that read all of `input` in its own layout.
inline std::vector<CopyDim> IdentityDims(const TensorView& input) {
  const std::vector<int64_t> strides = RowMajorStrides(input.shape());
  std::vector<CopyDim> dims(static_cast<size_t>(input.rank()));
  for (int d = 0; d < input.rank(); ++d) {
    dims[d].size = input.dim(d);
    dims[d].stride = strides[d];
  }
  return dims;
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_ARRAY_UTIL_H_
