// Helpers for the array kernel tests: random tensors of any fixed-size dtype, coordinates, and a
// byte-exact reference built from a map of output coordinates to input elements.
#ifndef TESSERA_TESTS_KERNELS_CPU_ARRAY_TEST_UTIL_H_
#define TESSERA_TESTS_KERNELS_CPU_ARRAY_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {

// The dtypes the byte-moving kernels are tested with: one per element size, plus bool.
inline const std::vector<DataType>& ByteMovingTypes() {
  static const auto* types =
      new std::vector<DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_INT64, TSR_DTYPE_BOOL,
                                TSR_DTYPE_UINT8, TSR_DTYPE_HALF,  TSR_DTYPE_COMPLEX128};
  return *types;
}

// Random contents for any fixed-size dtype (bool: 0 or 1; others: random bytes, so floating
// values may be NaN, which byte comparison handles).
inline Tensor RandomOfType(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  unsigned char* bytes = static_cast<unsigned char*>(t.data());
  const size_t n = t.TotalBytes();
  for (size_t i = 0; i < n; ++i) {
    bytes[i] = static_cast<unsigned char>(dtype == TSR_DTYPE_BOOL ? Rng()() % 2 : Rng()() % 256);
  }
  return t;
}

// A random shape of `rank` dimensions in [lo, hi].
inline TensorShape RandomShape(int rank, int64_t lo = 1, int64_t hi = 4) {
  TensorShape shape;
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  for (int d = 0; d < rank; ++d) shape.AddDim(dist(Rng()));
  return shape;
}

// The coordinates of flat element `index` of `shape`.
inline std::vector<int64_t> Coordinates(const TensorShape& shape, int64_t index) {
  std::vector<int64_t> c(static_cast<size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    c[d] = index % shape.dim(d);
    index /= shape.dim(d);
  }
  return c;
}

inline int64_t FlatIndex(const TensorShape& shape, const std::vector<int64_t>& c) {
  int64_t index = 0;
  for (int d = 0; d < shape.rank(); ++d) index = index * shape.dim(d) + c[d];
  return index;
}

// Output element c is input element source(c), or the `fill` element where source returns -1.
inline Tensor ReferenceCopy(const Tensor& input, const TensorShape& out_shape,
                            const std::function<int64_t(const std::vector<int64_t>&)>& source,
                            const void* fill = nullptr) {
  Tensor out(input.dtype(), out_shape);
  const size_t size = DataTypeSize(input.dtype());
  const char* src = static_cast<const char*>(input.data());
  char* dst = static_cast<char*>(out.data());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const int64_t from = source(Coordinates(out_shape, i));
    std::memcpy(dst + i * size, from < 0 ? fill : src + from * size, size);
  }
  return out;
}

// Same dtype, shape and bytes.
inline void ExpectSameBytes(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape())
      << actual.shape().DebugString() << " vs. " << expected.shape().DebugString();
  const size_t n = expected.TotalBytes();
  if (n == 0) return;
  const unsigned char* a = static_cast<const unsigned char*>(actual.data());
  const unsigned char* e = static_cast<const unsigned char*>(expected.data());
  const size_t size = DataTypeSize(expected.dtype());
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != e[i]) {
      ADD_FAILURE() << "element " << i / size << " differs (byte " << i % size << ")";
      return;
    }
  }
}

// An int32 or int64 vector tensor.
inline Tensor IndexVector(DataType dtype, const std::vector<int64_t>& values) {
  Tensor t(dtype, TensorShape{static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == TSR_DTYPE_INT32) {
      t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    } else {
      t.data<int64_t>()[i] = values[i];
    }
  }
  return t;
}

inline std::string ShapeString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace tessera::cpu::test

#endif  // TESSERA_TESTS_KERNELS_CPU_ARRAY_TEST_UTIL_H_
