// The command line of tessera_train_distributed.
#ifndef TESSERA_EXAMPLES_DISTRIBUTED_TRAIN_FLAGS_H_
#define TESSERA_EXAMPLES_DISTRIBUTED_TRAIN_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera::distributed_example {

struct TrainFlags {
  // "" trains in a local session; "grpc://host:port" on the cluster of that task's master.
  std::string target;
  std::string data;  // digits.csv.gz
  int steps = 300;
  int batch = 64;  // split evenly between the two workers, so it must be even
  int64_t seed = 1;
  double learning_rate = 0.05;
  double momentum = 0.9;
  // Threads of each kernel; 1 (the default) keeps every reduction in one order, which is what
  // makes the distributed and the local loss curves bit-identical.
  int intra_op_threads = 1;
  // Also train in a local single-process session and compare the loss curves.
  bool compare = false;
};

// Parses `args` (without the program name) over the defaults above, `data` defaulting to
// `default_data`. INVALID_ARGUMENT naming the flag and the value for an unknown flag, a missing
// or malformed value, a target without "://", steps < 1, a batch that is odd or below 2, a
// learning rate <= 0, a momentum outside [0, 1) or intra-op threads < 1.
absl::StatusOr<TrainFlags> ParseTrainFlags(const std::vector<std::string>& args,
                                           const std::string& default_data);

// The usage text, ending in a newline.
std::string TrainUsage();

}  // namespace tessera::distributed_example

#endif  // TESSERA_EXAMPLES_DISTRIBUTED_TRAIN_FLAGS_H_
