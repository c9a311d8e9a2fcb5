// Child processes with logs and deadlines, and clusters of `tessera serve` tasks built from them.
#include "tests/integration/process_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#ifndef TESSERA_BINARY
#define TESSERA_BINARY "tessera"
#endif

namespace tessera {
namespace integration {
namespace {

std::string ReadFileFrom(const std::string& path, size_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(static_cast<std::streamoff>(offset));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

size_t FileSize(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 ? static_cast<size_t>(info.st_size) : 0;
}

// A sleep that grows from 2 ms to 50 ms, for polling loops.
class Backoff {
 public:
  void Sleep() {
    absl::SleepFor(delay_);
    delay_ = std::min(delay_ * 2, absl::Milliseconds(50));
  }

 private:
  absl::Duration delay_ = absl::Milliseconds(2);
};

std::string ErrnoText(int error) { return std::strerror(error); }

}  // namespace

const char* TesseraBinary() { return TESSERA_BINARY; }

absl::StatusOr<std::vector<int>> PickFreePorts(int count) {
  std::vector<int> sockets;
  std::vector<int> ports;
  absl::Status status;
  for (int i = 0; i < count && status.ok(); ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = absl::UnavailableError(absl::StrCat("cannot open a socket: ", ErrnoText(errno)));
      break;
    }
    sockets.push_back(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      status = absl::UnavailableError(
          absl::StrCat("cannot bind a free port on 127.0.0.1: ", ErrnoText(errno)));
      break;
    }
    ports.push_back(ntohs(address.sin_port));
  }
  // Every socket stays open until all ports are picked, so that the ports are distinct.
  for (int fd : sockets) close(fd);
  if (!status.ok()) return status;
  return ports;
}

std::string ExitStatus::ToString() const {
  if (exited) return absl::StrCat("exited with status ", code);
  return absl::StrCat("was killed by signal ", signal, " (", strsignal(signal), ")");
}

std::string Tail(absl::string_view text, int max_lines) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) return "(empty)";
  size_t first = lines.size() > static_cast<size_t>(max_lines) ? lines.size() - max_lines : 0;
  std::vector<absl::string_view> tail(lines.begin() + first, lines.end());
  return absl::StrJoin(tail, "\n");
}

// ---- ChildProcess ------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const std::vector<std::string>& argv, const std::string& log_path) {
  if (argv.empty()) return absl::InvalidArgumentError("cannot start a child with an empty argv");
  size_t log_offset = FileSize(log_path);
  int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot open log file '", log_path, "': ", ErrnoText(errno)));
  }
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  // The child reports a failed exec through this pipe; a successful exec closes it.
  int exec_error_pipe[2];
  if (null_fd < 0 || pipe2(exec_error_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    close(log_fd);
    if (null_fd >= 0) close(null_fd);
    return absl::InternalError(absl::StrCat("cannot set up a child: ", ErrnoText(error)));
  }
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t parent = getpid();

  pid_t pid = fork();
  if (pid == 0) {
    // Die with the parent, even when it is killed before its destructors run.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    // Inherited descriptors of the parent (sockets, files) must not leak into the child.
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int signal_number : {SIGPIPE, SIGINT, SIGTERM}) signal(signal_number, SIG_DFL);
    execv(args[0], args.data());
    int error = errno;
    ssize_t ignored = write(exec_error_pipe[1], &error, sizeof(error));
    (void)ignored;
    _exit(127);
  }
  int fork_error = errno;
  close(log_fd);
  close(null_fd);
  close(exec_error_pipe[1]);
  if (pid < 0) {
    close(exec_error_pipe[0]);
    return absl::InternalError(
        absl::StrCat("cannot fork to run '", argv[0], "': ", ErrnoText(fork_error)));
  }
  int exec_error = 0;
  ssize_t n;
  do {
    n = read(exec_error_pipe[0], &exec_error, sizeof(exec_error));
  } while (n < 0 && errno == EINTR);
  close(exec_error_pipe[0]);
  if (n == sizeof(exec_error)) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return absl::InternalError(absl::StrCat("cannot run '", argv[0], "': ", ErrnoText(exec_error)));
  }
  return std::unique_ptr<ChildProcess>(new ChildProcess(pid, log_path, log_offset));
}

ChildProcess::~ChildProcess() {
  if (Running()) Kill();
}

std::string ChildProcess::Log() const { return ReadFileFrom(log_path_, 0); }

bool ChildProcess::Running() {
  if (exit_status_.has_value()) return false;
  int status = 0;
  pid_t result;
  do {
    result = waitpid(pid_, &status, WNOHANG);
  } while (result < 0 && errno == EINTR);
  if (result == 0) return true;
  ExitStatus exit;
  if (result == pid_ && WIFEXITED(status)) {
    exit.exited = true;
    exit.code = WEXITSTATUS(status);
  } else if (result == pid_ && WIFSIGNALED(status)) {
    exit.signal = WTERMSIG(status);
  } else {
    // Reaped elsewhere (ECHILD): the status is unknown.
    exit.exited = true;
    exit.code = -1;
  }
  exit_status_ = exit;
  return false;
}

absl::Status ChildProcess::Signal(int signal) {
  if (!Running()) {
    return absl::FailedPreconditionError(absl::StrCat("cannot send signal ", signal, " to process ",
                                                      pid_, ": it ", exit_status_->ToString()));
  }
  if (kill(pid_, signal) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot send signal ", signal, " to process ", pid_, ": ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<ExitStatus> ChildProcess::Wait(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  Backoff backoff;
  while (Running()) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("process ", pid_, " still runs after ", absl::FormatDuration(timeout),
                       "; its log ends with:\n", Tail(ReadFileFrom(log_path_, log_offset_))));
    }
    backoff.Sleep();
  }
  return *exit_status_;
}

ExitStatus ChildProcess::Kill() {
  if (Running()) {
    kill(pid_, SIGKILL);
    int status;
    pid_t result;
    do {
      result = waitpid(pid_, &status, 0);
    } while (result < 0 && errno == EINTR);
    ExitStatus exit;
    if (result == pid_ && WIFEXITED(status)) {
      exit.exited = true;
      exit.code = WEXITSTATUS(status);
    } else {
      exit.signal = result == pid_ && WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    }
    exit_status_ = exit;
  }
  return *exit_status_;
}

absl::Status ChildProcess::WaitForLog(absl::string_view text, absl::Duration timeout,
                                      absl::string_view what) {
  absl::Time deadline = absl::Now() + timeout;
  Backoff backoff;
  while (true) {
    // Read before checking whether the child runs, so that a line printed just before exiting
    // is seen.
    bool running = Running();
    std::string log = ReadFileFrom(log_path_, log_offset_);
    if (absl::StrContains(log, text)) return absl::OkStatus();
    if (!running) {
      return absl::FailedPreconditionError(absl::StrCat(what, " ", exit_status_->ToString(),
                                                        " before printing '", text, "'; its log (",
                                                        log_path_, ") ends with:\n", Tail(log)));
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(what, " did not print '", text, "' within ",
                                                      absl::FormatDuration(timeout), "; its log (",
                                                      log_path_, ") ends with:\n", Tail(log)));
    }
    backoff.Sleep();
  }
}

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& log_path, absl::Duration timeout) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(argv, log_path);
  if (!child.ok()) return child.status();
  ProcessResult result;
  absl::StatusOr<ExitStatus> exit = (*child)->Wait(timeout);
  if (exit.ok()) {
    result.exit = *exit;
  } else {
    result.timed_out = true;
    result.exit = (*child)->Kill();
  }
  result.log = (*child)->Log();
  return result;
}

// ---- ProcessCluster ----------------------------------------------------------------------

std::vector<std::string> TesseraServeCommand(const ClusterTask& task,
                                             const std::string& cluster_spec,
                                             const std::string& transport,
                                             const std::vector<std::string>& extra_flags) {
  std::vector<std::string> argv = {TesseraBinary(), "serve",  "--cluster", cluster_spec,
                                   "--job",         task.job, "--task",    absl::StrCat(task.index),
                                   "--transport",   transport};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  return argv;
}

absl::StatusOr<std::unique_ptr<ProcessCluster>> ProcessCluster::Start(
    ProcessClusterOptions options) {
  int total = 0;
  for (const auto& [job, count] : options.tasks_per_job) {
    if (count < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("job '", job, "' needs at least one task, got ", count));
    }
    total += count;
  }
  if (total == 0) return absl::InvalidArgumentError("a cluster needs at least one job");
  absl::StatusOr<std::vector<int>> ports = PickFreePorts(total);
  if (!ports.ok()) return ports.status();

  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/tessera-cluster-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a folder from '", pattern, "': ", ErrnoText(errno)));
  }
  std::unique_ptr<ProcessCluster> cluster(new ProcessCluster(std::move(options), pattern));

  std::vector<std::string> entries;
  size_t next_port = 0;
  for (const auto& [job, count] : cluster->options_.tasks_per_job) {
    std::vector<std::string> addresses;
    for (int index = 0; index < count; ++index) {
      ClusterTask task;
      task.job = job;
      task.index = index;
      task.port = (*ports)[next_port++];
      task.address = absl::StrCat(cluster->options_.host, ":", task.port);
      task.name = absl::StrCat("/job:", job, "/replica:0/task:", index);
      task.log_path = absl::StrCat(cluster->temp_dir_, "/", job, "-", index, ".log");
      addresses.push_back(task.address);
      cluster->tasks_.push_back(std::move(task));
    }
    entries.push_back(absl::StrCat(job, "=", absl::StrJoin(addresses, ",")));
  }
  cluster->cluster_spec_ = absl::StrJoin(entries, ";");
  cluster->processes_.resize(cluster->tasks_.size());

  // Every task starts before any is waited for: tasks start in parallel.
  for (size_t i = 0; i < cluster->tasks_.size(); ++i) {
    absl::Status status = cluster->Launch(i);
    if (!status.ok()) return status;
  }
  for (size_t i = 0; i < cluster->tasks_.size(); ++i) {
    absl::Status status = cluster->WaitUntilServing(i);
    if (!status.ok()) return status;
  }
  return cluster;
}

ProcessCluster::~ProcessCluster() {
  absl::Status ignored = Stop();
  (void)ignored;
  processes_.clear();  // kills and reaps anything Stop left
  if (!options_.keep_temp_dir) {
    std::error_code error;
    std::filesystem::remove_all(temp_dir_, error);
  }
}

absl::StatusOr<size_t> ProcessCluster::IndexOf(absl::string_view job, int task) const {
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (tasks_[i].job == job && tasks_[i].index == task) return i;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the cluster '", cluster_spec_, "' has no task ", task, " in job '", job, "'"));
}

absl::Status ProcessCluster::Launch(size_t index) {
  const ClusterTask& task = tasks_[index];
  std::vector<std::string> argv =
      options_.command
          ? options_.command(task, cluster_spec_)
          : TesseraServeCommand(task, cluster_spec_, options_.transport, options_.extra_flags);
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(argv, task.log_path);
  if (!child.ok()) {
    return absl::Status(child.status().code(), absl::StrCat("cannot start task ", task.name, ": ",
                                                            child.status().message()));
  }
  processes_[index] = *std::move(child);
  return absl::OkStatus();
}

absl::Status ProcessCluster::WaitUntilServing(size_t index) {
  const ClusterTask& task = tasks_[index];
  return processes_[index]->WaitForLog(options_.ready_text, options_.start_timeout,
                                       absl::StrCat("task ", task.name, " (", task.address,
                                                    ", pid ", processes_[index]->pid(), ")"));
}

absl::StatusOr<ClusterTask> ProcessCluster::Task(absl::string_view job, int task) const {
  absl::StatusOr<size_t> index = IndexOf(job, task);
  if (!index.ok()) return index.status();
  return tasks_[*index];
}

std::string ProcessCluster::Address(absl::string_view job, int task) const {
  absl::StatusOr<size_t> index = IndexOf(job, task);
  return index.ok() ? tasks_[*index].address : "";
}

std::string ProcessCluster::Target(absl::string_view job, int task) const {
  absl::StatusOr<size_t> index = IndexOf(job, task);
  return index.ok() ? absl::StrCat(options_.transport, "://", tasks_[*index].address) : "";
}

std::string ProcessCluster::Log(absl::string_view job, int task) const {
  absl::StatusOr<size_t> index = IndexOf(job, task);
  return index.ok() ? ReadFileFrom(tasks_[*index].log_path, 0) : "";
}

ChildProcess* ProcessCluster::Process(absl::string_view job, int task) {
  absl::StatusOr<size_t> index = IndexOf(job, task);
  if (!index.ok() || processes_[*index] == nullptr || !processes_[*index]->Running()) {
    return nullptr;
  }
  return processes_[*index].get();
}

absl::Status ProcessCluster::Kill(absl::string_view job, int task, int signal) {
  absl::StatusOr<size_t> index = IndexOf(job, task);
  if (!index.ok()) return index.status();
  ChildProcess* process = processes_[*index].get();
  if (process == nullptr || !process->Running()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "task ", tasks_[*index].name, " is not running",
        process == nullptr ? "" : absl::StrCat(" (it ", process->exit_status()->ToString(), ")")));
  }
  if (signal == SIGKILL) {
    process->Kill();
    return absl::OkStatus();
  }
  return process->Signal(signal);
}

absl::Status ProcessCluster::Restart(absl::string_view job, int task) {
  absl::StatusOr<size_t> index = IndexOf(job, task);
  if (!index.ok()) return index.status();
  if (processes_[*index] != nullptr) processes_[*index]->Kill();
  std::ofstream(tasks_[*index].log_path, std::ios::app)
      << "---- process_cluster: restarting " << tasks_[*index].name << " ----\n";
  absl::Status status = Launch(*index);
  if (!status.ok()) return status;
  return WaitUntilServing(*index);
}

absl::Status ProcessCluster::Stop() {
  std::vector<size_t> stopping;
  for (size_t i = 0; i < processes_.size(); ++i) {
    if (processes_[i] != nullptr && processes_[i]->Running() &&
        processes_[i]->Signal(SIGTERM).ok()) {
      stopping.push_back(i);
    }
  }
  absl::Time deadline = absl::Now() + options_.stop_timeout;
  std::vector<std::string> problems;
  for (size_t i : stopping) {
    ChildProcess& process = *processes_[i];
    absl::StatusOr<ExitStatus> exit =
        process.Wait(std::max(deadline - absl::Now(), absl::ZeroDuration()));
    std::string how;
    if (!exit.ok()) {
      process.Kill();
      how = absl::StrCat("did not stop within ", absl::FormatDuration(options_.stop_timeout),
                         " of SIGTERM and was killed");
    } else if (!exit->Success()) {
      how = exit->ToString();
    }
    if (!how.empty()) {
      problems.push_back(absl::StrCat("task ", tasks_[i].name, " ", how, "; its log ends with:\n",
                                      Tail(ReadFileFrom(tasks_[i].log_path, 0))));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InternalError(absl::StrJoin(problems, "\n"));
}

}  // namespace integration
}  // namespace tessera
