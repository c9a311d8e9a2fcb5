// MatMul and Conv2D throughput through a real Tessera session, beside the same work done in the
// same process by oneDNN (dnnl_sgemm, the convolution primitive) and OpenBLAS (cblas_sgemm) on
// their own threads, and beside the machine's measured FMA peak. Every benchmark takes the thread
// count as its last argument: Tessera's intra-op threads, oneDNN's OpenMP threads, OpenBLAS's
// threads. Counters: GFLOPs (rate) and fraction_of_peak (of the FMA peak times the threads).
//
// Conv2D shapes (3x3 window, stride 1, SAME, NHWC, filter HWIO) are chosen so that the implicit
// GEMM of size S (M = batch * rows * cols, K = 9 * depth, N = filters) has M = N = S and
// K = 1.125 S:
//   S = 256:  batch 1, 16x16, depth  32, 256 filters
//   S = 1024: batch 1, 32x32, depth 128, 1024 filters
//   S = 2048: batch 2, 32x32, depth 256, 2048 filters
//   S = 4096: batch 4, 32x32, depth 512, 4096 filters
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/fma_peak.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "host/session/session.h"

namespace tessera {
namespace {

// ---- The FMA peak ------------------------------------------------------------------------------

// The peak for `threads` threads, measured once per thread count.
double Peak(int threads) {
  static double peaks[3] = {0, 0, 0};
  if (threads < 1 || threads > 2) return 0;
  if (peaks[threads] == 0) peaks[threads] = bench::MeasureFmaPeakGflops(threads);
  return peaks[threads];
}

void BM_FmaPeak(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(Peak(threads));
  state.counters["GFLOPs"] = Peak(threads);
  state.counters["avx512"] = bench::HasAvx512() ? 1 : 0;
  state.counters["avx2_GFLOPs"] = bench::MeasureFmaPeakGflops(threads, /*avx2_only=*/true);
}
BENCHMARK(BM_FmaPeak)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kMillisecond);

void SetCounters(benchmark::State& state, double flops, int threads) {
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["fraction_of_peak"] = benchmark::Counter(
      flops * 1e-9 * state.iterations() / Peak(threads), benchmark::Counter::kIsRate);
}

std::vector<float> RandomValues(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = dist(rng);
  return values;
}

Tensor RandomTensor(const TensorShape& shape, unsigned seed) {
  Tensor t(TSR_DTYPE_FLOAT, shape);
  const std::vector<float> values = RandomValues(t.NumElements(), seed);
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

std::unique_ptr<Session> MustCreate(const std::string& text, int intra_threads) {
  tensorflow::GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(text, &def)) std::abort();
  SessionOptions options;
  options.intra_op_threads = intra_threads;
  auto session = Session::Create(options, def);
  if (!session.ok()) {
    fprintf(stderr, "%s\n", session.status().ToString().c_str());
    std::abort();
  }
  return std::move(*session);
}

// ---- MatMul ------------------------------------------------------------------------------------

void BM_TesseraMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  auto session = MustCreate(R"pb(
                              node {
                                name: "a"
                                op: "Placeholder"
                                attr {
                                  key: "dtype"
                                  value { type: DT_FLOAT }
                                }
                              }
                              node {
                                name: "b"
                                op: "Placeholder"
                                attr {
                                  key: "dtype"
                                  value { type: DT_FLOAT }
                                }
                              }
                              node {
                                name: "c"
                                op: "MatMul"
                                input: "a"
                                input: "b"
                                attr {
                                  key: "T"
                                  value { type: DT_FLOAT }
                                }
                              }
                            )pb",
                            threads);
  std::vector<std::pair<std::string, Tensor>> feeds = {{"a", RandomTensor(TensorShape{n, n}, 1)},
                                                       {"b", RandomTensor(TensorShape{n, n}, 2)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, {"c"}, {}, &out).ok()) state.SkipWithError("run failed");
  }
  SetCounters(state, 2.0 * n * n * n, threads);
}

void BM_OneDnnSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const std::vector<float> a = RandomValues(n * n, 1), b = RandomValues(n * n, 2);
  std::vector<float> c(static_cast<size_t>(n * n));
  omp_set_num_threads(threads);
  for (auto _ : state) {
    dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  }
  SetCounters(state, 2.0 * n * n * n, threads);
}

void BM_OpenBlasSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const std::vector<float> a = RandomValues(n * n, 1), b = RandomValues(n * n, 2);
  std::vector<float> c(static_cast<size_t>(n * n));
  openblas_set_num_threads(threads);
  const int size = static_cast<int>(n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, size, size, size, 1.0f, a.data(), size,
                b.data(), size, 0.0f, c.data(), size);
  }
  SetCounters(state, 2.0 * n * n * n, threads);
}

void MatMulArgs(benchmark::internal::Benchmark* b) {
  for (int64_t n : {256, 1024, 2048, 4096}) {
    for (int threads : {1, 2}) b->Args({n, threads});
  }
  b->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_TesseraMatMul)->Apply(MatMulArgs);
BENCHMARK(BM_OneDnnSgemm)->Apply(MatMulArgs);
BENCHMARK(BM_OpenBlasSgemm)->Apply(MatMulArgs);

// ---- Conv2D ------------------------------------------------------------------------------------

struct ConvShape {
  int64_t batch, size, depth, filters;
};
ConvShape ConvShapeFor(int64_t s) {
  switch (s) {
    case 256:
      return {1, 16, 32, 256};
    case 1024:
      return {1, 32, 128, 1024};
    case 2048:
      return {2, 32, 256, 2048};
    default:
      return {4, 32, 512, 4096};
  }
}
double ConvFlops(const ConvShape& c) {
  return 2.0 * c.batch * c.size * c.size * c.filters * 9 * c.depth;
}

void BM_TesseraConv2D(benchmark::State& state) {
  const ConvShape c = ConvShapeFor(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  auto session = MustCreate(R"pb(
                              node {
                                name: "x"
                                op: "Placeholder"
                                attr {
                                  key: "dtype"
                                  value { type: DT_FLOAT }
                                }
                              }
                              node {
                                name: "w"
                                op: "Placeholder"
                                attr {
                                  key: "dtype"
                                  value { type: DT_FLOAT }
                                }
                              }
                              node {
                                name: "y"
                                op: "Conv2D"
                                input: "x"
                                input: "w"
                                attr {
                                  key: "T"
                                  value { type: DT_FLOAT }
                                }
                                attr {
                                  key: "strides"
                                  value { list { i: 1 i: 1 i: 1 i: 1 } }
                                }
                                attr {
                                  key: "padding"
                                  value { s: "SAME" }
                                }
                              }
                            )pb",
                            threads);
  std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", RandomTensor(TensorShape{c.batch, c.size, c.size, c.depth}, 1)},
      {"w", RandomTensor(TensorShape{3, 3, c.depth, c.filters}, 2)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, {"y"}, {}, &out).ok()) state.SkipWithError("run failed");
  }
  SetCounters(state, ConvFlops(c), threads);
}

// oneDNN's own convolution on its OpenMP threads: NHWC source and destination, the filter given
// as HWIO (as Conv2D receives it) and reordered to the primitive's layout on every run, unless
// `prepacked` (reordered once, outside the timing: oneDNN's best case).
void OneDnnConv2D(benchmark::State& state, bool prepacked) {
  const ConvShape c = ConvShapeFor(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  omp_set_num_threads(threads);
  using dnnl::memory;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::dims src_dims = {c.batch, c.depth, c.size, c.size};
  const memory::dims weight_dims = {c.filters, c.depth, 3, 3};
  const memory::dims dst_dims = {c.batch, c.filters, c.size, c.size};
  const memory::desc src(src_dims, memory::data_type::f32, memory::format_tag::nhwc);
  const memory::desc hwio(weight_dims, memory::data_type::f32, memory::format_tag::hwio);
  const memory::desc weights_any(weight_dims, memory::data_type::f32, memory::format_tag::any);
  const memory::desc dst(dst_dims, memory::data_type::f32, memory::format_tag::nhwc);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct, src, weights_any, dst,
                                       {1, 1}, {1, 1}, {1, 1});
  dnnl::convolution_forward::primitive_desc pd(desc, engine);
  std::vector<float> x = RandomValues(c.batch * c.size * c.size * c.depth, 1);
  std::vector<float> w = RandomValues(9 * c.depth * c.filters, 2);
  std::vector<float> y(static_cast<size_t>(c.batch * c.size * c.size * c.filters));
  memory src_memory(src, engine, x.data());
  memory user_weights(hwio, engine, w.data());
  memory weights(pd.weights_desc(), engine);
  memory dst_memory(dst, engine, y.data());
  dnnl::reorder reorder(user_weights, weights);
  dnnl::convolution_forward conv(pd);
  if (prepacked) reorder.execute(stream, user_weights, weights);
  for (auto _ : state) {
    if (!prepacked) reorder.execute(stream, user_weights, weights);
    conv.execute(
        stream,
        {{DNNL_ARG_SRC, src_memory}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst_memory}});
    stream.wait();
  }
  state.SetLabel(pd.impl_info_str());
  SetCounters(state, ConvFlops(c), threads);
}
void BM_OneDnnConv2D(benchmark::State& state) { OneDnnConv2D(state, false); }
void BM_OneDnnConv2DPrepackedFilter(benchmark::State& state) { OneDnnConv2D(state, true); }

void ConvArgs(benchmark::internal::Benchmark* b) {
  for (int64_t s : {256, 1024, 2048, 4096}) {
    for (int threads : {1, 2}) b->Args({s, threads});
  }
  b->ArgNames({"gemm_size", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_TesseraConv2D)->Apply(ConvArgs);
BENCHMARK(BM_OneDnnConv2D)->Apply(ConvArgs);
BENCHMARK(BM_OneDnnConv2DPrepackedFilter)->Apply(ConvArgs);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
