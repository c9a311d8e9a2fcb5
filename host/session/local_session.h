// LocalSession: the embedded session. The graph is imported, checked and placed once at
// creation; each new (feeds, fetches, targets) signature is pruned, rewritten, partitioned by
// device and turned into executors once (an ExecutionPlan), then cached.
#ifndef TESSERA_HOST_SESSION_LOCAL_SESSION_H_
#define TESSERA_HOST_SESSION_LOCAL_SESSION_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "host/executor/executor.h"
#include "host/graph/graph.h"
#include "host/ops/partial_shape.h"
#include "host/session/environment.h"
#include "host/session/execution_plan.h"
#include "host/session/session.h"

namespace tessera {

class LocalSession final : public Session {
 public:
  static absl::StatusOr<std::unique_ptr<Session>> Create(const SessionOptions& options,
                                                         const tensorflow::GraphDef& graph);
  // Moves the nodes out of `graph` (see Session::Create).
  static absl::StatusOr<std::unique_ptr<Session>> Create(const SessionOptions& options,
                                                         tensorflow::GraphDef&& graph);
  ~LocalSession() override;

  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* metadata) override;
  using Session::Run;

  absl::StatusOr<CallableHandle> MakeCallable(const std::vector<std::string>& feeds,
                                              const std::vector<std::string>& fetches,
                                              const std::vector<std::string>& targets) override;
  absl::Status RunCallable(CallableHandle handle, const RunOptions& options,
                           const std::vector<Tensor>& feeds, std::vector<Tensor>* outputs,
                           RunMetadata* metadata) override;
  absl::Status ReleaseCallable(CallableHandle handle) override;

  absl::Status Extend(const tensorflow::GraphDef& addition) override;
  std::vector<std::string> ListDevices() const override;

 private:
  // A prepared signature: its plan and its names (for messages).
  struct Callable {
    std::shared_ptr<const ExecutionPlan> plan;
    std::vector<std::string> feeds;
    std::vector<std::string> fetches;
  };

  LocalSession(const SessionOptions& options, std::shared_ptr<Environment> env,
               std::unique_ptr<Graph> graph);
  // Places `graph` and makes the session.
  static absl::StatusOr<std::unique_ptr<Session>> FromGraph(const SessionOptions& options,
                                                            std::shared_ptr<Environment> env,
                                                            std::unique_ptr<Graph> graph);

  int64_t NewStepId();
  absl::StatusOr<std::shared_ptr<const ExecutionPlan>> GetOrCreatePlan(
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets);
  absl::StatusOr<std::shared_ptr<const ExecutionPlan>> CreatePlan(
      const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  // Feed `i` of `plan`, named `name`: its dtype, memory and shape.
  absl::Status CheckFeed(const ExecutionPlan& plan, size_t i, const std::string& name,
                         const Tensor& value) const;
  // Runs `plan` on `frame` (its args set) and moves the fetches (named `fetches`) to `outputs`.
  absl::Status RunPlan(const RunOptions& options, const ExecutionPlan& plan, CallFrame* frame,
                       const std::vector<std::string>& fetches, std::vector<Tensor>* outputs,
                       RunMetadata* metadata);
  absl::Status Execute(const RunOptions& options, const ExecutionPlan& plan, CallFrame* frame,
                       StepStatsCollector* stats);

  SessionOptions options_;
  std::shared_ptr<Environment> env_;
  // Imported and placed; replaced (under mu_) when the graph grows. A plan being built keeps the
  // graph it started from.
  std::shared_ptr<const Graph> graph_;
  std::mutex extend_mu_;  // one Extend at a time
  std::atomic<int64_t> next_step_id_;
  // Variables live across Run calls, as long as the session (and any step still running).
  std::shared_ptr<ResourceManager> resources_ = std::make_shared<ResourceManager>();
  // Stateful kernels (random generators...) shared by all of this session's signatures.
  std::shared_ptr<SharedKernels> shared_kernels_ = std::make_shared<SharedKernels>();

  std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const ExecutionPlan>> plans_;
  absl::flat_hash_map<CallableHandle, std::shared_ptr<const Callable>> callables_;
  CallableHandle next_callable_ = 1;
};

}  // namespace tessera

#endif  // TESSERA_HOST_SESSION_LOCAL_SESSION_H_
