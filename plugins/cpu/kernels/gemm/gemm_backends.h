// The single-threaded library calls behind GemmSerial, one translation unit per library. Each
// returns false when it cannot take the product (library absent from this build, sizes beyond
// its index type, an error from the library); GemmSerial then tries the next one, Eigen last.
// Callers have already handled m, n or k of zero and alpha of zero.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_BACKENDS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_BACKENDS_H_

#include "plugins/cpu/kernels/gemm/gemm.h"

namespace tessera::cpu::internal {

// oneDNN's dnnl_sgemm on the calling thread (its OpenMP regions held to this thread).
bool OneDnnGemm(const GemmArgs<float>& args);
inline bool OneDnnGemm(const GemmArgs<double>&) { return false; }

// OpenBLAS's cblas_sgemm / cblas_dgemm, with OpenBLAS's own threads switched off.
bool OpenBlasGemm(const GemmArgs<float>& args);
bool OpenBlasGemm(const GemmArgs<double>& args);

// Eigen's product on the calling thread; always available.
void EigenGemm(const GemmArgs<float>& args);
void EigenGemm(const GemmArgs<double>& args);

// Whether OneDnnGemm / OpenBlasGemm can run in this build.
bool HaveOneDnn();
bool HaveOpenBlas();

}  // namespace tessera::cpu::internal

#endif  // TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_BACKENDS_H_
