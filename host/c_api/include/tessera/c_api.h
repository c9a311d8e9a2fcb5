/* Tessera's additions to the TensorFlow-compatible C API (tensorflow/c/c_api.h): what TensorFlow's
 * C API has no call for. Exported by libtessera_c with the TESSERA_ prefix. */
#ifndef TESSERA_C_API_H_
#define TESSERA_C_API_H_

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every plugin the C API's graphs and sessions would use (TESSERA_PLUGIN_PATH, the folder beside
 * the library, and those loaded with TF_LoadPluggableDeviceLibrary), loaded or rejected with the
 * reason, as JSON: the format of `tessera plugins --json`. NULL with the error in `status` when
 * the plugins cannot be discovered. The caller deletes the buffer. */
TF_CAPI_EXPORT extern TF_Buffer* TESSERA_PluginsJson(TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_H_ */
