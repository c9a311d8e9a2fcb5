// RemoteRendezvous without a network: local values, keys that name no task, and tasks that
// cannot be reached.
#include "host/distributed/remote_rendezvous.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr char kLocal[] = "/job:worker/replica:0/task:0";

// Knows no task at all.
class NoChannels final : public TaskChannels {
 public:
  absl::StatusOr<TransportChannel*> ChannelTo(const std::string& task_name) override {
    return absl::InvalidArgumentError(absl::StrCat("'", task_name, "' is not in the cluster"));
  }
};

struct Received {
  absl::Status status;
  Tensor value;
  bool called = false;
};

Rendezvous::DoneCallback Into(Received* received) {
  return [received](const absl::Status& status, const Tensor& value, bool is_dead) {
    received->status = status;
    received->value = value;
    received->called = true;
  };
}

std::string Key(const std::string& src_device) {
  return CreateRendezvousKey(src_device, 1, absl::StrCat(kLocal, "/device:CPU:0"), "edge",
                             FrameAndIter{});
}

TEST(RemoteRendezvousTest, ValuesOfThisTaskStayLocal) {
  NoChannels channels;
  auto rendezvous = std::make_shared<RemoteRendezvous>(7, kLocal, &channels);
  std::string key = Key(absl::StrCat(kLocal, "/device:CPU:0"));
  ASSERT_TRUE(rendezvous->Send(key, Tensor::Scalar<float>(2), false).ok());
  Received received;
  rendezvous->RecvAsync(key, Into(&received));
  ASSERT_TRUE(received.called);
  ASSERT_TRUE(received.status.ok()) << received.status;
  EXPECT_EQ(received.value.flat<float>()[0], 2.0f);
}

TEST(RemoteRendezvousTest, RefusesAKeyWhoseSenderNamesNoTask) {
  NoChannels channels;
  auto rendezvous = std::make_shared<RemoteRendezvous>(7, kLocal, &channels);
  Received received;
  rendezvous->RecvAsync(Key("/device:CPU:0"), Into(&received));
  ASSERT_TRUE(received.called);
  EXPECT_EQ(received.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(received.status.message()), HasSubstr("names no task"));
  EXPECT_THAT(std::string(received.status.message()), HasSubstr("while receiving"));
}

TEST(RemoteRendezvousTest, ReportsATaskItCannotReach) {
  NoChannels channels;
  auto rendezvous = std::make_shared<RemoteRendezvous>(7, kLocal, &channels);
  Received received;
  rendezvous->RecvAsync(Key("/job:ps/replica:0/task:3/device:CPU:0"), Into(&received));
  ASSERT_TRUE(received.called);
  EXPECT_EQ(received.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(received.status.message()),
              HasSubstr("'/job:ps/replica:0/task:3' is not in the cluster"));
}

TEST(RemoteRendezvousTest, AnAbortFailsLaterReceivers) {
  NoChannels channels;
  auto rendezvous = std::make_shared<RemoteRendezvous>(7, kLocal, &channels);
  rendezvous->StartAbort(absl::AbortedError("step 7 failed on ps 0"));
  Received received;
  rendezvous->RecvAsync(Key(absl::StrCat(kLocal, "/device:CPU:0")), Into(&received));
  ASSERT_TRUE(received.called);
  EXPECT_EQ(received.status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(rendezvous->status().message(), "step 7 failed on ps 0");
}

}  // namespace
}  // namespace tessera
