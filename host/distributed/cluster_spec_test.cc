// Tests of ClusterSpec: parsing, every parse error, task names and the lookups.
#include "host/distributed/cluster_spec.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

ClusterSpec MustParse(absl::string_view spec) {
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::Parse(spec);
  EXPECT_TRUE(cluster.ok()) << cluster.status();
  return cluster.ok() ? *cluster : ClusterSpec();
}

// The message of a parse error; fails the test unless the code is INVALID_ARGUMENT.
std::string ParseError(absl::string_view spec) {
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::Parse(spec);
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kInvalidArgument) << spec;
  return std::string(cluster.status().message());
}

template <typename T>
std::string LookupError(const absl::StatusOr<T>& result) {
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(result.status().message());
}

TEST(ClusterSpecTest, ParsesJobsAndTasksInOrder) {
  ClusterSpec cluster = MustParse("worker=localhost:2222,localhost:2223;ps=localhost:2224");
  EXPECT_THAT(cluster.jobs(),
              ElementsAre(Pair("ps", ElementsAre("localhost:2224")),
                          Pair("worker", ElementsAre("localhost:2222", "localhost:2223"))));
}

TEST(ClusterSpecTest, AcceptsWhitespaceAndEveryHostForm) {
  ClusterSpec cluster =
      MustParse(" worker = 127.0.0.1:1 , [::1]:65535 ; ps_2=my-host.example_1:80\n");
  EXPECT_THAT(cluster.jobs(),
              ElementsAre(Pair("ps_2", ElementsAre("my-host.example_1:80")),
                          Pair("worker", ElementsAre("127.0.0.1:1", "[::1]:65535"))));
}

TEST(ClusterSpecTest, DefaultIsEmpty) {
  ClusterSpec cluster;
  EXPECT_TRUE(cluster.jobs().empty());
  EXPECT_TRUE(cluster.TaskNames().empty());
  EXPECT_EQ(cluster.ToString(), "");
  EXPECT_EQ(LookupError(cluster.TaskAddress("worker", 0)),
            "no job 'worker' in the cluster (jobs: none)");
}

TEST(ClusterSpecTest, TaskNamesSortJobsByName) {
  ClusterSpec cluster = MustParse("worker=a:1,a:2;ps=b:1;chief=c:1");
  EXPECT_THAT(cluster.TaskNames(),
              ElementsAre("/job:chief/replica:0/task:0", "/job:ps/replica:0/task:0",
                          "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"));
}

TEST(ClusterSpecTest, ToStringRoundTrips) {
  ClusterSpec cluster = MustParse("worker=a:1, a:2 ;ps=b:1");
  EXPECT_EQ(cluster.ToString(), "ps=b:1;worker=a:1,a:2");
  EXPECT_EQ(MustParse(cluster.ToString()).jobs(), cluster.jobs());
}

TEST(ClusterSpecTest, TaskAddress) {
  ClusterSpec cluster = MustParse("worker=a:1,a:2;ps=b:1");
  EXPECT_EQ(*cluster.TaskAddress("worker", 1), "a:2");
  EXPECT_EQ(*cluster.TaskAddress("ps", 0), "b:1");
  EXPECT_EQ(LookupError(cluster.TaskAddress("chief", 0)),
            "no job 'chief' in the cluster (jobs: ps, worker)");
  EXPECT_EQ(LookupError(cluster.TaskAddress("worker", 2)),
            "no task 2 in job 'worker', which has 2 tasks");
  EXPECT_EQ(LookupError(cluster.TaskAddress("ps", -1)), "no task -1 in job 'ps', which has 1 task");
}

TEST(ClusterSpecTest, TaskNameOfNeedsNoCluster) {
  EXPECT_EQ(*TaskNameOf("/job:ps/replica:0/task:0/device:CPU:0"), "/job:ps/replica:0/task:0");
  EXPECT_EQ(*TaskNameOf("/job:chief/task:3"), "/job:chief/replica:0/task:3");
  absl::StatusOr<std::string> task = TaskNameOf("/device:CPU:0");
  EXPECT_EQ(task.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(task.status().message()), HasSubstr("'/device:CPU:0' names no task"));
  task = TaskNameOf("/job:ps/replica:2/task:0");
  EXPECT_EQ(task.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(task.status().message()), HasSubstr("names replica 2"));
}

TEST(ClusterSpecTest, TaskOfDeviceAndTaskNames) {
  ClusterSpec cluster = MustParse("worker=a:1,a:2;ps=b:1");
  EXPECT_EQ(*cluster.TaskOf("/job:ps/replica:0/task:0/device:CPU:0"), "/job:ps/replica:0/task:0");
  EXPECT_EQ(*cluster.TaskOf("/job:worker/replica:0/task:1"), "/job:worker/replica:0/task:1");
  EXPECT_EQ(*cluster.TaskOf("/job:worker/task:1/device:CPU:3"), "/job:worker/replica:0/task:1");
  EXPECT_EQ(*cluster.TaskOf("/job:worker/replica:0/task:0/cpu:0"), "/job:worker/replica:0/task:0");
  EXPECT_EQ(*cluster.AddressOf("/job:worker/replica:0/task:1"), "a:2");
  EXPECT_EQ(*cluster.AddressOf("/job:ps/replica:0/task:0/device:CPU:0"), "b:1");
}

TEST(ClusterSpecTest, TaskOfRejectsNamesWithoutATask) {
  ClusterSpec cluster = MustParse("worker=a:1,a:2");
  constexpr char kExpected[] =
      "names no task: expected /job:NAME/replica:0/task:N, optionally followed by "
      "/device:TYPE:N";
  for (const char* name :
       {"", "/device:CPU:0", "job:worker/task:0", "/job:worker", "/task:0", "/job:/task:0",
        "/job:worker/task:x", "/job:worker/task:-1",
        "/job:worker/task:", "/job:worker/replica:x/task:0", "/job:worker/job:worker/task:0",
        "/job:worker/task:0/task:1", "/job:worker/replica:0/replica:0/task:0",
        "/job:worker/device:CPU:0/task:0"}) {
    EXPECT_EQ(LookupError(cluster.TaskOf(name)), absl::StrCat("'", name, "' ", kExpected)) << name;
  }
  EXPECT_EQ(LookupError(cluster.TaskOf("/job:worker/replica:1/task:0")),
            "'/job:worker/replica:1/task:0' names replica 1; a cluster has only replica 0");
}

TEST(ClusterSpecTest, TaskOfRejectsTasksNotInTheCluster) {
  ClusterSpec cluster = MustParse("worker=a:1,a:2");
  EXPECT_EQ(LookupError(cluster.TaskOf("/job:localhost/replica:0/task:0/device:CPU:0")),
            "'/job:localhost/replica:0/task:0/device:CPU:0' names no task of this cluster: no "
            "job 'localhost' in the cluster (jobs: worker)");
  EXPECT_EQ(LookupError(cluster.TaskOf("/job:worker/replica:0/task:2")),
            "'/job:worker/replica:0/task:2' names no task of this cluster: no task 2 in job "
            "'worker', which has 2 tasks");
  EXPECT_THAT(LookupError(cluster.AddressOf("/job:worker/replica:0/task:7")),
              HasSubstr("no task 7 in job 'worker'"));
  EXPECT_THAT(LookupError(cluster.AddressOf("/device:CPU:0")), HasSubstr("names no task"));
}

// ---- Parse errors ------------------------------------------------------------------------

TEST(ClusterSpecParseErrorTest, EmptySpec) {
  for (const char* spec : {"", "  ", "\n"}) {
    EXPECT_EQ(ParseError(spec),
              "the cluster spec is empty; expected 'job=host:port,host:port;job2=host:port'");
  }
}

TEST(ClusterSpecParseErrorTest, EntryWithoutEquals) {
  EXPECT_EQ(ParseError("localhost:2222"),
            "cluster spec entry 'localhost:2222' has no '='; expected "
            "'job=host:port,host:port;job2=host:port'");
  EXPECT_THAT(ParseError("worker=a:1;"), HasSubstr("cluster spec entry '' has no '='"));
  EXPECT_THAT(ParseError("worker=a:1;;ps=b:1"), HasSubstr("cluster spec entry '' has no '='"));
}

TEST(ClusterSpecParseErrorTest, InvalidJobName) {
  for (const char* job : {"Worker", "1worker", "_w", "work-er", "wörker"}) {
    EXPECT_EQ(ParseError(absl::StrCat(job, "=a:1")),
              absl::StrCat("invalid job name '", job, "' in cluster spec entry '", job,
                           "=a:1'; a job name is a lower-case letter, then lower-case letters, "
                           "digits or '_'"));
  }
  EXPECT_THAT(ParseError("=a:1"), HasSubstr("invalid job name '' in cluster spec entry '=a:1'"));
}

TEST(ClusterSpecParseErrorTest, JobListedTwice) {
  EXPECT_EQ(ParseError("worker=a:1;ps=b:1;worker=a:2"),
            "job 'worker' is listed twice in the cluster spec 'worker=a:1;ps=b:1;worker=a:2'");
}

TEST(ClusterSpecParseErrorTest, JobWithoutTask) {
  EXPECT_EQ(ParseError("worker=a:1;ps="),
            "job 'ps' has no task in cluster spec entry 'ps='; expected "
            "'ps=host:port[,host:port...]'");
  EXPECT_THAT(ParseError("ps=  "), HasSubstr("job 'ps' has no task"));
}

TEST(ClusterSpecParseErrorTest, BadAddress) {
  for (const char* address : {"localhost", "localhost:", ":2222", "localhost:0", "localhost:65536",
                              "localhost:123456", "localhost:-1", "localhost:+1", "localhost:2x",
                              "local host:1", "a/b:1", "[::1:1", "[]:1", "[zz]:1", "grpc://a:1"}) {
    EXPECT_EQ(ParseError(absl::StrCat("worker=a:1,", address)),
              absl::StrCat("task 1 of job 'worker' has address '", address,
                           "'; expected host:port with a port in 1..65535"))
        << address;
  }
  EXPECT_EQ(ParseError("worker=a:1,,a:2"),
            "task 1 of job 'worker' has address ''; expected host:port with a port in 1..65535");
}

TEST(ClusterSpecParseErrorTest, AddressUsedTwice) {
  EXPECT_EQ(ParseError("worker=a:1,a:2;ps=a:1"),
            "address 'a:1' is used by both /job:worker/replica:0/task:0 and "
            "/job:ps/replica:0/task:0");
  EXPECT_EQ(ParseError("worker=a:1,a:1"),
            "address 'a:1' is used by both /job:worker/replica:0/task:0 and "
            "/job:worker/replica:0/task:1");
  // Different spellings of one host are not detected.
  EXPECT_EQ(MustParse("worker=localhost:1,127.0.0.1:1").jobs().at("worker").size(), 2u);
}

// ---- FromJobs --------------------------------------------------------------------------------

using Jobs = std::map<std::string, std::vector<std::string>>;

// The message of a FromJobs error; fails the test unless the code is INVALID_ARGUMENT.
std::string FromJobsError(const Jobs& jobs) {
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::FromJobs(jobs);
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(cluster.status().message());
}

TEST(ClusterSpecFromJobsTest, GivesTheClusterParseGives) {
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::FromJobs(
      {{"worker", {"localhost:2222", "localhost:2223"}}, {"ps", {"[::1]:2224"}}});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  EXPECT_EQ(cluster->jobs(),
            MustParse("worker=localhost:2222,localhost:2223;ps=[::1]:2224").jobs());
  EXPECT_EQ(cluster->TaskNames(), MustParse(cluster->ToString()).TaskNames());
}

TEST(ClusterSpecFromJobsTest, Errors) {
  EXPECT_EQ(FromJobsError({}), "the cluster has no job");
  EXPECT_EQ(FromJobsError({{"Worker", {"a:1"}}}),
            "invalid job name 'Worker'; a job name is a lower-case letter, then lower-case "
            "letters, digits or '_'");
  EXPECT_EQ(FromJobsError({{"worker", {"a:1"}}, {"ps", {}}}), "job 'ps' has no task");
  // Addresses are taken as written: the spec syntax's separators and whitespace are errors.
  for (const char* address : {"a", " a:2", "a:2,a:3", "a:2;ps=b:1", ""}) {
    EXPECT_EQ(FromJobsError({{"worker", {"a:1", address}}}),
              absl::StrCat("task 1 of job 'worker' has address '", address,
                           "'; expected host:port with a port in 1..65535"))
        << address;
  }
  EXPECT_EQ(FromJobsError({{"worker", {"a:1", "a:2"}}, {"ps", {"a:2"}}}),
            "address 'a:2' is used by both /job:ps/replica:0/task:0 and "
            "/job:worker/replica:0/task:1");
}

}  // namespace
}  // namespace tessera
