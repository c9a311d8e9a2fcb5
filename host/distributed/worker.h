// Worker: the worker service of one task. Masters register their partitions of a graph here once
// per signature and run them per step; other tasks pull the step's values from here by
// rendezvous key. Step state (the step's rendezvous) lives until the master's CleanupGraph, until
// the step's run here ends when the master said nothing outlives it (RunGraphRequest.ends_step),
// or until it has been idle for step_idle_timeout_ms. A running step whose master no longer waits
// for its RunGraph answer (the master died, its connection broke, the call's deadline passed)
// is cancelled by the next CancelOrphanedSteps and its state dropped once its partitions stop.
#ifndef TESSERA_HOST_DISTRIBUTED_WORKER_H_
#define TESSERA_HOST_DISTRIBUTED_WORKER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "host/distributed/remote_rendezvous.h"
#include "registry/transport_handle.h"

namespace tessera {

class Environment;
struct ExecutionPlan;
class ResourceManager;
class SharedKernels;

struct WorkerOptions {
  std::string task_name;  // "/job:worker/replica:0/task:0"
  // Deadline of a step's pulls when its RunGraph names none.
  int64_t call_timeout_ms = 60000;
  int64_t step_idle_timeout_ms = 600000;
  int64_t session_idle_timeout_ms = 600000;
  // Reported by GetStatus: the client sessions of this task's master (null: 0).
  std::function<int()> master_sessions;
  // Told of events an operator should see (a step cancelled because its master is gone); may be
  // empty. Called from the worker's threads.
  std::function<void(const std::string&)> log;
};

// A TransportHandler: the server hands it the transport's "Worker/..." calls and pulls, and the
// task's own master calls it through an InProcessChannel.
class Worker final : public TransportHandler {
 public:
  // `env` holds this task's devices; `channels` reaches the other tasks (for pulls).
  Worker(std::shared_ptr<Environment> env, TaskChannels* channels, WorkerOptions options);
  // Aborts every step and waits for the work it started (registrations, steps) to finish.
  ~Worker() override;

  // "Worker/..." calls; answers every call through `reply`, possibly later.
  void HandleCall(absl::string_view method, absl::string_view request,
                  TransportReply reply) override;
  // Another task pulls a value of step `step_id` from here.
  void HandleRecvTensor(uint64_t step_id, absl::string_view rendezvous_key,
                        TransportReply reply) override;

  // Drops step state and worker sessions idle past their timeouts; returns how many of each.
  std::pair<int, int> ExpireIdle(std::chrono::steady_clock::time_point now);
  // Cancels every running step whose master no longer waits for a RunGraph answer (asked of the
  // transport, TransportReply::cancelled); returns how many. The server calls it every
  // kOrphanCheckPeriod.
  int CancelOrphanedSteps();
  // Aborts every step with `status` (server shutdown) and refuses later calls with it.
  void Shutdown(const absl::Status& status);

  int live_sessions() const;
  int live_steps() const;

 private:
  struct WorkerSession;
  struct Step;
  struct Caller;

  void GetStatus(absl::string_view request, TransportReply reply);
  void CreateWorkerSession(absl::string_view request, TransportReply reply);
  void DeleteWorkerSession(absl::string_view request, TransportReply reply);
  void RegisterGraph(absl::string_view request, TransportReply reply);
  void DeregisterGraph(absl::string_view request, TransportReply reply);
  void RunGraph(absl::string_view request, TransportReply reply);
  void AbortStep(absl::string_view request, TransportReply reply);
  void CleanupGraph(absl::string_view request, TransportReply reply);

  absl::StatusOr<std::shared_ptr<WorkerSession>> FindSession(const std::string& handle);
  // The step's state, created on first use (a pull may arrive before the step's RunGraph).
  std::shared_ptr<Step> FindOrCreateStep(uint64_t step_id);
  // Records that `step_id` ended here; the worker's mutex is held.
  void RememberEndedLocked(uint64_t step_id);
  absl::Status CheckIncarnation(absl::string_view rendezvous_key) const;
  // A RunGraph of `step` finished: drops its caller, and the step's state when nothing of it
  // runs any more and either the step was cancelled as orphaned or its master said that the step
  // ends with this run (`ends_step`: no other task pulls from it). Takes the worker's mutex.
  void FinishRun(const std::shared_ptr<Step>& step, uint64_t step_id, const Caller* caller,
                 bool ends_step);
  // Work this worker handed to the inter-op pool, which the destructor waits for.
  void BeginWork();
  void EndWork();

  std::shared_ptr<Environment> env_;
  TaskChannels* channels_;
  const WorkerOptions options_;

  mutable std::mutex mu_;
  absl::Status shutdown_;
  uint64_t next_graph_id_ = 1;
  std::map<std::string, std::shared_ptr<WorkerSession>> sessions_;
  std::map<uint64_t, std::shared_ptr<Step>> steps_;
  // The last kEndedStepsKept steps that ended here (cleaned up, or dropped as orphaned): a late
  // call for one of them must not create its state again.
  static constexpr size_t kEndedStepsKept = 4096;
  absl::flat_hash_set<uint64_t> ended_;
  std::deque<uint64_t> ended_order_;
  int work_in_progress_ = 0;
  std::condition_variable work_done_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_DISTRIBUTED_WORKER_H_
