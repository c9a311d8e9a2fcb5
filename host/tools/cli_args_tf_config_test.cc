// Tests of `tessera serve` with TF_CONFIG: the cluster, job and task taken from it, options
// replacing its parts, and its errors as usage errors.
#include <stdlib.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/tools/cli_args.h"

namespace tessera {
namespace cli {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// Two workers, a ps and a chief; this task is worker 1.
constexpr char kTfConfig[] =
    R"({"cluster": {"chief": ["chief-0:2222"], "worker": ["worker-0:2222", "worker-1:2222"],)"
    R"( "ps": ["ps-0:2222"]}, "environment": "cloud",)"
    R"( "task": {"type": "worker", "index": 1, "trial": "3"}})";

ServeArgs Serve(const std::vector<std::string>& options, const std::string& tf_config) {
  std::vector<std::string> args = {"serve"};
  args.insert(args.end(), options.begin(), options.end());
  CliEnvironment environment;
  environment.tf_config = tf_config;
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args, environment);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->serve : ServeArgs();
}

// The usage error's message; fails the test unless the code is INVALID_ARGUMENT.
std::string ServeError(const std::vector<std::string>& options, const std::string& tf_config) {
  std::vector<std::string> args = {"serve"};
  args.insert(args.end(), options.begin(), options.end());
  CliEnvironment environment;
  environment.tf_config = tf_config;
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args, environment);
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

TEST(ServeTfConfigTest, ClusterJobAndTaskFromTfConfig) {
  ServeArgs serve = Serve({"--transport", "rdma", "--cpu-devices", "2"}, kTfConfig);
  EXPECT_THAT(
      serve.cluster.jobs(),
      ElementsAre(Pair("chief", ElementsAre("chief-0:2222")), Pair("ps", ElementsAre("ps-0:2222")),
                  Pair("worker", ElementsAre("worker-0:2222", "worker-1:2222"))));
  EXPECT_EQ(serve.job, "worker");
  EXPECT_EQ(serve.task, 1);
  // The rest of the command line is as without TF_CONFIG.
  EXPECT_EQ(serve.transport, "rdma");
  EXPECT_THAT(serve.device_count, ElementsAre(Pair("CPU", 2)));

  const std::string cluster = R"("cluster": {"chief": ["c:1"], "worker": ["w:1"], "ps": ["p:1"]})";
  for (const char* job : {"chief", "worker", "ps"}) {
    ServeArgs task =
        Serve({}, absl::StrCat("{", cluster, R"(, "task": {"type": ")", job, R"(", "index": 0}})"));
    EXPECT_EQ(task.job, job);
    EXPECT_EQ(task.task, 0);
    EXPECT_EQ(task.cluster.ToString(), "chief=c:1;ps=p:1;worker=w:1");
  }
}

TEST(ServeTfConfigTest, OptionsReplaceTheirParts) {
  ServeArgs task = Serve({"--task", "0"}, kTfConfig);
  EXPECT_EQ(task.job, "worker");
  EXPECT_EQ(task.task, 0);

  ServeArgs job = Serve({"--job=ps", "--task=0"}, kTfConfig);
  EXPECT_EQ(job.job, "ps");
  EXPECT_EQ(job.task, 0);
  EXPECT_THAT(job.cluster.jobs(), ElementsAre(Pair("chief", _), Pair("ps", _), Pair("worker", _)));

  // --cluster replaces the addresses; the job and task still come from TF_CONFIG.
  ServeArgs cluster = Serve({"--cluster", "worker=10.0.0.1:2222,10.0.0.2:2222"}, kTfConfig);
  EXPECT_EQ(cluster.cluster.ToString(), "worker=10.0.0.1:2222,10.0.0.2:2222");
  EXPECT_EQ(cluster.job, "worker");
  EXPECT_EQ(cluster.task, 1);

  // Without --task, the task is TF_CONFIG's, not 0.
  EXPECT_EQ(Serve({"--cluster", "worker=a:1,a:2", "--job", "worker"}, kTfConfig).task, 1);
}

TEST(ServeTfConfigTest, AllThreeOptionsLeaveTfConfigUnread) {
  ServeArgs serve = Serve({"--cluster", "ps=a:1", "--job", "ps", "--task", "0"}, "not JSON");
  EXPECT_EQ(serve.cluster.ToString(), "ps=a:1");
  EXPECT_EQ(serve.job, "ps");
  EXPECT_EQ(serve.task, 0);
}

TEST(ServeTfConfigTest, EmptyTfConfigIsUnset) {
  EXPECT_EQ(ServeError({}, ""),
            "tessera serve: missing --cluster (e.g. --cluster "
            "'worker=localhost:2222,localhost:2223') and TF_CONFIG is not set; see 'tessera "
            "serve --help'");
  EXPECT_EQ(Serve({"--cluster", "worker=a:1", "--job", "worker"}, "").task, 0);
}

TEST(ServeTfConfigTest, ReadsTheProcessEnvironment) {
  ASSERT_EQ(setenv("TF_CONFIG", kTfConfig, 1), 0);
  EXPECT_EQ(CliEnvironment::FromProcess().tf_config, kTfConfig);
  absl::StatusOr<CliArgs> parsed = ParseCliArgs({"serve"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->serve.job, "worker");
  EXPECT_EQ(parsed->serve.task, 1);
  ASSERT_EQ(unsetenv("TF_CONFIG"), 0);
  EXPECT_EQ(CliEnvironment::FromProcess().tf_config, "");
}

TEST(ServeTfConfigTest, UsageTextExplainsTfConfig) {
  for (const char* text :
       {"TF_CONFIG='{\"cluster\": {\"worker\": [\"host0:2222\", \"host1:2222\"]",
        "Each of the three options given\nreplaces its part of TF_CONFIG",
        "with all three given,\nTF_CONFIG is not read", "(default: TF_CONFIG's task.type)"}) {
    EXPECT_THAT(CommandUsage("serve"), HasSubstr(text));
  }
}

// ---- Errors ----------------------------------------------------------------------------------

// TF_CONFIG's own errors (tf_config_test.cc has every one) are usage errors of serve.
TEST(ServeTfConfigErrorTest, TfConfigErrorsAreUsageErrors) {
  EXPECT_EQ(ServeError({}, "{"),
            "tessera serve: TF_CONFIG: malformed JSON: parse error at line 1, column 2: syntax "
            "error while parsing object key - unexpected end of input; expected string literal");
  EXPECT_EQ(ServeError({}, R"({"task": {"type": "worker", "index": 0}})"),
            R"(tessera serve: TF_CONFIG: no "cluster" (the address of every task, job by job, )"
            R"(e.g. "cluster": {"worker": ["host0:2222", "host1:2222"]}))");
  EXPECT_EQ(ServeError({}, R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "worker"}})"),
            R"(tessera serve: TF_CONFIG: task has no "index" (the index of this task in its job, )"
            R"(e.g. 0))");
}

// Once read, TF_CONFIG must be valid whole, even in the parts that options replace.
TEST(ServeTfConfigErrorTest, TfConfigIsCheckedWhole) {
  const std::string out_of_range =
      R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "worker", "index": 1}})";
  EXPECT_EQ(ServeError({"--task", "0"}, out_of_range),
            "tessera serve: TF_CONFIG: task.index: no task 1 in job 'worker', which has 1 task");
  EXPECT_EQ(ServeError({"--cluster", "worker=a:1,a:2", "--job", "worker"}, out_of_range),
            "tessera serve: TF_CONFIG: task.index: no task 1 in job 'worker', which has 1 task");
  EXPECT_EQ(ServeError({"--cluster", "worker=a:1", "--task", "0"},
                       R"({"cluster": {"worker": ["w:1", 2]}, "task": {"type": "worker",)"
                       R"( "index": 0}})"),
            R"(tessera serve: TF_CONFIG: cluster.worker[1]: expected a "host:port" string, got 2)");
}

// A part that does not fit the others: the message names where that part came from.
TEST(ServeTfConfigErrorTest, PartsThatDoNotFit) {
  EXPECT_EQ(ServeError({"--cluster", "ps=a:1"}, kTfConfig),
            "tessera serve: TF_CONFIG: task.type: no job 'worker' in the cluster (jobs: ps)");
  EXPECT_EQ(ServeError({"--job", "ps"}, kTfConfig),
            "tessera serve: TF_CONFIG: task.index: no task 1 in job 'ps', which has 1 task");
  EXPECT_EQ(ServeError({"--job", "evaluator"}, kTfConfig),
            "tessera serve: --job: no job 'evaluator' in the cluster (jobs: chief, ps, worker)");
  EXPECT_EQ(ServeError({"--task", "2"}, kTfConfig),
            "tessera serve: --task: no task 2 in job 'worker', which has 2 tasks");
}

// Option errors come first, and the checks after TF_CONFIG still run.
TEST(ServeTfConfigErrorTest, OtherErrorsStay) {
  EXPECT_EQ(ServeError({"--task", "x"}, "not JSON"),
            "tessera serve: --task expects a task index >= 0, got 'x'");
  EXPECT_EQ(ServeError({"--tls-cert", "c.pem"}, kTfConfig),
            "tessera serve: --tls-cert needs --tls-key (the certificate's private key)");
}

}  // namespace
}  // namespace cli
}  // namespace tessera
