// The data-parallel digits MLP: the variables and their momentum slots on a parameter-server
// device, one tower (forward pass, loss and gradients) per worker device on that worker's share of
// each batch, and the gradients averaged and applied on the parameter server.
#ifndef TESSERA_EXAMPLES_DISTRIBUTED_DATA_PARALLEL_MLP_H_
#define TESSERA_EXAMPLES_DISTRIBUTED_DATA_PARALLEL_MLP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/client/ops.h"

namespace tessera::distributed_example {

// The device each part of the graph requests: `ps` for the variables, the optimizer and the
// averaging, `workers[i]` for tower i. Every node of the graph gets one of these devices, except
// the optimizer's slot initializers, which follow their slot (a reference edge) to `ps`.
struct DevicePlan {
  std::string ps;
  std::vector<std::string> workers;

  // The tasks of a cluster: "/job:ps/replica:0/task:0" and "/job:worker/replica:0/task:<i>".
  static DevicePlan Cluster(int num_workers);
  // The same layout inside one local session created with device_count {"CPU": num_workers + 1}:
  // worker i on "/job:localhost/replica:0/task:0/device:CPU:<i>", ps on CPU:<num_workers>.
  static DevicePlan Local(int num_workers);
};

struct DataParallelMlp {
  // One per worker: placeholders for its share of the batch ([n, 64] float pixels in [0, 1] and
  // [n] int32 labels), its mean cross entropy and its accuracy on that share.
  std::vector<Output> pixels;
  std::vector<Output> labels;
  std::vector<Output> tower_losses;
  std::vector<Output> tower_accuracies;
  // The mean of the towers' losses (on ps): the loss of the whole batch when the shares are equal.
  Output loss;
  // One momentum step with the averaged gradients. Every update waits for every averaged gradient,
  // so no tower reads a variable that an update of the same step has already changed.
  Operation train;
  // Run once before training: the variables (Glorot-uniform weights from the seed, zero biases)
  // and the momentum accumulators (zeros).
  std::vector<std::string> initializers;
};

// Builds 64 -> 64 (ReLU) -> 10 with one tower per worker of `plan` into `scope`. The graph depends
// only on the arguments, so two calls with plans of as many workers build the same arithmetic.
// INVALID_ARGUMENT when the plan has no worker or no ps device; the scope's first error otherwise.
absl::StatusOr<DataParallelMlp> BuildDataParallelMlp(const Scope& scope, const DevicePlan& plan,
                                                     int64_t seed, double learning_rate,
                                                     double momentum);

}  // namespace tessera::distributed_example

#endif  // TESSERA_EXAMPLES_DISTRIBUTED_DATA_PARALLEL_MLP_H_
