// Master: the master service of one task. A client's session lives here: the master imports and
// places the graph over every device of the cluster, prunes and rewrites it per signature,
// partitions it by task, registers each piece with its worker once, and runs a step by running
// every piece at once under one random step id (TensorFlow's MasterSession).
#ifndef TESSERA_HOST_DISTRIBUTED_MASTER_H_
#define TESSERA_HOST_DISTRIBUTED_MASTER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "host/distributed/remote_rendezvous.h"
#include "registry/transport_handle.h"

namespace tessera {

class Environment;
class ThreadPool;

struct MasterOptions {
  std::string task_name;                   // this task: "/job:worker/replica:0/task:0"
  std::vector<std::string> cluster_tasks;  // every task of the cluster
  int64_t call_timeout_ms = 60000;
  int64_t session_idle_timeout_ms = 600000;
  // Told of events an operator should see (a step cancelled because its client is gone).
  std::function<void(const std::string&)> log;
};

class Master {
 public:
  // `env` gives the op registry and kernel factory the master places with; `channels` reaches
  // every task's worker: through the transport, or in process where it has an in-process channel
  // (this task's own worker, in a server).
  Master(std::shared_ptr<Environment> env, TaskChannels* channels, MasterOptions options);
  ~Master();

  // "Master/..." calls; answers every call through `reply`, later, from the master's threads.
  void HandleCall(absl::string_view method, absl::string_view request, TransportReply reply);

  // Closes sessions idle past their timeout (their worker sessions too); returns how many.
  int ExpireIdle(std::chrono::steady_clock::time_point now);
  // Refuses later calls with `status` and waits for calls in progress.
  void Shutdown(const absl::Status& status);

  int live_sessions() const;

 private:
  class MasterSession;

  void CreateSession(const std::string& request, TransportReply reply);
  void RunStep(const std::string& request, TransportReply reply);
  void CloseSession(const std::string& request, TransportReply reply);
  void ListDevices(const std::string& request, TransportReply reply);

  std::shared_ptr<Environment> env_;
  TaskChannels* channels_;
  const MasterOptions options_;
  std::unique_ptr<ThreadPool> pool_;  // runs master calls, which wait on workers

  mutable std::mutex mu_;
  absl::Status shutdown_;
  uint64_t next_session_id_;
  std::map<std::string, std::shared_ptr<MasterSession>> sessions_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_MASTER_H_
