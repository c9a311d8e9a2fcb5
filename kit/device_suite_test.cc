// The device suite: real devices pass it, and each broken fake fails the case made to catch it.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kit/check_test_util.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

using ::testing::HasSubstr;
using testing::FakeManifest;
using testing::FindCase;
using testing::Options;

Report RunDevice(const std::string& manifest) { return RunChecks(Options(manifest, {"device"})); }

void ExpectPasses(const Report& report, const std::string& type) {
  EXPECT_EQ(report.count(Outcome::kFail), 0) << testing::Failures(report) << report.ToText();
  EXPECT_TRUE(report.ok());
  for (const char* name : {"/enumerate/create_every_ordinal", "/allocate/odd_size",
                           "/allocate/exhaustion", "/copy/host_round_trip",
                           "/threads/allocate_copy_free", "/leak/destroy"}) {
    const CaseResult* result = FindCase(report, type + name);
    ASSERT_NE(result, nullptr) << type + name << "\n" << report.ToText();
    EXPECT_EQ(result->outcome, Outcome::kPass) << result->message;
  }
}

void ExpectFailure(const Report& report, const std::string& name, const std::string& expected) {
  const CaseResult* result = FindCase(report, name);
  ASSERT_NE(result, nullptr) << name << "\n" << report.ToText();
  EXPECT_EQ(result->outcome, Outcome::kFail) << report.ToText();
  EXPECT_THAT(result->message, HasSubstr(expected));
  EXPECT_FALSE(report.ok());
}

TEST(DeviceSuiteTest, CpuPluginPasses) { ExpectPasses(RunDevice(testing::CpuManifest()), "CPU"); }

TEST(DeviceSuiteTest, TestDevicePasses) {
  const Report report = RunDevice(testing::TestDeviceManifest());
  ExpectPasses(report, "TESTDEV");
  // TESTDEV is asynchronous, with the profiling extension: the stream cases run.
  for (const char* name : {"TESTDEV/streams/basics", "TESTDEV/streams/event_ordering",
                           "TESTDEV/streams/profiling"}) {
    const CaseResult* result = FindCase(report, name);
    ASSERT_NE(result, nullptr) << name << "\n" << report.ToText();
    EXPECT_EQ(result->outcome, Outcome::kPass) << result->message;
  }
}

TEST(DeviceSuiteTest, CorrectFakePassesEveryCase) {
  const Report report = RunDevice(FakeManifest("kit_fake_good"));
  ExpectPasses(report, "KITGOOD");
  const CaseResult* stats = FindCase(report, "KITGOOD/stats");
  ASSERT_NE(stats, nullptr);
  EXPECT_EQ(stats->outcome, Outcome::kPass) << stats->message;
  const CaseResult* between = FindCase(report, "KITGOOD/copy/between_devices");
  ASSERT_NE(between, nullptr);
  EXPECT_EQ(between->outcome, Outcome::kPass) << between->message;
}

TEST(DeviceSuiteTest, CatchesACopyThatDropsBytes) {
  const Report report = RunDevice(FakeManifest("kit_fake_drops_bytes"));
  ExpectFailure(report, "KITDROP/copy/host_round_trip",
                "65 bytes written with Memcpy_HostToDevice and read back with "
                "Memcpy_DeviceToHost: byte 64 of 65 differs");
  const CaseResult* sizes = FindCase(report, "KITDROP/allocate/one_byte");
  ASSERT_NE(sizes, nullptr);
  EXPECT_EQ(sizes->outcome, Outcome::kPass) << "a 1-byte copy is not affected";
}

TEST(DeviceSuiteTest, CatchesMemoryThatIsNeverReturned) {
  const Report report = RunDevice(FakeManifest("kit_fake_leaks"));
  ExpectFailure(report, "KITLEAK/allocate/one_byte",
                "Memory_GetStats bytes_in_use was 0 before allocate/one_byte and 1 after");
  ExpectFailure(report, "KITLEAK/allocate/one_byte", "1 bytes not returned");
  ExpectFailure(report, "KITLEAK/leak/stats", "bytes not returned");
}

TEST(DeviceSuiteTest, CatchesOkWithNullOnExhaustion) {
  const Report report = RunDevice(FakeManifest("kit_fake_null_on_exhaustion"));
  ExpectFailure(report, "KITNULL/allocate/exhaustion", "expected RESOURCE_EXHAUSTED");
  ExpectFailure(report, "KITNULL/allocate/exhaustion", "got INTERNAL");
  const CaseResult* after = FindCase(report, "KITNULL/allocate/after_exhaustion");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->outcome, Outcome::kPass) << after->message;
}

TEST(DeviceSuiteTest, OnlyTheDeviceTypeAsked) {
  CheckOptions options = Options(testing::CpuManifest(), {"device"});
  options.device_type = "CPU";
  const Report report = RunChecks(options);
  EXPECT_NE(FindCase(report, "CPU/properties"), nullptr) << report.ToText();
}

}  // namespace
}  // namespace tessera::plugin_check
