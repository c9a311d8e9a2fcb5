// The executor: builds the node table once and runs each step with the step loop over the
// propagator the graph needs.
#include "host/executor/executor.h"

#include <condition_variable>
#include <mutex>
#include <utility>

#include "base/status_macros.h"
#include "host/executor/counter_propagator.h"
#include "host/executor/frame_propagator.h"
#include "host/executor/node_table.h"
#include "host/executor/step_state.h"

namespace tessera {

using executor_internal::CounterPropagator;
using executor_internal::FramePropagator;
using executor_internal::NodeTable;
using executor_internal::StepState;

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const ExecutorParams& params,
                                                           const Graph& graph) {
  auto table = std::make_unique<NodeTable>();
  RETURN_IF_ERROR(table->Build(params, graph));
  std::unique_ptr<Executor> executor(new Executor());
  executor->table_ = std::move(table);
  return executor;
}

Executor::~Executor() = default;

int Executor::num_nodes() const { return static_cast<int>(table_->items.size()); }

bool Executor::uses_frames() const { return table_->uses_frames; }

void Executor::RunAsync(const Args& args, DoneCallback done) const {
  if (table_->uses_frames) {
    (new StepState<FramePropagator>(table_.get(), args, std::move(done)))->Start();
  } else {
    (new StepState<CounterPropagator>(table_.get(), args, std::move(done)))->Start();
  }
}

absl::Status Executor::Run(const Args& args) const {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  absl::Status result;
  RunAsync(args, [&](absl::Status status) {
    std::lock_guard<std::mutex> lock(mu);
    result = std::move(status);
    finished = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

}  // namespace tessera
