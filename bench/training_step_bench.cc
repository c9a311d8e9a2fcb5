// One training step (forward, gradients, Adam update) of the digits MLP and CNN at batch 64, the
// models of examples/digits, through a local session. The peer measured in the same run is the
// forward pass alone (loss and accuracy) of the same model on the same batch, so the ratio
// step/forward shows what the backward pass and the update cost.
#include <benchmark/benchmark.h>

#include <numeric>

#include "examples/digits/digits_data.h"
#include "examples/digits/digits_models.h"
#include "host/session/session.h"

namespace tessera {
namespace {

struct Fixture {
  std::unique_ptr<Session> session;
  digits::Model model;
  Tensor pixels;
  Tensor labels;
};

std::unique_ptr<Fixture> MakeFixture(const std::string& name, benchmark::State& state) {
  auto f = std::make_unique<Fixture>();
  absl::StatusOr<digits::Examples> data = digits::LoadDigits(TESSERA_DIGITS_DATA);
  if (!data.ok()) {
    state.SkipWithError(std::string(data.status().message()).c_str());
    return nullptr;
  }
  std::vector<int64_t> order(64);
  std::iota(order.begin(), order.end(), 0);
  digits::Batch(*data, order, 0, 64, &f->pixels, &f->labels);
  Scope root = Scope::NewRootScope();
  absl::StatusOr<digits::Model> model = digits::BuildModel(root, name, 1, 0.001);
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  if (!model.ok() || !graph.ok()) {
    state.SkipWithError("cannot build the model");
    return nullptr;
  }
  f->model = *model;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), *graph);
  std::vector<Tensor> out;
  if (!session.ok() || !(*session)->Run({}, {}, f->model.initializers, &out).ok()) {
    state.SkipWithError("cannot create the session");
    return nullptr;
  }
  f->session = std::move(*session);
  return f;
}

void Step(benchmark::State& state, const std::string& name, bool train) {
  std::unique_ptr<Fixture> f = MakeFixture(name, state);
  if (f == nullptr) return;
  std::vector<std::pair<std::string, Tensor>> feeds = {{f->model.pixels.name(), f->pixels},
                                                        {f->model.labels.name(), f->labels}};
  std::vector<std::string> targets;
  if (train) targets.push_back(f->model.train.node_name());
  std::vector<Tensor> out;
  for (auto _ : state) {
    absl::Status status =
        f->session->Run(feeds, {f->model.loss.name(), f->model.accuracy.name()}, targets, &out);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      return;
    }
  }
  state.counters["examples_per_s"] =
      benchmark::Counter(64.0 * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_MlpTrainStep(benchmark::State& state) { Step(state, "mlp", true); }
void BM_MlpForward(benchmark::State& state) { Step(state, "mlp", false); }
void BM_CnnTrainStep(benchmark::State& state) { Step(state, "cnn", true); }
void BM_CnnForward(benchmark::State& state) { Step(state, "cnn", false); }
BENCHMARK(BM_MlpTrainStep)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_MlpForward)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_CnnTrainStep)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_CnnForward)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
