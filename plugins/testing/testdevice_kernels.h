// The kernels of the TESTDEV device type.
#ifndef TESSERA_PLUGINS_TESTING_TESTDEVICE_KERNELS_H_
#define TESSERA_PLUGINS_TESTING_TESTDEVICE_KERNELS_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::testdevice {

// Const (every dtype the CPU Const supports), Identity (any type), AddV2, Sub and Mul (float,
// int32, int64; TensorFlow broadcasting), MatMul (float; transpose_a/b), Less and Greater
// (float, int32, int64; broadcasting; bool output in device memory).
sdk::Status RegisterTestDeviceKernels(TSR_Registrar* registrar);

}  // namespace tessera::testdevice

#endif  // TESSERA_PLUGINS_TESTING_TESTDEVICE_KERNELS_H_
