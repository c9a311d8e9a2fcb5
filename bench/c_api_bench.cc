// The C API beside the C++ API in one process:
//  - one step of a 1-node Identity graph (a 1-float feed, one fetch) through TF_SessionRun, through
//    Session::Run and through a Session callable (what TF_SessionRun runs underneath);
//  - feeding and fetching a 64 MiB float tensor through TF_SessionRun (Identity), as GB/s beside
//    memcpy of the same 64 MiB: the feed and the fetch share the client's buffer, so nothing is
//    copied.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "host/session/session.h"
#include "tensorflow/c/c_api.h"

namespace tessera {
namespace {

// A Placeholder "x" and an Identity "y" built through the C API.
struct CGraph {
  CGraph() {
    status = TF_NewStatus();
    graph = TF_NewGraph();
    TF_OperationDescription* desc = TF_NewOperation(graph, "Placeholder", "x");
    TF_SetAttrType(desc, "dtype", TF_FLOAT);
    x = TF_FinishOperation(desc, status);
    desc = TF_NewOperation(graph, "Identity", "y");
    TF_AddInput(desc, TF_Output{x, 0});
    y = TF_FinishOperation(desc, status);
    session = TF_NewSession(graph, nullptr, status);
    if (TF_GetCode(status) != TF_OK) {
      std::fprintf(stderr, "%s\n", TF_Message(status));
      std::abort();
    }
  }
  ~CGraph() {
    TF_DeleteSession(session, status);
    TF_DeleteGraph(graph);
    TF_DeleteStatus(status);
  }
  TF_Status* status;
  TF_Graph* graph;
  TF_Operation* x;
  TF_Operation* y;
  TF_Session* session;
};

void BM_TFSessionRunIdentity(benchmark::State& state) {
  CGraph g;
  const int64_t dims[1] = {1};
  TF_Tensor* value = TF_AllocateTensor(TF_FLOAT, dims, 1, sizeof(float));
  *static_cast<float*>(TF_TensorData(value)) = 1;
  const TF_Output input{g.x, 0};
  const TF_Output output{g.y, 0};
  for (auto _ : state) {
    TF_Tensor* result = nullptr;
    TF_SessionRun(g.session, nullptr, &input, &value, 1, &output, &result, 1, nullptr, 0, nullptr,
                  g.status);
    if (TF_GetCode(g.status) != TF_OK) state.SkipWithError(TF_Message(g.status));
    TF_DeleteTensor(result);
  }
  TF_DeleteTensor(value);
}
BENCHMARK(BM_TFSessionRunIdentity)->Unit(benchmark::kMicrosecond);

// The same Placeholder "x" and Identity "y" through the C++ API.
std::unique_ptr<Session> IdentitySession() {
  tensorflow::GraphDef def;
  google::protobuf::TextFormat::ParseFromString(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", &def);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), def);
  if (!session.ok()) std::abort();
  return *std::move(session);
}

void BM_SessionRunIdentity(benchmark::State& state) {
  std::unique_ptr<Session> session = IdentitySession();
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x:0", Tensor::Vector<float>({1})}};
  std::vector<std::string> fetches = {"y:0"};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, fetches, {}, &out).ok()) state.SkipWithError("run failed");
  }
}
BENCHMARK(BM_SessionRunIdentity)->Unit(benchmark::kMicrosecond);

// The same step as a callable (Session::MakeCallable): what TF_SessionRun runs underneath.
void BM_SessionRunCallableIdentity(benchmark::State& state) {
  std::unique_ptr<Session> session = IdentitySession();
  absl::StatusOr<Session::CallableHandle> handle = session->MakeCallable({"x:0"}, {"y:0"}, {});
  if (!handle.ok()) std::abort();
  std::vector<Tensor> feeds = {Tensor::Vector<float>({1})};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->RunCallable(*handle, RunOptions(), feeds, &out, nullptr).ok()) {
      state.SkipWithError("run failed");
    }
  }
}
BENCHMARK(BM_SessionRunCallableIdentity)->Unit(benchmark::kMicrosecond);

constexpr int64_t kLargeFloats = int64_t{16} << 20;  // 64 MiB

void BM_TFSessionRunIdentity64MiB(benchmark::State& state) {
  CGraph g;
  const int64_t dims[1] = {kLargeFloats};
  TF_Tensor* value = TF_AllocateTensor(TF_FLOAT, dims, 1, kLargeFloats * sizeof(float));
  std::memset(TF_TensorData(value), 1, kLargeFloats * sizeof(float));
  const TF_Output input{g.x, 0};
  const TF_Output output{g.y, 0};
  bool shared = true;
  for (auto _ : state) {
    TF_Tensor* result = nullptr;
    TF_SessionRun(g.session, nullptr, &input, &value, 1, &output, &result, 1, nullptr, 0, nullptr,
                  g.status);
    if (TF_GetCode(g.status) != TF_OK) state.SkipWithError(TF_Message(g.status));
    shared = shared && TF_TensorData(result) == TF_TensorData(value);
    TF_DeleteTensor(result);
  }
  state.counters["zero_copy"] = shared ? 1 : 0;
  state.SetBytesProcessed(state.iterations() * kLargeFloats * sizeof(float));
  TF_DeleteTensor(value);
}
BENCHMARK(BM_TFSessionRunIdentity64MiB)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Memcpy64MiB(benchmark::State& state) {
  const size_t bytes = kLargeFloats * sizeof(float);
  std::vector<char> from(bytes, 1), to(bytes);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::DoNotOptimize(to.data());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_Memcpy64MiB)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
