// The machine's measured FP32 FMA peak, the physical limit GEMM and convolution figures are
// compared to.
#ifndef TESSERA_BENCH_FMA_PEAK_H_
#define TESSERA_BENCH_FMA_PEAK_H_

namespace tessera::bench {

// GFLOP/s of `threads` threads at once, each pinned to its own core and running 12 independent
// FMA chains: 16-wide AVX-512 when the CPU has it (unless `avx2_only`), else 8-wide AVX2. The
// best of 3 tries; 0 when the CPU has neither AVX2 with FMA nor AVX-512.
double MeasureFmaPeakGflops(int threads = 1, bool avx2_only = false);

// Whether the CPU has AVX-512F (the width MeasureFmaPeakGflops uses by default).
bool HasAvx512();

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_FMA_PEAK_H_
