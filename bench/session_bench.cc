// Runtime overheads and MatMul throughput, each beside a peer measured in the same process:
//  - executor overhead per node on a chain of 10,000 AddV2 over 1-element tensors, beside the same
//    10,000 additions done by a plain loop;
//  - Session::Run latency of a 1-node Identity graph;
//  - MatMul 1024x1024 float32 GFLOP/s, beside the measured single-core FMA peak times the
//    intra-op threads.
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/fma_peak.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "host/session/session.h"

namespace tessera {
namespace {

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(text, &def)) std::abort();
  return def;
}

std::unique_ptr<Session> MustCreate(const tensorflow::GraphDef& def, int intra_threads = 0) {
  SessionOptions options;
  options.intra_op_threads = intra_threads;
  auto session = Session::Create(options, def);
  if (!session.ok()) {
    fprintf(stderr, "%s\n", session.status().ToString().c_str());
    std::abort();
  }
  return std::move(*session);
}

constexpr int kChainLength = 10000;

tensorflow::GraphDef AddChain() {
  std::string text = R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } }
                                                 float_val: 1 } } } }
  )pb";
  std::string prev = "x";
  for (int i = 0; i < kChainLength; ++i) {
    std::string name = absl::StrCat("add", i);
    absl::StrAppend(&text, "node { name: \"", name, "\" op: \"AddV2\" input: \"", prev,
                    "\" input: \"one\" attr { key: \"T\" value { type: DT_FLOAT } } }\n");
    prev = name;
  }
  return Parse(text);
}

void BM_ExecutorChainAddV2(benchmark::State& state) {
  auto session = MustCreate(AddChain());
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::Vector<float>({0})}};
  std::vector<std::string> fetches = {absl::StrCat("add", kChainLength - 1)};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, fetches, {}, &out).ok()) state.SkipWithError("run failed");
  }
  // Seconds per node, printed with an SI prefix ("35n" is 35 ns).
  state.counters["per_node"] = benchmark::Counter(
      kChainLength, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ExecutorChainAddV2)->Unit(benchmark::kMillisecond);

// Peer: the same 10,000 dependent additions on one float in a plain loop.
void BM_PlainLoopChainAdd(benchmark::State& state) {
  for (auto _ : state) {
    float x = 0;
    for (int i = 0; i < kChainLength; ++i) {
      x += 1.0f;
      benchmark::DoNotOptimize(x);
    }
  }
  // Seconds per node, printed with an SI prefix ("35n" is 35 ns).
  state.counters["per_node"] = benchmark::Counter(
      kChainLength, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PlainLoopChainAdd)->Unit(benchmark::kMicrosecond);

void BM_SessionRunIdentity(benchmark::State& state) {
  auto session = MustCreate(Parse(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb"));
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::Vector<float>({1})}};
  std::vector<std::string> fetches = {"y"};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, fetches, {}, &out).ok()) state.SkipWithError("run failed");
  }
}
BENCHMARK(BM_SessionRunIdentity)->Unit(benchmark::kMicrosecond);

void BM_MatMul1024(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  auto session = MustCreate(Parse(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "c" op: "MatMul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  )pb"), threads);
  constexpr int64_t n = 1024;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  Tensor a(TSR_DTYPE_FLOAT, TensorShape{n, n});
  Tensor b(TSR_DTYPE_FLOAT, TensorShape{n, n});
  for (float& v : a.flat<float>()) v = dist(rng);
  for (float& v : b.flat<float>()) v = dist(rng);
  std::vector<std::pair<std::string, Tensor>> feeds = {{"a", a}, {"b", b}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, {"c"}, {}, &out).ok()) state.SkipWithError("run failed");
  }
  double flops = 2.0 * n * n * n;
  state.counters["GFLOPs"] = benchmark::Counter(flops * 1e-9 * state.iterations(),
                                                benchmark::Counter::kIsRate);
  static const double peak = bench::MeasureFmaPeakGflops();
  state.counters["core_peak_GFLOPs"] = peak;
  state.counters["fraction_of_peak"] =
      benchmark::Counter(flops * 1e-9 * state.iterations() / (peak * threads),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MatMul1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
