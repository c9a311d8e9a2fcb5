// Tests of the multi-process harness: ports, child processes with logs and deadlines, and
// clusters of plain shell tasks and of real `tessera serve` tasks.
#include "tests/integration/process_cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace integration {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A folder for one test's files, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "process-cluster-test-XXXXXX");
    path_ = mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~TempDir() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }
  std::string Path(absl::string_view name) const { return absl::StrCat(path_, "/", name); }

 private:
  std::string path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool ProcessExists(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

std::vector<std::string> Shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

// A task that announces itself like `tessera serve` and exits 0 on SIGTERM. `pid_dir`, when
// given, receives a file per task holding the shell's pid.
ProcessClusterOptions ShellClusterOptions(const std::string& pid_dir = "") {
  ProcessClusterOptions options;
  options.command = [pid_dir](const ClusterTask& task, const std::string& spec) {
    std::string record_pid =
        pid_dir.empty() ? "" : absl::StrCat("echo $$ > ", pid_dir, "/", task.job, task.index, "; ");
    return Shell(absl::StrCat(record_pid, "trap 'echo stopped; exit 0' TERM; echo '", task.name,
                              " serving at ", task.address, " in ", spec,
                              "'; while :; do sleep 0.05; done"));
  };
  return options;
}

pid_t ReadPid(const std::string& path) {
  int pid = 0;
  EXPECT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(path)), &pid)) << path;
  return pid;
}

// ---- Ports -------------------------------------------------------------------------------

TEST(PickFreePortsTest, GivesDistinctPortsThatCanBeBound) {
  absl::StatusOr<std::vector<int>> ports = PickFreePorts(5);
  ASSERT_TRUE(ports.ok()) << ports.status();
  ASSERT_EQ(ports->size(), 5u);
  EXPECT_EQ(std::set<int>(ports->begin(), ports->end()).size(), 5u);
  for (int port : *ports) {
    EXPECT_GE(port, 1);
    EXPECT_LE(port, 65535);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0) << port;
    close(fd);
  }
  EXPECT_TRUE(PickFreePorts(0)->empty());
}

// ---- Child processes ---------------------------------------------------------------------

TEST(ChildProcessTest, RunProcessCapturesOutputAndExitStatus) {
  TempDir dir;
  absl::StatusOr<ProcessResult> result =
      RunProcess(Shell("echo to stdout; echo to stderr >&2; exit 3"), dir.Path("child.log"),
                 absl::Seconds(20));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->timed_out);
  EXPECT_TRUE(result->exit.exited);
  EXPECT_EQ(result->exit.code, 3);
  EXPECT_FALSE(result->exit.Success());
  EXPECT_EQ(result->exit.ToString(), "exited with status 3");
  EXPECT_EQ(result->log, "to stdout\nto stderr\n");
  EXPECT_EQ(ReadFile(dir.Path("child.log")), result->log);
}

TEST(ChildProcessTest, RunProcessKillsAChildPastItsTimeout) {
  TempDir dir;
  absl::StatusOr<ProcessResult> result =
      RunProcess({"/bin/sleep", "100"}, dir.Path("sleep.log"), absl::Milliseconds(100));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->exit.exited);
  EXPECT_EQ(result->exit.signal, SIGKILL);
  EXPECT_THAT(result->exit.ToString(), StartsWith("was killed by signal 9 ("));
}

TEST(ChildProcessTest, ReportsAProgramThatCannotRun) {
  TempDir dir;
  absl::StatusOr<ProcessResult> result =
      RunProcess({"/nonexistent/program", "x"}, dir.Path("x.log"), absl::Seconds(20));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(),
              HasSubstr("cannot run '/nonexistent/program': No such file or directory"));
  EXPECT_EQ(ChildProcess::Start({}, dir.Path("y.log")).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::unique_ptr<ChildProcess>> no_log =
      ChildProcess::Start({"/bin/true"}, dir.Path("missing-folder/z.log"));
  EXPECT_EQ(no_log.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(no_log.status().message(), HasSubstr("cannot open log file"));
}

TEST(ChildProcessTest, SignalWaitAndKill) {
  TempDir dir;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(
      Shell("trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done"),
      dir.Path("child.log"));
  ASSERT_TRUE(child.ok()) << child.status();
  ChildProcess& process = **child;
  ASSERT_TRUE(process.WaitForLog("ready", absl::Seconds(20), "the child").ok());
  EXPECT_TRUE(process.Running());
  absl::StatusOr<ExitStatus> early = process.Wait(absl::Milliseconds(10));
  EXPECT_EQ(early.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(early.status().message(), HasSubstr("still runs after 10ms"));
  EXPECT_THAT(early.status().message(), HasSubstr("ready"));

  ASSERT_TRUE(process.Signal(SIGTERM).ok());
  absl::StatusOr<ExitStatus> exit = process.Wait(absl::Seconds(20));
  ASSERT_TRUE(exit.ok()) << exit.status();
  EXPECT_EQ(exit->code, 7);
  EXPECT_FALSE(process.Running());
  EXPECT_EQ(process.exit_status()->code, 7);
  EXPECT_EQ(process.Log(), "ready\ngot TERM\n");

  absl::Status late = process.Signal(SIGTERM);
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.message(), HasSubstr("it exited with status 7"));
  EXPECT_EQ(process.Kill().code, 7);  // already reaped: the same status
}

TEST(ChildProcessTest, WaitForLogFailsWhenTheChildEndsFirst) {
  TempDir dir;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Start(Shell("echo boom; exit 4"), dir.Path("child.log"));
  ASSERT_TRUE(child.ok()) << child.status();
  absl::Status status = (*child)->WaitForLog("serving", absl::Seconds(20), "task T");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("task T exited with status 4 before printing "
                         "'serving'; its log ("));
  EXPECT_THAT(status.message(), HasSubstr(") ends with:\nboom"));
}

TEST(ChildProcessTest, WaitForLogTimesOut) {
  TempDir dir;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Start(Shell("echo starting; exec sleep 100"), dir.Path("child.log"));
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE((*child)->WaitForLog("starting", absl::Seconds(20), "task T").ok());
  absl::Status status = (*child)->WaitForLog("serving", absl::Milliseconds(200), "task T");
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("task T did not print 'serving' within 200ms"));
  EXPECT_THAT(status.message(), HasSubstr("ends with:\nstarting"));
}

TEST(ChildProcessTest, DestructorKillsAndReaps) {
  TempDir dir;
  pid_t pid;
  {
    absl::StatusOr<std::unique_ptr<ChildProcess>> child =
        ChildProcess::Start({"/bin/sleep", "100"}, dir.Path("sleep.log"));
    ASSERT_TRUE(child.ok()) << child.status();
    pid = (*child)->pid();
    EXPECT_TRUE(ProcessExists(pid));
  }
  EXPECT_FALSE(ProcessExists(pid));
}

TEST(ChildProcessTest, TailKeepsTheLastLines) {
  EXPECT_EQ(Tail("a\nb\nc\n", 2), "b\nc");
  EXPECT_EQ(Tail("a\nb", 5), "a\nb");
  EXPECT_EQ(Tail("", 5), "(empty)");
}

// ---- Clusters of shell tasks -------------------------------------------------------------

TEST(ProcessClusterTest, StartsOneTaskPerJobAndIndex) {
  ProcessClusterOptions options = ShellClusterOptions();
  options.tasks_per_job = {{"worker", 2}, {"ps", 1}};
  absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster = ProcessCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ProcessCluster& c = **cluster;

  ASSERT_EQ(c.tasks().size(), 3u);
  const ClusterTask& ps = c.tasks()[0];
  EXPECT_EQ(ps.name, "/job:ps/replica:0/task:0");
  EXPECT_EQ(c.tasks()[2].name, "/job:worker/replica:0/task:1");
  EXPECT_EQ(c.cluster_spec(), absl::StrCat("ps=localhost:", c.tasks()[0].port, ";worker=localhost:",
                                           c.tasks()[1].port, ",localhost:", c.tasks()[2].port));
  EXPECT_EQ(c.Address("worker", 1), absl::StrCat("localhost:", c.tasks()[2].port));
  EXPECT_EQ(c.Target("worker", 1), absl::StrCat("grpc://localhost:", c.tasks()[2].port));
  EXPECT_EQ(c.Address("chief", 0), "");
  EXPECT_EQ(c.Target("worker", 2), "");
  EXPECT_EQ(c.Task("ps", 0)->address, ps.address);
  EXPECT_EQ(c.Task("worker", 1)->index, 1);
  absl::StatusOr<ClusterTask> missing = c.Task("worker", 5);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("has no task 5 in job 'worker'"));

  for (const ClusterTask& task : c.tasks()) {
    EXPECT_EQ(c.Log(task.job, task.index), absl::StrCat(task.name, " serving at ", task.address,
                                                        " in ", c.cluster_spec(), "\n"));
    EXPECT_NE(c.Process(task.job, task.index), nullptr);
    EXPECT_TRUE(std::filesystem::exists(task.log_path));
  }
  EXPECT_EQ(c.Log("chief", 0), "");
  EXPECT_EQ(c.Process("chief", 0), nullptr);
  EXPECT_TRUE(c.Stop().ok());
  EXPECT_THAT(c.Log("worker", 0), HasSubstr("stopped\n"));
  EXPECT_EQ(c.Process("worker", 0), nullptr);
}

TEST(ProcessClusterTest, KillAndRestartOnTheSamePort) {
  ProcessClusterOptions options = ShellClusterOptions();
  absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster = ProcessCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ProcessCluster& c = **cluster;
  std::string address = c.Address("worker", 1);
  pid_t first_pid = c.Process("worker", 1)->pid();

  ASSERT_TRUE(c.Kill("worker", 1, SIGKILL).ok());
  EXPECT_EQ(c.Process("worker", 1), nullptr);
  EXPECT_FALSE(ProcessExists(first_pid));
  absl::Status again = c.Kill("worker", 1, SIGTERM);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(
      again.message(),
      "task /job:worker/replica:0/task:1 is not running (it was killed by signal 9 (Killed))");
  EXPECT_EQ(c.Kill("chief", 0, SIGKILL).code(), absl::StatusCode::kInvalidArgument);

  ASSERT_TRUE(c.Restart("worker", 1).ok());
  EXPECT_EQ(c.Address("worker", 1), address);
  ASSERT_NE(c.Process("worker", 1), nullptr);
  EXPECT_NE(c.Process("worker", 1)->pid(), first_pid);
  std::string log = c.Log("worker", 1);
  EXPECT_THAT(log, HasSubstr("---- process_cluster: restarting /job:worker/replica:0/task:1 ----"));
  std::vector<std::string> serving = absl::StrSplit(log, "serving at " + address);
  EXPECT_EQ(serving.size(), 3u) << log;  // two runs, each announced once

  // A running task is killed before it restarts.
  pid_t second_pid = c.Process("worker", 1)->pid();
  ASSERT_TRUE(c.Restart("worker", 1).ok());
  EXPECT_FALSE(ProcessExists(second_pid));
  EXPECT_EQ(c.Restart("worker", 2).code(), absl::StatusCode::kInvalidArgument);

  // Other signals are only sent.
  ASSERT_TRUE(c.Kill("worker", 0, SIGTERM).ok());
  absl::StatusOr<ExitStatus> exit = c.Process("worker", 0)->Wait(absl::Seconds(20));
  ASSERT_TRUE(exit.ok()) << exit.status();
  EXPECT_TRUE(exit->Success());
  EXPECT_TRUE(c.Stop().ok());
}

TEST(ProcessClusterTest, StopReportsTasksThatFailOrIgnoreSigterm) {
  ProcessClusterOptions options;
  options.tasks_per_job = {{"worker", 3}};
  options.stop_timeout = absl::Seconds(2);
  options.command = [](const ClusterTask& task, const std::string&) {
    std::string on_term = task.index == 0   ? "trap 'exit 0' TERM"
                          : task.index == 1 ? "trap 'echo failing; exit 3' TERM"
                                            : "trap '' TERM";
    return Shell(absl::StrCat(on_term, "; echo serving; while :; do sleep 0.05; done"));
  };
  absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster = ProcessCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  absl::Status status = (*cluster)->Stop();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), Not(HasSubstr("task /job:worker/replica:0/task:0")));
  EXPECT_THAT(status.message(), HasSubstr("task /job:worker/replica:0/task:1 exited with status 3; "
                                          "its log ends with:\nserving\nfailing"));
  EXPECT_THAT(status.message(), HasSubstr("task /job:worker/replica:0/task:2 did not stop within "
                                          "2s of SIGTERM and was killed"));
  for (int task = 0; task < 3; ++task) EXPECT_EQ((*cluster)->Process("worker", task), nullptr);
  EXPECT_TRUE((*cluster)->Stop().ok());  // idempotent: nothing left to stop
}

TEST(ProcessClusterTest, StartFailsWithTheLogOfATaskThatExits) {
  TempDir pids;
  ProcessClusterOptions options = ShellClusterOptions(pids.Path(""));
  auto serving = options.command;
  options.command = [serving](const ClusterTask& task, const std::string& spec) {
    if (task.index == 1) return Shell("echo cannot bind the address; exit 1");
    return serving(task, spec);
  };
  absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster = ProcessCluster::Start(options);
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(cluster.status().message()),
              StartsWith("task /job:worker/replica:0/task:1 (localhost:"));
  EXPECT_THAT(cluster.status().message(),
              HasSubstr("exited with status 1 before printing 'serving'; its log ("));
  EXPECT_THAT(cluster.status().message(), HasSubstr("ends with:\ncannot bind the address"));
  // The task that did start was stopped and reaped.
  pid_t started = ReadPid(pids.Path("worker0"));
  ASSERT_GT(started, 0);
  EXPECT_FALSE(ProcessExists(started));
}

TEST(ProcessClusterTest, StartTimesOutOnATaskThatNeverServes) {
  ProcessClusterOptions options;
  options.tasks_per_job = {{"worker", 1}};
  options.start_timeout = absl::Seconds(2);
  options.command = [](const ClusterTask&, const std::string&) {
    return Shell("echo loading; exec sleep 100");
  };
  absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster = ProcessCluster::Start(options);
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(cluster.status().message(), HasSubstr("did not print 'serving' within 2s"));
  EXPECT_THAT(cluster.status().message(), HasSubstr("ends with:\nloading"));
}

TEST(ProcessClusterTest, StartRejectsBadOptions) {
  ProcessClusterOptions options = ShellClusterOptions();
  options.tasks_per_job = {{"worker", 0}};
  absl::StatusOr<std::unique_ptr<ProcessCluster>> zero = ProcessCluster::Start(options);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(), "job 'worker' needs at least one task, got 0");
  options.tasks_per_job.clear();
  absl::StatusOr<std::unique_ptr<ProcessCluster>> none = ProcessCluster::Start(options);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message(), "a cluster needs at least one job");

  options = ShellClusterOptions();
  options.command = [](const ClusterTask&, const std::string&) {
    return std::vector<std::string>{"/nonexistent/tessera"};
  };
  absl::StatusOr<std::unique_ptr<ProcessCluster>> missing = ProcessCluster::Start(options);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("cannot start task /job:worker/replica:0/task:0: cannot run "
                        "'/nonexistent/tessera'"));
}

TEST(ProcessClusterTest, DestructorStopsEveryTaskAndRemovesTheLogs) {
  TempDir pids;
  std::string temp_dir;
  {
    absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster =
        ProcessCluster::Start(ShellClusterOptions(pids.Path("")));
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    temp_dir = (*cluster)->temp_dir();
    EXPECT_TRUE(std::filesystem::exists(temp_dir));
  }
  for (const char* task : {"worker0", "worker1"}) {
    pid_t pid = ReadPid(pids.Path(task));
    ASSERT_GT(pid, 0);
    EXPECT_FALSE(ProcessExists(pid)) << task;
  }
  EXPECT_FALSE(std::filesystem::exists(temp_dir));

  ProcessClusterOptions keep = ShellClusterOptions();
  keep.keep_temp_dir = true;
  {
    absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster = ProcessCluster::Start(keep);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    temp_dir = (*cluster)->temp_dir();
  }
  EXPECT_TRUE(std::filesystem::exists(temp_dir + "/worker-0.log"));
  std::filesystem::remove_all(temp_dir);
}

TEST(ProcessClusterTest, TesseraServeCommandLine) {
  ClusterTask task;
  task.job = "worker";
  task.index = 1;
  EXPECT_EQ(TesseraServeCommand(task, "worker=localhost:1,localhost:2", "grpc",
                                {"--call-timeout-ms", "500"}),
            (std::vector<std::string>{TesseraBinary(), "serve", "--cluster",
                                      "worker=localhost:1,localhost:2", "--job", "worker", "--task",
                                      "1", "--transport", "grpc", "--call-timeout-ms", "500"}));
  EXPECT_TRUE(std::filesystem::exists(TesseraBinary())) << TesseraBinary();
}

// ---- A cluster of real `tessera serve` tasks ----------------------------------------------

TEST(TesseraServeClusterTest, ServesAndStopsOnSigterm) {
  absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster =
      ProcessCluster::Start(ProcessClusterOptions());
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  for (const ClusterTask& task : (*cluster)->tasks()) {
    EXPECT_THAT(
        (*cluster)->Log(task.job, task.index),
        HasSubstr(absl::StrCat("tessera serve: ", task.name, " serving master and worker at ",
                               task.address, " over grpc (devices: ", task.name, "/device:CPU:0")));
  }
  // SIGINT stops a task as SIGTERM does.
  ASSERT_TRUE((*cluster)->Kill("worker", 1, SIGINT).ok());
  absl::StatusOr<ExitStatus> exit = (*cluster)->Process("worker", 1)->Wait(absl::Seconds(20));
  ASSERT_TRUE(exit.ok()) << exit.status();
  EXPECT_TRUE(exit->Success()) << exit->ToString() << "\n" << (*cluster)->Log("worker", 1);
  ASSERT_TRUE((*cluster)->Restart("worker", 1).ok());

  absl::Status stopped = (*cluster)->Stop();
  EXPECT_TRUE(stopped.ok()) << stopped;
  for (const ClusterTask& task : (*cluster)->tasks()) {
    EXPECT_THAT((*cluster)->Log(task.job, task.index), HasSubstr("tessera serve: stopped\n"));
  }
}

TEST(TesseraServeClusterTest, ServeFailsOnAnAddressInUse) {
  // Hold a listening socket on the port the task should bind.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  int port = ntohs(address.sin_port);

  TempDir dir;
  absl::StatusOr<ProcessResult> result =
      RunProcess({TesseraBinary(), "serve", "--cluster", absl::StrCat("worker=127.0.0.1:", port),
                  "--job", "worker"},
                 dir.Path("serve.log"), absl::Seconds(60));
  close(fd);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->timed_out) << result->log;
  EXPECT_EQ(result->exit.ToString(), "exited with status 1") << result->log;
  // The transport may log on its own first; the program's message is the last line.
  std::string last_line = Tail(result->log, 1);
  EXPECT_THAT(last_line, StartsWith("tessera serve: ")) << result->log;
  EXPECT_THAT(last_line, HasSubstr(absl::StrCat("127.0.0.1:", port)));
}

TEST(TesseraServeClusterTest, ServeUsageErrorsExitWithStatus2) {
  TempDir dir;
  absl::StatusOr<ProcessResult> result =
      RunProcess({TesseraBinary(), "serve", "--cluster", "worker=localhost:1", "--job", "ps"},
                 dir.Path("serve.log"), absl::Seconds(60));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit.ToString(), "exited with status 2");
  EXPECT_EQ(result->log, "tessera serve: --job: no job 'ps' in the cluster (jobs: worker)\n");
}

}  // namespace
}  // namespace integration
}  // namespace tessera
