// TF_CONFIG on nlohmann/json: the JSON is walked here, the cluster is checked by ClusterSpec.
#include "host/tools/tf_config.h"

#include <climits>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace tessera {
namespace cli {
namespace {

using Json = nlohmann::json;

constexpr char kExample[] =
    R"({"cluster": {"worker": ["host0:2222", "host1:2222"]}, "task": {"type": "worker", )"
    R"("index": 0}})";

absl::Status TfConfigError(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(kTfConfigEnv, ": ", message));
}

// A JSON value as it is shown in messages: compact, and cut at 60 characters.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// "cluster": an object of jobs, each an array of address strings. Their validity (job names,
// host:port, no address twice) is ClusterSpec's to check, so that TF_CONFIG and --cluster
// accept the same clusters.
absl::StatusOr<ClusterSpec> ReadCluster(const Json& cluster) {
  if (!cluster.is_object()) {
    return TfConfigError(absl::StrCat(
        R"(cluster: expected an object of jobs such as {"worker": ["host0:2222"]}, got )",
        Shown(cluster)));
  }
  std::map<std::string, std::vector<std::string>> jobs;
  for (const auto& [job, tasks] : cluster.items()) {
    if (!tasks.is_array()) {
      return TfConfigError(absl::StrCat(
          "cluster.", job, R"(: expected an array of "host:port" strings, got )", Shown(tasks)));
    }
    std::vector<std::string>& addresses = jobs[job];
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!tasks[i].is_string()) {
        return TfConfigError(absl::StrCat(
            "cluster.", job, "[", i, R"(]: expected a "host:port" string, got )", Shown(tasks[i])));
      }
      addresses.push_back(tasks[i].get<std::string>());
    }
  }
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJobs(jobs);
  if (!spec.ok()) return TfConfigError(absl::StrCat("cluster: ", spec.status().message()));
  return spec;
}

// "task": {"type": JOB, "index": N}; `config` gets the job and the index.
absl::Status ReadTask(const Json& task, TfConfig* config) {
  if (!task.is_object()) {
    return TfConfigError(absl::StrCat(
        R"(task: expected an object such as {"type": "worker", "index": 0}, got )", Shown(task)));
  }
  auto type = task.find("type");
  if (type == task.end()) {
    return TfConfigError(R"(task has no "type" (the job of this task, e.g. "worker"))");
  }
  if (!type->is_string()) {
    return TfConfigError(absl::StrCat("task.type: expected a job name, got ", Shown(*type)));
  }
  config->job = type->get<std::string>();
  auto index = task.find("index");
  if (index == task.end()) {
    return TfConfigError(R"(task has no "index" (the index of this task in its job, e.g. 0))");
  }
  // JSON has one number type; nlohmann keeps non-negative integers unsigned, and only those
  // that fit an int are task indexes (1.0, "1" and -1 are not).
  if (!index->is_number_unsigned() || index->get<uint64_t>() > static_cast<uint64_t>(INT_MAX)) {
    return TfConfigError(absl::StrCat("task.index: expected an integer >= 0, got ", Shown(*index)));
  }
  config->task = static_cast<int>(index->get<uint64_t>());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TfConfig> ParseTfConfig(absl::string_view json) {
  Json root;
  try {
    root = Json::parse(json.begin(), json.end());
  } catch (const Json::exception& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    absl::string_view what = e.what();
    const size_t bracket = what.find("] ");
    if (bracket != absl::string_view::npos) what.remove_prefix(bracket + 2);
    return TfConfigError(absl::StrCat("malformed JSON: ", what));
  }
  if (!root.is_object()) {
    return TfConfigError(
        absl::StrCat("expected a JSON object such as ", kExample, ", got ", Shown(root)));
  }
  TfConfig config;
  auto cluster = root.find("cluster");
  if (cluster == root.end()) {
    return TfConfigError(R"(no "cluster" (the address of every task, job by job, e.g. "cluster": )"
                         R"({"worker": ["host0:2222", "host1:2222"]}))");
  }
  absl::StatusOr<ClusterSpec> spec = ReadCluster(*cluster);
  if (!spec.ok()) return spec.status();
  config.cluster = *std::move(spec);
  auto task = root.find("task");
  if (task == root.end()) {
    return TfConfigError(R"(no "task" (this task's job and index in the cluster, e.g. "task": )"
                         R"({"type": "worker", "index": 0}))");
  }
  absl::Status read = ReadTask(*task, &config);
  if (!read.ok()) return read;
  // TensorFlow refuses a task outside its cluster too; checked here so that a TF_CONFIG is
  // valid or not whatever flags come with it.
  absl::StatusOr<std::string> address = config.cluster.TaskAddress(config.job, config.task);
  if (!address.ok()) {
    const bool has_job = config.cluster.jobs().count(config.job) > 0;
    return TfConfigError(
        absl::StrCat(has_job ? "task.index: " : "task.type: ", address.status().message()));
  }
  return config;
}

}  // namespace cli
}  // namespace tessera
