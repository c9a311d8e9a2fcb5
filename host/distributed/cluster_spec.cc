// Parsing and lookups of the cluster spec: jobs, their task addresses, and task names.
#include "host/distributed/cluster_spec.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace tessera {
namespace {

constexpr char kSyntax[] = "job=host:port,host:port;job2=host:port";
constexpr char kJobNameRule[] =
    "a job name is a lower-case letter, then lower-case letters, digits or '_'";

// TensorFlow's job-name rule: [a-z][a-z0-9_]*.
bool IsJobName(absl::string_view name) {
  if (name.empty() || !absl::ascii_islower(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!absl::ascii_islower(u) && !absl::ascii_isdigit(u) && c != '_') return false;
  }
  return true;
}

bool IsAllDigits(absl::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// A host name or IPv4 address (letters, digits, '.', '-', '_'), or an IPv6 address in brackets.
bool IsHost(absl::string_view host) {
  if (host.empty()) return false;
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    for (char c : host.substr(1, host.size() - 2)) {
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') {
        return false;
      }
    }
    return true;
  }
  for (char c : host) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') {
      return false;
    }
  }
  return true;
}

// "host:port" with a port in 1..65535.
bool IsAddress(absl::string_view address) {
  size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos) return false;
  absl::string_view port = address.substr(colon + 1);
  int value = 0;
  return IsHost(address.substr(0, colon)) && IsAllDigits(port) && port.size() <= 5 &&
         absl::SimpleAtoi(port, &value) && value >= 1 && value <= 65535;
}

std::string TaskName(absl::string_view job, int task) {
  return absl::StrCat("/job:", job, "/replica:0/task:", task);
}

// Appends `address` to `tasks` as the next task of `job`, once it is a valid address that no
// task added before has (`task_by_address`: address -> task name, over all jobs). Parse and
// FromJobs share it, so that both sources of a cluster follow one set of rules.
absl::Status AddTask(absl::string_view job, absl::string_view address,
                     std::vector<std::string>* tasks,
                     std::map<std::string, std::string>* task_by_address) {
  int task = static_cast<int>(tasks->size());
  if (!IsAddress(address)) {
    return absl::InvalidArgumentError(absl::StrCat("task ", task, " of job '", job,
                                                   "' has address '", address,
                                                   "'; expected host:port with a port in "
                                                   "1..65535"));
  }
  std::string name = TaskName(job, task);
  auto [it, inserted] = task_by_address->emplace(std::string(address), name);
  if (!inserted) {
    return absl::InvalidArgumentError(
        absl::StrCat("address '", address, "' is used by both ", it->second, " and ", name));
  }
  tasks->emplace_back(address);
  return absl::OkStatus();
}

// The job, replica and task fields at the start of a device or task name.
struct TaskFields {
  std::string job;
  int replica = 0;
  int task = -1;
};

absl::StatusOr<TaskFields> ParseTaskFields(absl::string_view name) {
  auto malformed = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name,
                     "' names no task: expected /job:NAME/replica:0/task:N, optionally followed "
                     "by /device:TYPE:N"));
  };
  if (!absl::StartsWith(name, "/")) return malformed();
  TaskFields fields;
  bool has_job = false;
  bool has_replica = false;
  for (absl::string_view part : absl::StrSplit(name.substr(1), '/')) {
    if (absl::ConsumePrefix(&part, "job:")) {
      if (has_job || part.empty()) return malformed();
      fields.job = std::string(part);
      has_job = true;
    } else if (absl::ConsumePrefix(&part, "replica:")) {
      if (has_replica || !IsAllDigits(part) || !absl::SimpleAtoi(part, &fields.replica)) {
        return malformed();
      }
      has_replica = true;
    } else if (absl::ConsumePrefix(&part, "task:")) {
      if (fields.task >= 0 || !IsAllDigits(part) || !absl::SimpleAtoi(part, &fields.task)) {
        return malformed();
      }
    } else {
      break;  // the device part, which names no task
    }
  }
  if (!has_job || fields.task < 0) return malformed();
  if (fields.replica != 0) {
    return absl::InvalidArgumentError(absl::StrCat("'", name, "' names replica ", fields.replica,
                                                   "; a cluster has only replica 0"));
  }
  return fields;
}

}  // namespace

absl::StatusOr<std::string> TaskNameOf(absl::string_view device_or_task) {
  absl::StatusOr<TaskFields> fields = ParseTaskFields(device_or_task);
  if (!fields.ok()) return fields.status();
  return TaskName(fields->job, fields->task);
}

absl::StatusOr<ClusterSpec> ClusterSpec::Parse(absl::string_view spec) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(spec);
  if (trimmed.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the cluster spec is empty; expected '", kSyntax, "'"));
  }
  ClusterSpec cluster;
  std::map<std::string, std::string> task_by_address;
  for (absl::string_view entry : absl::StrSplit(trimmed, ';')) {
    entry = absl::StripAsciiWhitespace(entry);
    size_t eq = entry.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster spec entry '", entry, "' has no '='; expected '", kSyntax, "'"));
    }
    std::string job(absl::StripAsciiWhitespace(entry.substr(0, eq)));
    if (!IsJobName(job)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid job name '", job, "' in cluster spec entry '", entry, "'; ", kJobNameRule));
    }
    if (cluster.jobs_.count(job) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("job '", job, "' is listed twice in the cluster spec '", trimmed, "'"));
    }
    absl::string_view tasks = absl::StripAsciiWhitespace(entry.substr(eq + 1));
    if (tasks.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("job '", job, "' has no task in cluster spec entry '", entry,
                       "'; expected '", job, "=host:port[,host:port...]'"));
    }
    std::vector<std::string>& addresses = cluster.jobs_[job];
    for (absl::string_view address : absl::StrSplit(tasks, ',')) {
      absl::Status added =
          AddTask(job, absl::StripAsciiWhitespace(address), &addresses, &task_by_address);
      if (!added.ok()) return added;
    }
  }
  return cluster;
}

absl::StatusOr<ClusterSpec> ClusterSpec::FromJobs(
    const std::map<std::string, std::vector<std::string>>& jobs) {
  if (jobs.empty()) return absl::InvalidArgumentError("the cluster has no job");
  ClusterSpec cluster;
  std::map<std::string, std::string> task_by_address;
  for (const auto& [job, addresses] : jobs) {
    if (!IsJobName(job)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid job name '", job, "'; ", kJobNameRule));
    }
    if (addresses.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("job '", job, "' has no task"));
    }
    std::vector<std::string>& tasks = cluster.jobs_[job];
    for (const std::string& address : addresses) {
      absl::Status added = AddTask(job, address, &tasks, &task_by_address);
      if (!added.ok()) return added;
    }
  }
  return cluster;
}

absl::StatusOr<std::string> ClusterSpec::TaskAddress(absl::string_view job, int task) const {
  auto it = jobs_.find(std::string(job));
  if (it == jobs_.end()) {
    std::vector<std::string> names;
    for (const auto& entry : jobs_) names.push_back(entry.first);
    return absl::InvalidArgumentError(absl::StrCat(
        "no job '", job,
        "' in the cluster (jobs: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  const std::vector<std::string>& addresses = it->second;
  if (task < 0 || static_cast<size_t>(task) >= addresses.size()) {
    return absl::InvalidArgumentError(absl::StrCat("no task ", task, " in job '", job,
                                                   "', which has ", addresses.size(),
                                                   addresses.size() == 1 ? " task" : " tasks"));
  }
  return addresses[task];
}

std::vector<std::string> ClusterSpec::TaskNames() const {
  std::vector<std::string> names;
  for (const auto& [job, addresses] : jobs_) {
    for (size_t task = 0; task < addresses.size(); ++task) {
      names.push_back(TaskName(job, static_cast<int>(task)));
    }
  }
  return names;
}

absl::StatusOr<std::string> ClusterSpec::TaskOf(absl::string_view device_or_task) const {
  absl::StatusOr<std::string> address = AddressOf(device_or_task);
  if (!address.ok()) return address.status();
  return TaskNameOf(device_or_task);
}

absl::StatusOr<std::string> ClusterSpec::AddressOf(absl::string_view task_name) const {
  absl::StatusOr<TaskFields> fields = ParseTaskFields(task_name);
  if (!fields.ok()) return fields.status();
  absl::StatusOr<std::string> address = TaskAddress(fields->job, fields->task);
  if (!address.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", task_name, "' names no task of this cluster: ", address.status().message()));
  }
  return address;
}

std::string ClusterSpec::ToString() const {
  std::vector<std::string> entries;
  for (const auto& [job, addresses] : jobs_) {
    entries.push_back(absl::StrCat(job, "=", absl::StrJoin(addresses, ",")));
  }
  return absl::StrJoin(entries, ";");
}

}  // namespace tessera
