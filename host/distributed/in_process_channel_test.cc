// InProcessChannel keeps a transport call's semantics: answers, deadlines, cancellation, dropped
// replies and the channel's destruction, alone and through CallAsync.
#include "host/distributed/in_process_channel.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/distributed/proto/distributed.pb.h"
#include "host/distributed/rpc.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Answers "Echo" at once with the request; keeps every other call's reply for the test.
class FakeHandler final : public TransportHandler {
 public:
  void HandleCall(absl::string_view method, absl::string_view request,
                  TransportReply reply) override {
    if (method == "Echo") {
      reply.Send(absl::OkStatus(), request);
      return;
    }
    if (method == "Drop") return;  // the reply's destructor answers
    std::lock_guard<std::mutex> lock(mu);
    kept.push_back(std::move(reply));
    cv.notify_all();
  }
  void HandleRecvTensor(uint64_t, absl::string_view, TransportReply) override {}

  std::mutex mu;
  std::condition_variable cv;
  std::vector<TransportReply> kept;
};

// What a call's `done` saw; counts how often it ran.
struct Outcome {
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;
  absl::Status status;
  std::string response;

  TransportChannel::CallDone Done() {
    return [this](const absl::Status& s, absl::string_view r) {
      std::lock_guard<std::mutex> lock(mu);
      ++calls;
      status = s;
      response = std::string(r);
      cv.notify_all();
    };
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return calls > 0; });
  }
};

TEST(InProcessChannelTest, HandsTheCallToTheHandlerAndItsAnswerToTheCaller) {
  FakeHandler handler;
  InProcessChannel channel("/job:worker/replica:0/task:0", &handler);
  Outcome outcome;
  channel.Call("Echo", "ping", 5000, outcome.Done());
  // The handler answered on this thread: done has run already.
  EXPECT_EQ(outcome.calls, 1);
  EXPECT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_EQ(outcome.response, "ping");
  EXPECT_EQ(channel.calls(), 1);
}

TEST(InProcessChannelTest, AnAnswerFromAnotherThreadArrivesOnceAndTheReplyIsNeverCancelled) {
  FakeHandler handler;
  InProcessChannel channel("task", &handler);
  Outcome outcome;
  channel.Call("Later", "", 60000, outcome.Done());
  ASSERT_EQ(handler.kept.size(), 1u);
  TransportReply reply = std::move(handler.kept[0]);
  // The caller still waits: nothing reports cancelled.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(reply.cancelled());
  std::thread answer([&] { reply.Send(absl::OkStatus(), "done"); });
  answer.join();
  outcome.Wait();
  EXPECT_EQ(outcome.response, "done");
  EXPECT_TRUE(reply.answered());
  EXPECT_FALSE(reply.cancelled());
  EXPECT_EQ(outcome.calls, 1);
}

TEST(InProcessChannelTest, ADeadlineFailsTheCallCancelsTheReplyAndDropsTheLateAnswer) {
  FakeHandler handler;
  InProcessChannel channel("task", &handler);
  Outcome outcome;
  const auto start = std::chrono::steady_clock::now();
  channel.Call("Later", "", 50, outcome.Done());
  outcome.Wait();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kDeadlineExceeded) << outcome.status;
  ASSERT_EQ(handler.kept.size(), 1u);
  EXPECT_TRUE(handler.kept[0].cancelled());
  handler.kept[0].Send(absl::OkStatus(), "too late");
  EXPECT_EQ(outcome.calls, 1);
  EXPECT_EQ(outcome.response, "");
}

TEST(InProcessChannelTest, DeadlinesFireInTheirOrderWhateverTheOrderOfTheCalls) {
  FakeHandler handler;
  InProcessChannel channel("task", &handler);
  Outcome slow;
  Outcome fast;
  channel.Call("Later", "", 60000, slow.Done());
  channel.Call("Later", "", 30, fast.Done());  // earlier than the one the thread sleeps for
  fast.Wait();
  EXPECT_EQ(fast.status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(slow.calls, 0);
  ASSERT_EQ(handler.kept.size(), 2u);
  EXPECT_FALSE(handler.kept[0].cancelled());
  handler.kept[0].Send(absl::OkStatus(), "slow");
  EXPECT_EQ(slow.response, "slow");
}

TEST(InProcessChannelTest, AReplyDroppedWithoutAnAnswerFailsTheCallWithInternal) {
  FakeHandler handler;
  InProcessChannel channel("task", &handler);
  Outcome outcome;
  channel.Call("Drop", "", 5000, outcome.Done());
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(outcome.status.message(), HasSubstr("dropped the call without an answer"));
}

TEST(InProcessChannelTest, DestroyingTheChannelCancelsItsUnansweredCalls) {
  FakeHandler handler;
  Outcome outcome;
  {
    InProcessChannel channel("/job:worker/replica:0/task:0", &handler);
    channel.Call("Later", "", 60000, outcome.Done());
  }
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(outcome.status.message(), HasSubstr("/job:worker/replica:0/task:0"));
  ASSERT_EQ(handler.kept.size(), 1u);
  EXPECT_TRUE(handler.kept[0].cancelled());
  handler.kept[0].Send(absl::OkStatus(), "after");  // dropped, not a second completion
  EXPECT_EQ(outcome.calls, 1);
}

// Through CallAsync, as the master calls: the handler's status reaches the caller with its code
// and message unchanged, and a deadline names the peer as in process.
TEST(InProcessChannelTest, CallAsyncKeepsTheHandlersErrorAndNamesAnInProcessPeer) {
  class Failing final : public TransportHandler {
   public:
    void HandleCall(absl::string_view method, absl::string_view, TransportReply reply) override {
      if (method == kWorkerGetStatus) {
        Answer(std::move(reply), absl::InvalidArgumentError("node 'x' has no kernel"), nullptr);
        return;
      }
      kept.push_back(std::move(reply));
    }
    void HandleRecvTensor(uint64_t, absl::string_view, TransportReply) override {}
    std::vector<TransportReply> kept;
  } handler;
  InProcessChannel channel("/job:worker/replica:0/task:0", &handler);
  const Peer peer{"/job:worker/replica:0/task:0", nullptr, &channel};
  distributed::GetStatusResponse status;
  absl::Status result =
      Call(peer, kWorkerGetStatus, distributed::GetStatusRequest(), 5000, &status);
  EXPECT_EQ(result.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.message(), "node 'x' has no kernel");

  distributed::RunGraphResponse run;
  result = Call(peer, kWorkerRunGraph, distributed::RunGraphRequest(), 30, &run);
  EXPECT_EQ(result.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(result.message(),
              HasSubstr("/job:worker/replica:0/task:0 (in this process) did not answer "
                        "Worker/RunGraph within 30 ms"));
}

}  // namespace
}  // namespace tessera
