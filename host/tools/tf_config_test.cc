// Tests of the TF_CONFIG reader: TensorFlow's format, the keys it ignores, and every error.
#include "host/tools/tf_config.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace cli {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TfConfig MustParse(absl::string_view json) {
  absl::StatusOr<TfConfig> config = ParseTfConfig(json);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : TfConfig();
}

// The message of a TF_CONFIG error; fails the test unless the code is INVALID_ARGUMENT.
std::string Error(absl::string_view json) {
  absl::StatusOr<TfConfig> config = ParseTfConfig(json);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument) << json;
  return std::string(config.status().message());
}

// A TF_CONFIG with this "task" in a cluster of two workers and one ps.
std::string WithTask(absl::string_view task) {
  return absl::StrCat(R"({"cluster": {"worker": ["w0:2222", "w1:2222"], "ps": ["p0:2222"]},)",
                      R"( "task": )", task, "}");
}

TEST(TfConfigTest, ChiefWorkersAndPs) {
  const std::string cluster =
      R"("cluster": {"chief": ["chief-0.tf:2222"], "worker": ["worker-0.tf:2222",)"
      R"( "worker-1.tf:2222"], "ps": ["ps-0.tf:2222", "[::1]:2223"]})";
  TfConfig worker =
      MustParse(absl::StrCat("{", cluster, R"(, "task": {"type": "worker", "index": 1}})"));
  EXPECT_THAT(worker.cluster.jobs(),
              ElementsAre(Pair("chief", ElementsAre("chief-0.tf:2222")),
                          Pair("ps", ElementsAre("ps-0.tf:2222", "[::1]:2223")),
                          Pair("worker", ElementsAre("worker-0.tf:2222", "worker-1.tf:2222"))));
  EXPECT_EQ(worker.job, "worker");
  EXPECT_EQ(worker.task, 1);

  TfConfig chief =
      MustParse(absl::StrCat("{", cluster, R"(, "task": {"type": "chief", "index": 0}})"));
  EXPECT_EQ(chief.job, "chief");
  EXPECT_EQ(chief.task, 0);
  TfConfig ps = MustParse(absl::StrCat(R"({"task": {"index": 1, "type": "ps"}, )", cluster, "}"));
  EXPECT_EQ(ps.job, "ps");
  EXPECT_EQ(ps.task, 1);
  EXPECT_EQ(ps.cluster.ToString(), worker.cluster.ToString());
}

TEST(TfConfigTest, IgnoresOtherKeys) {
  TfConfig config = MustParse(
      R"({"cluster": {"worker": ["w0:2222"]}, "environment": "cloud", "rpc_layer": "grpc",)"
      R"( "task": {"type": "worker", "index": 0, "trial": "7"}, "anything": [1, {}]})");
  EXPECT_EQ(config.cluster.ToString(), "worker=w0:2222");
  EXPECT_EQ(config.job, "worker");
  EXPECT_EQ(config.task, 0);
  // Whitespace and newlines, as a YAML block scalar leaves them.
  EXPECT_EQ(MustParse("\n  {\"cluster\":\n {\"worker\": [\"w0:1\", \"w1:1\"]},\n \"task\": "
                      "{\"type\": \"worker\", \"index\": 1}}\n")
                .task,
            1);
}

TEST(TfConfigErrorTest, NotAJsonObject) {
  EXPECT_EQ(Error("cluster=worker"),
            "TF_CONFIG: malformed JSON: parse error at line 1, column 1: syntax error while "
            "parsing value - invalid literal; last read: 'c'");
  EXPECT_EQ(Error(R"({"cluster": {"worker": ["w0:2222"]})"),
            "TF_CONFIG: malformed JSON: parse error at line 1, column 36: syntax error while "
            "parsing object - unexpected end of input; expected '}'");
  for (const char* json : {"[]", "\"x\"", "null", "2"}) {
    EXPECT_EQ(Error(json), absl::StrCat(R"(TF_CONFIG: expected a JSON object such as )"
                                        R"({"cluster": {"worker": ["host0:2222", "host1:2222"]},)"
                                        R"( "task": {"type": "worker", "index": 0}}, got )",
                                        json));
  }
}

TEST(TfConfigErrorTest, Cluster) {
  EXPECT_EQ(Error(R"({"task": {"type": "worker", "index": 0}})"),
            R"(TF_CONFIG: no "cluster" (the address of every task, job by job, e.g. "cluster": )"
            R"({"worker": ["host0:2222", "host1:2222"]}))");
  EXPECT_EQ(Error(R"({"cluster": ["w0:2222"], "task": {"type": "worker", "index": 0}})"),
            R"(TF_CONFIG: cluster: expected an object of jobs such as {"worker": )"
            R"(["host0:2222"]}, got ["w0:2222"])");
  EXPECT_EQ(Error(R"({"cluster": {"worker": "w0:2222"}, "task": {"type": "worker", "index": 0}})"),
            R"(TF_CONFIG: cluster.worker: expected an array of "host:port" strings, got )"
            R"("w0:2222")");
  // TensorFlow's sparse jobs (task index -> address) are not taken.
  EXPECT_EQ(Error(R"({"cluster": {"worker": {"1": "w1:2222"}}, "task": {"type": "worker",)"
                  R"( "index": 1}})"),
            R"(TF_CONFIG: cluster.worker: expected an array of "host:port" strings, got )"
            R"({"1":"w1:2222"})");
  EXPECT_EQ(Error(R"({"cluster": {"worker": ["w0:2222", 2222]}, "task": {"type": "worker",)"
                  R"( "index": 0}})"),
            R"(TF_CONFIG: cluster.worker[1]: expected a "host:port" string, got 2222)");
  EXPECT_EQ(Error(R"({"cluster": {"worker": ["w0:2222", null]}, "task": {"type": "worker",)"
                  R"( "index": 0}})"),
            R"(TF_CONFIG: cluster.worker[1]: expected a "host:port" string, got null)");
}

// The cluster's own rules are ClusterSpec's, and so are their messages.
TEST(TfConfigErrorTest, ClusterRules) {
  EXPECT_EQ(Error(R"({"cluster": {}, "task": {"type": "worker", "index": 0}})"),
            "TF_CONFIG: cluster: the cluster has no job");
  EXPECT_EQ(Error(R"({"cluster": {"worker": []}, "task": {"type": "worker", "index": 0}})"),
            "TF_CONFIG: cluster: job 'worker' has no task");
  EXPECT_EQ(Error(R"({"cluster": {"Worker": ["w0:2222"]}, "task": {"type": "Worker",)"
                  R"( "index": 0}})"),
            "TF_CONFIG: cluster: invalid job name 'Worker'; a job name is a lower-case letter, "
            "then lower-case letters, digits or '_'");
  EXPECT_EQ(Error(R"({"cluster": {"worker": ["w0:2222", "grpc://w1:2222"]}, "task": {"type":)"
                  R"( "worker", "index": 0}})"),
            "TF_CONFIG: cluster: task 1 of job 'worker' has address 'grpc://w1:2222'; expected "
            "host:port with a port in 1..65535");
  EXPECT_EQ(Error(R"({"cluster": {"worker": ["w0:2222"], "ps": ["w0:2222"]}, "task": {"type":)"
                  R"( "worker", "index": 0}})"),
            "TF_CONFIG: cluster: address 'w0:2222' is used by both /job:ps/replica:0/task:0 and "
            "/job:worker/replica:0/task:0");
}

TEST(TfConfigErrorTest, Task) {
  EXPECT_EQ(Error(R"({"cluster": {"worker": ["w0:2222"]}})"),
            R"(TF_CONFIG: no "task" (this task's job and index in the cluster, e.g. "task": )"
            R"({"type": "worker", "index": 0}))");
  EXPECT_EQ(Error(WithTask(R"("worker")")),
            R"(TF_CONFIG: task: expected an object such as {"type": "worker", "index": 0}, got )"
            R"("worker")");
  EXPECT_EQ(Error(WithTask(R"({"index": 0})")),
            R"(TF_CONFIG: task has no "type" (the job of this task, e.g. "worker"))");
  EXPECT_EQ(Error(WithTask(R"({"type": ["worker"], "index": 0})")),
            R"(TF_CONFIG: task.type: expected a job name, got ["worker"])");
  EXPECT_EQ(Error(WithTask(R"({"type": "worker"})")),
            R"(TF_CONFIG: task has no "index" (the index of this task in its job, e.g. 0))");
  for (const char* index : {"-1", "1.0", "\"1\"", "null", "true", "2147483648"}) {
    EXPECT_EQ(Error(WithTask(absl::StrCat(R"({"type": "worker", "index": )", index, "}"))),
              absl::StrCat("TF_CONFIG: task.index: expected an integer >= 0, got ", index))
        << index;
  }
}

// TensorFlow's rule: the task is one of the cluster's.
TEST(TfConfigErrorTest, TaskNotInTheCluster) {
  EXPECT_EQ(Error(WithTask(R"({"type": "chief", "index": 0})")),
            "TF_CONFIG: task.type: no job 'chief' in the cluster (jobs: ps, worker)");
  EXPECT_EQ(Error(WithTask(R"({"type": "worker", "index": 2})")),
            "TF_CONFIG: task.index: no task 2 in job 'worker', which has 2 tasks");
  EXPECT_EQ(Error(WithTask(R"({"type": "ps", "index": 1})")),
            "TF_CONFIG: task.index: no task 1 in job 'ps', which has 1 task");
}

TEST(TfConfigErrorTest, LongValuesAreCut) {
  const std::string long_address(80, 'a');
  EXPECT_EQ(Error(absl::StrCat(R"({"cluster": {"worker": [["w0:2222", ")", long_address,
                               R"("]]}, "task": {"type": "worker", "index": 0}})")),
            absl::StrCat(R"(TF_CONFIG: cluster.worker[0]: expected a "host:port" string, got )",
                         R"(["w0:2222",")", std::string(45, 'a'), "..."));
}

}  // namespace
}  // namespace cli
}  // namespace tessera
