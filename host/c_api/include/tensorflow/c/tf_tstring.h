/* TF_TString: the element of a TF_STRING tensor, 24 bytes. Short strings are stored inline;
 * longer ones on the heap; a view refers to bytes the caller keeps alive. Always use the
 * functions below: the layout of the bytes is private. */
#ifndef TENSORFLOW_C_TF_TSTRING_H_
#define TENSORFLOW_C_TF_TSTRING_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TF_TString_Type {
  TF_TSTR_SMALL = 0x00,  /* inline, up to 22 bytes */
  TF_TSTR_LARGE = 0x01,  /* owned heap memory */
  TF_TSTR_OFFSET = 0x02, /* reserved for serialized forms; never produced by Tessera */
  TF_TSTR_VIEW = 0x03    /* bytes owned by someone else */
} TF_TString_Type;

typedef struct TF_TString {
  union {
    char raw[24];
    /* Aligns the string like a pointer and makes the struct 24 bytes on every 64-bit target. */
    struct {
      size_t a;
      size_t b;
      void* c;
    } words;
  } u;
} TF_TString;

/* An empty small string. Every TF_TString must be initialised before any other call. */
TF_CAPI_EXPORT extern void TF_StringInit(TF_TString* t);
/* Replaces the contents with a copy of src[0, size) (NUL-terminated; may contain NULs). */
TF_CAPI_EXPORT extern void TF_StringCopy(TF_TString* dst, const char* src, size_t size);
/* Replaces the contents with a view of src[0, size); `src` must outlive the view. */
TF_CAPI_EXPORT extern void TF_StringAssignView(TF_TString* dst, const char* src, size_t size);
TF_CAPI_EXPORT extern const char* TF_StringGetDataPointer(const TF_TString* tstr);
TF_CAPI_EXPORT extern TF_TString_Type TF_StringGetType(const TF_TString* str);
TF_CAPI_EXPORT extern size_t TF_StringGetSize(const TF_TString* tstr);
/* Bytes the string can hold without reallocating; 0 for a view. */
TF_CAPI_EXPORT extern size_t TF_StringGetCapacity(const TF_TString* str);
/* Frees owned memory and leaves an empty small string. */
TF_CAPI_EXPORT extern void TF_StringDealloc(TF_TString* tstr);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_TF_TSTRING_H_ */
