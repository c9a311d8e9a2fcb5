// Executor: runs one partition graph (all nodes on one device) per step. The node table is built
// once; each step keeps only pending counts and input slots. Cheap nodes run inline on the thread
// that made them ready, expensive ones go to the inter-op pool, and the first error aborts the
// step (its rendezvous included).
#ifndef TESSERA_HOST_EXECUTOR_EXECUTOR_H_
#define TESSERA_HOST_EXECUTOR_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/executor/kernel_context.h"
#include "host/executor/op_kernel.h"

namespace tessera {

class Device;
class Graph;
class KernelFactory;
class LocalRendezvous;
class ThreadPool;

struct ExecutorParams {
  Device* device = nullptr;
  ThreadPool* intra_op_pool = nullptr;
  const KernelFactory* kernel_factory = nullptr;
};

class Executor {
 public:
  using Runner = std::function<void(std::function<void()>)>;
  // Receives the step's status by value: the thread that finishes a step keeps no reference to
  // it once the callback has it (the caller may be gone by the time that thread unwinds).
  using DoneCallback = std::function<void(absl::Status)>;

  struct Args {
    int64_t step_id = 0;
    LocalRendezvous* rendezvous = nullptr;
    CallFrame* call_frame = nullptr;
    // Runs a closure on the inter-op pool; when empty everything runs on the calling thread.
    Runner runner;
    // When set to true (a deadline passed, the client cancelled), no further node starts.
    const std::atomic<bool>* cancelled = nullptr;
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

  int num_nodes() const { return static_cast<int>(items_.size()); }

 private:
  friend class ExecutorState;

  struct OutEdge {
    int32_t dst;           // node item index
    int32_t dst_slot;      // absolute input slot, or -1 for a control edge
    int32_t src_output;    // -1 for a control edge
    bool is_last_use;      // the last consumer of this output: gets the value moved
    bool dst_single_input;  // dst has exactly one in-edge: ready without touching its counter
  };
  struct NodeItem {
    KernelNodeInfo info;
    std::unique_ptr<OpKernel> kernel;
    int32_t input_start = 0;
    int32_t num_inputs = 0;
    int32_t out_begin = 0;
    int32_t out_end = 0;
    int32_t initial_pending = 0;
    bool is_cheap = false;
    bool is_async = false;
    bool has_constant_outputs = false;
    std::vector<Tensor> constant_outputs;
  };

  Executor() = default;
  absl::Status Build(const ExecutorParams& params, const Graph& graph);

  ExecutorParams params_;
  std::vector<NodeItem> items_;
  std::vector<OutEdge> out_edges_;
  // Input slots filled from constants when a step starts.
  struct Prefill {
    int32_t slot;
    const Tensor* value;
  };
  std::vector<Prefill> prefills_;
  std::vector<int32_t> roots_;
  int32_t total_input_slots_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_EXECUTOR_H_
