// The ABI suite: the CPU plugin and the test device pass it, including the emulated newer host;
// the registry's newer-host emulation itself.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kit/check_test_util.h"
#include "registry/host_api.h"
#include "registry/plugin_registry.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

using ::testing::HasSubstr;
using testing::FindCase;
using testing::Options;

void ExpectAbiPasses(const std::string& manifest) {
  const Report report = RunChecks(Options(manifest, {"abi"}));
  EXPECT_EQ(report.count(Outcome::kFail), 0) << testing::Failures(report);
  for (const char* name : {"versions", "newer_host", "exports", "undefined_symbols", "runpath"}) {
    const CaseResult* result = FindCase(report, name);
    ASSERT_NE(result, nullptr) << name << "\n" << report.ToText();
    EXPECT_EQ(result->outcome, Outcome::kPass) << name << ": " << result->message;
  }
  const CaseResult* newer = FindCase(report, "newer_host");
  EXPECT_THAT(newer->message, HasSubstr("registrations identical"));
}

TEST(AbiSuiteTest, CpuPluginPasses) { ExpectAbiPasses(testing::CpuManifest()); }

TEST(AbiSuiteTest, TestDevicePasses) { ExpectAbiPasses(testing::TestDeviceManifest()); }

TEST(AbiSuiteTest, OlderHostIsCheckedWhenThereIsOne) {
  const Report report = RunChecks(Options(testing::CpuManifest(), {"abi"}));
  const CaseResult* older = FindCase(report, "older_host");
  ASSERT_NE(older, nullptr);
  if (TSR_ABI_VERSION_MINOR == 0) {
    EXPECT_EQ(older->outcome, Outcome::kSkip);
    EXPECT_THAT(older->message, HasSubstr("no older host"));
  } else {
    EXPECT_EQ(older->outcome, Outcome::kPass) << older->message;
  }
}

TEST(EmulatedNewerHostTest, PluginsGetALargerTableReportingTheNewerMinor) {
  RegistryOptions options;
  options.plugin_paths = {testing::CpuManifest()};
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  options.host_abi_minor = TSR_ABI_VERSION_MINOR + 1;
  options.emulate_newer_host = true;
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  ASSERT_TRUE(registry.ok()) << registry.status();
  const TSR_HostApi* api = (*registry)->host_api();
  EXPECT_EQ(api->abi_version_minor, TSR_ABI_VERSION_MINOR + 1);
  EXPECT_EQ(api->struct_size, sizeof(TSR_HostApi) + kEmulatedHostTailSlots * sizeof(void*));
  const void* const* tail = reinterpret_cast<const void* const*>(
      reinterpret_cast<const char*>(api) + sizeof(TSR_HostApi));
  for (size_t i = 0; i < kEmulatedHostTailSlots; ++i) EXPECT_EQ(tail[i], nullptr);
  ASSERT_EQ((*registry)->records().size(), 1u);
  EXPECT_EQ((*registry)->records()[0].state, PluginState::kLoaded);
}

TEST(EmulatedNewerHostTest, RefusedWithoutTheKitsFlagOrTooFarAhead) {
  RegistryOptions options;
  options.discover = false;
  options.host_abi_minor = TSR_ABI_VERSION_MINOR + kMaxEmulatedNewerMinors + 1;
  options.emulate_newer_host = true;
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(registry.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(registry.status().message()),
              HasSubstr("is more than 8 minors newer than this host's ABI"));
  options.host_abi_minor = TSR_ABI_VERSION_MINOR + 1;
  options.emulate_newer_host = false;
  registry = PluginRegistry::Create(options);
  ASSERT_FALSE(registry.ok());
  EXPECT_THAT(std::string(registry.status().message()), HasSubstr("only an older host"));
}

TEST(RecordTest, KeepsTheVersionsInitReported) {
  RegistryOptions options;
  options.plugin_paths = {testing::CpuManifest()};
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  ASSERT_TRUE(registry.ok()) << registry.status();
  const PluginRecord& record = (*registry)->records()[0];
  EXPECT_EQ(record.info_abi_major, TSR_ABI_VERSION_MAJOR);
  EXPECT_EQ(record.info_abi_minor, TSR_ABI_VERSION_MINOR);
  EXPECT_GE(record.info_min_host_abi_minor, 0);
}

}  // namespace
}  // namespace tessera::plugin_check
