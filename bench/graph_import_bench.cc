// GraphDef import at scale, beside protobuf parsing the same GraphDef's bytes in the same run:
// one Const feeding N Identity nodes (N = 25,000 to 200,000), so that SINK gets N control edges,
// the shape of graph that made imports quadratic. Reports nanoseconds per node (compare with the
// parse's) and the heap the imported graph holds per node.
#include <malloc.h>

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "host/framework/proto/graph.pb.h"
#include "host/graph/graph.h"
#include "host/ops/op_registry.h"

namespace tessera {
namespace {

tensorflow::GraphDef FanOut(int n) {
  tensorflow::GraphDef def;
  tensorflow::NodeDef* c = def.add_node();
  c->set_name("c");
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  tensorflow::TensorProto* value = (*c->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(tensorflow::DT_FLOAT);
  value->add_float_val(1.0f);
  for (int i = 0; i < n; ++i) {
    tensorflow::NodeDef* node = def.add_node();
    node->set_name(absl::StrCat("id", i));
    node->set_op("Identity");
    node->add_input("c");
    (*node->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  }
  return def;
}

// Heap bytes in use (glibc's malloc statistics: small blocks and mmapped ones).
int64_t HeapBytesInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

const OpRegistry& Ops() {
  static const OpRegistry* ops = OpRegistry::CreateStandard().release();
  return *ops;
}

void BM_ImportGraphDef(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const tensorflow::GraphDef def = FanOut(n);
  int64_t held = 0;
  for (auto _ : state) {
    const int64_t before = HeapBytesInUse();
    absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, Ops());
    if (!graph.ok()) {
      state.SkipWithError(std::string(graph.status().message()).c_str());
      break;
    }
    held = HeapBytesInUse() - before;
    state.PauseTiming();
    graph->reset();  // not part of the import
    state.ResumeTiming();
  }
  state.counters["per_node"] = benchmark::Counter(
      n + 1, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["bytes_per_node"] = static_cast<double>(held) / (n + 1);
}
BENCHMARK(BM_ImportGraphDef)
    ->Arg(25000)
    ->Arg(50000)
    ->Arg(100000)
    ->Arg(200000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

// Peer: protobuf parsing the serialized GraphDef (what reading a .pb costs before any import).
void BM_ParseGraphDefBytes(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::string bytes = FanOut(n).SerializeAsString();
  for (auto _ : state) {
    tensorflow::GraphDef def;
    if (!def.ParseFromString(bytes)) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(def);
  }
  state.counters["per_node"] = benchmark::Counter(
      n + 1, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ParseGraphDefBytes)
    ->Arg(25000)
    ->Arg(50000)
    ->Arg(100000)
    ->Arg(200000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
