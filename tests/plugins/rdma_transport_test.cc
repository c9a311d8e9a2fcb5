// The rdma transport plugin beyond the conformance suite: its own errors, each with its code and
// message (options, addresses, deadlines, destroyed channels, stopped servers, unreachable and
// unresolvable peers, memory registration), and its registration. Loads the real plugin.
#include <dlfcn.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/plugin_registry.h"
#include "registry/transport_handle.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

const PluginRegistry& Registry() {
  static const PluginRegistry* registry = [] {
    RegistryOptions options;
    options.plugin_paths = {TESSERA_PLUGIN_DIR};
    options.plugin_path_env = "";
    options.default_plugin_dir = "";
    absl::StatusOr<std::unique_ptr<PluginRegistry>> created = PluginRegistry::Create(options);
    if (!created.ok()) {
      std::fprintf(stderr, "cannot create the plugin registry: %s\n",
                   created.status().ToString().c_str());
      std::abort();
    }
    return created->release();
  }();
  return *registry;
}

bool UcxIsLoaded() {
  void* ucp = dlopen("libucp.so.0", RTLD_NOW | RTLD_NOLOAD);
  if (ucp != nullptr) dlclose(ucp);
  return ucp != nullptr;
}

// Defined first, so that it runs first in this binary: nothing before it used the transport.
TEST(RdmaPluginLoadTest, LoadsUcxOnlyWhenTheTransportIsFirstUsed) {
  const TransportSpec* spec = Registry().FindTransport("rdma");
  if (spec == nullptr) GTEST_SKIP() << "skipped: the rdma transport was not built";
  ASSERT_FALSE(UcxIsLoaded()) << "UCX was loaded before this test: run it alone";
  std::shared_ptr<PluginTransport> transport = PluginTransport::Create(*spec, Registry().host_api());
  // A process that loads every plugin (a local session, `tessera plugins`) gets no UCX.
  EXPECT_FALSE(UcxIsLoaded());
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport->Connect("127.0.0.1:1", {});
  ASSERT_TRUE(channel.ok()) << channel.status();
  EXPECT_TRUE(UcxIsLoaded());
}

// A copy of the rdma plugin alone in a folder, with `implementation` (when not empty) copied beside
// it as its implementation library; Connect through it gives the plugin's loading error.
absl::Status ConnectThroughACopy(const std::string& implementation) {
  std::string dir =
      (std::filesystem::temp_directory_path() / "tessera-rdma-copy-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return absl::InternalError("mkdtemp failed");
  const std::filesystem::path plugins = TESSERA_PLUGIN_DIR;
  std::filesystem::copy_file(plugins / "libtessera_rdma.so", dir + "/libtessera_rdma.so");
  std::filesystem::copy_file(plugins / "rdma.tessera-plugin.json",
                             dir + "/rdma.tessera-plugin.json");
  if (!implementation.empty()) {
    std::filesystem::copy_file(implementation, dir + "/libtessera_rdma_ucx.so");
  }
  absl::Status result;
  {
    RegistryOptions options;
    options.plugin_paths = {dir};
    options.plugin_path_env = "";
    options.default_plugin_dir = "";
    absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
    if (!registry.ok()) {
      result = registry.status();
    } else if (const TransportSpec* spec = (*registry)->FindTransport("rdma")) {
      result = PluginTransport::Create(*spec, (*registry)->host_api())
                   ->Connect("127.0.0.1:1", {})
                   .status();
    } else {
      result = absl::NotFoundError("the copy registered no rdma transport");
    }
  }
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  return absl::Status(result.code(), result.message());
}

// The outcome of one call, waited for with std::mutex (Debian's Abseil is not built with TSan).
struct CallResult {
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  absl::Status status;
  std::string response;

  bool Wait(absl::Duration bound = absl::Seconds(30)) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, absl::ToChronoNanoseconds(bound), [&] { return done; });
  }
};

std::shared_ptr<CallResult> StartCall(TransportChannel& channel, const std::string& method,
                                      int64_t deadline_ms = 0) {
  auto result = std::make_shared<CallResult>();
  channel.Call(method, "request", deadline_ms,
               [result](const absl::Status& status, absl::string_view response) {
                 std::lock_guard<std::mutex> lock(result->mutex);
                 result->status = absl::Status(status.code(), status.message());
                 result->response = std::string(response);
                 result->done = true;
                 result->changed.notify_all();
               });
  return result;
}

// Echoes calls, or holds their replies when `hold` is set.
class Handler : public TransportHandler {
 public:
  void HandleCall(absl::string_view, absl::string_view request, TransportReply reply) override {
    if (hold) {
      std::lock_guard<std::mutex> lock(mutex);
      held.push_back(std::move(reply));
      return;
    }
    reply.Send(absl::OkStatus(), request);
  }
  void HandleRecvTensor(uint64_t, absl::string_view, TransportReply reply) override {
    reply.Send(absl::NotFoundError("no tensors here"), "");
  }

  std::atomic<bool> hold{false};
  std::mutex mutex;
  std::vector<TransportReply> held;
};

class RdmaTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const TransportSpec* spec = Registry().FindTransport("rdma");
    if (spec == nullptr) GTEST_SKIP() << "skipped: the rdma transport was not built";
    transport_ = PluginTransport::Create(*spec, Registry().host_api());
  }

  std::unique_ptr<TransportServer> Listen(Handler* handler) {
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        transport_->Listen("127.0.0.1:0", {}, handler);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }
  std::unique_ptr<TransportChannel> Connect(const std::string& address,
                                            const TransportOptions& options = {}) {
    absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
        transport_->Connect(address, options);
    EXPECT_TRUE(channel.ok()) << channel.status();
    return channel.ok() ? *std::move(channel) : nullptr;
  }

  std::shared_ptr<PluginTransport> transport_;
};

// Each copy is a library of its own (another path), with its own implementation to load.
TEST_F(RdmaTransportTest, AMissingImplementationIsUnavailableNamingIt) {
  absl::Status status = ConnectThroughACopy("");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("rdma transport: cannot load '"));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("/libtessera_rdma_ucx.so': "));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("(the transport's implementation, which needs UCX: libucx0)"));
}

TEST_F(RdmaTransportTest, AnImplementationOfAnotherVersionIsRefused) {
  absl::Status status = ConnectThroughACopy(TESSERA_FAKE_RDMA_UCX);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("/libtessera_rdma_ucx.so' is not this plugin's implementation (no "
                        "tessera_rdma_ucx_table of version 1); reinstall the plugin"));
}

TEST_F(RdmaTransportTest, RegistersWithRmaAndWithoutTls) {
  EXPECT_EQ(transport_->name(), "rdma");
  EXPECT_EQ(transport_->capabilities(), static_cast<uint32_t>(TSR_TRANSPORT_CAPABILITY_RMA));
  EXPECT_NE(transport_->rma().Memory_Register, nullptr);
  EXPECT_NE(transport_->rma().Memory_Deregister, nullptr);
}

TEST_F(RdmaTransportTest, RefusesTlsAndUnknownOptionsNamingThem) {
  Handler handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> tls =
      transport_->Listen("127.0.0.1:0", {{"tls_cert_file", "server.pem"}}, &handler);
  ASSERT_FALSE(tls.ok());
  EXPECT_EQ(tls.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(tls.status().message(),
              HasSubstr("option 'tls_cert_file': the rdma transport has no TLS (use the grpc "
                        "transport, or a network that is itself trusted)"));
  absl::StatusOr<std::unique_ptr<TransportChannel>> unknown =
      transport_->Connect("127.0.0.1:1", {{"compression", "gzip"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(),
              HasSubstr("unknown option 'compression' (the rdma transport accepts "
                        "default_deadline_ms)"));
  absl::StatusOr<std::unique_ptr<TransportChannel>> deadline =
      transport_->Connect("127.0.0.1:1", {{"default_deadline_ms", "soon"}});
  ASSERT_FALSE(deadline.ok());
  EXPECT_EQ(deadline.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(deadline.status().message(),
              HasSubstr("option 'default_deadline_ms': 'soon' is not a positive number of "
                        "milliseconds"));
}

TEST_F(RdmaTransportTest, RefusesMalformedAddresses) {
  Handler handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      transport_->Listen("127.0.0.1", {}, &handler);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(server.status().message(),
              HasSubstr("address '127.0.0.1' has no port (expected host:port, or [ipv6]:port)"));
  absl::StatusOr<std::unique_ptr<TransportServer>> v6 = transport_->Listen("[::1]:0", {}, &handler);
  ASSERT_FALSE(v6.ok());
  EXPECT_EQ(v6.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(v6.status().message(),
              HasSubstr("address '[::1]:0' is IPv6, which the rdma transport does not take (UCX "
                        "1.13's TCP connection manager mishandles IPv6 peers); give an IPv4 "
                        "address or a name"));
  absl::StatusOr<std::unique_ptr<TransportChannel>> v6_channel =
      transport_->Connect("[::1]:2222", {});
  ASSERT_FALSE(v6_channel.ok());
  EXPECT_EQ(v6_channel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(v6_channel.status().message(), HasSubstr("address '[::1]:2222' is IPv6"));
  absl::StatusOr<std::unique_ptr<TransportServer>> unresolvable =
      transport_->Listen("no-such-host.invalid:0", {}, &handler);
  ASSERT_FALSE(unresolvable.ok());
  EXPECT_EQ(unresolvable.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unresolvable.status().message(),
              HasSubstr("address 'no-such-host.invalid:0' does not resolve"));
}

TEST_F(RdmaTransportTest, APortInUseIsAlreadyExistsNamingThePort) {
  Handler handler;
  std::unique_ptr<TransportServer> first = Listen(&handler);
  ASSERT_NE(first, nullptr);
  const std::string port = first->address().substr(first->address().rfind(':') + 1);
  absl::StatusOr<std::unique_ptr<TransportServer>> second =
      transport_->Listen(first->address(), {}, &handler);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(second.status().message(),
              HasSubstr(absl::StrCat("cannot listen on '", first->address(), "': port ", port,
                                     " is in use")));
}

TEST_F(RdmaTransportTest, AnUnresolvableHostFailsItsCallsAsUnavailable) {
  std::unique_ptr<TransportChannel> channel = Connect("no-such-host.invalid:2222");
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/GetStatus");
  ASSERT_TRUE(call->Wait());
  EXPECT_EQ(call->status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(call->status.message(),
              HasSubstr("address 'no-such-host.invalid:2222' does not resolve"));
}

TEST_F(RdmaTransportTest, APeerNotListeningFailsCallsAsUnavailableNamingIt) {
  Handler handler;
  std::string address;
  {
    std::unique_ptr<TransportServer> server = Listen(&handler);
    ASSERT_NE(server, nullptr);
    address = server->address();
  }
  std::unique_ptr<TransportChannel> channel = Connect(address);
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/GetStatus");
  ASSERT_TRUE(call->Wait());
  EXPECT_EQ(call->status.code(), absl::StatusCode::kUnavailable) << call->status;
  EXPECT_THAT(std::string(call->status.message()),
              HasSubstr(absl::StrCat("rdma transport: call 'Worker/GetStatus' to '", address,
                                     "' failed: the connection to '", address, "' broke")));
}

TEST_F(RdmaTransportTest, DeadlinesDestroyedChannelsAndStoppedServersNameTheCall) {
  Handler handler;
  handler.hold = true;
  std::unique_ptr<TransportServer> server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  const std::string address = server->address();

  std::unique_ptr<TransportChannel> channel = Connect(address, {{"default_deadline_ms", "200"}});
  ASSERT_NE(channel, nullptr);
  auto late = StartCall(*channel, "Worker/RunGraph");
  ASSERT_TRUE(late->Wait());
  EXPECT_EQ(late->status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(late->status.message(),
              HasSubstr(absl::StrCat("rdma transport: call 'Worker/RunGraph' to '", address,
                                     "' passed its deadline of 200 ms")));

  std::unique_ptr<TransportChannel> other = Connect(address);
  ASSERT_NE(other, nullptr);
  auto cancelled = StartCall(*other, "Worker/RunGraph");
  auto stopped = StartCall(*channel, "Worker/Stopped", /*deadline_ms=*/60000);
  const absl::Time start = absl::Now();
  while (absl::Now() - start < absl::Seconds(30)) {
    {
      std::lock_guard<std::mutex> lock(handler.mutex);
      if (handler.held.size() == 3) break;
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  other.reset();
  ASSERT_TRUE(cancelled->Wait(absl::ZeroDuration()));
  EXPECT_EQ(cancelled->status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(cancelled->status.message(),
              HasSubstr(absl::StrCat("rdma transport: call 'Worker/RunGraph' to '", address,
                                     "' was cancelled: its channel was destroyed")));

  server.reset();
  ASSERT_TRUE(stopped->Wait());
  EXPECT_EQ(stopped->status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(stopped->status.message(),
              HasSubstr(absl::StrCat("the server at '", address, "' stopped")));
  std::lock_guard<std::mutex> lock(handler.mutex);
  handler.held.clear();
}

TEST_F(RdmaTransportTest, MemoryRegistrationRefusesNullBuffersAndUnknownKinds) {
  absl::StatusOr<MemoryRegistration> null_buffer =
      transport_->RegisterMemory(nullptr, 64, TSR_MEMORY_KIND_HOST_PINNED);
  ASSERT_FALSE(null_buffer.ok());
  EXPECT_EQ(null_buffer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(null_buffer.status().message(),
              HasSubstr("Memory_Register: NULL region, or a NULL pointer with 64 bytes"));
  std::vector<char> buffer(4096);
  absl::StatusOr<MemoryRegistration> unknown = transport_->RegisterMemory(buffer.data(), 4096, 7);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("Memory_Register: unknown memory kind 7"));
  // The same range twice is one region (the registration cache).
  absl::StatusOr<MemoryRegistration> first =
      transport_->RegisterMemory(buffer.data(), 4096, TSR_MEMORY_KIND_HOST_PINNED);
  absl::StatusOr<MemoryRegistration> second =
      transport_->RegisterMemory(buffer.data(), 4096, TSR_MEMORY_KIND_HOST_PINNED);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->region(), second->region());
}

TEST_F(RdmaTransportTest, TransportsWithoutRmaRefuseRegistration) {
  const TransportSpec* grpc = Registry().FindTransport("grpc");
  if (grpc == nullptr) GTEST_SKIP() << "skipped: the grpc transport was not built";
  std::shared_ptr<PluginTransport> transport = PluginTransport::Create(*grpc, Registry().host_api());
  char byte = 0;
  absl::StatusOr<MemoryRegistration> refused =
      transport->RegisterMemory(&byte, 1, TSR_MEMORY_KIND_HOST_PINNED);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("Memory_Register (1 bytes): the transport has no RMA capability"));
}

}  // namespace
}  // namespace tessera
