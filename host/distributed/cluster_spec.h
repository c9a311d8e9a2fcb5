// ClusterSpec: the tasks of a cluster, job by job ("worker=localhost:2222,localhost:2223;
// ps=localhost:2224"), and the names of its tasks ("/job:worker/replica:0/task:1").
#ifndef TESSERA_HOST_DISTRIBUTED_CLUSTER_SPEC_H_
#define TESSERA_HOST_DISTRIBUTED_CLUSTER_SPEC_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

// The task a device or task name belongs to, whether or not a cluster has it
// ("/job:ps/task:0/device:CPU:0" -> "/job:ps/replica:0/task:0"); INVALID_ARGUMENT when the name
// has no job or task, or names a replica other than 0.
absl::StatusOr<std::string> TaskNameOf(absl::string_view device_or_task);

class ClusterSpec {
 public:
  ClusterSpec() = default;
  // "job=host:port,host:port;job2=host:port"; whitespace around entries, names and addresses is
  // ignored; a host is a name, an IPv4 address or a bracketed IPv6 address ("[::1]:2222").
  // Errors (INVALID_ARGUMENT, naming the part): an empty spec, a job without '=', an invalid job
  // name (TensorFlow's [a-z][a-z0-9_]*), a job listed twice, a job with no task, an address that
  // is not host:port with a port in 1..65535, and one address used by two tasks (addresses are
  // compared as written: "localhost:2222" and "127.0.0.1:2222" are different).
  static absl::StatusOr<ClusterSpec> Parse(absl::string_view spec);
  // The same cluster from jobs already split (job name -> task addresses in task order), as a
  // JSON cluster such as TF_CONFIG's gives them; addresses are taken as written (no whitespace
  // is trimmed). Parse's rules and messages for job names, addresses and an address used twice;
  // besides, INVALID_ARGUMENT for no job at all and for a job with no task.
  static absl::StatusOr<ClusterSpec> FromJobs(
      const std::map<std::string, std::vector<std::string>>& jobs);

  // Job name -> task addresses, in task order.
  const std::map<std::string, std::vector<std::string>>& jobs() const { return jobs_; }
  // INVALID_ARGUMENT naming the job (and the jobs there are) or the task (and how many the job
  // has) when there is no such task.
  absl::StatusOr<std::string> TaskAddress(absl::string_view job, int task) const;
  // "/job:J/replica:0/task:T" for every task, jobs sorted by name.
  std::vector<std::string> TaskNames() const;
  // The task name a device or task name belongs to ("/job:ps/replica:0/task:0/device:CPU:0" ->
  // "/job:ps/replica:0/task:0"). "/replica:0" may be left out ("/job:ps/task:0/device:CPU:0").
  // INVALID_ARGUMENT when it names no task of this cluster: no /job: or /task: field, a replica
  // other than 0, or a job or task the cluster lacks.
  absl::StatusOr<std::string> TaskOf(absl::string_view device_or_task) const;
  // The address of a task name; INVALID_ARGUMENT as TaskOf.
  absl::StatusOr<std::string> AddressOf(absl::string_view task_name) const;
  // The spec in Parse's syntax, jobs sorted by name; Parse(ToString()) gives the same jobs.
  std::string ToString() const;

 private:
  std::map<std::string, std::vector<std::string>> jobs_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_CLUSTER_SPEC_H_
