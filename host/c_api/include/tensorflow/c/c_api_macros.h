/* Tessera's TensorFlow-compatible C API: export and calling-convention macros. */
#ifndef TENSORFLOW_C_C_API_MACROS_H_
#define TENSORFLOW_C_C_API_MACROS_H_

#if defined(_WIN32)
#define TF_CAPI_EXPORT __declspec(dllimport)
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

/* Marks a function that clients should no longer call. */
#if defined(__GNUC__) || defined(__clang__)
#define TF_DEPRECATED(message) __attribute__((deprecated(message)))
#else
#define TF_DEPRECATED(message)
#endif

/* The spelling TensorFlow's headers use for a value that may be NULL. */
#define TF_NULLABLE

#endif /* TENSORFLOW_C_C_API_MACROS_H_ */
