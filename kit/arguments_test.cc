// ParseArguments: every option, and a clear error for each kind of bad command line.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Parse(const std::vector<std::string>& args, CheckOptions* options = nullptr,
                  bool* json = nullptr) {
  CheckOptions local_options;
  bool local_json = false;
  return ParseArguments(args, options != nullptr ? options : &local_options,
                        json != nullptr ? json : &local_json);
}

TEST(ParseArgumentsTest, ReadsEveryOption) {
  CheckOptions options;
  bool json = false;
  EXPECT_EQ(Parse({"--plugin", "/p/acme.tessera-plugin.json", "--suite=device,abi,device",
                   "--device", "NPU", "--support", "/a", "--support=/b", "--seed", "42",
                   "--large-allocation-bytes=1048576", "--tls-data-dir", "/tls", "--json"},
                  &options, &json),
            "");
  EXPECT_EQ(options.plugin_path, "/p/acme.tessera-plugin.json");
  EXPECT_THAT(options.suites, ElementsAre("device", "abi"));
  EXPECT_EQ(options.device_type, "NPU");
  EXPECT_THAT(options.support_plugin_paths, ElementsAre("/a", "/b"));
  EXPECT_EQ(options.seed, 42u);
  EXPECT_EQ(options.large_allocation_bytes, 1048576u);
  EXPECT_EQ(options.transport_tls_dir, "/tls");
  EXPECT_TRUE(json);
}

TEST(ParseArgumentsTest, DefaultsRunEverySuite) {
  CheckOptions options;
  bool json = true;
  EXPECT_EQ(Parse({"--plugin", "x"}, &options, &json), "");
  EXPECT_TRUE(options.suites.empty());
  EXPECT_FALSE(json);
  EXPECT_EQ(options.seed, 1u);
}

TEST(ParseArgumentsTest, RejectsBadCommandLines) {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const Case cases[] = {
      {{"--plugin", "x", "--suite", "device,gpu"},
       "--suite: unknown suite 'gpu' (expected a comma-separated list of device, kernels, "
       "transport, abi)"},
      {{"--plugin", "x", "--suite="}, "--suite needs a non-empty value"},
      {{"--plugin", "x", "--verbose"}, "unknown option '--verbose'"},
      {{"--plugin"}, "--plugin needs a value"},
      {{"--suite", "abi"}, "--plugin PATH is required"},
      {{"--plugin", "x", "--plugin", "y"}, "--plugin given twice ('x' and 'y')"},
      {{"--plugin", "x", "--device", "gpu"}, "--device: 'gpu' is not a device type name"},
      {{"--plugin", "x", "--seed", "-3"}, "--seed: '-3' is not a non-negative integer"},
      {{"--plugin", "x", "--large-allocation-bytes", "0"},
       "--large-allocation-bytes: '0' is not a positive integer"},
      {{"--plugin", "x", "--json=yes"}, "--json takes no value"},
      {{"x.tessera-plugin.json"}, "unexpected argument 'x.tessera-plugin.json'"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(Parse(c.args), HasSubstr(c.expected));
  }
}

TEST(ParseArgumentsTest, UsageNamesEveryOption) {
  for (const char* option : {"--plugin", "--suite", "--device", "--support", "--seed",
                             "--large-allocation-bytes", "--json", "Exit status"}) {
    EXPECT_THAT(UsageText(), HasSubstr(option));
  }
}

}  // namespace
}  // namespace tessera::plugin_check
