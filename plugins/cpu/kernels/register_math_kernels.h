// Registration entry points of the CPU kernel groups added after register_kernels.h's, kept in
// their own header so that adding a group does not recompile every kernel translation unit.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_REGISTER_MATH_KERNELS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_REGISTER_MATH_KERNELS_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::cpu {

sdk::Status RegisterTrigonometricKernels(TSR_Registrar* registrar);  // Sin ... Cosh, Atan2
sdk::Status RegisterFloatClassKernels(TSR_Registrar* registrar);     // IsNan IsInf IsFinite Rint
sdk::Status RegisterCumprodKernels(TSR_Registrar* registrar);        // in cumsum_op.cc
sdk::Status RegisterClipByValueKernels(TSR_Registrar* registrar);
sdk::Status RegisterCheckNumericsKernels(TSR_Registrar* registrar);
sdk::Status RegisterLinSpaceKernels(TSR_Registrar* registrar);
sdk::Status RegisterBucketizeKernels(TSR_Registrar* registrar);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_REGISTER_MATH_KERNELS_H_
