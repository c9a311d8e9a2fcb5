/* TF_Tensor: a dense tensor in host memory (a data type, dimensions and a buffer). */
#ifndef TENSORFLOW_C_TF_TENSOR_H_
#define TENSORFLOW_C_TF_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Elements are stored row-major. A TF_STRING tensor holds one TF_TString per element. */
typedef struct TF_Tensor TF_Tensor;

/* A tensor over the caller's bytes data[0, len). The tensor owns them from now on: when the
 * last reference goes, `deallocator(data, len, deallocator_arg)` is called exactly once (it may
 * be NULL when nothing needs freeing). The bytes are used in place when `data` is aligned to 64
 * bytes; otherwise they are copied and the deallocator is called
 * before this returns. Returns NULL (and calls the deallocator) when `len` is smaller than the
 * type and dims need, when a dim is negative, when num_dims is negative or above 254, or for a
 * type without a layout here (TF_RESOURCE, TF_VARIANT). A TF_STRING tensor's data are
 * TF_TString elements that stay the caller's: its deallocator must free them. */
TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims,
                                              void* data, size_t len,
                                              void (*deallocator)(void* data, size_t len,
                                                                  void* arg),
                                              void* deallocator_arg);

/* A tensor whose bytes are allocated here (aligned), uninitialised except that a TF_STRING
 * tensor's elements are empty strings. NULL when `len` is smaller than the type and dims need (a
 * larger `len` is accepted; the tensor holds what the dims need). */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims,
                                                   int num_dims, size_t len);

/* `t` itself when nothing else refers to its buffer (so its bytes may be reused), else NULL. */
TF_CAPI_EXPORT extern TF_Tensor* TF_TensorMaybeMove(TF_Tensor* t);

/* Drops this reference (the buffer goes with the last one); NULL is ignored. */
TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor* t);

TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor* t);
/* Changes the dims (their element count must stay the same; otherwise nothing changes). */
TF_CAPI_EXPORT extern void TF_SetShape(TF_Tensor* tensor, const int64_t* dims, int num_dims);
TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor* t);
/* Dimension `dim_index` (0 <= dim_index < TF_NumDims); -1 when out of range. */
TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* t, int dim_index);
TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor* t);
/* The first byte; NULL for a tensor without elements. */
TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor* t);
TF_CAPI_EXPORT extern int64_t TF_TensorElementCount(const TF_Tensor* tensor);

/* Makes `to` share `from`'s buffer with type `type` and dims `new_dims`; the byte sizes must
 * agree. INVALID_ARGUMENT otherwise. */
TF_CAPI_EXPORT extern void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type,
                                                TF_Tensor* to, const int64_t* new_dims,
                                                int num_new_dims, TF_Status* status);

/* True when the data is aligned to 64 bytes, the alignment of every buffer Tessera allocates
 * (a tensor without elements counts as aligned). */
TF_CAPI_EXPORT extern bool TF_TensorIsAligned(const TF_Tensor* t);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_TF_TENSOR_H_ */
