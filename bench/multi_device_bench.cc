// Multi-device and control-flow overheads, each beside a peer measured in the same process:
//  - microseconds per iteration of a trivial counting while loop (TensorFlow's tf.while_loop
//    form), beside the executor's per-node cost on a straight chain (so the per-iteration figure
//    reads as "nodes per iteration x per-node cost");
//  - nanoseconds per node on a 1,000-wide fan-out/fan-in graph with 1 and 2 inter-op threads, of
//    cheap nodes (run inline) and of expensive ones (spread over the inter-op pool);
//  - throughput of cross-device transfers of 4 KiB and 64 MiB: CPU:0 -> CPU:1 (shared host
//    memory: the rendezvous hands the buffer over) and CPU -> TESTDEV -> CPU (two copies through
//    the test device's plugin copy functions), beside memcpy of the same size.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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

std::unique_ptr<Session> MustCreate(const tensorflow::GraphDef& def, SessionOptions options) {
  auto session = Session::Create(options, def);
  if (!session.ok()) {
    fprintf(stderr, "%s\n", session.status().ToString().c_str());
    std::abort();
  }
  return std::move(*session);
}

std::string IntConst(const std::string& name, int value, const std::string& control) {
  return absl::StrCat("node { name: \"", name, "\" op: \"Const\" ",
                      control.empty() ? "" : absl::StrCat("input: \"^", control, "\" "),
                      "attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" "
                      "value { tensor { dtype: DT_INT32 tensor_shape { } int_val: ",
                      value, " } } } }\n");
}

// i = 0; while i < n: i += 1, as tf.while_loop writes it; n is fed.
tensorflow::GraphDef CountingLoop() {
  std::string t = R"pb(
    node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  )pb";
  t += IntConst("zero", 0, "");
  t += R"pb(
    node { name: "while/Enter" op: "Enter" input: "zero" attr { key: "T" value { type: DT_INT32 } }
           attr { key: "frame_name" value { s: "while/while_context" } }
           attr { key: "is_constant" value { b: false } }
           attr { key: "parallel_iterations" value { i: 10 } } }
    node { name: "while/Enter_1" op: "Enter" input: "n" attr { key: "T" value { type: DT_INT32 } }
           attr { key: "frame_name" value { s: "while/while_context" } }
           attr { key: "is_constant" value { b: true } }
           attr { key: "parallel_iterations" value { i: 10 } } }
    node { name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration"
           attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_INT32 } } }
    node { name: "while/Less" op: "Less" input: "while/Merge" input: "while/Enter_1"
           attr { key: "T" value { type: DT_INT32 } } }
    node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" }
    node { name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond"
           attr { key: "T" value { type: DT_INT32 } } }
    node { name: "while/Identity" op: "Identity" input: "while/Switch:1"
           attr { key: "T" value { type: DT_INT32 } } }
  )pb";
  t += IntConst("while/add/y", 1, "while/Identity");
  t += R"pb(
    node { name: "while/add" op: "AddV2" input: "while/Identity" input: "while/add/y"
           attr { key: "T" value { type: DT_INT32 } } }
    node { name: "while/NextIteration" op: "NextIteration" input: "while/add"
           attr { key: "T" value { type: DT_INT32 } } }
    node { name: "while/Exit" op: "Exit" input: "while/Switch"
           attr { key: "T" value { type: DT_INT32 } } }
  )pb";
  return Parse(t);
}

void BM_WhileLoopCounting(benchmark::State& state) {
  const int iterations = static_cast<int>(state.range(0));
  SessionOptions options;
  options.inter_op_threads = 1;
  auto session = MustCreate(CountingLoop(), options);
  std::vector<std::pair<std::string, Tensor>> feeds = {{"n", Tensor::Scalar<int32_t>(iterations)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    absl::Status status = session->Run(feeds, {"while/Exit"}, {}, &out);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  if (out.size() == 1 && *out[0].data<int32_t>() != iterations) {
    state.SkipWithError("the loop counted wrong");
  }
  state.counters["per_iter"] = benchmark::Counter(
      iterations, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_WhileLoopCounting)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Peer: a straight chain of the same int32 AddV2 (no frames), per node.
void BM_ChainInt32(benchmark::State& state) {
  constexpr int kLength = 1000;
  std::string t = R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  )pb";
  t += IntConst("one", 1, "");
  std::string prev = "x";
  for (int i = 0; i < kLength; ++i) {
    std::string name = absl::StrCat("add", i);
    absl::StrAppend(&t, "node { name: \"", name, "\" op: \"AddV2\" input: \"", prev,
                    "\" input: \"one\" attr { key: \"T\" value { type: DT_INT32 } } }\n");
    prev = name;
  }
  SessionOptions options;
  options.inter_op_threads = 1;
  auto session = MustCreate(Parse(t), options);
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::Scalar<int32_t>(0)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, {prev}, {}, &out).ok()) state.SkipWithError("run failed");
  }
  state.counters["per_node"] = benchmark::Counter(
      kLength, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ChainInt32)->Unit(benchmark::kMicrosecond);

// x -> 1,000 independent nodes -> one NoOp waiting on all of them. Square is a cheap kernel (runs
// inline on the thread that made it ready); MatMul of 2x2 matrices is an expensive one (goes to
// the inter-op pool), so only the second spreads over threads.
void FanOutFanIn(benchmark::State& state, bool expensive) {
  constexpr int kWidth = 1000;
  std::string t = R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  )pb";
  std::string sink = "node { name: \"sink\" op: \"NoOp\"";
  for (int i = 0; i < kWidth; ++i) {
    if (expensive) {
      absl::StrAppend(&t, "node { name: \"sq", i, "\" op: \"MatMul\" input: \"x\" ",
                      "input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n");
    } else {
      absl::StrAppend(&t, "node { name: \"sq", i, "\" op: \"Square\" input: \"x\" ",
                      "attr { key: \"T\" value { type: DT_FLOAT } } }\n");
    }
    absl::StrAppend(&sink, " input: \"^sq", i, "\"");
  }
  t += sink + " }\n";
  SessionOptions options;
  options.inter_op_threads = static_cast<int>(state.range(0));
  options.intra_op_threads = 1;
  auto session = MustCreate(Parse(t), options);
  std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Tensor::FromVector<float>(TensorShape({2, 2}), {1, 2, 3, 4})}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    absl::Status status = session->Run(feeds, {}, {"sink"}, &out);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  state.counters["per_node"] = benchmark::Counter(
      kWidth + 2, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
void BM_FanOutFanInCheap(benchmark::State& state) { FanOutFanIn(state, false); }
void BM_FanOutFanInExpensive(benchmark::State& state) { FanOutFanIn(state, true); }
BENCHMARK(BM_FanOutFanInCheap)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_FanOutFanInExpensive)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// x (fed on CPU:0) -> Identity on `device` -> fetched on CPU:0: one transfer each way.
tensorflow::GraphDef RoundTrip(const std::string& device) {
  return Parse(absl::StrCat(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" device: ")pb", device, R"pb("
           attr { key: "T" value { type: DT_FLOAT } } })pb"));
}

void RunTransfers(benchmark::State& state, const std::string& device, int copies) {
  const int64_t bytes = state.range(0);
  SessionOptions options;
  options.device_count["CPU"] = 2;
#ifdef TESSERA_TESTDEVICE_PLUGIN_DIR
  options.plugin_paths.push_back(TESSERA_TESTDEVICE_PLUGIN_DIR);
#endif
  auto session = MustCreate(RoundTrip(device), options);
  Tensor x = Tensor::Allocate(HostAllocator(), TSR_DTYPE_FLOAT,
                              TensorShape({bytes / static_cast<int64_t>(sizeof(float))}))
                 .value();
  std::memset(x.data(), 1, x.TotalBytes());
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", x}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    absl::Status status = session->Run(feeds, {"y"}, {}, &out);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  if (out.size() != 1 || std::memcmp(out[0].data(), x.data(), x.TotalBytes()) != 0) {
    state.SkipWithError("the round trip changed the data");
  }
  state.SetBytesProcessed(state.iterations() * bytes * copies);
}

void BM_TransferCpuToCpu(benchmark::State& state) {
  RunTransfers(state, "/device:CPU:1", 2);
}
BENCHMARK(BM_TransferCpuToCpu)->Arg(4 << 10)->Arg(64 << 20)->UseRealTime();

void BM_TransferCpuTestDeviceCpu(benchmark::State& state) {
  RunTransfers(state, "/device:TESTDEV:0", 2);
}
BENCHMARK(BM_TransferCpuTestDeviceCpu)->Arg(4 << 10)->Arg(64 << 20)->UseRealTime();

// Peer: memcpy of the same bytes, twice per iteration (there and back).
void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> a(bytes, 1);
  std::vector<char> b(bytes, 0);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    std::memcpy(a.data(), b.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes) * 2);
}
BENCHMARK(BM_Memcpy)->Arg(4 << 10)->Arg(64 << 20)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
