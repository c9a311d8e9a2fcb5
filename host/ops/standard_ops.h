// TensorFlow's standard op definitions, registered by explicit calls (no static constructors).
#ifndef TESSERA_HOST_OPS_STANDARD_OPS_H_
#define TESSERA_HOST_OPS_STANDARD_OPS_H_

#include <vector>

#include "absl/status/status.h"
#include "host/ops/op_def_builder.h"
#include "host/ops/op_registry.h"

namespace tessera {

// Registers every standard op below into `registry`.
absl::Status RegisterStandardOps(OpRegistry* registry);

// The groups, one per file (TensorFlow's math_ops.cc, array_ops.cc, nn_ops.cc, and the
// runtime's internal ops: NoOp, _Arg/_Retval, _Send/_Recv, control flow).
absl::Status RegisterMathOps(OpRegistry* registry);
absl::Status RegisterArrayOps(OpRegistry* registry);
absl::Status RegisterNnOps(OpRegistry* registry);
absl::Status RegisterInternalOps(OpRegistry* registry);
absl::Status RegisterConvOps(OpRegistry* registry);      // conv_ops.cc
absl::Status RegisterConv3DOps(OpRegistry* registry);    // conv3d_ops.cc
absl::Status RegisterRandomOps(OpRegistry* registry);    // random_ops.cc
absl::Status RegisterStateOps(OpRegistry* registry);     // state_ops.cc
absl::Status RegisterTrainingOps(OpRegistry* registry);  // training_ops.cc
absl::Status RegisterIoOps(OpRegistry* registry);        // io_ops.cc
absl::Status RegisterStringOps(OpRegistry* registry);    // string_ops.cc
absl::Status RegisterArrayGradOps(OpRegistry* registry);  // array_grad_ops.cc
absl::Status RegisterImageOps(OpRegistry* registry);      // image_ops.cc
absl::Status RegisterDataFlowOps(OpRegistry* registry);   // data_flow_ops.cc
absl::Status RegisterFunctionalOps(OpRegistry* registry);  // functional_ops.cc

// Builds and registers one definition.
absl::Status RegisterOp(OpRegistry* registry, const OpDefBuilder& builder);

// TensorFlow's type sets: "numbertype" and "realnumbertype".
std::vector<DataType> NumberTypes();
std::vector<DataType> RealNumberTypes();

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_STANDARD_OPS_H_
