/* TF_Status: the outcome of a call, a code and a message. */
#ifndef TENSORFLOW_C_TF_STATUS_H_
#define TENSORFLOW_C_TF_STATUS_H_

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Status TF_Status;

/* The canonical error codes (the same numbers as TensorFlow's and gRPC's). */
typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_UNAUTHENTICATED = 16,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15
} TF_Code;

/* A new status holding TF_OK. Free it with TF_DeleteStatus. */
TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);
/* NULL is ignored. */
TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status* s);

/* Sets the code and a copy of `msg` (NULL reads as ""); TF_OK clears the message. */
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);
/* Sets the status from an errno value and a context message, as TensorFlow maps errno values. */
TF_CAPI_EXPORT extern void TF_SetStatusFromIOError(TF_Status* s, int error_code,
                                                   const char* context);

TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);
/* The message ("" for TF_OK); valid until the status is next changed or deleted. */
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_TF_STATUS_H_ */
