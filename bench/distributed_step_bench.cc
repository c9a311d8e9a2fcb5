// The overhead of an empty distributed step: a client in this process, a cluster of two
// `tessera serve` worker processes on loopback, and a step whose only nodes are a NoOp on each
// worker. Beside it, in the same run: one call through the same transport (Worker/GetStatus, the
// unit a step is made of), an empty step on one task, and the same empty step in a local session.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "host/distributed/proto/distributed.pb.h"
#include "host/distributed/rpc.h"
#include "host/session/environment.h"
#include "host/session/session.h"
#include "tests/integration/process_cluster.h"

namespace tessera {
namespace {

std::string NoOp(const std::string& name, const std::string& device) {
  return absl::StrCat("node { name: \"", name, "\" op: \"NoOp\" device: \"", device, "\" }\n");
}

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef graph;
  if (!google::protobuf::TextFormat::ParseFromString(text, &graph)) std::abort();
  return graph;
}

// The cluster lives as long as the process; started on first use.
integration::ProcessCluster& Cluster() {
  static integration::ProcessCluster* cluster = [] {
    integration::ProcessClusterOptions options;
    options.tasks_per_job = {{"worker", 2}};
    absl::StatusOr<std::unique_ptr<integration::ProcessCluster>> started =
        integration::ProcessCluster::Start(options);
    if (!started.ok()) {
      std::fprintf(stderr, "cannot start the cluster: %s\n", started.status().ToString().c_str());
      std::abort();
    }
    return started->release();
  }();
  return *cluster;
}

void RunEmptySteps(benchmark::State& state, Session& session,
                   const std::vector<std::string>& targets) {
  std::vector<Tensor> out;
  absl::Status status = session.Run({}, {}, targets, &out);  // registers the pieces
  if (!status.ok()) {
    state.SkipWithError(status.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    status = session.Run({}, {}, targets, &out);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
  }
}

std::unique_ptr<Session> Connect(const std::string& graph, const std::string& target) {
  SessionOptions options;
  options.target = target;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, Parse(graph));
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    std::abort();
  }
  return *std::move(session);
}

// NoOp on worker 0 and worker 1: RunStep to the master, RunGraph to both workers in parallel.
void BM_DistributedEmptyStepTwoWorkers(benchmark::State& state) {
  auto session = Connect(absl::StrCat(NoOp("a", "/job:worker/replica:0/task:0/device:CPU:0"),
                                      NoOp("b", "/job:worker/replica:0/task:1/device:CPU:0")),
                         Cluster().Target("worker", 0));
  RunEmptySteps(state, *session, {"a", "b"});
}
BENCHMARK(BM_DistributedEmptyStepTwoWorkers)->UseRealTime();

// NoOp on the master's own task only.
void BM_DistributedEmptyStepOneWorker(benchmark::State& state) {
  auto session = Connect(NoOp("a", "/job:worker/replica:0/task:0/device:CPU:0"),
                         Cluster().Target("worker", 0));
  RunEmptySteps(state, *session, {"a"});
}
BENCHMARK(BM_DistributedEmptyStepOneWorker)->UseRealTime();

// The peer unit: one control-plane round trip through the same transport plugin.
void BM_TransportRoundTrip(benchmark::State& state) {
  absl::StatusOr<std::shared_ptr<Environment>> env = Environment::Get(EnvironmentOptions());
  const TransportSpec* spec = env.ok() ? (*env)->plugins().FindTransport("grpc") : nullptr;
  if (spec == nullptr) {
    state.SkipWithError("no grpc transport");
    return;
  }
  std::shared_ptr<PluginTransport> transport =
      PluginTransport::Create(*spec, (*env)->plugins().host_api());
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport->Connect(Cluster().Address("worker", 1), {});
  if (!channel.ok()) {
    state.SkipWithError(channel.status().ToString().c_str());
    return;
  }
  Peer peer{"worker 1", channel->get()};
  distributed::GetStatusRequest request;
  distributed::GetStatusResponse response;
  for (auto _ : state) {
    absl::Status status = Call(peer, kWorkerGetStatus, request, 5000, &response);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
  }
}
BENCHMARK(BM_TransportRoundTrip)->UseRealTime();

// The same empty step in a local session (no transport at all).
void BM_LocalEmptyStep(benchmark::State& state) {
  auto session = Connect(absl::StrCat(NoOp("a", ""), NoOp("b", "")), "");
  RunEmptySteps(state, *session, {"a", "b"});
}
BENCHMARK(BM_LocalEmptyStep)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
