// ExecutionPlan: what one (feeds, fetches, targets) signature runs as: the placed graph pruned and
// rewritten for the call, cut into one partition per device (joined by _Send/_Recv), one executor
// each. RunPlanStep runs every partition's executor for one step over a shared rendezvous.
#ifndef TESSERA_HOST_SESSION_EXECUTION_PLAN_H_
#define TESSERA_HOST_SESSION_EXECUTION_PLAN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/executor/executor.h"
#include "host/kernels/shared_kernels.h"
#include "host/ops/partial_shape.h"
#include "host/passes/rewrite_for_execution.h"
#include "host/runtime/resource_manager.h"

namespace tessera {

class Device;
class Environment;
class Graph;
class Rendezvous;
class StepStatsCollector;

struct ExecutionPlan {
  struct Part {
    Device* device = nullptr;
    std::unique_ptr<Executor> executor;
  };
  std::vector<Part> parts;  // one per device the signature uses
  std::vector<DataType> feed_types;
  std::vector<PartialShape> feed_shapes;
  std::vector<DataType> fetch_types;
  bool has_control_flow = false;
  // The session's variables, which its executors' kernels read and update (kept alive by every
  // plan, so a step still running when the session goes away can finish).
  std::shared_ptr<ResourceManager> resource_manager;
  // The session's stateful kernels, shared by its plans (kept alive the same way).
  std::shared_ptr<SharedKernels> shared_kernels;
};

// Prunes and rewrites a copy of the placed `graph` for `signature` (feeds and fetches on the
// client device), partitions it by device and builds the executors over the session's variables.
// `op_fusion`: run the op fusion pass (host/passes/op_fusion.h) first.
absl::StatusOr<std::unique_ptr<ExecutionPlan>> BuildExecutionPlan(
    const Environment& env, const Graph& graph, const ExecutionSignature& signature,
    std::shared_ptr<ResourceManager> resources, std::shared_ptr<SharedKernels> shared_kernels,
    bool op_fusion = true);

// Builds the executors of an already rewritten `graph` into `plan`: one per device the graph
// uses, cut with _Send/_Recv when it uses several, after the op fusion pass when `op_fusion`.
// `control_flow_added`: the graph is a piece of a graph partitioned earlier (a worker's piece of
// what the master cut by task), which already has its control loops. plan->has_control_flow must
// be set before.
absl::Status BuildPartitionedExecutors(const Environment& env, std::unique_ptr<Graph> graph,
                                       bool control_flow_added, ExecutionPlan* plan,
                                       bool op_fusion = true);

struct StepArgs {
  int64_t step_id = 0;
  // The step's rendezvous when it is shared beyond this plan (a worker's step, which other tasks
  // pull values from and whose abort comes from outside); null: the step makes its own.
  std::shared_ptr<Rendezvous> rendezvous;
  CallFrame* call_frame = nullptr;
  Executor::Runner runner;
  const std::atomic<bool>* cancelled = nullptr;
  StepStatsCollector* stats = nullptr;
};

// Runs one step of every partition; `done` gets the step's status once all have finished. With
// several partitions the first error aborts the step's rendezvous, and the status reported is that
// root cause, not a partition's derived "aborted" error. `abort` (may be null) receives a function
// that aborts the step's rendezvous with a status, for deadlines and cancellation.
void RunPlanStep(const ExecutionPlan& plan, const StepArgs& args,
                 std::function<void(std::function<void(const absl::Status&)>)> abort,
                 Executor::DoneCallback done);

}  // namespace tessera

#endif  // TESSERA_HOST_SESSION_EXECUTION_PLAN_H_
