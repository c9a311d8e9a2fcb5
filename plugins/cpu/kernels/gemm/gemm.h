// The CPU plugin's matrix-product layer: C = alpha * op(A) * op(B) + beta * C on row-major
// matrices, cut into blocks over the host's intra-op pool, each block multiplied on one thread by
// the fastest library of this build (oneDNN for float, OpenBLAS for double, Eigen otherwise).
#ifndef TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_H_
#define TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_H_

#include <cstdint>

#include "tessera/plugin_api/plugin.h"

namespace tessera::cpu {

// One row-major product. op(A) is m x k and op(B) is k x n; A is stored m x k (k x m when
// transpose_a) with `lda` elements between rows, B likewise k x n (n x k when transpose_b) with
// `ldb`, and C is m x n with `ldc`. Leading dimensions must cover a row (lda >= k, or m when
// transposed; the same for B and C), as BLAS requires.
template <typename T>
struct GemmArgs {
  bool transpose_a = false;
  bool transpose_b = false;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  T alpha = T(1);
  const T* a = nullptr;
  int64_t lda = 0;
  const T* b = nullptr;
  int64_t ldb = 0;
  T beta = T(0);
  T* c = nullptr;
  int64_t ldc = 0;
};

// Between pieces of a long product, Gemm and BatchGemm ask whether to stop (the step was
// cancelled): a product is cut so that no piece exceeds `flops_between_checks` where its shape
// allows (depth slices of at least 256, whole tiles of rows), so a stop is seen within about the
// time one core takes for that many flops. Without `cancelled` nothing is cut.
inline constexpr double kGemmFlopsBetweenChecks = 1.6e10;
struct GemmCancellation {
  bool (*cancelled)(const void* arg) = nullptr;
  const void* arg = nullptr;
  double flops_between_checks = kGemmFlopsBetweenChecks;
  bool operator()() const { return cancelled != nullptr && cancelled(arg); }
};

// Computes `args` on the calling thread. As in BLAS, beta == 0 overwrites C without reading it
// (a NaN there does not survive) and k == 0 (or alpha == 0) only scales C by beta.
// T is float or double.
template <typename T>
void GemmSerial(const GemmArgs<T>& args);

// Computes `args` on `pool` (nullptr: the calling thread alone): C is cut along m and n into a
// few blocks per pool thread (one when the product is too small to pay for a thread hop; up to
// four per thread when it lasts about a millisecond, so that the calling thread takes over the
// blocks of a thread that wakes late), and each block is one GemmSerial. The blocks depend only
// on the shape and the pool's size, so a result is the same, bit for bit, on every run with the
// same pool size.
// Returns false when `cancellation` stopped it (C then holds partial results).
template <typename T>
bool Gemm(const GemmArgs<T>& args, TSR_ThreadPool* pool,
          const GemmCancellation& cancellation = GemmCancellation());

// `batch` products of one shape (the sizes, transposes, scalars and leading dimensions of
// `shape`; its pointers are ignored): product i reads a[i] and b[i] and writes c[i]. Whole
// products are spread over the pool; when there are fewer products than threads each one is
// also cut into blocks as in Gemm. Returns false when `cancellation` stopped it.
template <typename T>
bool BatchGemm(const GemmArgs<T>& shape, int64_t batch, const T* const* a, const T* const* b,
               T* const* c, TSR_ThreadPool* pool,
               const GemmCancellation& cancellation = GemmCancellation());

// C = op(A) op(B) for int32 and int64 (alpha 1, beta 0) on the calling thread, in (i, p, j) order
// so that the innermost loop runs along rows of B and C. Sums wrap around in two's complement,
// as TensorFlow's do.
template <typename T>
void IntegerGemm(const GemmArgs<T>& args);

// The library that multiplies `dtype` (float or double) in this build: "oneDNN", "OpenBLAS" or
// "Eigen".
const char* GemmBackendName(TSR_DataType dtype);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_H_
