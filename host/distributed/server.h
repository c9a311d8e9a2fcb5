// Server: one task of a cluster (`tessera serve`): a master and a worker behind one listening
// transport server, bound to the task's own address from the cluster spec and nothing else. The
// master reaches this task's worker in process (InProcessChannel), the other tasks' through the
// transport.
#ifndef TESSERA_HOST_DISTRIBUTED_SERVER_H_
#define TESSERA_HOST_DISTRIBUTED_SERVER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/distributed/cluster_spec.h"
#include "registry/plugin_policy.h"

namespace tessera {

struct ServerOptions {
  ClusterSpec cluster;
  std::string job;  // this task's job and index in `cluster`
  int task = 0;
  std::string transport = "grpc";  // the name a transport plugin registered
  // Passed to the transport's server and channels: "tls_cert_file", "tls_key_file",
  // "tls_ca_file" (see docs/transports.md).
  std::map<std::string, std::string> transport_options;
  std::vector<std::string> plugin_paths;
  // Which plugins may load and which plugin serves a device type, over the plugin policy file's
  // settings (as SessionOptions::plugin_policy; `tessera serve --plugin-allow` and the like).
  PluginPolicyOptions plugin_policy;
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  std::map<std::string, int> device_count;
  // As SessionOptions::device_options.
  std::map<std::string, std::map<std::string, std::string>> device_options;
  // Deadline of every remote call this task makes (control calls, a step's partitions and its
  // tensor pulls) unless a step's RunOptions::timeout_ms says otherwise.
  int64_t call_timeout_ms = 60000;
  // A master session that no client used for this long is closed, with its state on workers.
  int64_t session_idle_timeout_ms = 600000;
  // Step state on a worker (its rendezvous) that no call touched for this long is dropped.
  int64_t step_idle_timeout_ms = 600000;
  // Told of events an operator should see (a step cancelled because its client or master is
  // gone); may be empty. Called from the server's threads.
  std::function<void(const std::string&)> log;
};

class Server {
 public:
  // Loads the plugins, creates this task's devices (named /job:J/replica:0/task:T/device:...)
  // and starts serving. Errors: INVALID_ARGUMENT for a job or task not in the cluster,
  // NOT_FOUND for an unknown transport (the message lists the loaded ones), and the transport's
  // own error when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<Server>> Create(const ServerOptions& options);
  ~Server();  // Stop()

  // "/job:worker/replica:0/task:0".
  const std::string& task_name() const;
  // The address bound ("localhost:2222").
  const std::string& address() const;
  // The session target of this server's master: "grpc://localhost:2222".
  std::string target() const;
  // This task's devices.
  std::vector<std::string> devices() const;

  // What this task holds now: client sessions on its master, and master sessions and steps with
  // state on its worker; and the calls it served so far (for tests and monitoring).
  struct State {
    int master_sessions = 0;
    int worker_sessions = 0;
    int worker_steps = 0;
    // Calls that reached this task through its transport, by method ("Master/RunStep": n).
    std::map<std::string, int64_t> calls_received;
    // Calls its master made to its own worker in process (never through the transport).
    int64_t in_process_calls = 0;
  };
  State state() const;

  // Fails steps still running with UNAVAILABLE, stops the transport server and waits for the
  // server's threads. Idempotent.
  void Stop();

 private:
  class Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_SERVER_H_
