// Registers every CPU kernel group with the host.
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {

sdk::Status RegisterAllKernels(TSR_Registrar* registrar) {
  using RegisterFn = sdk::Status (*)(TSR_Registrar*);
  static constexpr RegisterFn kGroups[] = {
      &RegisterBinaryArithmeticKernels,
      &RegisterBinaryDivisionExtremaKernels,
      &RegisterUnaryBasicKernels,
      &RegisterUnaryTranscendentalKernels,
      &RegisterMatMulKernels,
      &RegisterBiasAddKernels,
      &RegisterSoftmaxKernels,
      &RegisterReductionKernels,
      &RegisterConstantKernels,
      &RegisterShapeKernels,
      &RegisterConcatKernels,
      &RegisterFillKernels,
      &RegisterCastKernels,
      &RegisterComparisonKernels,
      &RegisterLogicalKernels,
      &RegisterTrainingKernels,
  };
  for (RegisterFn group : kGroups) {
    sdk::Status status = group(registrar);
    if (!status.ok()) return status;
  }
  return sdk::OkStatus();
}

}  // namespace tessera::cpu
