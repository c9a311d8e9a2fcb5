#include "host/rendezvous/rendezvous.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

const char kKey[] = "/job:a/replica:0/task:0/device:CPU:0;00000000000000ab;"
                    "/job:a/replica:0/task:0/device:CPU:1;edge_1_x;0:0";

TEST(RendezvousKeyTest, CreatesTensorFlowsFormat) {
  std::string key = CreateRendezvousKey("/job:a/replica:0/task:0/device:CPU:0", 0xab,
                                        "/job:a/replica:0/task:0/device:CPU:1", "edge_1_x",
                                        FrameAndIter{});
  EXPECT_EQ(key, kKey);
  auto parsed = ParseRendezvousKey(key);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->src_incarnation, 0xabu);
  EXPECT_EQ(parsed->edge_name, "edge_1_x");
  EXPECT_EQ(parsed->dst_device, "/job:a/replica:0/task:0/device:CPU:1");
}

TEST(RendezvousKeyTest, RejectsMalformedKeys) {
  for (const char* bad : {"a;b;c", "a;xyz;c;d;0:0", "a;00000000000000ab;c;d;0", ";00000000000000ab;c;d;0:0"}) {
    auto parsed = ParseRendezvousKey(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("malformed rendezvous key"), std::string::npos);
  }
}

TEST(LocalRendezvousTest, SendThenRecv) {
  LocalRendezvous r;
  ASSERT_TRUE(r.Send(kKey, Tensor::Scalar<float>(3), false).ok());
  bool called = false;
  r.RecvAsync(kKey, [&](const absl::Status& s, const Tensor& t, bool dead) {
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(*t.data<float>(), 3);
    EXPECT_FALSE(dead);
    called = true;
  });
  EXPECT_TRUE(called);
}

TEST(LocalRendezvousTest, RecvThenSendAndDeadness) {
  LocalRendezvous r;
  bool called = false;
  r.RecvAsync(kKey, [&](const absl::Status& s, const Tensor&, bool dead) {
    EXPECT_TRUE(s.ok());
    EXPECT_TRUE(dead);
    called = true;
  });
  EXPECT_FALSE(called);
  ASSERT_TRUE(r.Send(kKey, Tensor(), true).ok());
  EXPECT_TRUE(called);
}

TEST(LocalRendezvousTest, ValuesAreDeliveredInOrder) {
  LocalRendezvous r;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(r.Send(kKey, Tensor::Scalar<int32_t>(i), false).ok());
  for (int i = 0; i < 3; ++i) {
    r.RecvAsync(kKey, [&](const absl::Status&, const Tensor& t, bool) {
      EXPECT_EQ(*t.data<int32_t>(), i);
    });
  }
}

TEST(LocalRendezvousTest, AbortFailsWaitersAndLaterCalls) {
  LocalRendezvous r;
  absl::Status seen;
  r.RecvAsync(kKey, [&](const absl::Status& s, const Tensor&, bool) { seen = s; });
  r.StartAbort(absl::InvalidArgumentError("node 'x' failed"));
  EXPECT_EQ(seen.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(seen.message(), "node 'x' failed");
  absl::Status send = r.Send(kKey, Tensor::Scalar<float>(1), false);
  EXPECT_EQ(send.code(), absl::StatusCode::kInvalidArgument);
  absl::Status later;
  r.RecvAsync(kKey, [&](const absl::Status& s, const Tensor&, bool) { later = s; });
  EXPECT_EQ(later.code(), absl::StatusCode::kInvalidArgument);
}

TEST(LocalRendezvousTest, ConcurrentSendersAndReceivers) {
  LocalRendezvous r;
  constexpr int kN = 2000;
  std::atomic<int64_t> sum{0};
  std::atomic<int> received{0};
  std::thread receiver([&] {
    for (int i = 0; i < kN; ++i) {
      r.RecvAsync(kKey, [&](const absl::Status& s, const Tensor& t, bool) {
        ASSERT_TRUE(s.ok());
        sum.fetch_add(*t.data<int32_t>());
        received.fetch_add(1);
      });
    }
  });
  std::thread sender([&] {
    for (int i = 0; i < kN; ++i) ASSERT_TRUE(r.Send(kKey, Tensor::Scalar<int32_t>(i), false).ok());
  });
  receiver.join();
  sender.join();
  EXPECT_EQ(received.load(), kN);
  EXPECT_EQ(sum.load(), int64_t{kN} * (kN - 1) / 2);
}

}  // namespace
}  // namespace tessera
