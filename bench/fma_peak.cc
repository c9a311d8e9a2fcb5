// FP32 FMA peak: 12 independent FMA chains per thread hide the FMA latency. Each width is
// compiled for its own instruction set, so the file builds for baseline x86-64 and only runs what
// the CPU has.
#include "bench/fma_peak.h"

#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace tessera::bench {
namespace {

constexpr long kIterations = 400'000'000;
constexpr int kChains = 12;

double Rate(long iterations, int lanes, std::chrono::steady_clock::time_point start) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(iterations / kChains) * kChains * lanes * 2 / seconds * 1e-9;
}

__attribute__((target("avx2,fma"))) double Avx2Chains() {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
  const __m256 a = _mm256_set1_ps(0.9999f), b = _mm256_set1_ps(0.0001f);
  const auto start = std::chrono::steady_clock::now();
  for (long it = 0; it < kIterations / kChains; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  const double rate = Rate(kIterations, 8, start);
  float sink = 0;
  for (int i = 0; i < kChains; ++i) sink += _mm256_cvtss_f32(acc[i]);
  volatile float keep = sink;
  (void)keep;
  return rate;
}

__attribute__((target("avx512f"))) double Avx512Chains() {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512 a = _mm512_set1_ps(0.9999f), b = _mm512_set1_ps(0.0001f);
  const auto start = std::chrono::steady_clock::now();
  for (long it = 0; it < kIterations / kChains; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  const double rate = Rate(kIterations, 16, start);
  float sink = 0;
  for (int i = 0; i < kChains; ++i) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, acc[i]);
    sink += lanes[0];
  }
  volatile float keep = sink;
  (void)keep;
  return rate;
}

// Pins the calling thread to the `index`-th CPU this process may use, so that the threads run on
// distinct cores from the start.
void PinToCpu(int index) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  int seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ == index) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
      return;
    }
  }
}

}  // namespace

bool HasAvx512() { return __builtin_cpu_supports("avx512f"); }

double MeasureFmaPeakGflops(int threads, bool avx2_only) {
  const bool avx512 = !avx2_only && HasAvx512();
  if (!avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return 0;
  double best = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<double> results(threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&results, avx512, t] {
        PinToCpu(t);
        results[t] = avx512 ? Avx512Chains() : Avx2Chains();
      });
    }
    for (std::thread& worker : workers) worker.join();
    double total = 0;
    for (double rate : results) total += rate;
    best = std::max(best, total);
  }
  return best;
}

}  // namespace tessera::bench
