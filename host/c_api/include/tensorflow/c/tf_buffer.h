/* TF_Buffer: a block of bytes (usually a serialized protocol buffer) passed in or out. */
#ifndef TENSORFLOW_C_TF_BUFFER_H_
#define TENSORFLOW_C_TF_BUFFER_H_

#include <stddef.h>

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `data_deallocator`, when set, is called with `data` and `length` by TF_DeleteBuffer and when a
 * call that fills the buffer replaces its contents. */
typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A buffer holding a copy of proto[0, proto_len). */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);
/* An empty buffer for calls that fill one. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);
/* Calls the data's deallocator (if any) and frees the buffer; NULL is ignored. */
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer* buffer);
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_TF_BUFFER_H_ */
