// TensorFlow's standard op definitions: the list of groups and the shared type sets.
#include "host/ops/standard_ops.h"

#include "base/status_macros.h"

namespace tessera {

absl::Status RegisterOp(OpRegistry* registry, const OpDefBuilder& builder) {
  OpRegistration registration;
  ASSIGN_OR_RETURN(registration, builder.Build());
  return registry->Register(std::move(registration));
}

absl::Status RegisterStandardOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterMathOps(registry));
  RETURN_IF_ERROR(RegisterArrayOps(registry));
  RETURN_IF_ERROR(RegisterNnOps(registry));
  RETURN_IF_ERROR(RegisterInternalOps(registry));
  RETURN_IF_ERROR(RegisterConvOps(registry));
  RETURN_IF_ERROR(RegisterConv3DOps(registry));
  RETURN_IF_ERROR(RegisterRandomOps(registry));
  RETURN_IF_ERROR(RegisterStateOps(registry));
  RETURN_IF_ERROR(RegisterTrainingOps(registry));
  RETURN_IF_ERROR(RegisterIoOps(registry));
  RETURN_IF_ERROR(RegisterStringOps(registry));
  RETURN_IF_ERROR(RegisterArrayGradOps(registry));
  RETURN_IF_ERROR(RegisterImageOps(registry));
  RETURN_IF_ERROR(RegisterDataFlowOps(registry));
  RETURN_IF_ERROR(RegisterFunctionalOps(registry));
  return absl::OkStatus();
}

std::vector<DataType> NumberTypes() {
  return {TSR_DTYPE_FLOAT,  TSR_DTYPE_DOUBLE,  TSR_DTYPE_INT32,     TSR_DTYPE_UINT8,
          TSR_DTYPE_INT16,  TSR_DTYPE_INT8,    TSR_DTYPE_COMPLEX64, TSR_DTYPE_INT64,
          TSR_DTYPE_QINT8,  TSR_DTYPE_QUINT8,  TSR_DTYPE_QINT32,    TSR_DTYPE_BFLOAT16,
          TSR_DTYPE_QINT16, TSR_DTYPE_QUINT16, TSR_DTYPE_UINT16,    TSR_DTYPE_COMPLEX128,
          TSR_DTYPE_HALF,   TSR_DTYPE_UINT32,  TSR_DTYPE_UINT64};
}

std::vector<DataType> RealNumberTypes() {
  return {TSR_DTYPE_FLOAT,  TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32,  TSR_DTYPE_UINT8,
          TSR_DTYPE_INT16,  TSR_DTYPE_INT8,   TSR_DTYPE_INT64,  TSR_DTYPE_BFLOAT16,
          TSR_DTYPE_UINT16, TSR_DTYPE_HALF,   TSR_DTYPE_UINT32, TSR_DTYPE_UINT64};
}

}  // namespace tessera
