// Tests of manifest discovery: search order, de-duplication, and never the current directory.
#include "registry/discovery.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

class DiscoveryTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() / ("tessera_discovery_" + std::to_string(getpid()) + "_" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string Touch(const std::string& relative) {
    fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "{}";
    return path.string();
  }
  std::string Dir(const std::string& relative) {
    fs::create_directories(root_ / relative);
    return (root_ / relative).string();
  }

  // Options that see only what a test gives them.
  DiscoveryOptions Isolated() {
    DiscoveryOptions options;
    options.plugin_path_env = "";
    options.default_plugin_dir = "";
    return options;
  }

  fs::path root_;
};

TEST_F(DiscoveryTest, ListsManifestsSortedAndNotRecursively) {
  Touch("a/zeta.tessera-plugin.json");
  Touch("a/alpha.tessera-plugin.json");
  Touch("a/readme.json");
  Touch("a/libtessera_alpha.so");
  Touch("a/sub/deep.tessera-plugin.json");
  Dir("a/folder.tessera-plugin.json");
  EXPECT_EQ(ListManifests(Dir("a")),
            (std::vector<std::string>{(root_ / "a/alpha.tessera-plugin.json").string(),
                                      (root_ / "a/zeta.tessera-plugin.json").string()}));
  EXPECT_TRUE(ListManifests((root_ / "missing").string()).empty());
}

TEST_F(DiscoveryTest, SearchOrderIsExplicitThenEnvThenDefault) {
  const std::string file = Touch("explicit/one.tessera-plugin.json");
  Touch("explicit_dir/two.tessera-plugin.json");
  Touch("env1/three.tessera-plugin.json");
  Touch("env2/four.tessera-plugin.json");
  Touch("default/five.tessera-plugin.json");
  DiscoveryOptions options;
  options.explicit_paths = {file, Dir("explicit_dir")};
  options.plugin_path_env = Dir("env1") + ":" + Dir("env2");
  options.default_plugin_dir = Dir("default");
  absl::StatusOr<DiscoveryResult> result = DiscoverManifests(options);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<std::string> names;
  for (const std::string& path : result->manifest_paths) {
    names.push_back(fs::path(path).filename().string());
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"one.tessera-plugin.json", "two.tessera-plugin.json",
                                      "three.tessera-plugin.json", "four.tessera-plugin.json",
                                      "five.tessera-plugin.json"}));
  EXPECT_TRUE(result->warnings.empty());
}

TEST_F(DiscoveryTest, SameManifestReachedTwiceIsListedOnce) {
  const std::string file = Touch("p/one.tessera-plugin.json");
  fs::create_directory_symlink(root_ / "p", root_ / "link");
  DiscoveryOptions options = Isolated();
  options.explicit_paths = {file, Dir("p"), (root_ / "p/../p").string()};
  options.plugin_path_env = (root_ / "link").string() + ":" + Dir("p");
  options.default_plugin_dir = Dir("p");
  absl::StatusOr<DiscoveryResult> result = DiscoverManifests(options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->manifest_paths, std::vector<std::string>{file});
}

TEST_F(DiscoveryTest, ExplicitPathThatDoesNotExistIsNotFound) {
  DiscoveryOptions options = Isolated();
  options.explicit_paths = {(root_ / "nope").string()};
  absl::StatusOr<DiscoveryResult> result = DiscoverManifests(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(result.status().message().find("nope' does not exist (given explicitly)"),
            absl::string_view::npos);
}

TEST_F(DiscoveryTest, NeverSearchesTheCurrentDirectory) {
  // A manifest in the current directory and in a relative folder under it.
  const std::string cwd = Dir("cwd");
  Touch("cwd/trap.tessera-plugin.json");
  Touch("cwd/plugins/trap2.tessera-plugin.json");
  const fs::path previous = fs::current_path();
  fs::current_path(cwd);
  DiscoveryOptions options;
  options.plugin_path_env = ":.:plugins:./plugins:";
  options.default_plugin_dir = "";
  absl::StatusOr<DiscoveryResult> result = DiscoverManifests(options);
  options.default_plugin_dir = "plugins";
  absl::StatusOr<DiscoveryResult> relative_default = DiscoverManifests(options);
  fs::current_path(previous);

  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->manifest_paths.empty());
  ASSERT_EQ(result->warnings.size(), 5u);
  EXPECT_NE(result->warnings[0].find("TESSERA_PLUGIN_PATH: empty entry ignored"),
            std::string::npos);
  EXPECT_NE(result->warnings[1].find("relative entry '.' ignored (the current directory is never "
                                     "searched)"),
            std::string::npos);
  EXPECT_NE(result->warnings[2].find("relative entry 'plugins' ignored"), std::string::npos);
  ASSERT_TRUE(relative_default.ok());
  EXPECT_TRUE(relative_default->manifest_paths.empty());
  EXPECT_NE(relative_default->warnings.back().find(
                "default plugin folder 'plugins' is relative and was ignored"),
            std::string::npos);
}

TEST_F(DiscoveryTest, EnvEntryThatIsNotAFolderIsAWarning) {
  DiscoveryOptions options = Isolated();
  options.plugin_path_env = (root_ / "missing").string();
  absl::StatusOr<DiscoveryResult> result = DiscoverManifests(options);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_NE(result->warnings[0].find("missing' is not a folder"), std::string::npos);
}

TEST_F(DiscoveryTest, ReadsTheEnvironmentWhenNotGiven) {
  Touch("envdir/from_env.tessera-plugin.json");
  setenv(kPluginPathEnv, Dir("envdir").c_str(), 1);
  DiscoveryOptions options;
  options.default_plugin_dir = "";
  absl::StatusOr<DiscoveryResult> result = DiscoverManifests(options);
  unsetenv(kPluginPathEnv);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->manifest_paths.size(), 1u);
  EXPECT_NE(result->manifest_paths[0].find("from_env"), std::string::npos);
}

TEST_F(DiscoveryTest, DefaultFolderIsBesideTheProgram) {
  const fs::path exe = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(DefaultPluginDir(),
            (exe.parent_path() / ".." / "lib/tessera/plugins").lexically_normal().string());
}

}  // namespace
}  // namespace tessera
