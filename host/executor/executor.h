// Executor: runs one partition graph (all nodes on one device) per step. The node table is built
// once; each step keeps only pending counts and input slots. Cheap nodes run inline on the thread
// that made them ready, expensive ones go to the inter-op pool, and the first error aborts the
// step (its rendezvous included). A graph with control flow (Switch, Merge, Enter, Exit,
// NextIteration, LoopCond, ControlTrigger) or a _Recv that may deliver a dead value runs with
// TensorFlow's frames, iterations and dead-value propagation; any other graph takes a simpler path
// with one pending counter per node.
#ifndef TESSERA_HOST_EXECUTOR_EXECUTOR_H_
#define TESSERA_HOST_EXECUTOR_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/abi/host_kernel_context.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Device;
class Graph;
namespace executor_internal {
struct NodeTable;
}  // namespace executor_internal
class KernelFactory;
class Rendezvous;
class ResourceManager;
class SharedKernels;
class StepStatsCollector;
class ThreadPool;

struct ExecutorParams {
  Device* device = nullptr;
  ThreadPool* intra_op_pool = nullptr;
  const KernelFactory* kernel_factory = nullptr;
  // The session's variables; null when the graph has none.
  ResourceManager* resource_manager = nullptr;
  // The session's stateful plugin kernels, shared with its other executors; null: none shared.
  SharedKernels* shared_kernels = nullptr;
  // Set when another partition of the same step has control flow, so a _Recv may deliver a dead
  // value: the executor then tracks deadness even without control-flow nodes of its own.
  bool dead_inputs_possible = false;
};

class Executor {
 public:
  using Runner = std::function<void(std::function<void()>)>;
  // Receives the step's status by value: the thread that finishes a step keeps no reference to
  // it once the callback has it (the caller may be gone by the time that thread unwinds).
  using DoneCallback = std::function<void(absl::Status)>;

  struct Args {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;
    CallFrame* call_frame = nullptr;
    // Runs a closure on the inter-op pool; when empty everything runs on the calling thread.
    Runner runner;
    // When set to true (a deadline passed, the client cancelled), no further node starts.
    const std::atomic<bool>* cancelled = nullptr;
    // When set, every executed node is recorded.
    StepStatsCollector* stats = nullptr;
  };

  // Builds the node table for `graph`, whose nodes must all be placed on `params.device`, and
  // instantiates every kernel (constant-output kernels run once here).
  static absl::StatusOr<std::unique_ptr<Executor>> Create(const ExecutorParams& params,
                                                          const Graph& graph);
  ~Executor();

  // Runs one step. `done` is called exactly once, possibly before RunAsync returns.
  void RunAsync(const Args& args, DoneCallback done) const;
  // Runs one step and waits for it.
  absl::Status Run(const Args& args) const;

  int num_nodes() const;
  // True when steps run with frames and dead-value propagation.
  bool uses_frames() const;

 private:
  Executor() = default;

  // The node table (host/executor/node_table.h), private to the executor.
  std::unique_ptr<const executor_internal::NodeTable> table_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_EXECUTOR_H_
