// The transport conformance suite: every transport the registry loads from the build's plugin
// folder and the test-only loopback transport passes the same cases (calls, tensor pulls,
// failures, lifetimes, options and TLS), through the host's own wrapper
// (registry/transport_handle.h).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/plugin_registry.h"
#include "registry/transport_handle.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Bounds every wait so that a broken transport fails the test instead of hanging it.
const absl::Duration kHangGuard = absl::Seconds(60);

std::string TestdataPath(const char* name) {
  return absl::StrCat(TESSERA_CONFORMANCE_TESTDATA_DIR, "/", name);
}

const PluginRegistry& Registry() {
  static const PluginRegistry* registry = [] {
    RegistryOptions options;
    // The build's plugin folder (grpc) and the test-only loopback transport.
    options.plugin_paths = {TESSERA_PLUGIN_DIR, TESSERA_LOOPBACK_PLUGIN_DIR};
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

// Every transport the registry has; one empty name (a skipped instance) when there is none.
std::vector<std::string> TransportNames() {
  std::vector<std::string> names;
  for (const TransportSpec& spec : Registry().transports()) names.push_back(spec.name);
  if (names.empty()) names.push_back("");
  return names;
}

// A port nothing listens on (bound, then closed).
int UnusedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    std::abort();
  }
  close(fd);
  return ntohs(address.sin_port);
}

int PortOf(const std::string& address) {
  int port = 0;
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) return -1;
  return port;
}

size_t DtypeSize(TSR_DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_FLOAT:
    case TSR_DTYPE_INT32:
      return 4;
    case TSR_DTYPE_DOUBLE:
    case TSR_DTYPE_INT64:
      return 8;
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_BOOL:
      return 1;
    default:
      return 0;
  }
}

// ---- Waiting for completions ---------------------------------------------------------------

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

// Completions may outlive a failed test's stack frame, so their results live on the heap.
struct CallResult {
  Notification done;
  std::atomic<int> completions{0};
  absl::Status status;
  std::string response;
};

std::shared_ptr<CallResult> StartCall(TransportChannel& channel, absl::string_view method,
                                      absl::string_view request, int64_t deadline_ms = 0) {
  auto result = std::make_shared<CallResult>();
  channel.Call(method, request, deadline_ms,
               [result](const absl::Status& status, absl::string_view response) {
                 result->status = Unshared(status);
                 result->response = std::string(response);
                 if (result->completions.fetch_add(1) == 0) result->done.Notify();
               });
  return result;
}

struct PullResult {
  Notification done;
  std::atomic<int> completions{0};
  absl::Status status;
  bool is_dead = false;
  bool allocated = false;
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  std::vector<int64_t> dims;
  std::vector<char> bytes;
  size_t sent_byte_size = 0;  // what the transport told allocate
};

struct PullOptions {
  int64_t deadline_ms = 0;
  absl::Status allocate_error;  // returned by allocate when not OK
  bool wrong_size = false;      // allocate a destination one byte short
};

std::shared_ptr<PullResult> StartPull(TransportChannel& channel, uint64_t step_id,
                                      absl::string_view key, PullOptions options = {}) {
  auto result = std::make_shared<PullResult>();
  channel.RecvTensor(
      step_id, key, options.deadline_ms,
      [result, options](TSR_DataType dtype, absl::Span<const int64_t> dims, size_t byte_size,
                        TSR_TensorView* destination) -> absl::Status {
        result->sent_byte_size = byte_size;
        result->allocated = true;
        result->dtype = dtype;
        result->dims.assign(dims.begin(), dims.end());
        if (!options.allocate_error.ok()) return options.allocate_error;
        size_t elements = 1;
        for (int64_t dim : dims) elements *= static_cast<size_t>(dim);
        size_t size = elements * DtypeSize(dtype);
        if (options.wrong_size && size > 0) --size;
        result->bytes.resize(size);
        destination->dtype = dtype;
        destination->rank = static_cast<int32_t>(dims.size());
        destination->dims = result->dims.data();
        destination->data = size == 0 ? nullptr : result->bytes.data();
        destination->byte_size = size;
        return absl::OkStatus();
      },
      [result](const absl::Status& status, bool is_dead) {
        result->status = Unshared(status);
        result->is_dead = is_dead;
        if (result->completions.fetch_add(1) == 0) result->done.Notify();
      });
  return result;
}

PullOptions WithDeadline(int64_t deadline_ms) {
  PullOptions options;
  options.deadline_ms = deadline_ms;
  return options;
}

PullOptions WithAllocateError(absl::Status error) {
  PullOptions options;
  options.allocate_error = std::move(error);
  return options;
}

PullOptions WithWrongSize() {
  PullOptions options;
  options.wrong_size = true;
  return options;
}

template <typename Result>
bool Wait(const std::shared_ptr<Result>& result) {
  return result->done.WaitForNotificationWithTimeout(kHangGuard);
}

// ---- The server side -------------------------------------------------------------------------

// A tensor the test handler serves, and the count of its releases.
struct ServedTensor {
  absl::Status status;
  TSR_DataType dtype = TSR_DTYPE_FLOAT;
  std::vector<int64_t> dims;
  std::vector<char> bytes;
  bool is_dead = false;
  std::shared_ptr<std::atomic<int>> releases = std::make_shared<std::atomic<int>>(0);
};

ServedTensor FloatTensor(std::vector<int64_t> dims, const std::vector<float>& values) {
  ServedTensor tensor;
  tensor.dims = std::move(dims);
  tensor.bytes.resize(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
  return tensor;
}

// Serves calls (echo "method|request" by default) and tensors by key, or holds the replies for
// the test to answer later.
class TestHandler : public TransportHandler {
 public:
  void HandleCall(absl::string_view method, absl::string_view request,
                  TransportReply reply) override {
    if (on_call) return on_call(method, request, std::move(reply));
    if (hold) return Hold(std::move(reply));
    reply.Send(absl::OkStatus(), absl::StrCat(method, "|", request));
  }

  void HandleRecvTensor(uint64_t step_id, absl::string_view key, TransportReply reply) override {
    if (hold) return Hold(std::move(reply));
    const std::string name = absl::StrCat(step_id, "/", key);
    auto found = tensors.find(name);
    if (found == tensors.end()) {
      TSR_TensorView empty{};
      empty.struct_size = sizeof(empty);
      return reply.SendTensor(absl::NotFoundError(absl::StrCat("no tensor '", name, "'")), empty,
                              false, nullptr);
    }
    Serve(found->second, std::move(reply));
  }

  // Answers `reply` with `tensor` from its own buffer.
  static void Serve(ServedTensor& tensor, TransportReply reply) {
    TSR_TensorView view{};
    view.struct_size = sizeof(view);
    view.dtype = tensor.dtype;
    view.rank = static_cast<int32_t>(tensor.dims.size());
    view.dims = tensor.dims.data();
    view.data = tensor.bytes.empty() ? nullptr : tensor.bytes.data();
    view.byte_size = tensor.bytes.size();
    std::shared_ptr<std::atomic<int>> releases = tensor.releases;
    reply.SendTensor(tensor.status, view, tensor.is_dead, [releases] { ++*releases; });
  }

  void Hold(TransportReply reply) {
    std::lock_guard<std::mutex> lock(mutex_);
    held_.push_back(std::move(reply));
    held_changed_.notify_all();
  }
  // Waits until `count` replies are held.
  bool WaitForHeld(size_t count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return held_changed_.wait_for(lock, std::chrono::seconds(60),
                                  [&] { return held_.size() >= count; });
  }
  std::vector<TransportReply> TakeHeld() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<TransportReply> taken;
    for (TransportReply& reply : held_) taken.push_back(std::move(reply));
    held_.clear();
    return taken;
  }

  // Set before the server starts (`hold` may change later).
  std::atomic<bool> hold{false};
  std::function<void(absl::string_view, absl::string_view, TransportReply)> on_call;
  std::map<std::string, ServedTensor> tensors;  // "step/key"

 private:
  std::mutex mutex_;
  std::condition_variable held_changed_;
  std::vector<TransportReply> held_;
};

bool WaitForCount(const std::atomic<int>& count, int expected) {
  const absl::Time give_up = absl::Now() + kHangGuard;
  while (count.load() < expected && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  return count.load() >= expected;
}

// ---- The fixture -----------------------------------------------------------------------------

class TransportConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << "skipped: no transport plugin built";
    const TransportSpec* spec = Registry().FindTransport(GetParam());
    ASSERT_NE(spec, nullptr);
    transport_ = PluginTransport::Create(*spec, Registry().host_api());
  }

  bool has_tls() const { return (transport_->capabilities() & TSR_TRANSPORT_CAPABILITY_TLS) != 0; }

  std::unique_ptr<TransportServer> Listen(TransportHandler* handler,
                                          const TransportOptions& options = {}) {
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        transport_->Listen("127.0.0.1:0", options, handler);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? std::move(*server) : nullptr;
  }

  std::unique_ptr<TransportChannel> Connect(const std::string& address,
                                            const TransportOptions& options = {}) {
    absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
        transport_->Connect(address, options);
    EXPECT_TRUE(channel.ok()) << channel.status();
    return channel.ok() ? std::move(*channel) : nullptr;
  }

  static TransportOptions ServerTls(bool require_client_certificate) {
    TransportOptions options = {{"tls_cert_file", TestdataPath("server.pem")},
                                {"tls_key_file", TestdataPath("server.key")}};
    if (require_client_certificate) options["tls_ca_file"] = TestdataPath("ca.pem");
    return options;
  }

  static TransportOptions ClientTls(const char* ca, const char* cert, const char* key) {
    TransportOptions options;
    if (ca != nullptr) options["tls_ca_file"] = TestdataPath(ca);
    if (cert != nullptr) options["tls_cert_file"] = TestdataPath(cert);
    if (key != nullptr) options["tls_key_file"] = TestdataPath(key);
    return options;
  }

  std::shared_ptr<PluginTransport> transport_;
};

#define SKIP_WITHOUT_TLS()                                                             \
  if (!has_tls()) {                                                                    \
    GTEST_SKIP() << "skipped: transport '" << GetParam() << "' has no TLS capability"; \
  }

// ---- Calls -----------------------------------------------------------------------------------

TEST_P(TransportConformanceTest, CallRoundTripsEmptySmallAndLargePayloads) {
  TestHandler handler;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);

  auto empty = StartCall(*channel, "", "");
  ASSERT_TRUE(Wait(empty));
  ASSERT_TRUE(empty->status.ok()) << empty->status;
  EXPECT_EQ(empty->response, "|");

  auto small = StartCall(*channel, "Worker/RunGraph", "hello");
  ASSERT_TRUE(Wait(small));
  ASSERT_TRUE(small->status.ok()) << small->status;
  EXPECT_EQ(small->response, "Worker/RunGraph|hello");

  std::string large(64 << 20, '\0');
  for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>((i * 131) >> 7);
  auto big = StartCall(*channel, "Worker/Big", large);
  ASSERT_TRUE(Wait(big));
  ASSERT_TRUE(big->status.ok()) << big->status;
  ASSERT_EQ(big->response.size(), large.size() + 11);
  EXPECT_TRUE(big->response == absl::StrCat("Worker/Big|", large));
  EXPECT_EQ(big->completions.load(), 1);
}

TEST_P(TransportConformanceTest, HandlerErrorArrivesWithItsCodeAndWholeMessage) {
  TestHandler handler;
  std::string long_message = "precondition failed: ";
  while (long_message.size() < 10 * 1024) absl::StrAppend(&long_message, long_message.size(), ",");
  handler.on_call = [&](absl::string_view, absl::string_view, TransportReply reply) {
    reply.Send(absl::FailedPreconditionError(long_message), "");
  };
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/RunGraph", "x");
  ASSERT_TRUE(Wait(call));
  EXPECT_EQ(call->status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(call->status.message(), HasSubstr(long_message));
  EXPECT_THAT(call->status.message(), HasSubstr("Worker/RunGraph"));
}

TEST_P(TransportConformanceTest, ReplyDroppedUnansweredArrivesAsInternal) {
  TestHandler handler;
  handler.on_call = [](absl::string_view, absl::string_view, TransportReply) {};
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  ASSERT_TRUE(Wait(call));
  EXPECT_EQ(call->status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(call->status.message(), HasSubstr("dropped the call without an answer"));
}

TEST_P(TransportConformanceTest, CallAnsweredWithATensorIsInternal) {
  TestHandler handler;
  ServedTensor tensor = FloatTensor({1}, {1.0f});
  handler.on_call = [&](absl::string_view, absl::string_view, TransportReply reply) {
    TestHandler::Serve(tensor, std::move(reply));
  };
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  ASSERT_TRUE(Wait(call));
  EXPECT_EQ(call->status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(call->status.message(), HasSubstr("answered a call with a tensor"));
  EXPECT_TRUE(WaitForCount(*tensor.releases, 1));
}

TEST_P(TransportConformanceTest, DeadlineExceededThenLateAnswerIsHarmless) {
  TestHandler handler;
  handler.hold = true;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);

  auto call = StartCall(*channel, "Worker/RunGraph", "x", /*deadline_ms=*/200);
  auto pull = StartPull(*channel, 1, "never", WithDeadline(200));
  ASSERT_TRUE(Wait(call));
  ASSERT_TRUE(Wait(pull));
  EXPECT_EQ(call->status.code(), absl::StatusCode::kDeadlineExceeded) << call->status;
  EXPECT_THAT(call->status.message(), HasSubstr("Worker/RunGraph"));
  EXPECT_EQ(pull->status.code(), absl::StatusCode::kDeadlineExceeded) << pull->status;
  EXPECT_FALSE(pull->allocated);

  ASSERT_TRUE(handler.WaitForHeld(2));
  ServedTensor tensor = FloatTensor({2}, {1.0f, 2.0f});
  for (TransportReply& reply : handler.TakeHeld()) {
    reply.Send(absl::OkStatus(), "late");
    TestHandler::Serve(tensor, std::move(reply));  // already answered: released at once
  }
  EXPECT_EQ(tensor.releases->load(), 2);
  EXPECT_EQ(call->completions.load(), 1);
  EXPECT_EQ(pull->completions.load(), 1);

  handler.hold = false;  // the channel still works
  auto after = StartCall(*channel, "Worker/GetStatus", "again");
  ASSERT_TRUE(Wait(after));
  EXPECT_TRUE(after->status.ok()) << after->status;
}

// Polls `reply.cancelled()` until it is true; false after 10 s.
bool BecomesCancelled(const TransportReply& reply) {
  for (int i = 0; i < 1000; ++i) {
    if (reply.cancelled()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Reply_IsCancelled: false while the caller waits; true once its deadline passed or its channel
// was destroyed (what a caller's death looks like to the server), and false again once answered.
TEST_P(TransportConformanceTest, HeldCallSaysWhenItsCallerStopsWaiting) {
  TestHandler handler;
  handler.hold = true;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);

  auto short_call = StartCall(*channel, "Worker/RunGraph", "short", /*deadline_ms=*/300);
  ASSERT_TRUE(handler.WaitForHeld(1));
  std::vector<TransportReply> held = handler.TakeHeld();
  ASSERT_TRUE(Wait(short_call));
  EXPECT_EQ(short_call->status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(BecomesCancelled(held[0])) << "a call past its deadline";
  held[0].Send(absl::OkStatus(), "late");
  EXPECT_FALSE(held[0].cancelled()) << "an answered reply";

  auto long_call = StartCall(*channel, "Worker/RunGraph", "long", /*deadline_ms=*/600000);
  ASSERT_TRUE(handler.WaitForHeld(1));
  held = handler.TakeHeld();
  EXPECT_FALSE(held[0].cancelled()) << "the caller still waits";
  channel.reset();
  ASSERT_TRUE(Wait(long_call));
  EXPECT_TRUE(BecomesCancelled(held[0])) << "a call whose channel was destroyed";
  held[0].Send(absl::OkStatus(), "late");
}

TEST_P(TransportConformanceTest, DefaultDeadlineOptionAppliesToCallsWithoutOne) {
  TestHandler handler;
  handler.hold = true;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address(), {{"default_deadline_ms", "200"}});
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/RunGraph", "x");
  ASSERT_TRUE(Wait(call));
  EXPECT_EQ(call->status.code(), absl::StatusCode::kDeadlineExceeded) << call->status;
}

TEST_P(TransportConformanceTest, PeerNotListeningIsUnavailable) {
  auto channel = Connect(absl::StrCat("127.0.0.1:", UnusedPort()));
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  auto pull = StartPull(*channel, 1, "k");
  ASSERT_TRUE(Wait(call));
  ASSERT_TRUE(Wait(pull));
  EXPECT_EQ(call->status.code(), absl::StatusCode::kUnavailable) << call->status;
  EXPECT_THAT(call->status.message(), HasSubstr(channel->address()));
  EXPECT_EQ(pull->status.code(), absl::StatusCode::kUnavailable) << pull->status;
  EXPECT_FALSE(pull->allocated);
}

TEST_P(TransportConformanceTest, ServerStopFailsPendingCallsAndLateAnswersAreHarmless) {
  TestHandler handler;
  handler.hold = true;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto first = StartCall(*channel, "Worker/RunGraph", "1");
  auto second = StartCall(*channel, "Worker/RunGraph", "2");
  auto pull = StartPull(*channel, 7, "pending");
  ASSERT_TRUE(handler.WaitForHeld(3));

  server->Stop();
  for (const auto& call : {first, second}) {
    ASSERT_TRUE(Wait(call));
    EXPECT_EQ(call->status.code(), absl::StatusCode::kUnavailable) << call->status;
  }
  ASSERT_TRUE(Wait(pull));
  EXPECT_EQ(pull->status.code(), absl::StatusCode::kUnavailable) << pull->status;

  // The host still holds the replies: answering them now is dropped, and releases at once.
  ServedTensor tensor = FloatTensor({4096}, std::vector<float>(4096, 1.0f));
  std::vector<TransportReply> held = handler.TakeHeld();
  ASSERT_EQ(held.size(), 3u);
  held[0].Send(absl::OkStatus(), "late");
  held[1].Send(absl::InternalError("late error"), "");
  TestHandler::Serve(tensor, std::move(held[2]));
  EXPECT_EQ(tensor.releases->load(), 1);

  auto after = StartCall(*channel, "Worker/GetStatus", "");
  ASSERT_TRUE(Wait(after));
  EXPECT_EQ(after->status.code(), absl::StatusCode::kUnavailable) << after->status;
  server.reset();
  held.clear();  // replies outlive their server
}

TEST_P(TransportConformanceTest, ChannelDestroyRunsCallbacksOfCallsInFlightBeforeReturning) {
  TestHandler handler;
  handler.hold = true;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/RunGraph", "x");
  auto pull = StartPull(*channel, 3, "k");
  ASSERT_TRUE(handler.WaitForHeld(2));

  channel.reset();
  EXPECT_TRUE(call->done.HasBeenNotified());
  EXPECT_TRUE(pull->done.HasBeenNotified());
  EXPECT_EQ(call->status.code(), absl::StatusCode::kCancelled) << call->status;
  EXPECT_EQ(pull->status.code(), absl::StatusCode::kCancelled) << pull->status;

  for (TransportReply& reply : handler.TakeHeld()) reply.Send(absl::OkStatus(), "late");
  EXPECT_EQ(call->completions.load(), 1);
  EXPECT_EQ(pull->completions.load(), 1);
}

TEST_P(TransportConformanceTest, ChannelMayBeDestroyedFromItsOwnCallback) {
  TestHandler handler;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  struct State {
    std::unique_ptr<TransportChannel> channel;
    Notification destroyed;
  };
  auto state = std::make_shared<State>();
  state->channel = Connect(server->address());
  ASSERT_NE(state->channel, nullptr);
  state->channel->Call("Worker/GetStatus", "", 0,
                       [state](const absl::Status& status, absl::string_view) {
                         EXPECT_TRUE(status.ok()) << status;
                         state->channel.reset();
                         state->destroyed.Notify();
                       });
  EXPECT_TRUE(state->destroyed.WaitForNotificationWithTimeout(kHangGuard));
}

// ---- Tensor pulls ----------------------------------------------------------------------------

TEST_P(TransportConformanceTest, PullsAFloatTensorWithItsShapeAndValues) {
  TestHandler handler;
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = 0.5f * static_cast<float>(i) - 2.0f;
  handler.tensors["5/a;b"] = FloatTensor({3, 4}, values);
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);

  auto pull = StartPull(*channel, 5, "a;b");
  ASSERT_TRUE(Wait(pull));
  ASSERT_TRUE(pull->status.ok()) << pull->status;
  EXPECT_FALSE(pull->is_dead);
  EXPECT_EQ(pull->dtype, TSR_DTYPE_FLOAT);
  EXPECT_EQ(pull->dims, (std::vector<int64_t>{3, 4}));
  ASSERT_EQ(pull->bytes.size(), 48u);
  std::vector<float> received(12);
  std::memcpy(received.data(), pull->bytes.data(), 48);
  EXPECT_EQ(received, values);
  EXPECT_TRUE(WaitForCount(*handler.tensors["5/a;b"].releases, 1));
  server.reset();
  EXPECT_EQ(handler.tensors["5/a;b"].releases->load(), 1);
}

TEST_P(TransportConformanceTest, PullsA64MiBTensorAndReleasesItOnce) {
  TestHandler handler;
  std::vector<float> values(16 << 20);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 100003);
  handler.tensors["9/big"] = FloatTensor({4096, 4096}, values);
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);

  auto pull = StartPull(*channel, 9, "big");
  ASSERT_TRUE(Wait(pull));
  ASSERT_TRUE(pull->status.ok()) << pull->status;
  EXPECT_EQ(pull->dims, (std::vector<int64_t>{4096, 4096}));
  ASSERT_EQ(pull->bytes.size(), values.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(pull->bytes.data(), values.data(), pull->bytes.size()), 0);
  EXPECT_TRUE(WaitForCount(*handler.tensors["9/big"].releases, 1));
  server.reset();
  EXPECT_EQ(handler.tensors["9/big"].releases->load(), 1);
}

TEST_P(TransportConformanceTest, PullsAnEmptyTensor) {
  TestHandler handler;
  handler.tensors["1/empty"] = FloatTensor({0, 5}, {});
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto pull = StartPull(*channel, 1, "empty");
  ASSERT_TRUE(Wait(pull));
  ASSERT_TRUE(pull->status.ok()) << pull->status;
  EXPECT_TRUE(pull->allocated);
  EXPECT_EQ(pull->dims, (std::vector<int64_t>{0, 5}));
  EXPECT_TRUE(pull->bytes.empty());
  EXPECT_TRUE(WaitForCount(*handler.tensors["1/empty"].releases, 1));
}

TEST_P(TransportConformanceTest, PullsADeadTensorWithoutAllocating) {
  TestHandler handler;
  ServedTensor dead;
  dead.is_dead = true;
  handler.tensors["2/dead"] = dead;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto pull = StartPull(*channel, 2, "dead");
  ASSERT_TRUE(Wait(pull));
  ASSERT_TRUE(pull->status.ok()) << pull->status;
  EXPECT_TRUE(pull->is_dead);
  EXPECT_FALSE(pull->allocated);
  EXPECT_TRUE(WaitForCount(*handler.tensors["2/dead"].releases, 1));
}

TEST_P(TransportConformanceTest, AllocateErrorFailsThePullWithItsCode) {
  TestHandler handler;
  handler.tensors["3/t"] = FloatTensor({3, 4}, std::vector<float>(12, 1.0f));
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto pull = StartPull(*channel, 3, "t",
                        WithAllocateError(absl::ResourceExhaustedError("no memory for 48 bytes")));
  ASSERT_TRUE(Wait(pull));
  EXPECT_EQ(pull->status.code(), absl::StatusCode::kResourceExhausted) << pull->status;
  EXPECT_THAT(pull->status.message(), HasSubstr("no memory for 48 bytes"));
  EXPECT_THAT(pull->status.message(), HasSubstr("'t' (step 3)"));
  EXPECT_TRUE(WaitForCount(*handler.tensors["3/t"].releases, 1));
  server.reset();
  EXPECT_EQ(handler.tensors["3/t"].releases->load(), 1);
}

TEST_P(TransportConformanceTest, DestinationOfTheWrongSizeFailsThePull) {
  TestHandler handler;
  handler.tensors["3/t"] = FloatTensor({3, 4}, std::vector<float>(12, 1.0f));
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto pull = StartPull(*channel, 3, "t", WithWrongSize());
  ASSERT_TRUE(Wait(pull));
  EXPECT_EQ(pull->status.code(), absl::StatusCode::kInternal) << pull->status;
  EXPECT_THAT(pull->status.message(), HasSubstr("destination"));
}

TEST_P(TransportConformanceTest, PullOfAMissingTensorCarriesTheSendersError) {
  TestHandler handler;
  ServedTensor failing = FloatTensor({1}, {1.0f});
  failing.status = absl::AbortedError("step 4 was aborted: worker 2 failed");
  handler.tensors["4/failing"] = failing;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);

  auto missing = StartPull(*channel, 4, "missing");
  ASSERT_TRUE(Wait(missing));
  EXPECT_EQ(missing->status.code(), absl::StatusCode::kNotFound) << missing->status;
  EXPECT_THAT(missing->status.message(), HasSubstr("no tensor '4/missing'"));
  EXPECT_FALSE(missing->allocated);

  auto aborted = StartPull(*channel, 4, "failing");
  ASSERT_TRUE(Wait(aborted));
  EXPECT_EQ(aborted->status.code(), absl::StatusCode::kAborted) << aborted->status;
  EXPECT_THAT(aborted->status.message(), HasSubstr("step 4 was aborted: worker 2 failed"));
  EXPECT_FALSE(aborted->allocated);
  EXPECT_TRUE(WaitForCount(*handler.tensors["4/failing"].releases, 1));
}

TEST_P(TransportConformanceTest, PullAnsweredWithoutATensorIsAnError) {
  TestHandler handler;
  handler.hold = true;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);
  auto dropped = StartPull(*channel, 1, "dropped");
  auto bytes = StartPull(*channel, 1, "bytes");
  ASSERT_TRUE(handler.WaitForHeld(2));
  std::vector<TransportReply> held = handler.TakeHeld();
  held.clear();  // both dropped: INTERNAL
  ASSERT_TRUE(Wait(dropped));
  ASSERT_TRUE(Wait(bytes));
  for (const auto& pull : {dropped, bytes}) {
    EXPECT_EQ(pull->status.code(), absl::StatusCode::kInternal) << pull->status;
    EXPECT_THAT(pull->status.message(), HasSubstr("dropped the call without an answer"));
  }

  auto answered = StartPull(*channel, 1, "answered");
  ASSERT_TRUE(handler.WaitForHeld(1));
  handler.TakeHeld()[0].Send(absl::OkStatus(), "not a tensor");
  ASSERT_TRUE(Wait(answered));
  EXPECT_EQ(answered->status.code(), absl::StatusCode::kInternal) << answered->status;
  EXPECT_THAT(answered->status.message(), HasSubstr("without a tensor"));
}

// ---- Servers ---------------------------------------------------------------------------------

TEST_P(TransportConformanceTest, PortZeroPicksAFreePortAndReportsIt) {
  TestHandler handler;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  EXPECT_THAT(server->address(), HasSubstr("127.0.0.1:"));
  EXPECT_GT(PortOf(server->address()), 0);
}

TEST_P(TransportConformanceTest, SecondServerOnTheSamePortIsRefused) {
  TestHandler handler;
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  const std::string port = std::to_string(PortOf(server->address()));
  absl::StatusOr<std::unique_ptr<TransportServer>> second =
      transport_->Listen(absl::StrCat("127.0.0.1:", port), {}, &handler);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists) << second.status();
  EXPECT_THAT(second.status().message(), HasSubstr(port));
  EXPECT_THAT(second.status().message(),
              HasSubstr(absl::StrCat("transport '", GetParam(), "' from plugin '")));

  auto channel = Connect(server->address());  // the first still serves
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "M", "x");
  ASSERT_TRUE(Wait(call));
  EXPECT_TRUE(call->status.ok()) << call->status;
}

TEST_P(TransportConformanceTest, MalformedAddressesAreInvalidArguments) {
  TestHandler handler;
  for (const char* address : {"no-port", "127.0.0.1:http", "127.0.0.1:70000", ":5000"}) {
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        transport_->Listen(address, {}, &handler);
    ASSERT_FALSE(server.ok()) << address;
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument) << server.status();
    EXPECT_THAT(server.status().message(), HasSubstr(address));
    absl::StatusOr<std::unique_ptr<TransportChannel>> channel = transport_->Connect(address, {});
    ASSERT_FALSE(channel.ok()) << address;
    EXPECT_EQ(channel.status().code(), absl::StatusCode::kInvalidArgument) << channel.status();
    EXPECT_THAT(channel.status().message(), HasSubstr(address));
  }
}

TEST_P(TransportConformanceTest, UnknownOptionsAreInvalidArguments) {
  TestHandler handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      transport_->Listen("127.0.0.1:0", {{"tls_certfile", "x"}}, &handler);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument) << server.status();
  EXPECT_THAT(server.status().message(), HasSubstr("'tls_certfile'"));
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport_->Connect("127.0.0.1:1", {{"compression", "gzip"}});
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().code(), absl::StatusCode::kInvalidArgument) << channel.status();
  EXPECT_THAT(channel.status().message(), HasSubstr("'compression'"));
}

TEST_P(TransportConformanceTest, BadDefaultDeadlineIsInvalidArgument) {
  for (const char* value : {"soon", "-5", "0", "12ms"}) {
    absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
        transport_->Connect("127.0.0.1:1", {{"default_deadline_ms", value}});
    ASSERT_FALSE(channel.ok()) << value;
    EXPECT_EQ(channel.status().code(), absl::StatusCode::kInvalidArgument) << channel.status();
    EXPECT_THAT(channel.status().message(), HasSubstr("default_deadline_ms"));
  }
}

TEST_P(TransportConformanceTest, ManyConcurrentCallsAndPullsFromSeveralThreads) {
  TestHandler handler;
  handler.tensors["1/small"] = FloatTensor({2, 2}, {1, 2, 3, 4});
  handler.tensors["1/large"] = FloatTensor({1024}, std::vector<float>(1024, 3.0f));
  // Half the calls are answered later from another thread, as a busy host does.
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::pair<std::string, TransportReply>> later;
  bool finished = false;
  handler.on_call = [&](absl::string_view method, absl::string_view request, TransportReply reply) {
    if (method == "inline") return reply.Send(absl::OkStatus(), request);
    std::lock_guard<std::mutex> lock(mutex);
    later.emplace_back(std::string(request), std::move(reply));
    wake.notify_one();
  };
  std::thread answerer([&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return finished || !later.empty(); });
      if (later.empty()) return;
      auto [request, reply] = std::move(later.front());
      later.pop_front();
      lock.unlock();
      reply.Send(absl::OkStatus(), request);
      lock.lock();
    }
  });
  auto server = Listen(&handler);
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address());
  ASSERT_NE(channel, nullptr);

  constexpr int kThreads = 6;
  constexpr int kPerThread = 30;
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.emplace_back([&, t] {
      std::vector<std::shared_ptr<CallResult>> calls;
      std::vector<std::pair<std::string, std::shared_ptr<PullResult>>> pulls;
      for (int i = 0; i < kPerThread; ++i) {
        calls.push_back(StartCall(*channel, i % 2 == 0 ? "inline" : "later",
                                  absl::StrCat("thread ", t, " call ", i)));
        const std::string key = i % 3 == 0 ? "large" : "small";
        pulls.emplace_back(key, StartPull(*channel, 1, key));
      }
      for (int i = 0; i < kPerThread; ++i) {
        if (!Wait(calls[i]) || !calls[i]->status.ok() ||
            calls[i]->response != absl::StrCat("thread ", t, " call ", i)) {
          ++failures;
        }
      }
      for (auto& [key, pull] : pulls) {
        if (!Wait(pull) || !pull->status.ok() ||
            pull->bytes.size() != handler.tensors.at("1/" + key).bytes.size()) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  {
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    wake.notify_one();
  }
  answerer.join();
  EXPECT_EQ(failures.load(), 0);
  channel.reset();
  server.reset();
  const int pulls_of_large = kThreads * ((kPerThread + 2) / 3);
  EXPECT_EQ(handler.tensors["1/large"].releases->load(), pulls_of_large);
  EXPECT_EQ(handler.tensors["1/small"].releases->load(), kThreads * kPerThread - pulls_of_large);
}

// ---- TLS -------------------------------------------------------------------------------------

TEST_P(TransportConformanceTest, TlsWithCertificatesFromFilesWorks) {
  SKIP_WITHOUT_TLS();
  TestHandler handler;
  handler.tensors["1/t"] = FloatTensor({2048}, std::vector<float>(2048, 7.0f));
  auto server = Listen(&handler, ServerTls(/*require_client_certificate=*/true));
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address(), ClientTls("ca.pem", "client.pem", "client.key"));
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/GetStatus", "over tls");
  auto pull = StartPull(*channel, 1, "t");
  ASSERT_TRUE(Wait(call));
  ASSERT_TRUE(Wait(pull));
  EXPECT_TRUE(call->status.ok()) << call->status;
  EXPECT_EQ(call->response, "Worker/GetStatus|over tls");
  EXPECT_TRUE(pull->status.ok()) << pull->status;
  EXPECT_EQ(pull->bytes, handler.tensors["1/t"].bytes);
  EXPECT_EQ(pull->sent_byte_size, handler.tensors["1/t"].bytes.size());

  // The name checked against the certificate may differ from the address dialled.
  TransportOptions by_name = ClientTls("ca.pem", "client.pem", "client.key");
  by_name["tls_server_name"] = "localhost";
  auto named = Connect(server->address(), by_name);
  ASSERT_NE(named, nullptr);
  auto named_call = StartCall(*named, "Worker/GetStatus", "named");
  ASSERT_TRUE(Wait(named_call));
  EXPECT_TRUE(named_call->status.ok()) << named_call->status;
}

TEST_P(TransportConformanceTest, TlsServerWithoutClientVerificationAcceptsAnyTlsClient) {
  SKIP_WITHOUT_TLS();
  TestHandler handler;
  auto server = Listen(&handler, ServerTls(/*require_client_certificate=*/false));
  ASSERT_NE(server, nullptr);
  auto channel = Connect(server->address(), ClientTls("ca.pem", nullptr, nullptr));
  ASSERT_NE(channel, nullptr);
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  ASSERT_TRUE(Wait(call));
  EXPECT_TRUE(call->status.ok()) << call->status;
}

TEST_P(TransportConformanceTest, TlsRefusesClientsItCannotTrust) {
  SKIP_WITHOUT_TLS();
  TestHandler handler;
  auto server = Listen(&handler, ServerTls(/*require_client_certificate=*/true));
  ASSERT_NE(server, nullptr);
  const struct {
    const char* what;
    TransportOptions options;
  } clients[] = {
      {"a client without TLS", {}},
      {"a client with a certificate from an unrelated CA",
       ClientTls("ca.pem", "other_client.pem", "other_client.key")},
      {"a client without a certificate", ClientTls("ca.pem", nullptr, nullptr)},
      {"a client that does not trust the server's CA",
       ClientTls("other_ca.pem", "other_client.pem", "other_client.key")},
  };
  for (const auto& client : clients) {
    auto channel = Connect(server->address(), client.options);
    ASSERT_NE(channel, nullptr) << client.what;
    auto call = StartCall(*channel, "Worker/GetStatus", "");
    auto pull = StartPull(*channel, 1, "t");
    ASSERT_TRUE(Wait(call)) << client.what;
    ASSERT_TRUE(Wait(pull)) << client.what;
    EXPECT_EQ(call->status.code(), absl::StatusCode::kUnavailable)
        << client.what << ": " << call->status;
    EXPECT_EQ(pull->status.code(), absl::StatusCode::kUnavailable)
        << client.what << ": " << pull->status;
  }
}

TEST_P(TransportConformanceTest, UnreadableTlsFilesAreNotFound) {
  SKIP_WITHOUT_TLS();
  TestHandler handler;
  const std::string missing = TestdataPath("missing.pem");
  absl::StatusOr<std::unique_ptr<TransportServer>> server = transport_->Listen(
      "127.0.0.1:0", {{"tls_cert_file", missing}, {"tls_key_file", TestdataPath("server.key")}},
      &handler);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kNotFound) << server.status();
  EXPECT_THAT(server.status().message(), HasSubstr(missing));
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport_->Connect("127.0.0.1:1", {{"tls_ca_file", missing}});
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().code(), absl::StatusCode::kNotFound) << channel.status();
  EXPECT_THAT(channel.status().message(), HasSubstr(missing));
}

TEST_P(TransportConformanceTest, InconsistentTlsOptionsAreInvalidArguments) {
  SKIP_WITHOUT_TLS();
  TestHandler handler;
  const std::string not_pem = TestdataPath("make_test_certs.sh");
  const struct {
    TransportOptions options;
    const char* expected;
  } cases[] = {
      {{{"tls_cert_file", TestdataPath("server.pem")}}, "must be given together"},
      {{{"tls_ca_file", TestdataPath("ca.pem")}}, "needs 'tls_cert_file'"},
      {{{"tls_cert_file", not_pem}, {"tls_key_file", TestdataPath("server.key")}},
       "holds no PEM CERTIFICATE"},
      {{{"tls_cert_file", TestdataPath("server.pem")}, {"tls_key_file", not_pem}},
       "holds no PEM PRIVATE KEY"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        transport_->Listen("127.0.0.1:0", c.options, &handler);
    ASSERT_FALSE(server.ok()) << c.expected;
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument) << server.status();
    EXPECT_THAT(server.status().message(), HasSubstr(c.expected));
  }
}

INSTANTIATE_TEST_SUITE_P(AllTransports, TransportConformanceTest,
                         ::testing::ValuesIn(TransportNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.empty() ? std::string("none") : info.param;
                         });

}  // namespace
}  // namespace tessera
