// The loopback transport plugin beyond the conformance suite: its refusals (options, addresses,
// NULL arguments, tensors it cannot send), its port numbering, the threads its callbacks run on,
// and its workers stopping when the last server and channel go. Loads the real plugin.
#include <dirent.h>
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/abi_status.h"
#include "registry/plugin_registry.h"
#include "registry/transport_handle.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

const absl::Duration kHangGuard = absl::Seconds(60);

const PluginRegistry& Registry() {
  static const PluginRegistry* registry = [] {
    RegistryOptions options;
    options.plugin_paths = {TESSERA_LOOPBACK_PLUGIN_DIR};
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

// A one-shot event on std::mutex. Debian's Abseil is not built with ThreadSanitizer, so TSan
// cannot see the synchronization inside absl::Notification and would report what it hands over
// as races.
class Notification {
 public:
  void Notify() {
    std::lock_guard<std::mutex> lock(mutex_);
    notified_ = true;
    changed_.notify_all();
  }
  bool HasBeenNotified() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return notified_;
  }
  bool WaitForNotificationWithTimeout(absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, absl::ToChronoNanoseconds(timeout), [&] { return notified_; });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool notified_ = false;
};

// A copy of `status` that shares nothing with it. Debian's Abseil is not built with
// ThreadSanitizer, so TSan cannot see the reference counting of a status shared between the
// transport's thread and the test's, and would report its release as a race.
absl::Status Unshared(const absl::Status& status) {
  return status.ok() ? absl::OkStatus() : absl::Status(status.code(), status.message());
}

int PortOf(const std::string& address) {
  int port = 0;
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) return -1;
  return port;
}

int ThreadCount() {
  int count = 0;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(tasks)) count += entry->d_name[0] != '.';
    closedir(tasks);
  }
  return count;
}

// Answers calls with their request and pulls with the tensor it is given; records the threads.
class Handler : public TransportHandler {
 public:
  void HandleCall(absl::string_view, absl::string_view request, TransportReply reply) override {
    handler_thread = pthread_self();
    reply.Send(absl::OkStatus(), request);
  }
  void HandleRecvTensor(uint64_t, absl::string_view, TransportReply reply) override {
    reply.SendTensor(absl::OkStatus(), tensor, false, [this] { ++releases; });
  }

  pthread_t handler_thread{};
  TSR_TensorView tensor{};
  std::atomic<int> releases{0};
};

class LoopbackTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const TransportSpec* spec = Registry().FindTransport("loopback");
    ASSERT_NE(spec, nullptr);
    transport_ = PluginTransport::Create(*spec, Registry().host_api());
  }

  std::shared_ptr<PluginTransport> transport_;
};

TEST_F(LoopbackTransportTest, RegistersWithoutCapabilities) {
  EXPECT_EQ(transport_->name(), "loopback");
  EXPECT_EQ(transport_->capabilities(), 0u);
}

TEST_F(LoopbackTransportTest, TlsOptionsAreUnknownOptions) {
  Handler handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      transport_->Listen("127.0.0.1:0", {{"tls_cert_file", "server.pem"}}, &handler);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument) << server.status();
  EXPECT_THAT(server.status().message(), HasSubstr("unknown option 'tls_cert_file'"));
  EXPECT_THAT(server.status().message(), HasSubstr("it has no TLS"));
}

TEST_F(LoopbackTransportTest, ServerAcceptsTheChannelsDeadlineOption) {
  Handler handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      transport_->Listen("127.0.0.1:0", {{"default_deadline_ms", "100"}}, &handler);
  EXPECT_TRUE(server.ok()) << server.status();
}

TEST_F(LoopbackTransportTest, ChannelToPortZeroIsInvalidArgument) {
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport_->Connect("127.0.0.1:0", {});
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().code(), absl::StatusCode::kInvalidArgument) << channel.status();
  EXPECT_THAT(channel.status().message(), HasSubstr("'127.0.0.1:0' has port 0"));
}

TEST_F(LoopbackTransportTest, PortZeroNumbersFromFortyThousandWithoutReusingALivePort) {
  Handler handler;
  std::set<int> ports;
  std::vector<std::unique_ptr<TransportServer>> servers;
  for (const char* address : {"127.0.0.1:0", "localhost:0", "[::1]:0", "127.0.0.1:0"}) {
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        transport_->Listen(address, {}, &handler);
    ASSERT_TRUE(server.ok()) << server.status();
    const int port = PortOf((*server)->address());
    EXPECT_GE(port, 40000) << (*server)->address();
    EXPECT_TRUE(ports.insert(port).second) << (*server)->address();
    servers.push_back(std::move(*server));
  }
  EXPECT_THAT(servers[2]->address(), HasSubstr("[::1]:"));
}

TEST_F(LoopbackTransportTest, ChannelFindsAServerOnAnExplicitPortByNormalizedAddress) {
  Handler handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      transport_->Listen("127.0.0.1:04321", {}, &handler);
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ((*server)->address(), "127.0.0.1:4321");
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport_->Connect("127.0.0.1:4321", {});
  ASSERT_TRUE(channel.ok()) << channel.status();
  Notification done;
  absl::Status status;
  (*channel)->Call("M", "x", 0, [&](const absl::Status& s, absl::string_view) {
    status = Unshared(s);
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(kHangGuard));
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(LoopbackTransportTest, HandlersAndCompletionsRunOnThePluginsThreads) {
  Handler handler;
  auto server = transport_->Listen("127.0.0.1:0", {}, &handler);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = transport_->Connect((*server)->address(), {});
  ASSERT_TRUE(channel.ok()) << channel.status();
  Notification done;
  pthread_t completion_thread{};
  (*channel)->Call("M", "x", 0, [&](const absl::Status&, absl::string_view) {
    completion_thread = pthread_self();
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(kHangGuard));
  EXPECT_FALSE(pthread_equal(handler.handler_thread, pthread_self()));
  EXPECT_FALSE(pthread_equal(completion_thread, pthread_self()));
}

TEST_F(LoopbackTransportTest, WorkersStopWhenTheLastServerAndChannelGo) {
  const int before = ThreadCount();
  {
    Handler handler;
    auto server = transport_->Listen("127.0.0.1:0", {}, &handler);
    ASSERT_TRUE(server.ok()) << server.status();
    auto channel = transport_->Connect((*server)->address(), {});
    ASSERT_TRUE(channel.ok()) << channel.status();
    Notification done;
    (*channel)->Call("M", "x", 0, [&](const absl::Status&, absl::string_view) { done.Notify(); });
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(kHangGuard));
    EXPECT_GT(ThreadCount(), before);
  }
  // The workers are joined before the last Release returns, but a joined thread may still be
  // listed in /proc/self/task for a moment (the kernel wakes the joiner before it removes the
  // task): wait for the listing, bounded.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (ThreadCount() != before && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_EQ(ThreadCount(), before);
}

TEST_F(LoopbackTransportTest, TensorTheSenderCannotSendFailsThePullAndIsReleased) {
  Handler handler;
  const int64_t negative_dims[] = {-1, 3};
  const int64_t dims[] = {2};
  const struct {
    int32_t rank;
    const int64_t* dims;
    size_t byte_size;
    const char* expected;
  } cases[] = {
      {2, negative_dims, 0, "tensor dimension 0 is negative (-1)"},
      {1, dims, 8, "tensor of 8 bytes has no data"},
      {2, nullptr, 0, "tensor of rank 2 has no dims"},
      {TSR_MAX_RANK + 1, dims, 0, "is outside [0, "},
  };
  auto server = transport_->Listen("127.0.0.1:0", {}, &handler);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = transport_->Connect((*server)->address(), {});
  ASSERT_TRUE(channel.ok()) << channel.status();
  int expected_releases = 0;
  for (const auto& c : cases) {
    handler.tensor.struct_size = sizeof(handler.tensor);
    handler.tensor.dtype = TSR_DTYPE_FLOAT;
    handler.tensor.rank = c.rank;
    handler.tensor.dims = c.dims;
    handler.tensor.data = nullptr;
    handler.tensor.byte_size = c.byte_size;
    Notification done;
    absl::Status status;
    bool allocated = false;
    (*channel)->RecvTensor(
        1, "t", 0,
        [&](TSR_DataType, absl::Span<const int64_t>, size_t, TSR_TensorView*) {
          allocated = true;
          return absl::OkStatus();
        },
        [&](const absl::Status& s, bool) {
          status = Unshared(s);
          done.Notify();
        });
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(kHangGuard)) << c.expected;
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(status.message(), HasSubstr("the sender cannot send its tensor"));
    EXPECT_THAT(status.message(), HasSubstr(c.expected));
    EXPECT_FALSE(allocated);
    EXPECT_EQ(handler.releases.load(), ++expected_releases);
  }
}

TEST_F(LoopbackTransportTest, NullArgumentsAreInvalidArguments) {
  const TSR_TransportRegistration& table = transport_->table();
  absl::Status server_status =
      FromAbiStatus(table.Server_Start(table.user_data, nullptr, nullptr), "Server_Start");
  EXPECT_EQ(server_status.code(), absl::StatusCode::kInvalidArgument) << server_status;
  EXPECT_THAT(server_status.message(), HasSubstr("NULL arguments"));

  TSR_Transport_Listen_Args listen{};
  listen.struct_size = sizeof(listen);
  listen.address = "127.0.0.1:0";
  TSR_TransportServer* server = nullptr;
  absl::Status handlers_status =
      FromAbiStatus(table.Server_Start(table.user_data, &listen, &server), "Server_Start");
  EXPECT_EQ(handlers_status.code(), absl::StatusCode::kInvalidArgument) << handlers_status;
  EXPECT_THAT(handlers_status.message(), HasSubstr("handlers are NULL"));

  absl::Status channel_status =
      FromAbiStatus(table.Channel_Create(table.user_data, nullptr, nullptr), "Channel_Create");
  EXPECT_EQ(channel_status.code(), absl::StatusCode::kInvalidArgument) << channel_status;
  EXPECT_THAT(channel_status.message(), HasSubstr("NULL arguments"));

  const char* keys[] = {nullptr};
  const char* values[] = {"1"};
  TSR_Transport_Connect_Args connect{};
  connect.struct_size = sizeof(connect);
  connect.address = "127.0.0.1:1";
  connect.num_options = 1;
  connect.option_keys = keys;
  connect.option_values = values;
  TSR_TransportChannel* channel = nullptr;
  absl::Status option_status =
      FromAbiStatus(table.Channel_Create(table.user_data, &connect, &channel), "Channel_Create");
  EXPECT_EQ(option_status.code(), absl::StatusCode::kInvalidArgument) << option_status;
  EXPECT_THAT(option_status.message(), HasSubstr("option 0 has a NULL key or value"));

  absl::Status call_status;
  table.Channel_Call(
      nullptr, "M", nullptr, 0, 0,
      [](void* arg, TSR_Status* status, const void*, size_t) {
        *static_cast<absl::Status*>(arg) = FromAbiStatus(status, "Channel_Call");
      },
      &call_status);
  EXPECT_EQ(call_status.code(), absl::StatusCode::kInvalidArgument) << call_status;
  EXPECT_THAT(call_status.message(), HasSubstr("NULL channel"));

  absl::Status pull_status;
  TSR_Channel_RecvTensor_Args pull{};
  pull.struct_size = sizeof(pull);
  pull.done = [](void* arg, TSR_Status* status, bool) {
    *static_cast<absl::Status*>(arg) = FromAbiStatus(status, "Channel_RecvTensor");
  };
  pull.done_arg = &pull_status;
  table.Channel_RecvTensor(nullptr, &pull);
  EXPECT_EQ(pull_status.code(), absl::StatusCode::kInvalidArgument) << pull_status;
  EXPECT_THAT(pull_status.message(), HasSubstr("NULL channel or allocate"));
}

TEST_F(LoopbackTransportTest, RunsOutOfPortsWithResourceExhausted) {
  Handler handler;
  std::vector<std::unique_ptr<TransportServer>> servers;
  absl::Status status;
  while (status.ok() && servers.size() <= 65536) {
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        transport_->Listen("127.0.0.1:0", {}, &handler);
    if (server.ok()) {
      servers.push_back(std::move(*server));
    } else {
      status = server.status();
    }
  }
  EXPECT_EQ(servers.size(), 65536u - 40000u);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr("every loopback port from 40000 to 65535 is in use"));
}

}  // namespace
}  // namespace tessera
