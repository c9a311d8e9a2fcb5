// The overhead of an empty distributed step: a client in this process, a cluster of two
// `tessera serve` worker processes on loopback, and a step whose only nodes are a NoOp on each
// worker. Beside it, in the same run: one call through the same transport (Worker/GetStatus, the
// unit a step is made of), one Worker/RunGraph of an empty piece (what a step over two workers
// adds to the client's call), an empty step on one task, and the same empty step in a local
// session. --transport=NAME picks the cluster's transport (default grpc; e.g. rdma).
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

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

// The transport of the cluster and of the peer calls: --transport=NAME (default grpc).
std::string g_transport = "grpc";

// The cluster lives as long as the process; started on first use.
integration::ProcessCluster& Cluster() {
  static integration::ProcessCluster* cluster = [] {
    integration::ProcessClusterOptions options;
    options.tasks_per_job = {{"worker", 2}};
    options.transport = g_transport;
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

// NoOp on worker 0 and worker 1: RunStep to the master (worker 0), which runs its own piece in
// process and sends RunGraph to worker 1: two transport calls, one after the other.
void BM_DistributedEmptyStepTwoWorkers(benchmark::State& state) {
  auto session = Connect(absl::StrCat(NoOp("a", "/job:worker/replica:0/task:0/device:CPU:0"),
                                      NoOp("b", "/job:worker/replica:0/task:1/device:CPU:0")),
                         Cluster().Target("worker", 0));
  RunEmptySteps(state, *session, {"a", "b"});
}
BENCHMARK(BM_DistributedEmptyStepTwoWorkers)->UseRealTime();

// NoOp on the master's own task only: RunStep, and the piece in process (one transport call).
void BM_DistributedEmptyStepOneWorker(benchmark::State& state) {
  auto session = Connect(NoOp("a", "/job:worker/replica:0/task:0/device:CPU:0"),
                         Cluster().Target("worker", 0));
  RunEmptySteps(state, *session, {"a"});
}
BENCHMARK(BM_DistributedEmptyStepOneWorker)->UseRealTime();

// A channel to worker 1 through the cluster's transport, as a master has; nullptr (the benchmark
// skipped with the reason) when there is none.
std::unique_ptr<TransportChannel> ConnectToWorker1(benchmark::State& state) {
  absl::StatusOr<std::shared_ptr<Environment>> env = Environment::Get(EnvironmentOptions());
  const TransportSpec* spec = env.ok() ? (*env)->plugins().FindTransport(g_transport) : nullptr;
  if (spec == nullptr) {
    state.SkipWithError(("no " + g_transport + " transport").c_str());
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      PluginTransport::Create(*spec, (*env)->plugins().host_api())
          ->Connect(Cluster().Address("worker", 1), {});
  if (!channel.ok()) {
    state.SkipWithError(channel.status().ToString().c_str());
    return nullptr;
  }
  return *std::move(channel);
}

// The peer unit: one control-plane round trip through the same transport plugin.
void BM_TransportRoundTrip(benchmark::State& state) {
  std::unique_ptr<TransportChannel> channel = ConnectToWorker1(state);
  if (channel == nullptr) return;
  Peer peer{"worker 1", channel.get()};
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

// One RunGraph of a registered NoOp piece on worker 1, sent from here as a master sends it: a
// transport call whose handler runs an executor on the worker's inter-op pool.
void BM_RunGraphCall(benchmark::State& state) {
  std::unique_ptr<TransportChannel> channel = ConnectToWorker1(state);
  if (channel == nullptr) return;
  Peer peer{"worker 1", channel.get()};
  distributed::CreateWorkerSessionRequest create;
  create.set_session_handle("distributed_step_bench");
  distributed::CreateWorkerSessionResponse created;
  distributed::RegisterGraphRequest piece;
  piece.set_session_handle(create.session_handle());
  *piece.mutable_graph_def() = Parse(NoOp("b", "/job:worker/replica:0/task:1/device:CPU:0"));
  distributed::RegisterGraphResponse registered;
  absl::Status status = Call(peer, kWorkerCreateWorkerSession, create, 5000, &created);
  if (status.ok()) status = Call(peer, kWorkerRegisterGraph, piece, 5000, &registered);
  if (!status.ok()) {
    state.SkipWithError(status.ToString().c_str());
    return;
  }
  distributed::RunGraphRequest run;
  run.set_session_handle(create.session_handle());
  run.set_graph_handle(registered.graph_handle());
  run.set_timeout_ms(5000);
  run.set_ends_step(true);  // the worker drops the step's state as the run ends
  // Step ids never repeat, also across repetitions: a worker refuses to run an ended step again.
  static uint64_t step_id = (uint64_t{1} << 56) | (std::random_device{}() & 0xffffffffu) << 16;
  distributed::RunGraphResponse response;
  for (auto _ : state) {
    run.set_step_id(++step_id);
    status = Call(peer, kWorkerRunGraph, run, 5000, &response);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
  }
}
BENCHMARK(BM_RunGraphCall)->UseRealTime();

// The same empty step in a local session (no transport at all).
void BM_LocalEmptyStep(benchmark::State& state) {
  auto session = Connect(absl::StrCat(NoOp("a", ""), NoOp("b", "")), "");
  RunEmptySteps(state, *session, {"a", "b"});
}
BENCHMARK(BM_LocalEmptyStep)->UseRealTime();

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  constexpr char kTransportFlag[] = "--transport=";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], kTransportFlag, sizeof(kTransportFlag) - 1) == 0) {
      tessera::g_transport = argv[i] + sizeof(kTransportFlag) - 1;
    } else {
      args.push_back(argv[i]);
    }
  }
  int args_count = static_cast<int>(args.size());
  benchmark::Initialize(&args_count, args.data());
  std::printf("transport: %s\n", tessera::g_transport.c_str());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
