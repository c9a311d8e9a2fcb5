// The two digit classifiers, built with the C++ API: a multi-layer perceptron and a small
// convolutional network, each with its loss, accuracy and an Adam training op.
#ifndef TESSERA_EXAMPLES_DIGITS_DIGITS_MODELS_H_
#define TESSERA_EXAMPLES_DIGITS_DIGITS_MODELS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/client/ops.h"

namespace tessera::digits {

struct Model {
  Output pixels;    // placeholder [batch, 64] float in [0, 1]
  Output labels;    // placeholder [batch] int32
  Output loss;      // mean cross entropy
  Output accuracy;  // fraction of the batch classified right
  Operation train;  // one Adam step
  std::vector<Output> variables;             // weights and optimizer slots, for checkpoints
  std::vector<std::string> initializers;     // run once before training from scratch
};

// "mlp": 64 -> 64 (ReLU) -> 10. "cnn": 8x8x1 -> conv 3x3x16 -> pool -> conv 3x3x32 -> pool ->
// 10. Weights start Glorot-uniform from `seed`. INVALID_ARGUMENT for another name.
absl::StatusOr<Model> BuildModel(const Scope& scope, const std::string& name, int64_t seed,
                                 double learning_rate);

}  // namespace tessera::digits

#endif  // TESSERA_EXAMPLES_DIGITS_DIGITS_MODELS_H_
