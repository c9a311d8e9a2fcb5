// Memory-bound kernels through a session beside memcpy of the same bytes in the same run: BiasAdd
// (NHWC and NCHW), AddV2 broadcasting a vector over the last axis, Relu, MaxPool 2x2 (NHWC and
// NCHW) and AvgPool 2x2 (NHWC), on W5-sized activations (8 x 64 x 64 x 32 floats, 4 MiB). Each reports
// bytes_per_second over the bytes it reads and writes once (input plus output); the memcpy rows
// copy the same number of bytes (read plus write). Arg: intra-op threads.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "host/session/session.h"

namespace tessera {
namespace {

constexpr int64_t kBatch = 8, kRows = 64, kCols = 64, kDepth = 32;
constexpr int64_t kElements = kBatch * kRows * kCols * kDepth;

std::unique_ptr<Session> MustCreate(const std::string& text, int threads) {
  tensorflow::GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(text, &def)) std::abort();
  SessionOptions options;
  options.intra_op_threads = threads;
  options.inter_op_threads = 1;
  auto session = Session::Create(options, def);
  if (!session.ok()) {
    fprintf(stderr, "%s\n", session.status().ToString().c_str());
    std::abort();
  }
  return std::move(*session);
}

Tensor Random(std::vector<int64_t> dims) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor t(TSR_DTYPE_FLOAT, shape);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& v : t.flat<float>()) v = dist(rng);
  return t;
}

const char* kPlaceholders = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

std::string PoolAttrs(bool nchw) {
  const char* window = nchw ? "i: 1 i: 1 i: 2 i: 2" : "i: 1 i: 2 i: 2 i: 1";
  return absl::StrCat("attr { key: \"ksize\" value { list { ", window, " } } } ",
                      "attr { key: \"strides\" value { list { ", window, " } } } ",
                      "attr { key: \"padding\" value { s: \"VALID\" } } ",
                      "attr { key: \"data_format\" value { s: \"", nchw ? "NCHW" : "NHWC",
                      "\" } } attr { key: \"T\" value { type: DT_FLOAT } }");
}

// Runs `node` (a NodeDef's text named "y" over x and maybe b) and reports its bytes per second.
void RunOp(benchmark::State& state, const std::string& node, std::vector<int64_t> x_dims,
           std::vector<int64_t> b_dims, int64_t output_elements) {
  const int threads = static_cast<int>(state.range(0));
  auto session = MustCreate(absl::StrCat(kPlaceholders, node), threads);
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Random(std::move(x_dims))}};
  int64_t input_elements = kElements;
  if (!b_dims.empty()) {
    feeds.push_back({"b", Random(b_dims)});
    input_elements += feeds.back().second.NumElements();
  }
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, {"y"}, {}, &out).ok()) state.SkipWithError("run failed");
  }
  state.SetBytesProcessed(state.iterations() * (input_elements + output_elements) *
                          static_cast<int64_t>(sizeof(float)));
}

void BM_BiasAddNhwc(benchmark::State& state) {
  RunOp(state,
        "node { name: 'y' op: 'BiasAdd' input: 'x' input: 'b' "
        "attr { key: 'T' value { type: DT_FLOAT } } }",
        {kBatch, kRows, kCols, kDepth}, {kDepth}, kElements);
}

void BM_BiasAddNchw(benchmark::State& state) {
  RunOp(state,
        "node { name: 'y' op: 'BiasAdd' input: 'x' input: 'b' "
        "attr { key: 'T' value { type: DT_FLOAT } } "
        "attr { key: 'data_format' value { s: 'NCHW' } } }",
        {kBatch, kDepth, kRows, kCols}, {kDepth}, kElements);
}

void BM_AddV2LastAxisBroadcast(benchmark::State& state) {
  RunOp(state,
        "node { name: 'y' op: 'AddV2' input: 'x' input: 'b' "
        "attr { key: 'T' value { type: DT_FLOAT } } }",
        {kBatch * kRows * kCols, kDepth}, {kDepth}, kElements);
}

void BM_Relu(benchmark::State& state) {
  RunOp(state,
        "node { name: 'y' op: 'Relu' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }",
        {kBatch, kRows, kCols, kDepth}, {}, kElements);
}

void BM_MaxPoolNhwc(benchmark::State& state) {
  RunOp(state, absl::StrCat("node { name: 'y' op: 'MaxPool' input: 'x' ", PoolAttrs(false), " }"),
        {kBatch, kRows, kCols, kDepth}, {}, kElements / 4);
}

void BM_MaxPoolNchw(benchmark::State& state) {
  RunOp(state, absl::StrCat("node { name: 'y' op: 'MaxPool' input: 'x' ", PoolAttrs(true), " }"),
        {kBatch, kDepth, kRows, kCols}, {}, kElements / 4);
}

void BM_AvgPoolNhwc(benchmark::State& state) {
  RunOp(state, absl::StrCat("node { name: 'y' op: 'AvgPool' input: 'x' ", PoolAttrs(false), " }"),
        {kBatch, kRows, kCols, kDepth}, {}, kElements / 4);
}

// The peer: memcpy of `bytes` (the benchmarks above read and write about 2 x 4 MiB, the pools
// 4 + 1 MiB) into a fresh buffer, as a kernel writes a freshly allocated output.
void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> from(bytes, 1);
  for (auto _ : state) {
    std::unique_ptr<char[]> to(new char[bytes]);
    std::memcpy(to.get(), from.data(), bytes);
    benchmark::DoNotOptimize(to.get());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(2 * bytes));
}

BENCHMARK(BM_Memcpy)->Arg(kElements * 4)->Arg(kElements * 4 * 5 / 8)->UseRealTime();
BENCHMARK(BM_BiasAddNhwc)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_BiasAddNchw)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_AddV2LastAxisBroadcast)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_Relu)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_MaxPoolNhwc)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_MaxPoolNchw)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_AvgPoolNhwc)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
