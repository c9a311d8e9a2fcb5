// Registration entry points of the CPU kernel groups, one per translation unit.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_REGISTER_KERNELS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_REGISTER_KERNELS_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::cpu {

sdk::Status RegisterBinaryArithmeticKernels(TSR_Registrar* registrar);       // Add AddV2 Sub Mul
sdk::Status RegisterBinaryDivisionExtremaKernels(TSR_Registrar* registrar);  // RealDiv Max Min
sdk::Status RegisterUnaryBasicKernels(TSR_Registrar* registrar);  // Neg Abs Square Relu Relu6
sdk::Status RegisterUnaryTranscendentalKernels(TSR_Registrar* registrar);  // Exp Log Sqrt ...
sdk::Status RegisterMatMulKernels(TSR_Registrar* registrar);
sdk::Status RegisterBiasAddKernels(TSR_Registrar* registrar);
sdk::Status RegisterSoftmaxKernels(TSR_Registrar* registrar);
sdk::Status RegisterReductionKernels(TSR_Registrar* registrar);  // Sum Mean Max
sdk::Status RegisterConstantKernels(TSR_Registrar* registrar);   // Const Identity NoOp Placeholder*
sdk::Status RegisterShapeKernels(TSR_Registrar* registrar);      // Reshape Shape ExpandDims Squeeze
sdk::Status RegisterConcatKernels(TSR_Registrar* registrar);     // ConcatV2 Pack
sdk::Status RegisterFillKernels(TSR_Registrar* registrar);       // Fill ZerosLike
sdk::Status RegisterCastKernels(TSR_Registrar* registrar);
sdk::Status RegisterComparisonKernels(TSR_Registrar* registrar);  // Less ... NotEqual
sdk::Status RegisterLogicalKernels(TSR_Registrar* registrar);  // LogicalAnd LogicalOr LogicalNot

sdk::Status RegisterTrainingKernels(TSR_Registrar* registrar);  // AssignAdd/Sub, Apply*

// All of the above, in order; stops at the first failure.
sdk::Status RegisterAllKernels(TSR_Registrar* registrar);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_REGISTER_KERNELS_H_
