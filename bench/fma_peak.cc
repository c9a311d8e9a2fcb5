// Single-core FP32 FMA peak: 10 independent 8-wide FMA chains hide the FMA latency.
#include "bench/fma_peak.h"

#include <immintrin.h>

#include <chrono>

namespace tessera::bench {

double MeasureFmaPeakGflops() {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
  __m256 acc[10];
  for (int i = 0; i < 10; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
  const __m256 a = _mm256_set1_ps(0.9999f);
  const __m256 b = _mm256_set1_ps(0.0001f);
  constexpr long kIterations = 200'000'000 / 10;
  auto start = std::chrono::steady_clock::now();
  for (long it = 0; it < kIterations; ++it) {
    for (int i = 0; i < 10; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  auto end = std::chrono::steady_clock::now();
  float sink = 0;
  for (int i = 0; i < 10; ++i) sink += _mm256_cvtss_f32(acc[i]);
  volatile float keep = sink;
  (void)keep;
  double seconds = std::chrono::duration<double>(end - start).count();
  double flops = static_cast<double>(kIterations) * 10 * 8 * 2;
  return flops / seconds / 1e9;
}

}  // namespace tessera::bench
