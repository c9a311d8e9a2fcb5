/* The C API suite: status, buffers, data types, tensors and TF_TString. */
#include <errno.h>
#include <stdlib.h>

#include "host/c_api/tests/c_api_test_util.h"

/* ---- Status, buffers, data types ---------------------------------------------------------- */

void TestStatus(void) {
  TF_Status* s = TF_NewStatus();
  CHECK_OK(s);
  CHECK(strcmp(TF_Message(s), "") == 0);
  TF_SetStatus(s, TF_NOT_FOUND, "no such thing");
  CHECK_ERROR(s, TF_NOT_FOUND, "no such thing");
  TF_SetStatus(s, TF_OK, "ignored");
  CHECK_OK(s);
  CHECK(strcmp(TF_Message(s), "") == 0);
  TF_SetStatusFromIOError(s, ENOENT, "opening model.pb");
  CHECK_ERROR(s, TF_NOT_FOUND, "opening model.pb");
  TF_SetStatusFromIOError(s, EACCES, "x");
  CHECK_CODE(s, TF_PERMISSION_DENIED);
  TF_SetStatusFromIOError(s, ENOSPC, "x");
  CHECK_CODE(s, TF_RESOURCE_EXHAUSTED);
  TF_DeleteStatus(s);
  TF_DeleteStatus(NULL);

  CHECK(TF_DataTypeSize(TF_FLOAT) == 4);
  CHECK(TF_DataTypeSize(TF_DOUBLE) == 8);
  CHECK(TF_DataTypeSize(TF_INT64) == 8);
  CHECK(TF_DataTypeSize(TF_BOOL) == 1);
  CHECK(TF_DataTypeSize(TF_HALF) == 2);
  CHECK(TF_DataTypeSize(TF_BFLOAT16) == 2);
  CHECK(TF_DataTypeSize(TF_COMPLEX128) == 16);
  CHECK(TF_DataTypeSize(TF_STRING) == 0);
  CHECK(TF_DataTypeSize(TF_RESOURCE) == 0);
  CHECK(TF_DataTypeSize((TF_DataType)0) == 0);
  CHECK(strstr(TF_Version(), "tf-c-api") != NULL);
}

void TestBuffers(void) {
  TF_Buffer* b = TF_NewBufferFromString("abc", 3);
  CHECK(b->length == 3 && memcmp(b->data, "abc", 3) == 0);
  TF_Buffer view = TF_GetBuffer(b);
  CHECK(view.data == b->data && view.length == 3);
  TF_DeleteBuffer(b);

  b = TF_NewBuffer();
  CHECK(b->data == NULL && b->length == 0 && b->data_deallocator == NULL);
  void* owned = malloc(16);
  b->data = owned;
  b->length = 16;
  b->data_deallocator = CountingBufferDeallocator;
  g_buffer_deallocations = 0;
  TF_DeleteBuffer(b);
  CHECK(g_buffer_deallocations == 1);
  TF_DeleteBuffer(NULL);

  /* A call that fills a buffer gives back what the buffer held. */
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  b = TF_NewBuffer();
  b->data = malloc(8);
  b->length = 8;
  b->data_deallocator = CountingBufferDeallocator;
  g_buffer_deallocations = 0;
  TF_GraphToGraphDef(g, b, s);
  CHECK_OK(s);
  CHECK(g_buffer_deallocations == 1);
  TF_DeleteBuffer(b);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- Tensors and strings ------------------------------------------------------------------ */

void TestTensors(void) {
  const int64_t dims[2] = {2, 3};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, 2, 6 * sizeof(float));
  CHECK(t != NULL);
  CHECK(TF_TensorType(t) == TF_FLOAT);
  CHECK(TF_NumDims(t) == 2);
  CHECK(TF_Dim(t, 0) == 2 && TF_Dim(t, 1) == 3);
  CHECK(TF_Dim(t, 2) == -1 && TF_Dim(t, -1) == -1);
  CHECK(TF_TensorByteSize(t) == 24);
  CHECK(TF_TensorElementCount(t) == 6);
  CHECK(TF_TensorData(t) != NULL);
  CHECK(TF_TensorIsAligned(t));
  const int64_t flat[1] = {6};
  TF_SetShape(t, flat, 1);
  CHECK(TF_NumDims(t) == 1 && TF_Dim(t, 0) == 6);
  const int64_t wrong[1] = {5};
  TF_SetShape(t, wrong, 1); /* another element count: nothing changes */
  CHECK(TF_Dim(t, 0) == 6);
  CHECK(TF_TensorMaybeMove(t) == t);
  TF_DeleteTensor(t);
  TF_DeleteTensor(NULL);

  /* Bad sizes. */
  CHECK(TF_AllocateTensor(TF_FLOAT, dims, 2, 23) == NULL);
  TF_Tensor* roomy = TF_AllocateTensor(TF_FLOAT, dims, 2, 100); /* more than needed: accepted */
  CHECK(roomy != NULL && TF_TensorByteSize(roomy) == 24);
  TF_DeleteTensor(roomy);
  const int64_t negative[1] = {-1};
  CHECK(TF_AllocateTensor(TF_FLOAT, negative, 1, 0) == NULL);
  const int64_t huge[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
  CHECK(TF_AllocateTensor(TF_FLOAT, huge, 2, 0) == NULL);
  CHECK(TF_AllocateTensor(TF_RESOURCE, NULL, 0, 0) == NULL);

  /* TF_NewTensor over aligned memory: used in place, deallocated exactly once at the end. */
  float* aligned = aligned_alloc(64, 64);
  for (int i = 0; i < 6; ++i) aligned[i] = (float)i;
  g_deallocations = 0;
  t = TF_NewTensor(TF_FLOAT, dims, 2, aligned, 6 * sizeof(float), CountingDeallocator, NULL);
  CHECK(t != NULL);
  CHECK(TF_TensorData(t) == aligned);
  CHECK(g_deallocations == 0);
  TF_DeleteTensor(t);
  CHECK(g_deallocations == 1);

}

/* The unaligned case with a deallocator that frees the block it came from. */
static char* g_unaligned_block = NULL;
static void FreeUnalignedBlock(void* data, size_t len, void* arg) {
  (void)data;
  (void)len;
  (void)arg;
  ++g_deallocations;
  free(g_unaligned_block);
  g_unaligned_block = NULL;
}

void TestUnalignedTensor(void) {
  const int64_t dims[2] = {2, 3};
  float values[6] = {1, 2, 3, 4, 5, 6};
  g_unaligned_block = malloc(sizeof values + 128);
  char* base = g_unaligned_block + (64 - ((size_t)g_unaligned_block % 64)) % 64 + 4;
  memcpy(base, values, sizeof values);
  g_deallocations = 0;
  TF_Tensor* t = TF_NewTensor(TF_FLOAT, dims, 2, base, sizeof values, FreeUnalignedBlock, NULL);
  CHECK(t != NULL);
  CHECK(g_deallocations == 1); /* copied, then given back at once */
  CHECK(TF_TensorData(t) != base);
  CHECK(TF_TensorIsAligned(t));
  CHECK(memcmp(TF_TensorData(t), values, sizeof values) == 0);
  TF_DeleteTensor(t);
  CHECK(g_deallocations == 1);

  /* A length too small: NULL, and the deallocator still runs. */
  float* small = malloc(4 * sizeof(float));
  g_deallocations = 0;
  t = TF_NewTensor(TF_FLOAT, dims, 2, small, 4 * sizeof(float), CountingDeallocator, NULL);
  CHECK(t == NULL);
  CHECK(g_deallocations == 1);

  /* A bitcast shares the buffer under another type and shape. */
  TF_Status* s = TF_NewStatus();
  TF_Tensor* from = FloatTensor(dims, 2, values);
  TF_Tensor* to = TF_AllocateTensor(TF_INT32, dims, 2, 6 * sizeof(int32_t));
  const int64_t as_vector[1] = {6};
  TF_TensorBitcastFrom(from, TF_INT32, to, as_vector, 1, s);
  CHECK_OK(s);
  CHECK(TF_TensorType(to) == TF_INT32 && TF_NumDims(to) == 1);
  CHECK(TF_TensorData(to) == TF_TensorData(from));
  CHECK(TF_TensorMaybeMove(from) == NULL); /* shared now */
  const int64_t too_big[1] = {7};
  TF_TensorBitcastFrom(from, TF_INT32, to, too_big, 1, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "bytes");
  TF_TensorBitcastFrom(NULL, TF_INT32, to, too_big, 1, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "from is NULL");
  TF_DeleteTensor(from);
  TF_DeleteTensor(to);
  TF_DeleteStatus(s);
}

void TestTStrings(void) {
  CHECK(sizeof(TF_TString) == 24);
  TF_TString str;
  TF_StringInit(&str);
  CHECK(TF_StringGetType(&str) == TF_TSTR_SMALL);
  CHECK(TF_StringGetSize(&str) == 0);
  CHECK(strcmp(TF_StringGetDataPointer(&str), "") == 0);

  TF_StringCopy(&str, "hello", 5);
  CHECK(TF_StringGetType(&str) == TF_TSTR_SMALL);
  CHECK(TF_StringGetSize(&str) == 5);
  CHECK(TF_StringGetCapacity(&str) >= 5);
  CHECK(memcmp(TF_StringGetDataPointer(&str), "hello", 5) == 0);

  const char with_nul[] = {'a', '\0', 'b'};
  TF_StringCopy(&str, with_nul, 3);
  CHECK(TF_StringGetSize(&str) == 3 && memcmp(TF_StringGetDataPointer(&str), with_nul, 3) == 0);

  const char* long_text = "a string long enough to need its own heap memory";
  TF_StringCopy(&str, long_text, strlen(long_text));
  CHECK(TF_StringGetType(&str) == TF_TSTR_LARGE);
  CHECK(TF_StringGetSize(&str) == strlen(long_text));
  CHECK(TF_StringGetCapacity(&str) >= strlen(long_text));
  CHECK(strcmp(TF_StringGetDataPointer(&str), long_text) == 0);

  static const char viewed[] = "viewed bytes";
  TF_StringAssignView(&str, viewed, 6);
  CHECK(TF_StringGetType(&str) == TF_TSTR_VIEW);
  CHECK(TF_StringGetSize(&str) == 6);
  CHECK(TF_StringGetCapacity(&str) == 0);
  CHECK(TF_StringGetDataPointer(&str) == viewed);
  TF_StringDealloc(&str);
  CHECK(TF_StringGetType(&str) == TF_TSTR_SMALL && TF_StringGetSize(&str) == 0);

  /* A string tensor: one TF_TString per element, freed with the tensor. */
  const int64_t dims[1] = {2};
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, dims, 1, 2 * sizeof(TF_TString));
  CHECK(t != NULL);
  TF_TString* elements = TF_TensorData(t);
  CHECK(TF_StringGetSize(&elements[0]) == 0);
  TF_StringCopy(&elements[0], "short", 5);
  TF_StringCopy(&elements[1], long_text, strlen(long_text));
  CHECK(TF_TensorByteSize(t) == 2 * sizeof(TF_TString));
  CHECK(TF_AllocateTensor(TF_STRING, dims, 1, 2) == NULL);
  TF_DeleteTensor(t);
}

