#include "host/runtime/device_name.h"

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(DeviceNameTest, ParsesFullNames) {
  auto parsed = ParseDeviceName("/job:worker/replica:0/task:3/device:GPU:1");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->IsFullySpecified());
  EXPECT_EQ(parsed->job, "worker");
  EXPECT_EQ(parsed->task, 3);
  EXPECT_EQ(parsed->type, "GPU");
  EXPECT_EQ(parsed->id, 1);
  EXPECT_EQ(parsed->ToString(), "/job:worker/replica:0/task:3/device:GPU:1");
}

TEST(DeviceNameTest, ParsesPartialAndLegacyNames) {
  auto star = ParseDeviceName("/device:CPU:*");
  ASSERT_TRUE(star.ok());
  EXPECT_TRUE(star->has_type);
  EXPECT_FALSE(star->has_id);
  auto legacy = ParseDeviceName("/cpu:0");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->type, "CPU");
  EXPECT_EQ(legacy->id, 0);
  auto bare = ParseDeviceName("CPU:1");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->id, 1);
  auto empty = ParseDeviceName("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->ToString(), "");
}

TEST(DeviceNameTest, RejectsMalformedNames) {
  for (const char* bad : {"/job:", "/job:worker/task:x", "/device:CPU:-1", "//", "/foo:bar:baz:1",
                          "/job:1abc"}) {
    auto parsed = ParseDeviceName(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("malformed device name"), std::string::npos);
  }
}

TEST(DeviceNameTest, MatchesPartialSpecs) {
  auto device = *ParseDeviceName("/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_TRUE(DeviceNameMatches(*ParseDeviceName("/device:CPU:0"), device));
  EXPECT_TRUE(DeviceNameMatches(*ParseDeviceName(""), device));
  EXPECT_FALSE(DeviceNameMatches(*ParseDeviceName("/device:GPU:0"), device));
  EXPECT_FALSE(DeviceNameMatches(*ParseDeviceName("/job:worker"), device));
}

TEST(DeviceNameTest, MergeRejectsConflicts) {
  auto a = *ParseDeviceName("/device:CPU:0");
  auto b = *ParseDeviceName("/job:w/device:CPU:0");
  ASSERT_TRUE(MergeDeviceNames(&a, b).ok());
  EXPECT_EQ(a.ToString(), "/job:w/device:CPU:0");
  auto c = *ParseDeviceName("/device:GPU:0");
  absl::Status s = MergeDeviceNames(&a, c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("incompatible types"), std::string::npos);
}

}  // namespace
}  // namespace tessera
