// Tests of the plugin policy: the policy file's format, where it is looked up, and how options
// override it.
#include "registry/plugin_policy.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// A fresh folder for one test's policy files, removed at the end.
class PluginPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessera_policy_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& contents) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << contents;
    return path;
  }

  // Options that read no file unless the test names one.
  static PluginPolicyOptions Isolated() {
    PluginPolicyOptions options;
    options.config_env = "";
    options.system_config_file = "";
    return options;
  }

  fs::path dir_;
};

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(substring), absl::string_view::npos) << status.message();
}

TEST_F(PluginPolicyTest, ParsesEveryKey) {
  absl::StatusOr<PluginPolicy> policy = ParsePluginConfig(
      "/etc/p.json",
      R"({"allow": ["cpu", "grpc"], "require_sha256": true, "prefer": {"GPU": "acme-gpu"}})");
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy->allowlist, (std::set<std::string>{"cpu", "grpc"}));
  EXPECT_EQ(policy->allowlist_source, "config file /etc/p.json");
  EXPECT_TRUE(policy->require_sha256);
  EXPECT_EQ(policy->require_sha256_source, "config file /etc/p.json");
  ASSERT_EQ(policy->preferred_providers.count("GPU"), 1u);
  EXPECT_EQ(policy->preferred_providers.at("GPU").plugin, "acme-gpu");
  EXPECT_EQ(policy->DescribePreference("GPU"), "config file /etc/p.json (GPU=acme-gpu)");
  EXPECT_EQ(policy->DescribePreference("CPU"), "");
  EXPECT_EQ(policy->config_file, "/etc/p.json");
}

TEST_F(PluginPolicyTest, EmptyObjectSetsNothing) {
  absl::StatusOr<PluginPolicy> policy = ParsePluginConfig("p.json", "{}");
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_FALSE(policy->allowlist.has_value());
  EXPECT_FALSE(policy->require_sha256);
  EXPECT_TRUE(policy->preferred_providers.empty());
}

TEST_F(PluginPolicyTest, MalformedFilesNameTheFileAndTheKey) {
  const struct {
    const char* contents;
    const char* expected;
  } cases[] = {
      {"{\"allow\": [\"cpu\"", "plugin config file f.json: malformed JSON"},
      {"[\"cpu\"]", "plugin config file f.json: expected a JSON object"},
      {R"({"alow": ["cpu"]})",
       "plugin config file f.json: unknown key 'alow' (known: allow, prefer, require_sha256)"},
      {R"({"allow": "cpu"})", "key 'allow': expected an array of plugin names, got \"cpu\""},
      {R"({"allow": ["Bad Name"]})", "key 'allow': entry \"Bad Name\" is not a plugin name"},
      {R"({"allow": [7]})", "key 'allow': entry 7 is not a plugin name"},
      {R"({"require_sha256": "yes"})", "key 'require_sha256': expected true or false, got \"yes\""},
      {R"({"prefer": ["GPU"]})", "key 'prefer': expected an object of device type to plugin name"},
      {R"({"prefer": {"gpu": "acme"}})", "key 'prefer': 'gpu' is not a device type name"},
      {R"({"prefer": {"GPU": "Acme"}})", "key 'prefer.GPU': \"Acme\" is not a plugin name"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<PluginPolicy> policy = ParsePluginConfig("f.json", c.contents);
    ASSERT_FALSE(policy.ok()) << c.contents;
    ExpectError(policy.status(), absl::StatusCode::kInvalidArgument, c.expected);
  }
}

TEST_F(PluginPolicyTest, ReadRefusesAFolderAndReportsAMissingFile) {
  ExpectError(ReadPluginConfig(dir_.string()).status(), absl::StatusCode::kInvalidArgument,
              "is not a regular file");
  const std::string missing = (dir_ / "missing.json").string();
  ExpectError(ReadPluginConfig(missing).status(), absl::StatusCode::kNotFound,
              "plugin config file " + missing + " does not exist");
}

TEST_F(PluginPolicyTest, LookupOrderIsExplicitThenEnvironmentThenSystemFile) {
  const std::string explicit_file = Write("explicit.json", "{}");
  const std::string env_file = Write("env.json", "{}");
  const std::string system_file = Write("system.json", "{}");
  PluginPolicyOptions options;
  options.config_file = explicit_file;
  options.config_env = env_file;
  options.system_config_file = system_file;
  EXPECT_EQ(FindPluginConfig(options).value_or("error"), explicit_file);
  options.config_file.reset();
  EXPECT_EQ(FindPluginConfig(options).value_or("error"), env_file);
  options.config_env = "";
  EXPECT_EQ(FindPluginConfig(options).value_or("error"), system_file);
  // A missing system file is no policy at all.
  options.system_config_file = (dir_ / "none.json").string();
  EXPECT_EQ(FindPluginConfig(options).value_or("error"), "");
  options.system_config_file = "";
  EXPECT_EQ(FindPluginConfig(options).value_or("error"), "");
}

TEST_F(PluginPolicyTest, MissingExplicitOrEnvironmentFileIsNotFound) {
  const std::string missing = (dir_ / "missing.json").string();
  PluginPolicyOptions options = Isolated();
  options.config_file = missing;
  ExpectError(FindPluginConfig(options).status(), absl::StatusCode::kNotFound,
              "plugin config file " + missing + " (given explicitly) does not exist");
  options = Isolated();
  options.config_env = missing;
  ExpectError(ResolvePluginPolicy(options).status(), absl::StatusCode::kNotFound,
              "plugin config file " + missing + " (from TESSERA_PLUGIN_CONFIG) does not exist");
}

TEST_F(PluginPolicyTest, OptionsOverrideTheFileSettingBySetting) {
  const std::string file = Write(
      "p.json",
      R"({"allow": ["cpu"], "require_sha256": true, "prefer": {"GPU": "acme", "NPU": "npu-a"}})");
  PluginPolicyOptions options = Isolated();
  options.config_file = file;
  options.allowlist = std::set<std::string>{"grpc"};
  options.preferred_providers = {{"GPU", "other"}};
  options.allowlist_source = "--plugin-allow";
  options.preferred_providers_source = "--plugin-prefer";
  absl::StatusOr<PluginPolicy> policy = ResolvePluginPolicy(options);
  ASSERT_TRUE(policy.ok()) << policy.status();
  // The options' allowlist replaces the file's.
  EXPECT_EQ(policy->allowlist, (std::set<std::string>{"grpc"}));
  EXPECT_EQ(policy->allowlist_source, "--plugin-allow");
  // False in the options does not turn off the file's requirement.
  EXPECT_TRUE(policy->require_sha256);
  EXPECT_EQ(policy->require_sha256_source, "config file " + file);
  // Preferences are replaced per device type.
  EXPECT_EQ(policy->DescribePreference("GPU"), "--plugin-prefer GPU=other");
  EXPECT_EQ(policy->DescribePreference("NPU"), "config file " + file + " (NPU=npu-a)");
  EXPECT_EQ(policy->config_file, file);
}

TEST_F(PluginPolicyTest, OptionsWithoutSourceAreNamedTheOptions) {
  PluginPolicyOptions options = Isolated();
  options.require_sha256 = true;
  absl::StatusOr<PluginPolicy> policy = ResolvePluginPolicy(options);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy->require_sha256_source, "the options");
  options.NameSources("SessionOptions::plugin_policy");
  policy = ResolvePluginPolicy(options);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy->require_sha256_source, "SessionOptions::plugin_policy");
}

TEST_F(PluginPolicyTest, BadOptionsNameTheirSource) {
  PluginPolicyOptions options = Isolated();
  options.allowlist = std::set<std::string>{"Bad Name"};
  options.allowlist_source = "--plugin-allow";
  ExpectError(ResolvePluginPolicy(options).status(), absl::StatusCode::kInvalidArgument,
              "allowlist entry 'Bad Name' is not a plugin name ([a-z0-9_-]+) (from "
              "--plugin-allow)");
}

TEST_F(PluginPolicyTest, NoFileIsReadWhenFilesAreOff) {
  PluginPolicyOptions options = Isolated();
  options.system_config_file = Write("system.json", "not json");
  EXPECT_TRUE(ResolvePluginPolicy(options, /*read_files=*/false).ok());
  ExpectError(ResolvePluginPolicy(options).status(), absl::StatusCode::kInvalidArgument,
              "malformed JSON");
}

TEST_F(PluginPolicyTest, KeyDiffersForEverySetting) {
  PluginPolicyOptions a;
  PluginPolicyOptions b;
  EXPECT_EQ(a.Key(), b.Key());
  b.config_file = "x.json";
  EXPECT_NE(a.Key(), b.Key());
  b = a;
  b.allowlist = std::set<std::string>();
  EXPECT_NE(a.Key(), b.Key());
  b = a;
  b.require_sha256 = true;
  EXPECT_NE(a.Key(), b.Key());
  b = a;
  b.preferred_providers["GPU"] = "acme";
  EXPECT_NE(a.Key(), b.Key());
}

}  // namespace
}  // namespace tessera
