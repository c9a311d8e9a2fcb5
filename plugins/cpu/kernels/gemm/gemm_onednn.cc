// GemmSerial's oneDNN backend: dnnl_sgemm, row-major, on the calling thread.
#include "plugins/cpu/kernels/gemm/gemm_backends.h"
#include "plugins/cpu/kernels/gemm/parallel.h"

#if TESSERA_CPU_HAVE_ONEDNN
#include <dnnl.h>
#endif

namespace tessera::cpu::internal {

#if TESSERA_CPU_HAVE_ONEDNN

bool HaveOneDnn() { return true; }

bool OneDnnGemm(const GemmArgs<float>& args) {
  SingleThreadedOpenMp single_threaded;
  return dnnl_sgemm(args.transpose_a ? 'T' : 'N', args.transpose_b ? 'T' : 'N', args.m, args.n,
                    args.k, args.alpha, args.a, args.lda, args.b, args.ldb, args.beta, args.c,
                    args.ldc) == dnnl_success;
}

#else

bool HaveOneDnn() { return false; }
bool OneDnnGemm(const GemmArgs<float>&) { return false; }

#endif

}  // namespace tessera::cpu::internal
