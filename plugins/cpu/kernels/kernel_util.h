// Shared pieces of the CPU kernels: dtype lists, dtype dispatch, Eigen maps, index-tensor readers.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_
#define TESSERA_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tessera/sdk/sdk.h"

namespace tessera::cpu {

using sdk::KernelConstruction;
using sdk::KernelContext;
using sdk::OkStatus;
using sdk::Shape;
using sdk::Status;
using sdk::TensorView;

inline constexpr char kCpu[] = "CPU";

// TensorFlow's CPU registrations (TF_CALL_REAL_NUMBER_TYPES restricted to what Tessera ships).
inline const std::vector<TSR_DataType>& RealNumberTypes() {
  static const auto* types = new std::vector<TSR_DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE,
                                                           TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}
inline const std::vector<TSR_DataType>& FloatingTypes() {
  static const auto* types = new std::vector<TSR_DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE};
  return *types;
}
inline const std::vector<TSR_DataType>& IndexTypes() {
  static const auto* types = new std::vector<TSR_DataType>{TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}
// Types Cast converts between.
inline const std::vector<TSR_DataType>& CastTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT,  TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32, TSR_DTYPE_INT64,
      TSR_DTYPE_BOOL,   TSR_DTYPE_UINT8,  TSR_DTYPE_INT8,  TSR_DTYPE_INT16,
      TSR_DTYPE_UINT16, TSR_DTYPE_UINT32, TSR_DTYPE_UINT64};
  return *types;
}
// Every fixed-size type: for kernels that only move bytes (Identity, Reshape, Concat, ...).
inline const std::vector<TSR_DataType>& AllTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT,    TSR_DTYPE_DOUBLE,    TSR_DTYPE_INT32,     TSR_DTYPE_INT64,
      TSR_DTYPE_BOOL,     TSR_DTYPE_UINT8,     TSR_DTYPE_INT8,      TSR_DTYPE_INT16,
      TSR_DTYPE_UINT16,   TSR_DTYPE_UINT32,    TSR_DTYPE_UINT64,    TSR_DTYPE_HALF,
      TSR_DTYPE_BFLOAT16, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128};
  return *types;
}

// Integer sums and products wrap around in two's complement, as TensorFlow's do (int32
// 2147483647 + 1 is -2147483648): computed in the unsigned type, where wrapping is defined
// behaviour. Floating types add and multiply as usual.
template <typename T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // At least `unsigned`, so that 8- and 16-bit operands do not promote to a signed int.
    using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T WrappingMultiply(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// True for a floating NaN; never for an integer.
template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// The largest window, stride, dilation or padding a sliding-window kernel accepts: 2^60. No
// tensor dimension comes near it (a tensor holds at most 2^62 bytes), and below it the window
// arithmetic (offsets, ends, output sizes) cannot overflow 64 bits.
inline constexpr int64_t kMaxWindowAttr = int64_t{1} << 60;
inline Status CheckWindowAttr(const char* name, const std::vector<int64_t>& values) {
  for (int64_t value : values) {
    if (value > kMaxWindowAttr) {
      return sdk::InvalidArgument("Sliding window ", name, " value ", value,
                                  " is larger than 2^60, more than any tensor dimension");
    }
  }
  return OkStatus();
}

// A ParallelFor cost per unit from a product of sizes computed in floating point, so that huge
// (and then refused or clipped) sizes cannot overflow it.
inline int64_t CostPerUnit(double cycles) {
  return cycles < 1e15 ? static_cast<int64_t>(cycles) + 1 : static_cast<int64_t>(1e15);
}

// A [rows, cols] matrix against one row of `cols` values repeated over its rows (a bias over the
// last axis, a broadcast row): calls fn(first, count, repeated) for runs of whole rows, in
// ParallelFor shards, where the run is elements [first, first + count) of the matrix and
// `repeated` holds the row as many times as the run has rows, so that a loop over the run is long
// even when rows are short. `cost_per_element` is the cycles fn spends per element.
template <typename T, typename Fn>
void ForRowRuns(const KernelContext& ctx, const T* row, int64_t rows, int64_t cols,
                int64_t cost_per_element, Fn&& fn) {
  constexpr int64_t kMinRunElements = 512;
  const int64_t rows_per_run = std::max<int64_t>(1, kMinRunElements / cols);
  std::vector<T> tiled;
  if (rows_per_run > 1) {
    tiled.reserve(static_cast<size_t>(rows_per_run * cols));
    for (int64_t r = 0; r < rows_per_run; ++r) tiled.insert(tiled.end(), row, row + cols);
    row = tiled.data();
  }
  const int64_t runs = (rows + rows_per_run - 1) / rows_per_run;
  ctx.ParallelFor(runs, rows_per_run * cols * cost_per_element, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run) {
      const int64_t count = std::min(rows_per_run, rows - run * rows_per_run) * cols;
      fn(run * rows_per_run * cols, count, row);
    }
  });
}

inline Status UnsupportedType(const KernelContext& ctx, TSR_DataType dtype) {
  return sdk::Unimplemented("node '", ctx.node_name(), "' has no CPU kernel for dtype ",
                            sdk::DataTypeName(dtype));
}

// Calls fn(T{}) for the T among Ts whose dtype is `dtype`; UNIMPLEMENTED for any other dtype.
template <typename... Ts, typename Fn>
Status DispatchTypes(const KernelContext& ctx, TSR_DataType dtype, Fn&& fn) {
  bool matched = false;
  Status status;
  ((!matched && dtype == sdk::DataTypeOf<Ts>::value ? (matched = true, status = fn(Ts{}), 0) : 0),
   ...);
  if (!matched) return UnsupportedType(ctx, dtype);
  return status;
}

// Value `i` of a host-memory int32 or int64 tensor.
inline int64_t IndexAt(const TensorView& view, int64_t i) {
  return view.dtype() == TSR_DTYPE_INT32 ? view.data<const int32_t>()[i]
                                         : view.data<const int64_t>()[i];
}

// Checks that `view` is an int32/int64 tensor (the registrations guarantee it; a direct caller
// may not).
inline Status CheckIndexType(const KernelContext& ctx, const TensorView& view, const char* what) {
  if (view.dtype() != TSR_DTYPE_INT32 && view.dtype() != TSR_DTYPE_INT64) {
    return sdk::InvalidArgument(what, " of node '", ctx.node_name(),
                                "' must be int32 or int64, got ", sdk::DataTypeName(view.dtype()));
  }
  return OkStatus();
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_
