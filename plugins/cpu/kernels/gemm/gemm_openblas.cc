// GemmSerial's OpenBLAS backend: cblas_sgemm / cblas_dgemm on the calling thread. OpenBLAS's
// own thread count is set to 1 once, so every call stays on the thread that makes it.
#include <climits>
#include <mutex>

#include "plugins/cpu/kernels/gemm/gemm_backends.h"

#if TESSERA_CPU_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace tessera::cpu::internal {

#if TESSERA_CPU_HAVE_OPENBLAS
namespace {

void SingleThreadedOpenBlas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

// cblas takes 32-bit sizes.
template <typename T>
bool FitsInt(const GemmArgs<T>& args) {
  for (int64_t v : {args.m, args.n, args.k, args.lda, args.ldb, args.ldc}) {
    if (v > INT_MAX) return false;
  }
  return true;
}

CBLAS_TRANSPOSE Transpose(bool transpose) { return transpose ? CblasTrans : CblasNoTrans; }

}  // namespace

bool HaveOpenBlas() { return true; }

bool OpenBlasGemm(const GemmArgs<float>& args) {
  if (!FitsInt(args)) return false;
  SingleThreadedOpenBlas();
  cblas_sgemm(CblasRowMajor, Transpose(args.transpose_a), Transpose(args.transpose_b),
              static_cast<int>(args.m), static_cast<int>(args.n), static_cast<int>(args.k),
              args.alpha, args.a, static_cast<int>(args.lda), args.b, static_cast<int>(args.ldb),
              args.beta, args.c, static_cast<int>(args.ldc));
  return true;
}

bool OpenBlasGemm(const GemmArgs<double>& args) {
  if (!FitsInt(args)) return false;
  SingleThreadedOpenBlas();
  cblas_dgemm(CblasRowMajor, Transpose(args.transpose_a), Transpose(args.transpose_b),
              static_cast<int>(args.m), static_cast<int>(args.n), static_cast<int>(args.k),
              args.alpha, args.a, static_cast<int>(args.lda), args.b, static_cast<int>(args.ldb),
              args.beta, args.c, static_cast<int>(args.ldc));
  return true;
}

#else

bool HaveOpenBlas() { return false; }
bool OpenBlasGemm(const GemmArgs<float>&) { return false; }
bool OpenBlasGemm(const GemmArgs<double>&) { return false; }

#endif

}  // namespace tessera::cpu::internal
