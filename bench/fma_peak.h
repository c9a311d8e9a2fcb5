// The machine's measured single-core FP32 FMA peak, the physical limit GEMM figures are compared to.
#ifndef TESSERA_BENCH_FMA_PEAK_H_
#define TESSERA_BENCH_FMA_PEAK_H_

namespace tessera::bench {

// GFLOP/s of one core running independent AVX2 FMA chains; 0 when the CPU has no AVX2/FMA.
double MeasureFmaPeakGflops();

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_FMA_PEAK_H_
