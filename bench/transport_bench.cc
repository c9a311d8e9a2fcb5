// The transports between two processes on loopback, each figure beside its peer measured in the
// same run:
//  (a) throughput of pulling a 64 MiB float tensor through the grpc transport (PluginTransport
//      over the "grpc" plugin: zero-copy send, one copy into the destination) beside the same
//      64 MiB sent over a raw TCP socket (blocking send/recv loops into a preallocated buffer);
//  (b) round-trip latency of pulling a 4-byte tensor beside a bare gRPC unary call of 4 bytes
//      through gRPC's own generic stub and callback generic service, without Tessera;
//  (c) the same 64 MiB pull through the rdma transport (UCX) beside a memcpy of 64 MiB in this
//      process and beside the raw TCP socket;
//  (d) the 4-byte pull through the rdma transport beside the bare gRPC unary call;
//  (e) the physical limit of a one-copy transfer between two processes of one machine: the
//      kernel's cross-memory attach (process_vm_readv) of the peer's 64 MiB tensor buffer.
// UCX chooses its transports from the environment (both processes inherit it); with the peer error
// handling the plugin asks for, UCX 1.13 uses TCP between two processes of one machine whatever
// UCX_TLS allows (docs/transports.md), so the run with UCX_TLS=tcp measures the same path. The bench re-executes itself as the serving peer (`transport_bench
// --peer`), which reports its addresses and ports on stdout and exits when its stdin closes.
// Repetitions of the benchmarks are interleaved at random (so that a busy machine slows all of
// them alike); their medians are reported, then the ratios and their targets.
//
// --receiver_trim_threshold_mib=N sets glibc's M_TRIM_THRESHOLD in the receiving process (this
// one): with glibc's default (128 KiB) every free of gRPC's receive buffers hands their pages
// back to the kernel, and every pull faults them in again (see docs/transports.md).
#include <arpa/inet.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "benchmark/benchmark.h"
#include "registry/plugin_registry.h"
#include "registry/transport_handle.h"

namespace tessera {
namespace {

constexpr size_t kLargeBytes = size_t{64} << 20;
constexpr int64_t kLargeElements = kLargeBytes / sizeof(float);
constexpr char kBareMethod[] = "/bench.Echo/Echo";

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "transport_bench: %s\n", message.c_str());
  std::exit(1);
}

// The build's plugin folder, loaded once per process.
const PluginRegistry& Registry() {
  static const PluginRegistry* registry = [] {
    RegistryOptions options;
    options.plugin_paths = {TESSERA_PLUGIN_DIR};
    options.plugin_path_env = "";
    options.default_plugin_dir = "";
    absl::StatusOr<std::unique_ptr<PluginRegistry>> created = PluginRegistry::Create(options);
    if (!created.ok()) Die(created.status().ToString());
    return created->release();
  }();
  return *registry;
}

// The transport `name` from the build's plugin folder; nullptr when it was not built.
std::shared_ptr<PluginTransport> Transport(const std::string& name) {
  static std::map<std::string, std::shared_ptr<PluginTransport>>* transports =
      new std::map<std::string, std::shared_ptr<PluginTransport>>();
  auto found = transports->find(name);
  if (found != transports->end()) return found->second;
  const TransportSpec* spec = Registry().FindTransport(name);
  std::shared_ptr<PluginTransport> transport =
      spec == nullptr ? nullptr : PluginTransport::Create(*spec, Registry().host_api());
  transports->emplace(name, transport);
  return transport;
}

std::shared_ptr<PluginTransport> GrpcTransport() {
  std::shared_ptr<PluginTransport> transport = Transport("grpc");
  if (transport == nullptr) Die("no 'grpc' transport in " TESSERA_PLUGIN_DIR);
  return transport;
}

// ---- The peer (server side of all three) -----------------------------------------------------

class TensorServer : public TransportHandler {
 public:
  TensorServer() : large_(kLargeElements) {
    for (int64_t i = 0; i < kLargeElements; ++i) large_[i] = static_cast<float>(i & 0xffff);
  }
  void HandleCall(absl::string_view, absl::string_view request, TransportReply reply) override {
    reply.Send(absl::OkStatus(), request);
  }
  void HandleRecvTensor(uint64_t, absl::string_view key, TransportReply reply) override {
    const bool large = key == "large";
    TSR_TensorView view{};
    view.struct_size = sizeof(view);
    view.dtype = TSR_DTYPE_FLOAT;
    view.rank = 1;
    view.dims = large ? &large_dims_ : &small_dims_;
    view.data = large ? static_cast<void*>(large_.data()) : static_cast<void*>(&small_);
    view.byte_size = large ? kLargeBytes : sizeof(small_);
    reply.SendTensor(absl::OkStatus(), view, false, [] {});
  }

 private:
  std::vector<float> large_;
  const int64_t large_dims_ = kLargeElements;
  float small_ = 1.0f;
  const int64_t small_dims_ = 1;

 public:
  const void* large_data() const { return large_.data(); }
};

// Bare gRPC: echoes one message back.
class EchoService : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    class Reactor : public grpc::ServerGenericBidiReactor {
     public:
      Reactor() { StartRead(&message_); }
      void OnReadDone(bool ok) override {
        if (!ok) return Finish(grpc::Status::CANCELLED);
        StartWriteAndFinish(&message_, grpc::WriteOptions(), grpc::Status::OK);
      }
      void OnDone() override { delete this; }

     private:
      grpc::ByteBuffer message_;
    };
    return new Reactor;
  }
};

int ListenTcp() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(fd, 4) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    Die(absl::StrCat("raw TCP listen: ", std::strerror(errno)));
  }
  return fd;
}

int PortOfSocket(int fd) {
  sockaddr_in address{};
  socklen_t size = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  return ntohs(address.sin_port);
}

// Raw TCP: for every request byte, sends 64 MiB with a blocking send loop.
void ServeTcp(int listener) {
  std::vector<char> payload(kLargeBytes, 'x');
  while (true) {
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) return;
    char request;
    while (recv(fd, &request, 1, MSG_WAITALL) == 1) {
      size_t sent = 0;
      while (sent < payload.size()) {
        const ssize_t n = send(fd, payload.data() + sent, payload.size() - sent, 0);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
    }
    close(fd);
  }
}

int RunPeer() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the bench
  TensorServer handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> tessera =
      GrpcTransport()->Listen("127.0.0.1:0", {}, &handler);
  if (!tessera.ok()) Die(tessera.status().ToString());

  EchoService echo;
  grpc::ServerBuilder builder;
  int bare_port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &bare_port);
  builder.RegisterCallbackGenericService(&echo);
  std::unique_ptr<grpc::Server> bare = builder.BuildAndStart();
  if (bare == nullptr) Die("bare gRPC server did not start");

  const int listener = ListenTcp();
  std::thread(ServeTcp, listener).detach();

  std::unique_ptr<TransportServer> rdma;
  if (std::shared_ptr<PluginTransport> transport = Transport("rdma")) {
    absl::StatusOr<std::unique_ptr<TransportServer>> started =
        transport->Listen("127.0.0.1:0", {}, &handler);
    if (!started.ok()) Die(started.status().ToString());
    rdma = *std::move(started);
  }

  std::printf("%s %s %d %d %p\n", (*tessera)->address().c_str(),
              rdma == nullptr ? "-" : rdma->address().c_str(), bare_port, PortOfSocket(listener),
              handler.large_data());
  std::fflush(stdout);
  char byte;
  while (read(STDIN_FILENO, &byte, 1) > 0) {
  }
  std::fflush(stderr);
  _exit(0);  // no teardown: the parent is done with us
}

// ---- The bench (client side) -----------------------------------------------------------------

struct Peer {
  pid_t pid = -1;
  int stdin_fd = -1;
  std::string tessera_address;
  std::string rdma_address;  // "-" when the rdma transport was not built
  int bare_port = 0;
  int tcp_port = 0;
  void* large_data = nullptr;  // the peer's 64 MiB tensor, in the peer's address space
};

Peer StartPeer() {
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) Die("pipe failed");
  Peer peer;
  peer.pid = fork();
  if (peer.pid < 0) Die("fork failed");
  if (peer.pid == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    close(to_child[1]);
    close(from_child[0]);
    execl("/proc/self/exe", "transport_bench", "--peer", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  peer.stdin_fd = to_child[1];
  FILE* out = fdopen(from_child[0], "r");
  char address[256], rdma_address[256];
  if (std::fscanf(out, "%255s %255s %d %d %p", address, rdma_address, &peer.bare_port,
                  &peer.tcp_port, &peer.large_data) != 5) {
    Die("the peer did not report its ports");
  }
  std::fclose(out);
  peer.tessera_address = address;
  peer.rdma_address = rdma_address;
  return peer;
}

void StopPeer(Peer& peer) {
  close(peer.stdin_fd);
  int status = 0;
  waitpid(peer.pid, &status, 0);
}

Peer* g_peer = nullptr;

void BM_TensorPull(benchmark::State& state, const char* transport_name, const char* key,
                   size_t bytes) {
  const bool rdma = std::strcmp(transport_name, "rdma") == 0;
  std::shared_ptr<PluginTransport> transport = Transport(transport_name);
  if (transport == nullptr) return state.SkipWithError("the transport was not built");
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport->Connect(rdma ? g_peer->rdma_address : g_peer->tessera_address, {});
  if (!channel.ok()) return state.SkipWithError(channel.status().ToString().c_str());
  std::vector<char> destination(bytes);
  std::memset(destination.data(), 0, bytes);  // touch the pages before timing
  int64_t dims = static_cast<int64_t>(bytes / sizeof(float));
  const auto pull = [&]() {
    absl::Notification done;
    absl::Status result;
    (*channel)->RecvTensor(
        1, key, 0,
        [&](TSR_DataType dtype, absl::Span<const int64_t>, size_t, TSR_TensorView* view) {
          view->dtype = dtype;
          view->rank = 1;
          view->dims = &dims;
          view->data = destination.data();
          view->byte_size = bytes;
          return absl::OkStatus();
        },
        [&](const absl::Status& status, bool) {
          result = status;
          done.Notify();
        });
    done.WaitForNotification();
    return result;
  };
  if (absl::Status warm = pull(); !warm.ok()) return state.SkipWithError(warm.ToString().c_str());
  for (auto _ : state) {
    absl::Status status = pull();
    if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

// The physical limit of a copy on this machine: one memcpy of 64 MiB between touched buffers.
void BM_Memcpy64MiB(benchmark::State& state) {
  std::vector<char> source(kLargeBytes, 'x');
  std::vector<char> destination(kLargeBytes, 0);
  for (auto _ : state) {
    std::memcpy(destination.data(), source.data(), kLargeBytes);
    benchmark::DoNotOptimize(destination.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kLargeBytes));
}

// One copy between processes by the kernel (cross-memory attach), what UCX's shared-memory
// rendezvous would use: the physical limit of a one-copy pull on one machine.
void BM_CrossMemoryAttach64MiB(benchmark::State& state) {
  std::vector<char> destination(kLargeBytes, 0);
  const auto read_all = [&]() {
    iovec local{destination.data(), kLargeBytes};
    iovec remote{g_peer->large_data, kLargeBytes};
    return process_vm_readv(g_peer->pid, &local, 1, &remote, 1, 0) ==
           static_cast<ssize_t>(kLargeBytes);
  };
  if (!read_all()) return state.SkipWithError("process_vm_readv of the peer's tensor failed");
  for (auto _ : state) {
    if (!read_all()) return state.SkipWithError("process_vm_readv of the peer's tensor failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kLargeBytes));
}

void BM_RawTcp64MiB(benchmark::State& state) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(g_peer->tcp_port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    return state.SkipWithError("raw TCP connect failed");
  }
  std::vector<char> destination(kLargeBytes);
  std::memset(destination.data(), 0, kLargeBytes);
  const auto fetch = [&]() {
    const char request = 'r';
    if (send(fd, &request, 1, 0) != 1) return false;
    size_t received = 0;
    while (received < kLargeBytes) {
      const ssize_t n = recv(fd, destination.data() + received, kLargeBytes - received, 0);
      if (n <= 0) return false;
      received += static_cast<size_t>(n);
    }
    return true;
  };
  if (!fetch()) return state.SkipWithError("raw TCP transfer failed");
  for (auto _ : state) {
    if (!fetch()) return state.SkipWithError("raw TCP transfer failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kLargeBytes));
  close(fd);
}

void BM_BareGrpcUnary4B(benchmark::State& state) {
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", g_peer->bare_port),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  const float value = 1.0f;
  grpc::Slice slice(&value, sizeof(value));
  const grpc::ByteBuffer request(&slice, 1);
  const std::string method = kBareMethod;
  const auto call = [&]() {
    grpc::ClientContext context;
    grpc::ByteBuffer response;
    absl::Notification done;
    grpc::Status result;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status status) {
                     result = std::move(status);
                     done.Notify();
                   });
    done.WaitForNotification();
    return result.ok() && response.Length() == sizeof(value);
  };
  if (!call()) return state.SkipWithError("bare gRPC call failed");
  for (auto _ : state) {
    if (!call()) return state.SkipWithError("bare gRPC call failed");
  }
}

// Console output plus the medians, for the ratios printed at the end.
class MedianReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.aggregate_name == "median" && !run.error_occurred) {
        seconds_[run.run_name.function_name] =
            run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  // Median seconds per iteration; 0 when the benchmark did not run.
  double seconds(const std::string& name) const {
    auto found = seconds_.find(name);
    return found == seconds_.end() ? 0 : found->second;
  }

 private:
  std::map<std::string, double> seconds_;
};

void PrintSummary(const MedianReporter& reporter) {
  const double pull = reporter.seconds("BM_TensorPull64MiB");
  const double tcp = reporter.seconds("BM_RawTcp64MiB");
  const double pull_small = reporter.seconds("BM_TensorPull4B");
  const double bare = reporter.seconds("BM_BareGrpcUnary4B");
  const double rdma = reporter.seconds("BM_RdmaTensorPull64MiB");
  const double rdma_small = reporter.seconds("BM_RdmaTensorPull4B");
  const double copy = reporter.seconds("BM_Memcpy64MiB");
  const double attach = reporter.seconds("BM_CrossMemoryAttach64MiB");
  const char* ucx_tls = std::getenv("UCX_TLS");
  std::printf("\nmedians (UCX_TLS=%s):\n", ucx_tls == nullptr ? "(unset: UCX's choice)" : ucx_tls);
  const auto gbs = [](double seconds) { return kLargeBytes / seconds / 1e9; };
  if (pull > 0 && tcp > 0) {
    std::printf(
        "  (a) grpc 64 MiB tensor pull %.2f GB/s, raw TCP %.2f GB/s: ratio %.2f (target >= 0.90)\n",
        gbs(pull), gbs(tcp), tcp / pull);
  }
  if (pull_small > 0 && bare > 0) {
    std::printf(
        "  (b) grpc 4-byte tensor pull %.1f us, bare gRPC unary %.1f us: ratio %.2fx\n",
        pull_small * 1e6, bare * 1e6, pull_small / bare);
  }
  if (rdma > 0 && copy > 0 && tcp > 0) {
    std::printf(
        "  (c) rdma 64 MiB tensor pull %.2f GB/s, memcpy %.2f GB/s: ratio %.2f (target >= 0.50); "
        "raw TCP %.2f GB/s: ratio %.2f (target >= 0.90)\n",
        gbs(rdma), gbs(copy), copy / rdma, gbs(tcp), tcp / rdma);
  }
  if (rdma > 0 && attach > 0) {
    std::printf(
        "  (e) rdma 64 MiB tensor pull %.2f GB/s, cross-memory attach %.2f GB/s (%.2fx memcpy): "
        "ratio %.2f\n",
        gbs(rdma), gbs(attach), copy > 0 ? copy / attach : 0.0, attach / rdma);
  }
  if (rdma_small > 0 && bare > 0) {
    std::printf(
        "  (d) rdma 4-byte tensor pull %.1f us, bare gRPC unary %.1f us: ratio %.2fx (target <= "
        "0.20x)\n",
        rdma_small * 1e6, bare * 1e6, rdma_small / bare);
  }
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--peer") == 0) return tessera::RunPeer();
  // Interleaved repetitions by default; the command line may say otherwise (later flags win).
  std::vector<char*> args = {argv[0],
                             const_cast<char*>("--benchmark_enable_random_interleaving=true")};
  constexpr char kTrimFlag[] = "--receiver_trim_threshold_mib=";
  long trim_mib = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], kTrimFlag, sizeof(kTrimFlag) - 1) == 0) {
      trim_mib = std::strtol(argv[i] + sizeof(kTrimFlag) - 1, nullptr, 10);
    } else {
      args.push_back(argv[i]);
    }
  }
  if (trim_mib > 0) mallopt(M_TRIM_THRESHOLD, static_cast<int>(trim_mib << 20));
  int args_count = static_cast<int>(args.size());
  benchmark::Initialize(&args_count, args.data());
  tessera::Peer peer = tessera::StartPeer();
  tessera::g_peer = &peer;
  // Each figure is the median of 9 repetitions, every one at least 0.5 s of transfers.
  const auto configure = [](benchmark::internal::Benchmark* b, benchmark::TimeUnit unit) {
    b->Unit(unit)->UseRealTime()->Repetitions(9)->ReportAggregatesOnly(true);
  };
  configure(benchmark::RegisterBenchmark("BM_TensorPull64MiB", tessera::BM_TensorPull, "grpc",
                                         "large", tessera::kLargeBytes),
            benchmark::kMillisecond);
  configure(benchmark::RegisterBenchmark("BM_Memcpy64MiB", tessera::BM_Memcpy64MiB),
            benchmark::kMillisecond);
  configure(benchmark::RegisterBenchmark("BM_CrossMemoryAttach64MiB",
                                         tessera::BM_CrossMemoryAttach64MiB),
            benchmark::kMillisecond);
  configure(benchmark::RegisterBenchmark("BM_RawTcp64MiB", tessera::BM_RawTcp64MiB),
            benchmark::kMillisecond);
  configure(benchmark::RegisterBenchmark("BM_TensorPull4B", tessera::BM_TensorPull, "grpc",
                                         "small", sizeof(float)),
            benchmark::kMicrosecond);
  if (peer.rdma_address != "-") {
    configure(benchmark::RegisterBenchmark("BM_RdmaTensorPull64MiB", tessera::BM_TensorPull,
                                           "rdma", "large", tessera::kLargeBytes),
              benchmark::kMillisecond);
    configure(benchmark::RegisterBenchmark("BM_RdmaTensorPull4B", tessera::BM_TensorPull, "rdma",
                                           "small", sizeof(float)),
              benchmark::kMicrosecond);
  }
  configure(benchmark::RegisterBenchmark("BM_BareGrpcUnary4B", tessera::BM_BareGrpcUnary4B),
            benchmark::kMicrosecond);
  tessera::MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nreceiver's glibc trim threshold: %s\n",
              trim_mib > 0 ? (std::to_string(trim_mib) + " MiB").c_str() : "default (128 KiB)");
  tessera::PrintSummary(reporter);
  tessera::StopPeer(peer);
  benchmark::Shutdown();
  return 0;
}
