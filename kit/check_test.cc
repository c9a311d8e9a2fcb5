// RunChecks: finding the plugin, the "load" case for plugins a host refuses, and which suites run.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kit/check_test_util.h"
#include "tessera/plugin_api/plugin_api.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

using ::testing::HasSubstr;
using testing::FindCase;
using testing::Options;

// The one case of a report whose plugin did not load.
void ExpectLoadFailure(const Report& report, const std::string& expected) {
  ASSERT_EQ(report.cases.size(), 1u) << report.ToText();
  EXPECT_EQ(report.cases[0].suite, "load");
  EXPECT_EQ(report.cases[0].name, "load");
  EXPECT_EQ(report.cases[0].outcome, Outcome::kFail);
  EXPECT_THAT(report.cases[0].message, HasSubstr(expected));
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.plugin_name, "");
}

TEST(RunChecksTest, WrongAbiMajorGivesTheRegistrysRejection) {
  const std::string manifest =
      std::string(TESSERA_TEST_PLUGIN_DIR) + "/abi_major/fake_major.tessera-plugin.json";
  const Report report = RunChecks(Options(manifest, {}));
  ExpectLoadFailure(report, "plugin 'fake_major' 3.0.0");
  EXPECT_THAT(report.cases[0].message, HasSubstr("is built for ABI major 7; this host is " +
                                                 std::to_string(TSR_ABI_VERSION_MAJOR) + "." +
                                                 std::to_string(TSR_ABI_VERSION_MINOR)));
  EXPECT_THAT(report.ToText(), HasSubstr("0 passed, 1 failed, 0 skipped"));
}

TEST(RunChecksTest, MissingPathIsALoadFailure) {
  ExpectLoadFailure(RunChecks(Options("/nonexistent/acme.tessera-plugin.json", {})),
                    "plugin path '/nonexistent/acme.tessera-plugin.json' does not exist");
}

TEST(RunChecksTest, FolderMustHoldExactlyOneManifest) {
  ExpectLoadFailure(RunChecks(Options(TESSERA_KIT_FAKES_DIR, {})),
                    "plugin manifests (*.tessera-plugin.json)");
  const std::filesystem::path empty =
      std::filesystem::temp_directory_path() / "kit_check_test_empty";
  std::filesystem::create_directories(empty);
  ExpectLoadFailure(RunChecks(Options(empty.string(), {})), "holds 0 plugin manifests");
  std::filesystem::remove_all(empty);
}

TEST(RunChecksTest, AFolderWithOneManifestNamesThePlugin) {
  const Report report = RunChecks(
      Options(std::string(TESSERA_TEST_PLUGIN_DIR) + "/testdevice", {"abi"}));
  EXPECT_EQ(report.plugin_name, "testdevice");
  EXPECT_TRUE(report.ok()) << testing::Failures(report);
}

TEST(RunChecksTest, MissingSupportPathIsALoadFailure) {
  CheckOptions options = Options(testing::CpuManifest(), {"abi"});
  options.support_plugin_paths = {"/nonexistent/support"};
  ExpectLoadFailure(RunChecks(options), "'/nonexistent/support' does not exist");
}

TEST(RunChecksTest, UnknownSuiteInOptionsIsALoadFailure) {
  ExpectLoadFailure(RunChecks(Options(testing::CpuManifest(), {"gpu"})), "unknown suite 'gpu'");
}

TEST(RunChecksTest, RunsOnlyTheSuitesAsked) {
  const Report report = RunChecks(Options(testing::FakeManifest("kit_fake_good"), {"abi"}));
  EXPECT_EQ(report.plugin_name, "kit_fake_good");
  EXPECT_EQ(report.plugin_version, "0.1.0");
  for (const CaseResult& result : report.cases) {
    EXPECT_TRUE(result.suite == "load" || result.suite == "abi") << result.suite;
  }
  const CaseResult* load = FindCase(report, "load");
  ASSERT_NE(load, nullptr);
  EXPECT_THAT(load->message, HasSubstr("provides device:KITGOOD"));
}

TEST(RunChecksTest, WithoutSuitesRunsWhatApplies) {
  const Report report = RunChecks(Options(testing::FakeManifest("kit_fake_good"), {}));
  bool device = false, abi = false, kernels = false;
  for (const CaseResult& result : report.cases) {
    device |= result.suite == "device";
    abi |= result.suite == "abi";
    kernels |= result.suite == "kernels";
  }
  EXPECT_TRUE(device);
  EXPECT_TRUE(abi);
  EXPECT_FALSE(kernels) << "the plugin registers no kernel";
  EXPECT_TRUE(report.ok()) << testing::Failures(report);
}

TEST(RunChecksTest, DeviceTypeThePluginLacksFails) {
  CheckOptions options = Options(testing::FakeManifest("kit_fake_good"), {"device"});
  options.device_type = "NPU";
  const Report report = RunChecks(options);
  const CaseResult* types = FindCase(report, "device_types");
  ASSERT_NE(types, nullptr) << report.ToText();
  EXPECT_EQ(types->outcome, Outcome::kFail);
  EXPECT_THAT(types->message,
              HasSubstr("does not register device type 'NPU'; it registers KITGOOD"));
}

}  // namespace
}  // namespace tessera::plugin_check
