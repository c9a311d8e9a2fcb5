// TensorFlow's TF_CONFIG environment variable: the cluster and this task's place in it, as set
// by Kubernetes tools such as Kubeflow's TFJob, read by `tessera serve`.
#ifndef TESSERA_HOST_TOOLS_TF_CONFIG_H_
#define TESSERA_HOST_TOOLS_TF_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/distributed/cluster_spec.h"

namespace tessera {
namespace cli {

inline constexpr char kTfConfigEnv[] = "TF_CONFIG";

// What TF_CONFIG says about one task.
struct TfConfig {
  // "cluster": job name -> ["host:port", ...], in task order.
  ClusterSpec cluster;
  // "task": {"type": JOB, "index": N}.
  std::string job;
  int task = 0;
};

// Parses the value of TF_CONFIG, TensorFlow's format:
//   {"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"],
//                "ps": ["host3:2222"]},
//    "task": {"type": "worker", "index": 1}}
// "cluster" and "task" (with "type" and "index") are required, and the task must be one of the
// cluster's, as TensorFlow requires. Every other key ("environment", "rpc_layer", task.trial,
// ...) is ignored. The cluster follows ClusterSpec's rules (ClusterSpec::FromJobs); TensorFlow's
// sparse form of a job ({"worker": {"1": "host:port"}}) is not accepted.
// Errors are INVALID_ARGUMENT whose message starts with "TF_CONFIG: " and names the part that is
// wrong: "TF_CONFIG: task.index: expected an integer >= 0, got -1".
absl::StatusOr<TfConfig> ParseTfConfig(absl::string_view json);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_TF_CONFIG_H_
