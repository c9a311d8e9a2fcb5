// ProcessCluster: a cluster of `tessera serve` processes on loopback ports, one per task, for
// multi-process tests and benchmarks; ChildProcess: one child program with its log and a timeout.
//
// Every child's stdout and stderr go to a log file in the cluster's temporary folder. A child
// is killed (SIGKILL) when its parent thread ends, and the destructors stop and reap every child,
// so a failing test leaves no process behind. Not thread-safe: drive one object from one thread,
// the thread that outlives its children (the test's main thread).
#ifndef TESSERA_TESTS_INTEGRATION_PROCESS_CLUSTER_H_
#define TESSERA_TESTS_INTEGRATION_PROCESS_CLUSTER_H_

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tessera {
namespace integration {

// The built `tessera` program (the path CMake passes in).
const char* TesseraBinary();

// `count` distinct free TCP ports on 127.0.0.1: each is bound with port 0 and read back, and all
// are closed before returning (another process may take one before it is used; tests accept
// that small race). UNAVAILABLE when the system gives none.
absl::StatusOr<std::vector<int>> PickFreePorts(int count);

// How a child ended.
struct ExitStatus {
  bool exited = false;  // exited with `code`; otherwise killed by `signal`
  int code = 0;
  int signal = 0;

  bool Success() const { return exited && code == 0; }
  // "exited with status 3", "was killed by signal 9 (Killed)".
  std::string ToString() const;
};

// The last `max_lines` lines of `text`, for error messages.
std::string Tail(absl::string_view text, int max_lines = 30);

// One child program: argv[0] is a path (no PATH search); stdin is /dev/null; stdout and stderr
// are appended to `log_path`.
class ChildProcess {
 public:
  // INTERNAL when fork or exec fails (a missing program is reported with its path).
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const std::vector<std::string>& argv,
                                                             const std::string& log_path);
  ~ChildProcess();  // SIGKILL and reap, if still running

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  // The log, whole.
  std::string Log() const;

  // Reaps the child if it has ended; true while it runs.
  bool Running();
  // The exit status once reaped.
  const std::optional<ExitStatus>& exit_status() const { return exit_status_; }

  // Sends `signal`; FAILED_PRECONDITION once the child has been reaped.
  absl::Status Signal(int signal);
  // Waits up to `timeout` for the child to end; DEADLINE_EXCEEDED (with the log's tail) if it
  // still runs.
  absl::StatusOr<ExitStatus> Wait(absl::Duration timeout);
  // SIGKILL, then reap.
  ExitStatus Kill();

  // Waits up to `timeout` until the part of the log written by this child contains `text`.
  // FAILED_PRECONDITION when the child ends first, DEADLINE_EXCEEDED when the time runs out;
  // both messages hold `what` and the log's tail.
  absl::Status WaitForLog(absl::string_view text, absl::Duration timeout, absl::string_view what);

 private:
  ChildProcess(pid_t pid, std::string log_path, size_t log_offset)
      : pid_(pid), log_path_(std::move(log_path)), log_offset_(log_offset) {}

  pid_t pid_;
  std::string log_path_;
  size_t log_offset_;  // the log's size when this child started (logs may be appended to)
  std::optional<ExitStatus> exit_status_;
};

// What a child run to completion did.
struct ProcessResult {
  ExitStatus exit;
  bool timed_out = false;  // killed with SIGKILL after `timeout`
  std::string log;
};

// Runs `argv` (logging to `log_path`) until it ends, or kills it after `timeout`.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& log_path, absl::Duration timeout);

// A task of a ProcessCluster.
struct ClusterTask {
  std::string job;
  int index = 0;
  int port = 0;
  std::string address;  // "localhost:PORT"
  std::string name;     // "/job:worker/replica:0/task:0"
  std::string log_path;
};

struct ProcessClusterOptions {
  // Jobs and their number of tasks.
  std::map<std::string, int> tasks_per_job = {{"worker", 2}};
  // The host of every address in the cluster spec.
  std::string host = "localhost";
  // The transport of `tessera serve --transport` and of Target().
  std::string transport = "grpc";
  // Flags added to every task's `tessera serve` command line (TLS files, timeouts, plugins).
  std::vector<std::string> extra_flags;
  // A task's command line. Empty: TesseraServeCommand(). Tests of the harness replace it.
  std::function<std::vector<std::string>(const ClusterTask& task, const std::string& cluster_spec)>
      command;
  // What a task prints once it serves, and how long to wait for it.
  std::string ready_text = "serving";
  absl::Duration start_timeout = absl::Seconds(20);
  // How long Stop() waits after SIGTERM before SIGKILL.
  absl::Duration stop_timeout = absl::Seconds(10);
  // Keep the temporary folder (logs) when the cluster is destroyed.
  bool keep_temp_dir = false;
};

class ProcessCluster {
 public:
  // Picks a port per task, starts every task, and waits until each log shows `ready_text`. On
  // failure every started task is killed; the message names the task and holds its log's tail.
  static absl::StatusOr<std::unique_ptr<ProcessCluster>> Start(ProcessClusterOptions options);
  ~ProcessCluster();  // Stop(), and the temporary folder removed unless keep_temp_dir

  ProcessCluster(const ProcessCluster&) = delete;
  ProcessCluster& operator=(const ProcessCluster&) = delete;

  // "worker=localhost:P0,localhost:P1;ps=localhost:P2" (jobs sorted by name).
  const std::string& cluster_spec() const { return cluster_spec_; }
  const std::string& temp_dir() const { return temp_dir_; }
  const std::vector<ClusterTask>& tasks() const { return tasks_; }

  // INVALID_ARGUMENT naming the job and task when the cluster has no such task.
  absl::StatusOr<ClusterTask> Task(absl::string_view job, int task) const;
  // "localhost:PORT" and "grpc://localhost:PORT"; "" for an unknown task.
  std::string Address(absl::string_view job, int task) const;
  std::string Target(absl::string_view job, int task) const;
  // The task's log: every run of it, restarts appended.
  std::string Log(absl::string_view job, int task) const;
  // The child running the task, or nullptr when it is not running.
  ChildProcess* Process(absl::string_view job, int task);

  // Sends `signal` to the task; with SIGKILL also waits until it is reaped. FAILED_PRECONDITION
  // when the task is not running.
  absl::Status Kill(absl::string_view job, int task, int signal);
  // Kills the task if it runs (SIGKILL), starts it again on the same port, and waits until it
  // serves again.
  absl::Status Restart(absl::string_view job, int task);
  // SIGTERM to every running task, waits up to stop_timeout for all, then SIGKILL to the rest.
  // OK when every task exited with status 0; otherwise names each task that did not, with how it
  // ended and its log's tail. Idempotent.
  absl::Status Stop();

 private:
  ProcessCluster(ProcessClusterOptions options, std::string temp_dir)
      : options_(std::move(options)), temp_dir_(std::move(temp_dir)) {}

  // The index of a task in tasks_ (and processes_), or INVALID_ARGUMENT.
  absl::StatusOr<size_t> IndexOf(absl::string_view job, int task) const;
  // Starts tasks_[index]; then waits until its log shows ready_text.
  absl::Status Launch(size_t index);
  absl::Status WaitUntilServing(size_t index);

  ProcessClusterOptions options_;
  std::string temp_dir_;
  std::string cluster_spec_;
  std::vector<ClusterTask> tasks_;
  std::vector<std::unique_ptr<ChildProcess>> processes_;
};

// `tessera serve --cluster SPEC --job J --task T --transport NAME EXTRA_FLAGS...`.
std::vector<std::string> TesseraServeCommand(const ClusterTask& task,
                                             const std::string& cluster_spec,
                                             const std::string& transport,
                                             const std::vector<std::string>& extra_flags);

}  // namespace integration
}  // namespace tessera

#endif  // TESSERA_TESTS_INTEGRATION_PROCESS_CLUSTER_H_
