// RunTransportSuite against a broken fake transport (it must fail exactly the cases that move a
// tensor over 1 KiB, naming the sizes), against the build's gRPC and loopback transports (no
// failure), and the case runner's bounds on waits and on whole cases.
#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kit/suite.h"
#include "kit/transport_cases.h"
#include "registry/plugin_registry.h"

namespace tessera::plugin_check {

// For gtest's messages (found by argument-dependent lookup).
static void PrintTo(Outcome outcome, std::ostream* os) {
  *os << (outcome == Outcome::kPass ? "pass" : outcome == Outcome::kFail ? "fail" : "skip");
}

namespace {

using ::testing::HasSubstr;

std::unique_ptr<PluginRegistry> MakeRegistry(std::vector<std::string> paths) {
  RegistryOptions options;
  options.plugin_paths = std::move(paths);
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  EXPECT_TRUE(registry.ok()) << registry.status();
  return registry.ok() ? std::move(*registry) : nullptr;
}

// The suite's results for plugin `plugin_name` of `registry`, by case name.
std::map<std::string, CaseResult> RunSuite(const PluginRegistry& registry,
                                           const std::string& plugin_name,
                                           const CheckOptions& options = {}) {
  std::map<std::string, CaseResult> by_name;
  const PluginRecord* plugin = registry.FindRecord(plugin_name);
  EXPECT_NE(plugin, nullptr) << plugin_name;
  if (plugin == nullptr) return by_name;
  SuiteContext context;
  context.options = &options;
  context.registry = &registry;
  context.plugin = plugin;
  std::vector<CaseResult> results;
  RunTransportSuite(context, &results);
  for (CaseResult& result : results) {
    EXPECT_EQ(result.suite, "transport");
    by_name[result.name] = std::move(result);
  }
  return by_name;
}

TEST(TransportSuiteTest, CatchesATransportThatDropsTheLastByteOfLargeTensors) {
  std::unique_ptr<PluginRegistry> registry = MakeRegistry({TESSERA_KIT_FAKES_DIR});
  ASSERT_NE(registry, nullptr);
  const std::map<std::string, CaseResult> results =
      RunSuite(*registry, "fake_lossy_transport");
  ASSERT_EQ(results.size(), TransportCases().size());

  const std::set<std::string> expected_failures = {
      "lossy/recv_tensor_large", "lossy/recv_tensor_byte_size", "lossy/recv_tensor_string",
      "lossy/concurrent_calls_and_pulls"};
  for (const auto& [name, result] : results) {
    if (expected_failures.count(name) != 0) {
      EXPECT_EQ(result.outcome, Outcome::kFail) << name;
      EXPECT_THAT(result.message, HasSubstr(name + ": "));
    } else {
      EXPECT_NE(result.outcome, Outcome::kFail) << result.message;
    }
  }
  // 4096 x 4096 floats, one byte short.
  EXPECT_THAT(results.at("lossy/recv_tensor_large").message, HasSubstr("67108863"));
  EXPECT_THAT(results.at("lossy/recv_tensor_byte_size").message,
              HasSubstr("'bool_2048': allocate was given byte_size 2047, expected 2048"));
  EXPECT_THAT(results.at("lossy/recv_tensor_string").message,
              HasSubstr("received 3064 bytes, expected 3065"));
  EXPECT_THAT(results.at("lossy/concurrent_calls_and_pulls").message,
              HasSubstr("a pull of 'large'"));
  EXPECT_EQ(results.at("lossy/call_roundtrip").outcome, Outcome::kPass);
  EXPECT_EQ(results.at("lossy/recv_tensor_float").outcome, Outcome::kPass);
  EXPECT_EQ(results.at("lossy/tls_mutual").outcome, Outcome::kSkip);
  EXPECT_THAT(results.at("lossy/tls_mutual").message,
              HasSubstr("transport 'lossy' has no TLS capability"));
}

TEST(TransportSuiteTest, GrpcAndLoopbackPassWithoutFailures) {
  std::unique_ptr<PluginRegistry> registry =
      MakeRegistry({TESSERA_PLUGIN_DIR, TESSERA_LOOPBACK_PLUGIN_DIR});
  ASSERT_NE(registry, nullptr);
  for (const char* plugin : {"grpc", "loopback"}) {
    // No transport_tls_dir: the certificates are found beside the program, as installed.
    const std::map<std::string, CaseResult> results = RunSuite(*registry, plugin);
    EXPECT_EQ(results.size(), TransportCases().size()) << plugin;
    int passed = 0;
    for (const auto& [name, result] : results) {
      EXPECT_NE(result.outcome, Outcome::kFail) << result.message;
      if (result.outcome == Outcome::kPass) ++passed;
    }
    EXPECT_GT(passed, 20) << plugin;
  }
}

TEST(TransportSuiteTest, TlsCasesSkipWithoutTheCertificates) {
  std::unique_ptr<PluginRegistry> registry = MakeRegistry({TESSERA_PLUGIN_DIR});
  ASSERT_NE(registry, nullptr);
  const TransportSpec* grpc = registry->FindTransport("grpc");
  ASSERT_NE(grpc, nullptr);
  TransportCaseOptions options;
  options.tls_missing_reason = "the kit's TLS test certificates are not in '/nowhere'";
  for (const TransportCase& transport_case : TransportCases()) {
    if (std::string(transport_case.name).rfind("tls_", 0) != 0) continue;
    const CaseResult result = RunTransportCase(
        PluginTransport::Create(*grpc, registry->host_api()), transport_case, options);
    EXPECT_EQ(result.outcome, Outcome::kSkip) << result.name;
    EXPECT_THAT(result.message, HasSubstr("not in '/nowhere'"));
  }
}

TEST(TransportSuiteTest, PluginWithoutTransportsSkipsTheSuite) {
  std::unique_ptr<PluginRegistry> registry = MakeRegistry({TESSERA_LOOPBACK_PLUGIN_DIR});
  ASSERT_NE(registry, nullptr);
  PluginRecord other;
  other.name = "no-transports";
  SuiteContext context;
  const CheckOptions options;
  context.options = &options;
  context.registry = registry.get();
  context.plugin = &other;
  std::vector<CaseResult> results;
  RunTransportSuite(context, &results);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kSkip);
  EXPECT_THAT(results[0].message, HasSubstr("plugin 'no-transports' registers no transport"));
}

// ---- The runner's bounds ---------------------------------------------------------------------

std::shared_ptr<PluginTransport> Loopback(const PluginRegistry& registry) {
  const TransportSpec* spec = registry.FindTransport("loopback");
  return spec == nullptr ? nullptr : PluginTransport::Create(*spec, registry.host_api());
}

TEST(TransportSuiteTest, UnansweredCallFailsAfterTheWaitBound) {
  std::unique_ptr<PluginRegistry> registry = MakeRegistry({TESSERA_LOOPBACK_PLUGIN_DIR});
  ASSERT_NE(registry, nullptr);
  std::shared_ptr<PluginTransport> loopback = Loopback(*registry);
  ASSERT_NE(loopback, nullptr);
  const TransportCase held_call = {"held_call", [](CaseRun& run) {
                                     TestHandler handler;
                                     handler.hold = true;
                                     auto server = run.Listen(&handler);
                                     auto channel = run.Connect(server->address());
                                     auto call = StartCall(*channel, "Worker/RunGraph", "");
                                     run.Done(call, "call 'Worker/RunGraph'");
                                   }};
  TransportCaseOptions options;
  options.wait_bound = absl::Milliseconds(100);
  const CaseResult result = RunTransportCase(loopback, held_call, options);
  EXPECT_EQ(result.outcome, Outcome::kFail);
  EXPECT_EQ(result.name, "loopback/held_call");
  EXPECT_THAT(result.message,
              HasSubstr("loopback/held_call: call 'Worker/RunGraph' did not complete within 100ms"));
}

TEST(TransportSuiteTest, CaseThatDoesNotFinishFailsAsHung) {
  std::unique_ptr<PluginRegistry> registry = MakeRegistry({TESSERA_LOOPBACK_PLUGIN_DIR});
  ASSERT_NE(registry, nullptr);
  std::shared_ptr<PluginTransport> loopback = Loopback(*registry);
  ASSERT_NE(loopback, nullptr);
  const TransportCase stuck = {"stuck", [](CaseRun&) {
                                 std::this_thread::sleep_for(std::chrono::milliseconds(500));
                               }};
  TransportCaseOptions options;
  options.case_bound = absl::Milliseconds(50);
  bool hung = false;
  const CaseResult result = RunTransportCase(loopback, stuck, options, &hung);
  EXPECT_TRUE(hung);
  EXPECT_EQ(result.outcome, Outcome::kFail);
  EXPECT_THAT(result.message, HasSubstr("loopback/stuck: did not finish within 50ms"));
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // the abandoned case ends
}

TEST(TransportSuiteTest, CaseThatThrowsFails) {
  std::unique_ptr<PluginRegistry> registry = MakeRegistry({TESSERA_LOOPBACK_PLUGIN_DIR});
  ASSERT_NE(registry, nullptr);
  std::shared_ptr<PluginTransport> loopback = Loopback(*registry);
  ASSERT_NE(loopback, nullptr);
  const TransportCase throws = {"throws",
                                [](CaseRun&) { throw std::runtime_error("out of luck"); }};
  const CaseResult result = RunTransportCase(loopback, throws, {});
  EXPECT_EQ(result.outcome, Outcome::kFail);
  EXPECT_THAT(result.message, HasSubstr("loopback/throws: threw out of luck"));
}

}  // namespace
}  // namespace tessera::plugin_check
