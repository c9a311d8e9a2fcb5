/* The C API's test suite, in plain C11 as its clients write it: every function of the headers,
 * their ownership rules (each deallocator runs exactly once; the suite runs under
 * AddressSanitizer's leak checker) and their errors (code and message). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tessera/c_api.h"

#if !defined(TESSERA_SOURCE_DIR) || !defined(TESSERA_BINARY_DIR)
#error "TESSERA_SOURCE_DIR and TESSERA_BINARY_DIR must name the source and build trees"
#endif

static int g_failures = 0;
static int g_checks = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    ++g_checks;                                                            \
    if (!(cond)) {                                                         \
      ++g_failures;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

/* The status holds `code`; on failure the message is printed. */
#define CHECK_CODE(status, code)                                                       \
  do {                                                                                 \
    ++g_checks;                                                                        \
    if (TF_GetCode(status) != (code)) {                                                \
      ++g_failures;                                                                    \
      fprintf(stderr, "%s:%d: expected code %d (%s), got %d: %s\n", __FILE__, __LINE__, \
              (int)(code), #code, (int)TF_GetCode(status), TF_Message(status));        \
    }                                                                                  \
  } while (0)

#define CHECK_OK(status) CHECK_CODE(status, TF_OK)

/* The status holds `code` and its message contains `text`. */
#define CHECK_ERROR(status, code, text)                                                     \
  do {                                                                                      \
    CHECK_CODE(status, code);                                                               \
    ++g_checks;                                                                             \
    if (strstr(TF_Message(status), (text)) == NULL) {                                       \
      ++g_failures;                                                                         \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,           \
              TF_Message(status), (text));                                                  \
    }                                                                                       \
  } while (0)

/* ---- Helpers ------------------------------------------------------------------------------ */

static int g_deallocations = 0;
static void CountingDeallocator(void* data, size_t len, void* arg) {
  (void)len;
  (void)arg;
  ++g_deallocations;
  free(data);
}

static int g_buffer_deallocations = 0;
static void CountingBufferDeallocator(void* data, size_t length) {
  (void)length;
  ++g_buffer_deallocations;
  free(data);
}

static TF_Tensor* FloatTensor(const int64_t* dims, int num_dims, const float* values) {
  size_t n = 1;
  for (int i = 0; i < num_dims; ++i) n *= (size_t)dims[i];
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, num_dims, n * sizeof(float));
  if (t != NULL && n > 0) memcpy(TF_TensorData(t), values, n * sizeof(float));
  return t;
}

static TF_Tensor* ScalarFloat(float v) { return FloatTensor(NULL, 0, &v); }

static TF_Operation* Placeholder(TF_Graph* g, const char* name, TF_DataType type,
                                 TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", type);
  return TF_FinishOperation(d, s);
}

static TF_Operation* ConstTensor(TF_Graph* g, const char* name, TF_Tensor* value, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", value, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_FinishOperation(d, s);
    return NULL;
  }
  TF_SetAttrType(d, "dtype", TF_TensorType(value));
  return TF_FinishOperation(d, s);
}

static TF_Operation* Binary(TF_Graph* g, const char* op, const char* name, TF_Operation* a,
                            TF_Operation* b, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, op, name);
  TF_Output ia = {a, 0};
  TF_Output ib = {b, 0};
  TF_AddInput(d, ia);
  TF_AddInput(d, ib);
  return TF_FinishOperation(d, s);
}

static int CountOperations(TF_Graph* g) {
  size_t pos = 0;
  int n = 0;
  while (TF_GraphNextOperation(g, &pos) != NULL) ++n;
  return n;
}

static TF_Buffer* ReadFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* bytes = malloc((size_t)size);
  size_t got = fread(bytes, 1, (size_t)size, f);
  fclose(f);
  TF_Buffer* buffer = TF_NewBufferFromString(bytes, got);
  free(bytes);
  return buffer;
}

/* ---- Status, buffers, data types ---------------------------------------------------------- */

static void TestStatus(void) {
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

static void TestBuffers(void) {
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

static void TestTensors(void) {
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

static void TestUnalignedTensor(void) {
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

static void TestTStrings(void) {
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

/* ---- Graphs ------------------------------------------------------------------------------- */

/* x: Placeholder float [-1,2]; w: Const 2x3; mm = MatMul(x, w); b: Const [3]; y = Add(mm, b). */
typedef struct {
  TF_Graph* graph;
  TF_Operation* x;
  TF_Operation* w;
  TF_Operation* mm;
  TF_Operation* b;
  TF_Operation* y;
} Model;

static void BuildModel(Model* m, TF_Status* s) {
  m->graph = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(m->graph, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const int64_t shape[2] = {-1, 2};
  TF_SetAttrShape(d, "shape", shape, 2);
  m->x = TF_FinishOperation(d, s);
  CHECK_OK(s);
  const int64_t wdims[2] = {2, 3};
  const float w[6] = {1, 2, 3, 4, 5, 6};
  TF_Tensor* wt = FloatTensor(wdims, 2, w);
  m->w = ConstTensor(m->graph, "w", wt, s);
  CHECK_OK(s);
  TF_DeleteTensor(wt);
  m->mm = Binary(m->graph, "MatMul", "mm", m->x, m->w, s);
  CHECK_OK(s);
  const int64_t bdims[1] = {3};
  const float b[3] = {0.5f, -1, 2};
  TF_Tensor* bt = FloatTensor(bdims, 1, b);
  m->b = ConstTensor(m->graph, "b", bt, s);
  CHECK_OK(s);
  TF_DeleteTensor(bt);
  m->y = Binary(m->graph, "Add", "y", m->mm, m->b, s);
  CHECK_OK(s);
}

static void TestGraphBuildingAndIntrospection(void) {
  TF_Status* s = TF_NewStatus();
  Model m;
  BuildModel(&m, s);
  TF_Graph* g = m.graph;

  CHECK(strcmp(TF_OperationName(m.mm), "mm") == 0);
  CHECK(strcmp(TF_OperationOpType(m.mm), "MatMul") == 0);
  CHECK(strcmp(TF_OperationDevice(m.mm), "") == 0);
  CHECK(TF_OperationNumOutputs(m.mm) == 1);
  TF_Output mm0 = {m.mm, 0};
  CHECK(TF_OperationOutputType(mm0) == TF_FLOAT);
  TF_Output mm5 = {m.mm, 5};
  CHECK(TF_OperationOutputType(mm5) == 0);
  CHECK(TF_OperationNumInputs(m.mm) == 2);
  TF_Input in1 = {m.mm, 1};
  CHECK(TF_OperationInputType(in1) == TF_FLOAT);
  TF_Output src = TF_OperationInput(in1);
  CHECK(src.oper == m.w && src.index == 0);
  TF_Output all[2];
  TF_OperationAllInputs(m.mm, all, 2);
  CHECK(all[0].oper == m.x && all[1].oper == m.w);
  TF_Output x0 = {m.x, 0};
  CHECK(TF_OperationOutputNumConsumers(x0) == 1);
  TF_Input consumers[2];
  CHECK(TF_OperationOutputConsumers(x0, consumers, 2) == 1);
  CHECK(consumers[0].oper == m.mm && consumers[0].index == 0);

  /* Type attrs are inferred from the inputs, as TensorFlow's node builder does. */
  TF_DataType t;
  TF_OperationGetAttrType(m.y, "T", &t, s);
  CHECK_OK(s);
  CHECK(t == TF_FLOAT);

  /* Shapes: MatMul of [-1,2] and [2,3] is [-1,3]. */
  CHECK(TF_GraphGetTensorNumDims(g, mm0, s) == 2);
  CHECK_OK(s);
  int64_t dims[2] = {0, 0};
  TF_GraphGetTensorShape(g, mm0, dims, 2, s);
  CHECK_OK(s);
  CHECK(dims[0] == -1 && dims[1] == 3);
  TF_GraphGetTensorShape(g, mm0, dims, 3, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "rank 2");
  const int64_t refined[2] = {4, 3};
  TF_GraphSetTensorShape(g, mm0, refined, 2, s);
  CHECK_OK(s);
  TF_GraphGetTensorShape(g, mm0, dims, 2, s);
  CHECK(dims[0] == 4 && dims[1] == 3);
  const int64_t incompatible[2] = {4, 5};
  TF_GraphSetTensorShape(g, mm0, incompatible, 2, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "not compatible");
  TF_GraphGetTensorNumDims(NULL, mm0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "graph is NULL");
  TF_GraphGetTensorNumDims(g, mm5, s);
  CHECK_ERROR(s, TF_OUT_OF_RANGE, "mm");
  TF_Graph* elsewhere = TF_NewGraph();
  TF_GraphGetTensorNumDims(elsewhere, mm0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "another graph");
  TF_GraphSetTensorShape(elsewhere, mm0, refined, 2, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "another graph");
  TF_GraphGetTensorShape(elsewhere, mm0, dims, 2, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "another graph");
  TF_DeleteGraph(elsewhere);

  /* Lookup and iteration in creation order. */
  CHECK(TF_GraphOperationByName(g, "w") == m.w);
  CHECK(TF_GraphOperationByName(g, "missing") == NULL);
  size_t pos = 0;
  CHECK(TF_GraphNextOperation(g, &pos) == m.x);
  CHECK(TF_GraphNextOperation(g, &pos) == m.w);
  CHECK(TF_GraphNextOperation(g, &pos) == m.mm);
  CHECK(TF_GraphNextOperation(g, &pos) == m.b);
  CHECK(TF_GraphNextOperation(g, &pos) == m.y);
  CHECK(TF_GraphNextOperation(g, &pos) == NULL);

  /* Control edges, lists, colocation and a device. */
  TF_OperationDescription* d = TF_NewOperation(g, "AddN", "sum");
  TF_Output list[3] = {{m.y, 0}, {m.y, 0}, {m.mm, 0}};
  TF_AddInputList(d, list, 3);
  TF_AddControlInput(d, m.b);
  TF_ColocateWith(d, m.y);
  TF_SetDevice(d, "/device:CPU:0");
  TF_Operation* sum = TF_FinishOperation(d, s);
  CHECK_OK(s);
  CHECK(strcmp(TF_OperationDevice(sum), "/device:CPU:0") == 0);
  CHECK(TF_OperationInputListLength(sum, "inputs", s) == 3);
  CHECK_OK(s);
  CHECK(TF_OperationOutputListLength(sum, "sum", s) == 1);
  CHECK_OK(s);
  TF_OperationInputListLength(sum, "nope", s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "nope");
  CHECK(TF_OperationNumControlInputs(sum) == 1);
  TF_Operation* controls[2];
  CHECK(TF_OperationGetControlInputs(sum, controls, 2) == 1 && controls[0] == m.b);
  CHECK(TF_OperationNumControlOutputs(m.b) == 1);
  CHECK(TF_OperationGetControlOutputs(m.b, controls, 2) == 1 && controls[0] == sum);
  int64_t n = 0;
  TF_OperationGetAttrInt(sum, "N", &n, s);
  CHECK_OK(s);
  CHECK(n == 3);

  /* Attr names, the NodeDef, the OpDef and the versions. */
  int num_attrs = TF_OperationGetNumAttrs(sum);
  CHECK(num_attrs == 3); /* N, T, _class */
  char name[32];
  int length = TF_OperationGetAttrNameLength(sum, 0);
  CHECK(length == 1);
  TF_OperationGetAttrName(sum, 0, name, s);
  CHECK_OK(s);
  CHECK(name[0] == 'N');
  CHECK(TF_OperationGetAttrNameLength(sum, num_attrs) == -1);
  TF_OperationGetAttrName(sum, num_attrs, name, s);
  CHECK_ERROR(s, TF_OUT_OF_RANGE, "sum");
  TF_Buffer* buffer = TF_NewBuffer();
  TF_OperationToNodeDef(sum, buffer, s);
  CHECK_OK(s);
  CHECK(buffer->length > 0);
  TF_GraphGetOpDef(g, "MatMul", buffer, s);
  CHECK_OK(s);
  CHECK(buffer->length > 0);
  TF_GraphGetOpDef(g, "NoSuchOp", buffer, s);
  CHECK_ERROR(s, TF_NOT_FOUND, "NoSuchOp");
  TF_GraphVersions(g, buffer, s);
  CHECK_OK(s);
  CHECK(buffer->length > 0);
  TF_DeleteBuffer(buffer);

  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void TestAttrs(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  /* Attrs of every kind on ops that take them. */
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_INT32);
  const int64_t shape[3] = {2, -1, 4};
  TF_SetAttrShape(d, "shape", shape, 3);
  TF_Operation* p = TF_FinishOperation(d, s);
  CHECK_OK(s);

  TF_AttrMetadata meta = TF_OperationGetAttrMetadata(p, "shape", s);
  CHECK_OK(s);
  CHECK(meta.type == TF_ATTR_SHAPE && meta.is_list == 0 && meta.total_size == 3);
  int64_t dims[3];
  TF_OperationGetAttrShape(p, "shape", dims, 3, s);
  CHECK_OK(s);
  CHECK(dims[0] == 2 && dims[1] == -1 && dims[2] == 4);
  TF_Buffer* proto = TF_NewBuffer();
  TF_OperationGetAttrTensorShapeProto(p, "shape", proto, s);
  CHECK_OK(s);
  CHECK(proto->length > 0);
  meta = TF_OperationGetAttrMetadata(p, "dtype", s);
  CHECK(meta.type == TF_ATTR_TYPE);
  TF_OperationGetAttrMetadata(p, "missing", s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "missing");
  int64_t i64;
  TF_OperationGetAttrInt(p, "dtype", &i64, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "is not an int");

  /* A shape proto set from bytes: the shape [2,-1,4] read above, on a new node. */
  d = TF_NewOperation(g, "Placeholder", "p2");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrTensorShapeProto(d, "shape", proto->data, proto->length, s);
  CHECK_OK(s);
  TF_Operation* p2 = TF_FinishOperation(d, s);
  CHECK_OK(s);
  TF_OperationGetAttrShape(p2, "shape", dims, 3, s);
  CHECK(dims[0] == 2 && dims[1] == -1 && dims[2] == 4);
  TF_DeleteBuffer(proto);

  /* Unknown rank. */
  d = TF_NewOperation(g, "Placeholder", "p3");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, -1);
  TF_Operation* p3 = TF_FinishOperation(d, s);
  CHECK_OK(s);
  meta = TF_OperationGetAttrMetadata(p3, "shape", s);
  CHECK(meta.total_size == -1);
  TF_Output p3_out = {p3, 0};
  CHECK(TF_GraphGetTensorNumDims(g, p3_out, s) == -1);

  /* Ints, lists of ints, strings, bools and floats: Conv2D's attrs. */
  TF_Operation* input = Placeholder(g, "input", TF_FLOAT, s);
  TF_Operation* filter = Placeholder(g, "filter", TF_FLOAT, s);
  d = TF_NewOperation(g, "Conv2D", "conv");
  TF_Output in = {input, 0};
  TF_Output f = {filter, 0};
  TF_AddInput(d, in);
  TF_AddInput(d, f);
  const int64_t strides[4] = {1, 2, 2, 1};
  TF_SetAttrIntList(d, "strides", strides, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_SetAttrBool(d, "use_cudnn_on_gpu", 0);
  TF_Operation* conv = TF_FinishOperation(d, s);
  CHECK_OK(s);
  meta = TF_OperationGetAttrMetadata(conv, "strides", s);
  CHECK(meta.is_list == 1 && meta.list_size == 4 && meta.type == TF_ATTR_INT);
  int64_t got[4];
  TF_OperationGetAttrIntList(conv, "strides", got, 4, s);
  CHECK_OK(s);
  CHECK(got[1] == 2 && got[3] == 1);
  meta = TF_OperationGetAttrMetadata(conv, "padding", s);
  CHECK(meta.type == TF_ATTR_STRING && meta.total_size == 4);
  char padding[8] = {0};
  TF_OperationGetAttrString(conv, "padding", padding, sizeof padding, s);
  CHECK_OK(s);
  CHECK(strcmp(padding, "SAME") == 0);
  unsigned char flag = 1;
  TF_OperationGetAttrBool(conv, "use_cudnn_on_gpu", &flag, s);
  CHECK_OK(s);
  CHECK(flag == 0);
  TF_Buffer* value = TF_NewBuffer();
  TF_OperationGetAttrValueProto(conv, "strides", value, s);
  CHECK_OK(s);
  CHECK(value->length > 0);

  /* The same AttrValue bytes set on a new node. */
  d = TF_NewOperation(g, "Conv2D", "conv2");
  TF_AddInput(d, in);
  TF_AddInput(d, f);
  TF_SetAttrValueProto(d, "strides", value->data, value->length, s);
  CHECK_OK(s);
  TF_SetAttrString(d, "padding", "VALID", 5);
  TF_FinishOperation(d, s);
  CHECK_OK(s);
  d = TF_NewOperation(g, "Conv2D", "conv3");
  TF_SetAttrValueProto(d, "strides", "\xff\xff\xff", 3, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "strides");
  TF_FinishOperation(d, s); /* the first error is reported again and the node not added */
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "strides");
  CHECK(TF_GraphOperationByName(g, "conv3") == NULL);
  TF_DeleteBuffer(value);

  /* Floats: LeakyRelu's alpha. */
  d = TF_NewOperation(g, "LeakyRelu", "leaky");
  TF_AddInput(d, in);
  TF_SetAttrFloat(d, "alpha", 0.25f);
  TF_Operation* leaky = TF_FinishOperation(d, s);
  CHECK_OK(s);
  float alpha = 0;
  TF_OperationGetAttrFloat(leaky, "alpha", &alpha, s);
  CHECK_OK(s);
  CHECK(alpha == 0.25f);

  /* Lists of types, of shapes and of strings, and a tensor: attrs any op may carry under a name
   * starting with "_" (never checked against the op's definition). */
  d = TF_NewOperation(g, "NoOp", "annotated");
  const TF_DataType types[2] = {TF_FLOAT, TF_INT64};
  TF_SetAttrTypeList(d, "_types", types, 2);
  const int64_t s1[2] = {1, 2};
  const int64_t s2[1] = {7};
  const int64_t* shapes[3] = {s1, s2, NULL};
  const int ranks[3] = {2, 1, -1};
  TF_SetAttrShapeList(d, "_shapes", shapes, ranks, 3);
  const void* strings[2] = {"ab", "cde"};
  const size_t lengths[2] = {2, 3};
  TF_SetAttrStringList(d, "_strings", strings, lengths, 2);
  const float floats[2] = {0.5f, 1.5f};
  TF_SetAttrFloatList(d, "_floats", floats, 2);
  const unsigned char bools[2] = {1, 0};
  TF_SetAttrBoolList(d, "_bools", bools, 2);
  TF_Tensor* tensor = ScalarFloat(3.5f);
  TF_SetAttrTensor(d, "_tensor", tensor, s);
  CHECK_OK(s);
  TF_SetAttrTensorList(d, "_tensors", &tensor, 1, s);
  CHECK_OK(s);
  TF_SetAttrFuncName(d, "_func", "my_function", 11);
  TF_SetAttrPlaceholder(d, "_placeholder", "T");
  TF_Operation* annotated = TF_FinishOperation(d, s);
  CHECK_OK(s);
  TF_DeleteTensor(tensor);

  TF_DataType got_types[2];
  TF_OperationGetAttrTypeList(annotated, "_types", got_types, 2, s);
  CHECK_OK(s);
  CHECK(got_types[0] == TF_FLOAT && got_types[1] == TF_INT64);
  meta = TF_OperationGetAttrMetadata(annotated, "_shapes", s);
  CHECK(meta.is_list && meta.list_size == 3 && meta.type == TF_ATTR_SHAPE && meta.total_size == 3);
  int64_t storage[3];
  int64_t* shape_dims[3];
  int shape_ranks[3];
  TF_OperationGetAttrShapeList(annotated, "_shapes", shape_dims, shape_ranks, 3, storage, 3, s);
  CHECK_OK(s);
  CHECK(shape_ranks[0] == 2 && shape_dims[0][1] == 2 && shape_ranks[1] == 1 &&
        shape_dims[1][0] == 7 && shape_ranks[2] == -1);
  TF_OperationGetAttrShapeList(annotated, "_shapes", shape_dims, shape_ranks, 3, storage, 2, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "too small");
  TF_Buffer* shape_protos[3];
  TF_OperationGetAttrTensorShapeProtoList(annotated, "_shapes", shape_protos, 3, s);
  CHECK_OK(s);
  for (int i = 0; i < 3; ++i) TF_DeleteBuffer(shape_protos[i]);
  meta = TF_OperationGetAttrMetadata(annotated, "_strings", s);
  CHECK(meta.list_size == 2 && meta.total_size == 5);
  void* string_values[2];
  size_t string_lengths[2];
  char string_storage[5];
  TF_OperationGetAttrStringList(annotated, "_strings", string_values, string_lengths, 2,
                                string_storage, 5, s);
  CHECK_OK(s);
  CHECK(string_lengths[1] == 3 && memcmp(string_values[1], "cde", 3) == 0);
  TF_OperationGetAttrStringList(annotated, "_strings", string_values, string_lengths, 2,
                                string_storage, 4, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "too small");
  TF_OperationGetAttrStringList(annotated, "_strings", NULL, NULL, 2, NULL, 5, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "is NULL");
  TF_OperationGetAttrShapeList(annotated, "_shapes", NULL, NULL, 3, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "is NULL");
  TF_OperationGetAttrTensorList(annotated, "_tensors", NULL, 1, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "values is NULL");
  TF_OperationGetAttrTensorShapeProtoList(annotated, "_shapes", NULL, 3, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "values is NULL");
  float got_floats[2];
  TF_OperationGetAttrFloatList(annotated, "_floats", got_floats, 2, s);
  CHECK(got_floats[1] == 1.5f);
  unsigned char got_bools[2];
  TF_OperationGetAttrBoolList(annotated, "_bools", got_bools, 2, s);
  CHECK(got_bools[0] == 1 && got_bools[1] == 0);
  TF_Tensor* read = NULL;
  TF_OperationGetAttrTensor(annotated, "_tensor", &read, s);
  CHECK_OK(s);
  CHECK(read != NULL && *(float*)TF_TensorData(read) == 3.5f);
  TF_DeleteTensor(read);
  TF_Tensor* read_list[1] = {NULL};
  TF_OperationGetAttrTensorList(annotated, "_tensors", read_list, 1, s);
  CHECK_OK(s);
  CHECK(read_list[0] != NULL && *(float*)TF_TensorData(read_list[0]) == 3.5f);
  TF_DeleteTensor(read_list[0]);
  meta = TF_OperationGetAttrMetadata(annotated, "_func", s);
  CHECK(meta.type == TF_ATTR_FUNC);
  meta = TF_OperationGetAttrMetadata(annotated, "_placeholder", s);
  CHECK(meta.type == TF_ATTR_PLACEHOLDER);

  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void TestGraphErrors(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x", TF_FLOAT, s);
  CHECK_OK(s);
  TF_Operation* i = Placeholder(g, "i", TF_INT32, s);
  CHECK_OK(s);

  TF_OperationDescription* d = TF_NewOperation(g, "NoSuchOp", "bad");
  CHECK(TF_FinishOperation(d, s) == NULL);
  CHECK_ERROR(s, TF_NOT_FOUND, "NoSuchOp");

  Placeholder(g, "x", TF_FLOAT, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "'x'");

  d = TF_NewOperation(g, "Placeholder", "bad name!");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "bad name!");

  /* A float into MatMul's int32 second input: T was inferred as float from the first. */
  CHECK(Binary(g, "MatMul", "mixed", x, i, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "mixed");

  d = TF_NewOperation(g, "Placeholder", "int_dtype");
  TF_SetAttrInt(d, "dtype", 3);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "dtype");

  d = TF_NewOperation(g, "Placeholder", "no_dtype");
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "dtype");

  d = TF_NewOperation(g, "MatMul", "one_input");
  TF_Output x0 = {x, 0};
  TF_AddInput(d, x0);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "one_input");

  d = TF_NewOperation(g, "Identity", "bad_index");
  TF_Output x7 = {x, 7};
  TF_AddInput(d, x7);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_OUT_OF_RANGE, "'x'");

  TF_Graph* other = TF_NewGraph();
  d = TF_NewOperation(other, "Identity", "foreign");
  TF_AddInput(d, x0);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "another graph");
  TF_DeleteGraph(other);

  TF_FinishOperation(NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "desc is NULL");
  CHECK(TF_NewOperation(NULL, "Const", "c") == NULL);
  TF_GraphToGraphDef(NULL, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "graph is NULL");
  TF_SetAttrTensor(NULL, "value", NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "desc is NULL");

  /* NULL arrays given with entries, and negative lengths. */
  d = TF_NewOperation(g, "Conv2D", "null_strides");
  TF_SetAttrIntList(d, "strides", NULL, 4);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "TF_SetAttrIntList: values is NULL");
  d = TF_NewOperation(g, "NoOp", "negative_list");
  TF_SetAttrTypeList(d, "_types", NULL, -1);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "num_values is -1");
  d = TF_NewOperation(g, "NoOp", "null_string");
  TF_SetAttrString(d, "_s", NULL, 3);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "TF_SetAttrString: values is NULL");
  d = TF_NewOperation(g, "NoOp", "null_shape");
  const int ranks[1] = {2};
  const int64_t* no_dims[1] = {NULL};
  TF_SetAttrShapeList(d, "_shapes", no_dims, ranks, 1);
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "its array is NULL");
  d = TF_NewOperation(g, "NoOp", "null_tensors");
  TF_SetAttrTensorList(d, "_tensors", NULL, 2, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "values is NULL");
  TF_FinishOperation(d, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "values is NULL");

  /* Nothing of the failed nodes was added. */
  CHECK(CountOperations(g) == 2);

  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void TestImportExport(void) {
  TF_Status* s = TF_NewStatus();
  Model m;
  BuildModel(&m, s);
  TF_Buffer* def = TF_NewBuffer();
  TF_GraphToGraphDef(m.graph, def, s);
  CHECK_OK(s);
  CHECK(def->length > 0);

  /* Imported twice: once as is, once under a prefix with return values. */
  TF_Graph* g = TF_NewGraph();
  TF_GraphImportGraphDef(g, def, NULL, s);
  CHECK_OK(s);
  CHECK(CountOperations(g) == 5);
  TF_ImportGraphDefOptions* opts = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(opts, "imported");
  TF_ImportGraphDefOptionsAddReturnOutput(opts, "y", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(opts, "mm");
  CHECK(TF_ImportGraphDefOptionsNumReturnOutputs(opts) == 1);
  CHECK(TF_ImportGraphDefOptionsNumReturnOperations(opts) == 1);
  /* The imported x reads the first import's y instead (an [N,3] does not fit MatMul's [.,2]:
   * map the imported "x" to a new [-1,2] placeholder instead). */
  TF_Operation* feed = Placeholder(g, "feed", TF_FLOAT, s);
  TF_Output feed0 = {feed, 0};
  TF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, feed0);
  TF_ImportGraphDefOptionsAddInputMapping(opts, "not_there", 0, feed0);
  TF_ImportGraphDefOptionsSetDefaultDevice(opts, "/device:CPU:0");
  TF_ImportGraphDefResults* results = TF_GraphImportGraphDefWithResults(g, def, opts, s);
  CHECK_OK(s);
  CHECK(results != NULL);
  if (results != NULL) {
    int n = 0;
    TF_Output* outputs = NULL;
    TF_ImportGraphDefResultsReturnOutputs(results, &n, &outputs);
    CHECK(n == 1 && strcmp(TF_OperationName(outputs[0].oper), "imported/y") == 0);
    TF_Operation** opers = NULL;
    TF_ImportGraphDefResultsReturnOperations(results, &n, &opers);
    CHECK(n == 1 && strcmp(TF_OperationName(opers[0]), "imported/mm") == 0);
    CHECK(strcmp(TF_OperationDevice(opers[0]), "/device:CPU:0") == 0);
    const char** names = NULL;
    int* indexes = NULL;
    TF_ImportGraphDefResultsMissingUnusedInputMappings(results, &n, &names, &indexes);
    CHECK(n == 1 && strcmp(names[0], "not_there") == 0 && indexes[0] == 0);
    TF_Operation* imported_mm = TF_GraphOperationByName(g, "imported/mm");
    TF_Input mm_in = {imported_mm, 0};
    CHECK(TF_OperationInput(mm_in).oper == feed);
    TF_DeleteImportGraphDefResults(results);
  }

  /* The prefix is now in use: an error unless it may be made unique. */
  int before = CountOperations(g);
  TF_GraphImportGraphDef(g, def, opts, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "imported");
  CHECK(CountOperations(g) == before);
  TF_ImportGraphDefOptionsSetUniquifyPrefix(opts, 1);
  TF_Output ret;
  TF_GraphImportGraphDefWithReturnOutputs(g, def, opts, &ret, 1, s);
  CHECK_OK(s);
  CHECK(strcmp(TF_OperationName(ret.oper), "imported_1/y") == 0);
  TF_GraphImportGraphDefWithReturnOutputs(g, def, opts, &ret, 2, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "num_return_outputs");
  TF_DeleteImportGraphDefOptions(opts);

  /* Names in use, made unique on request. */
  opts = TF_NewImportGraphDefOptions();
  before = CountOperations(g);
  TF_GraphImportGraphDef(g, def, opts, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "already used");
  CHECK(CountOperations(g) == before);
  TF_ImportGraphDefOptionsSetUniquifyNames(opts, 1);
  TF_GraphImportGraphDef(g, def, opts, s);
  CHECK_OK(s);
  CHECK(TF_GraphOperationByName(g, "y_1") != NULL);
  /* A return output that the GraphDef lacks. */
  TF_ImportGraphDefOptionsAddReturnOutput(opts, "nowhere", 0);
  before = CountOperations(g);
  TF_GraphImportGraphDef(g, def, opts, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "nowhere");
  CHECK(CountOperations(g) == before);
  TF_DeleteImportGraphDefOptions(opts);

  /* Control dependencies added and remapped. */
  opts = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(opts, "ctl");
  TF_ImportGraphDefOptionsAddControlDependency(opts, feed);
  TF_ImportGraphDefOptionsRemapControlDependency(opts, "unused", feed);
  TF_GraphImportGraphDef(g, def, opts, s);
  CHECK_OK(s);
  TF_Operation* ctl_x = TF_GraphOperationByName(g, "ctl/x");
  CHECK(TF_OperationNumControlInputs(ctl_x) == 1);
  TF_DeleteImportGraphDefOptions(opts);

  /* Mappings to another graph's nodes are refused. */
  opts = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(opts, "foreign");
  TF_Output other_x = {m.x, 0}; /* of the model's graph, not g */
  TF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, other_x);
  before = CountOperations(g);
  TF_GraphImportGraphDef(g, def, opts, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "input mapping of 'x:0'");
  CHECK(CountOperations(g) == before);
  TF_DeleteImportGraphDefOptions(opts);
  opts = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(opts, "foreign");
  TF_ImportGraphDefOptionsAddControlDependency(opts, m.x);
  TF_GraphImportGraphDef(g, def, opts, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "another graph");
  TF_ImportGraphDefOptionsAddReturnOutput(opts, "y", 0);
  TF_GraphImportGraphDefWithReturnOutputs(g, def, opts, NULL, 1, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "return_outputs is NULL");
  TF_DeleteImportGraphDefOptions(opts);

  /* Garbage is refused and changes nothing. */
  before = CountOperations(g);
  TF_Buffer* garbage = TF_NewBufferFromString("\xff\xff\xff\xff", 4);
  TF_GraphImportGraphDef(g, garbage, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "not a valid binary GraphDef");
  CHECK(CountOperations(g) == before);
  TF_DeleteBuffer(garbage);
  TF_GraphImportGraphDef(g, NULL, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "graph_def is NULL");

  TF_DeleteBuffer(def);
  TF_DeleteGraph(g);
  TF_DeleteGraph(m.graph);
  TF_DeleteStatus(s);
}

/* ---- Sessions ----------------------------------------------------------------------------- */

static void TestSessionOptions(void) {
  TF_Status* s = TF_NewStatus();
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_SetTarget(opts, "");
  /* intra_op_parallelism_threads 1, inter_op_parallelism_threads 1, allow_soft_placement, and an
   * unknown field 99 (varint), which is ignored. */
  const unsigned char config[] = {0x10, 0x01, 0x28, 0x01, 0x38, 0x01, 0x98, 0x06, 0x01};
  TF_SetConfig(opts, config, sizeof config, s);
  CHECK_OK(s);
  const unsigned char garbage[] = {0xff, 0xff, 0xff};
  TF_SetConfig(opts, garbage, sizeof garbage, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "ConfigProto");
  TF_SetConfig(NULL, config, sizeof config, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "options is NULL");

  /* The options are used: a session on a graph with one node. */
  TF_Graph* g = TF_NewGraph();
  TF_Tensor* one = ScalarFloat(1);
  TF_Operation* c = ConstTensor(g, "c", one, s);
  TF_DeleteTensor(one);
  TF_Session* session = TF_NewSession(g, opts, s);
  CHECK_OK(s);
  TF_Output out = {c, 0};
  TF_Tensor* value = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, &out, &value, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(value != NULL && *(float*)TF_TensorData(value) == 1);
  TF_DeleteTensor(value);
  TF_DeleteSession(session, s);
  CHECK_OK(s);

  TF_SetTarget(opts, "nonsense");
  CHECK(TF_NewSession(g, opts, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "nonsense");
  CHECK(TF_NewSession(NULL, opts, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "graph is NULL");
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void TestSessionRun(void) {
  TF_Status* s = TF_NewStatus();
  Model m;
  BuildModel(&m, s);
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(m.graph, opts, s);
  CHECK_OK(s);

  const int64_t xdims[2] = {2, 2};
  const float xv[4] = {1, 1, 2, 0};
  TF_Tensor* x = FloatTensor(xdims, 2, xv);
  TF_Output input = {m.x, 0};
  TF_Output outputs[2] = {{m.mm, 0}, {m.y, 0}};
  TF_Tensor* values[2] = {NULL, NULL};
  for (int step = 0; step < 100; ++step) {
    TF_SessionRun(session, NULL, &input, &x, 1, outputs, values, 2, NULL, 0, NULL, s);
    CHECK_OK(s);
    if (values[1] == NULL) break;
    const float* y = TF_TensorData(values[1]);
    /* [1,1]x[[1,2,3],[4,5,6]] = [5,7,9]; [2,0]x... = [2,4,6]; plus [0.5,-1,2]. */
    CHECK(TF_NumDims(values[1]) == 2 && TF_Dim(values[1], 0) == 2 && TF_Dim(values[1], 1) == 3);
    CHECK(y[0] == 5.5f && y[1] == 6 && y[2] == 11 && y[3] == 2.5f && y[4] == 3 && y[5] == 8);
    TF_DeleteTensor(values[0]);
    TF_DeleteTensor(values[1]);
  }
  /* A fed tensor may be fetched too: its value is the one fed, with the step's other outputs. */
  TF_Output fed_and_computed[2] = {{m.x, 0}, {m.y, 0}};
  TF_SessionRun(session, NULL, &input, &x, 1, fed_and_computed, values, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (values[0] != NULL && values[1] != NULL) {
    CHECK(TF_TensorData(values[0]) == TF_TensorData(x)); /* the fed buffer itself */
    CHECK(((float*)TF_TensorData(values[1]))[0] == 5.5f);
  }
  TF_DeleteTensor(values[0]);
  TF_DeleteTensor(values[1]);
  TF_SessionRun(session, NULL, &input, &x, 1, &input, &values[0], 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(values[0] != NULL && TF_TensorData(values[0]) == TF_TensorData(x));
  TF_DeleteTensor(values[0]);

  /* The caller keeps its input: still alive and unchanged. */
  CHECK(((float*)TF_TensorData(x))[2] == 2);

  /* A node added after the session was created is seen by the next run. */
  TF_OperationDescription* d = TF_NewOperation(m.graph, "Relu", "relu");
  TF_Output y0 = {m.y, 0};
  TF_AddInput(d, y0);
  TF_Operation* relu = TF_FinishOperation(d, s);
  CHECK_OK(s);
  TF_Output relu0 = {relu, 0};
  TF_Tensor* r = NULL;
  TF_SessionRun(session, NULL, &input, &x, 1, &relu0, &r, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(r != NULL && ((float*)TF_TensorData(r))[0] == 5.5f);
  TF_DeleteTensor(r);

  /* A string constant fetched. */
  const int64_t sdims[1] = {2};
  TF_Tensor* strings = TF_AllocateTensor(TF_STRING, sdims, 1, 2 * sizeof(TF_TString));
  TF_TString* elements = TF_TensorData(strings);
  TF_StringCopy(&elements[0], "tessera", 7);
  TF_StringCopy(&elements[1], "a longer string than twenty-two bytes", 37);
  TF_Operation* sc = ConstTensor(m.graph, "strings", strings, s);
  CHECK_OK(s);
  TF_DeleteTensor(strings);
  TF_Output sc0 = {sc, 0};
  TF_Tensor* fetched = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, &sc0, &fetched, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (fetched != NULL) {
    CHECK(TF_TensorType(fetched) == TF_STRING && TF_TensorElementCount(fetched) == 2);
    const TF_TString* got = TF_TensorData(fetched);
    CHECK(TF_StringGetSize(&got[0]) == 7 && memcmp(TF_StringGetDataPointer(&got[0]), "tessera", 7) == 0);
    CHECK(TF_StringGetSize(&got[1]) == 37);
    TF_DeleteTensor(fetched);
  }

  /* A string fed through an Identity. */
  TF_Operation* sp = Placeholder(m.graph, "string_in", TF_STRING, s);
  d = TF_NewOperation(m.graph, "Identity", "string_out");
  TF_Output sp0 = {sp, 0};
  TF_AddInput(d, sp0);
  TF_Operation* so = TF_FinishOperation(d, s);
  CHECK_OK(s);
  TF_TString* client_strings = malloc(sizeof(TF_TString));
  TF_StringInit(&client_strings[0]);
  TF_StringAssignView(&client_strings[0], "viewed", 6);
  const int64_t one_dim[1] = {1};
  g_deallocations = 0;
  TF_Tensor* fed = TF_NewTensor(TF_STRING, one_dim, 1, client_strings, sizeof(TF_TString),
                                CountingDeallocator, NULL);
  TF_Output so0 = {so, 0};
  TF_SessionRun(session, NULL, &sp0, &fed, 1, &so0, &fetched, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (fetched != NULL) {
    const TF_TString* got = TF_TensorData(fetched);
    CHECK(TF_StringGetSize(&got[0]) == 6 && memcmp(TF_StringGetDataPointer(&got[0]), "viewed", 6) == 0);
    TF_DeleteTensor(fetched);
  }
  TF_DeleteTensor(fed);
  CHECK(g_deallocations == 1);

  /* Step statistics on request. */
  const unsigned char full_trace[] = {0x08, 0x03};
  TF_Buffer* run_options = TF_NewBufferFromString(full_trace, sizeof full_trace);
  TF_Buffer* metadata = TF_NewBuffer();
  TF_SessionRun(session, run_options, &input, &x, 1, &outputs[1], &values[1], 1, NULL, 0,
                metadata, s);
  CHECK_OK(s);
  CHECK(metadata->length > 0);
  TF_DeleteTensor(values[1]);
  TF_DeleteBuffer(metadata);
  TF_Buffer* bad_options = TF_NewBufferFromString("\xff\xff", 2);
  TF_SessionRun(session, bad_options, &input, &x, 1, &outputs[1], &values[1], 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "RunOptions");
  TF_DeleteBuffer(bad_options);
  TF_DeleteBuffer(run_options);

  /* Targets run without fetching anything. */
  const TF_Operation* target = m.y;
  TF_SessionRun(session, NULL, &input, &x, 1, NULL, NULL, 0, &target, 1, NULL, s);
  CHECK_OK(s);

  /* Errors. */
  TF_Tensor* wrong_type = TF_AllocateTensor(TF_INT32, xdims, 2, 4 * sizeof(int32_t));
  memset(TF_TensorData(wrong_type), 0, 4 * sizeof(int32_t));
  TF_SessionRun(session, NULL, &input, &wrong_type, 1, &outputs[1], &values[1], 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "x:0");
  CHECK(values[1] == NULL);
  TF_DeleteTensor(wrong_type);
  TF_Output null_output = {NULL, 0};
  TF_SessionRun(session, NULL, &input, &x, 1, &null_output, &values[1], 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "NULL");
  TF_SessionRun(session, NULL, NULL, NULL, 0, &outputs[1], &values[1], 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "x");
  TF_Tensor* null_value = NULL;
  TF_SessionRun(session, NULL, &input, &null_value, 1, &outputs[1], &values[1], 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "is NULL");
  TF_SessionRun(NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "session is NULL");

  /* Devices. */
  TF_DeviceList* devices = TF_SessionListDevices(session, s);
  CHECK_OK(s);
  CHECK(TF_DeviceListCount(devices) >= 1);
  const char* name = TF_DeviceListName(devices, 0, s);
  CHECK_OK(s);
  CHECK(name != NULL && strstr(name, "CPU") != NULL);
  CHECK(strcmp(TF_DeviceListType(devices, 0, s), "CPU") == 0);
  CHECK(TF_DeviceListMemoryBytes(devices, 0, s) >= 0);
  CHECK_OK(s);
  TF_DeviceListIncarnation(devices, 0, s);
  CHECK_OK(s);
  CHECK(TF_DeviceListName(devices, 99, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "out of range");
  TF_DeviceListType(devices, -1, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "out of range");
  TF_DeleteDeviceList(devices);

  /* Closed: runs are refused. The graph is freed after its last session. */
  TF_CloseSession(session, s);
  CHECK_OK(s);
  TF_SessionRun(session, NULL, &input, &x, 1, &outputs[1], &values[1], 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_FAILED_PRECONDITION, "closed");
  TF_DeleteGraph(m.graph); /* deferred: the session still refers to it */
  TF_DeleteSession(session, s);
  CHECK_OK(s);
  TF_DeleteSession(NULL, s);
  TF_DeleteTensor(x);
  TF_DeleteSessionOptions(opts);
  TF_DeleteStatus(s);
}

static void TestFrozenGraph(void) {
  TF_Status* s = TF_NewStatus();
  TF_Buffer* def = ReadFile(TESSERA_SOURCE_DIR "/examples/mlp/mlp.pb");
  CHECK(def != NULL);
  if (def == NULL) {
    TF_DeleteStatus(s);
    return;
  }
  TF_Graph* g = TF_NewGraph();
  TF_GraphImportGraphDef(g, def, NULL, s);
  CHECK_OK(s);
  TF_Session* session = TF_NewSession(g, NULL, s);
  CHECK_OK(s);
  const int64_t dims[2] = {3, 2};
  const float points[6] = {0.2f, 0.3f, 1.2f, -0.5f, -2.5f, 1.0f};
  TF_Tensor* x = FloatTensor(dims, 2, points);
  TF_Output input = {TF_GraphOperationByName(g, "x"), 0};
  TF_Output outputs[2] = {{TF_GraphOperationByName(g, "probabilities"), 0},
                          {TF_GraphOperationByName(g, "predicted_class"), 0}};
  CHECK(input.oper != NULL && outputs[0].oper != NULL && outputs[1].oper != NULL);
  TF_Tensor* values[2] = {NULL, NULL};
  TF_SessionRun(session, NULL, &input, &x, 1, outputs, values, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (values[0] != NULL && values[1] != NULL) {
    const int64_t* classes = TF_TensorData(values[1]);
    CHECK(TF_TensorType(values[1]) == TF_INT64);
    CHECK(classes[0] == 0 && classes[1] == 1 && classes[2] == 2);
    const float* p = TF_TensorData(values[0]);
    for (int row = 0; row < 3; ++row) {
      const float sum = p[3 * row] + p[3 * row + 1] + p[3 * row + 2];
      CHECK(sum > 0.9999f && sum < 1.0001f);
    }
  }
  TF_DeleteTensor(values[0]);
  TF_DeleteTensor(values[1]);
  TF_DeleteTensor(x);
  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);
  TF_DeleteBuffer(def);
  TF_DeleteStatus(s);
}

static void TestGradients(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x", TF_FLOAT, s);
  TF_OperationDescription* d = TF_NewOperation(g, "Square", "y");
  TF_Output x0 = {x, 0};
  TF_AddInput(d, x0);
  TF_Operation* y = TF_FinishOperation(d, s);
  CHECK_OK(s);
  TF_Output y0 = {y, 0};
  TF_Output dy;
  TF_AddGradients(g, &y0, 1, &x0, 1, NULL, s, &dy);
  CHECK_OK(s);
  CHECK(dy.oper != NULL && strncmp(TF_OperationName(dy.oper), "gradients", 9) == 0);

  /* Weighted by dx = 3: d(3 * x^2)/dx = 6x, under a prefix of ours. */
  TF_Tensor* three = ScalarFloat(3);
  TF_Operation* weight = ConstTensor(g, "weight", three, s);
  TF_DeleteTensor(three);
  TF_Output w0 = {weight, 0};
  TF_Output weighted;
  TF_AddGradientsWithPrefix(g, "my_grads", &y0, 1, &x0, 1, &w0, s, &weighted);
  CHECK_OK(s);
  CHECK(strncmp(TF_OperationName(weighted.oper), "my_grads/", 9) == 0);
  TF_AddGradientsWithPrefix(g, "my_grads", &y0, 1, &x0, 1, &w0, s, &weighted);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "my_grads");

  TF_Session* session = TF_NewSession(g, NULL, s);
  CHECK_OK(s);
  TF_Tensor* value = ScalarFloat(2.5f);
  TF_Output outputs[2] = {dy, weighted};
  TF_Tensor* grads[2] = {NULL, NULL};
  TF_SessionRun(session, NULL, &x0, &value, 1, outputs, grads, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (grads[0] != NULL && grads[1] != NULL) {
    CHECK(*(float*)TF_TensorData(grads[0]) == 5.0f);
    CHECK(*(float*)TF_TensorData(grads[1]) == 15.0f);
  }
  TF_DeleteTensor(grads[0]);
  TF_DeleteTensor(grads[1]);
  TF_DeleteTensor(value);

  /* Errors: an op without a gradient function, NULL outputs. */
  TF_Operation* i = Placeholder(g, "i", TF_INT32, s);
  d = TF_NewOperation(g, "Shape", "shape_of_x");
  TF_AddInput(d, x0);
  TF_Operation* shape = TF_FinishOperation(d, s);
  CHECK_OK(s);
  (void)i;
  TF_Output shape0 = {shape, 0};
  TF_Output nothing;
  const int before = CountOperations(g);
  TF_AddGradients(g, &shape0, 1, &x0, 1, NULL, s, &nothing);
  if (TF_GetCode(s) != TF_OK) {
    CHECK(CountOperations(g) == before); /* a failed call adds nothing */
  }
  TF_Output null_output = {NULL, 0};
  TF_AddGradients(g, &null_output, 1, &x0, 1, NULL, s, &nothing);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "NULL");
  TF_AddGradients(NULL, &y0, 1, &x0, 1, NULL, s, &nothing);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "g is NULL");

  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void TestPartialRuns(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  TF_Operation* a = Placeholder(g, "a", TF_FLOAT, s);
  TF_Operation* b = Placeholder(g, "b", TF_FLOAT, s);
  TF_Operation* c = Placeholder(g, "c", TF_FLOAT, s);
  TF_Operation* sum = Binary(g, "Add", "sum", a, b, s);
  TF_Operation* product = Binary(g, "Mul", "product", sum, c, s);
  CHECK_OK(s);
  TF_Session* session = TF_NewSession(g, NULL, s);
  CHECK_OK(s);

  TF_Output inputs[3] = {{a, 0}, {b, 0}, {c, 0}};
  TF_Output outputs[2] = {{sum, 0}, {product, 0}};
  const char* handle = NULL;
  TF_SessionPRunSetup(session, inputs, 3, outputs, 2, NULL, 0, &handle, s);
  CHECK_OK(s);
  CHECK(handle != NULL);

  TF_Tensor* ab[2] = {ScalarFloat(2), ScalarFloat(3)};
  TF_Tensor* cv = ScalarFloat(10);
  TF_Tensor* result = NULL;
  /* c is needed by the product, which is not fetched yet: fine. Fetching the product before
   * feeding c is an error that names c. */
  TF_SessionPRun(session, handle, inputs, ab, 2, &outputs[1], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "c:0");
  TF_SessionPRun(session, handle, inputs, ab, 2, &outputs[0], &result, 1, NULL, 0, s);
  CHECK_OK(s);
  CHECK(result != NULL && *(float*)TF_TensorData(result) == 5);
  TF_DeleteTensor(result);
  TF_SessionPRun(session, handle, inputs, ab, 1, &outputs[1], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "already been fed");
  TF_SessionPRun(session, handle, &inputs[2], &cv, 1, &outputs[1], &result, 1, NULL, 0, s);
  CHECK_OK(s);
  CHECK(result != NULL && *(float*)TF_TensorData(result) == 50);
  TF_DeleteTensor(result);
  /* Everything declared was fetched: the step has ended. */
  TF_SessionPRun(session, handle, &inputs[2], &cv, 1, &outputs[1], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "ended");
  TF_DeletePRunHandle(handle);

  /* Undeclared feeds and fetches. */
  TF_SessionPRunSetup(session, inputs, 2, outputs, 1, NULL, 0, &handle, s);
  CHECK_OK(s);
  TF_SessionPRun(session, handle, &inputs[2], &cv, 1, &outputs[0], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "not declared");
  TF_SessionPRun(session, handle, inputs, ab, 2, &outputs[1], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "not declared");
  TF_SessionPRun(session, "no such handle", inputs, ab, 2, &outputs[0], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "no such handle");
  TF_DeletePRunHandle(handle);
  TF_SessionPRunSetup(session, inputs, 1, inputs, 1, NULL, 0, &handle, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "both an input and an output");
  TF_Graph* other = TF_NewGraph();
  TF_Operation* foreign = Placeholder(other, "foreign", TF_FLOAT, s);
  const TF_Operation* foreign_target = foreign;
  TF_SessionPRunSetup(session, inputs, 2, outputs, 1, &foreign_target, 1, &handle, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "another graph");
  TF_DeleteGraph(other);

  /* A call whose step fails ends the partial run. */
  TF_SessionPRunSetup(session, inputs, 3, outputs, 2, NULL, 0, &handle, s);
  CHECK_OK(s);
  TF_Tensor* int_value = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
  *(int32_t*)TF_TensorData(int_value) = 1;
  TF_Tensor* mixed[2] = {int_value, ab[1]};
  TF_SessionPRun(session, handle, inputs, mixed, 2, &outputs[0], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "int32");
  TF_SessionPRun(session, handle, &inputs[2], &cv, 1, &outputs[1], &result, 1, NULL, 0, s);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "ended");
  TF_DeletePRunHandle(handle);
  TF_DeleteTensor(int_value);

  TF_DeleteTensor(ab[0]);
  TF_DeleteTensor(ab[1]);
  TF_DeleteTensor(cv);
  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- Plugins and op lists ----------------------------------------------------------------- */

static void TestLibraries(void) {
  TF_Status* s = TF_NewStatus();
  CHECK(TF_LoadPluggableDeviceLibrary("/nonexistent/libplugin.so", s) == NULL);
  CHECK_ERROR(s, TF_NOT_FOUND, "/nonexistent/libplugin.so");
  CHECK(TF_LoadLibrary(NULL, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "library_filename is NULL");
  /* A shared object without a manifest beside it. */
  CHECK(TF_LoadPluggableDeviceLibrary(TESSERA_SOURCE_DIR "/README.md", s) == NULL);
  CHECK_ERROR(s, TF_NOT_FOUND, "manifest");

  /* The CPU plugin by its shared object: the manifest beside it is found. */
  TF_Library* cpu = TF_LoadPluggableDeviceLibrary(
      TESSERA_BINARY_DIR "/lib/tessera/plugins/libtessera_cpu.so", s);
  CHECK_OK(s);
  CHECK(cpu != NULL);
  if (cpu != NULL) {
    TF_Buffer op_list = TF_GetOpList(cpu);
    CHECK(op_list.length == 0 || op_list.data != NULL); /* the CPU plugin defines no ops */
    TF_DeletePluggableDeviceLibraryHandle(cpu);
  }
  /* Graphs and sessions made afterwards still run. */
  TF_Graph* g = TF_NewGraph();
  TF_Tensor* one = ScalarFloat(1);
  TF_Operation* c = ConstTensor(g, "c", one, s);
  TF_DeleteTensor(one);
  TF_Session* session = TF_NewSession(g, NULL, s);
  CHECK_OK(s);
  TF_Output out = {c, 0};
  TF_Tensor* value = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, &out, &value, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  TF_DeleteTensor(value);
  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);

  /* Tessera's addition: the plugins as `tessera plugins --json` lists them. */
  TF_Buffer* plugins = TESSERA_PluginsJson(s);
  CHECK_OK(s);
  CHECK(plugins != NULL && plugins->length > 0);
  if (plugins != NULL) {
    char* text = malloc(plugins->length + 1);
    memcpy(text, plugins->data, plugins->length);
    text[plugins->length] = '\0';
    CHECK(strstr(text, "\"cpu\"") != NULL);
    free(text);
  }
  TF_DeleteBuffer(plugins);

  TF_Buffer* ops = TF_GetAllOpList();
  CHECK(ops != NULL && ops->length > 1000);
  TF_DeleteBuffer(ops);
  TF_Buffer empty = TF_GetOpList(NULL);
  CHECK(empty.length == 0);
  TF_DeleteStatus(s);
}

int main(void) {
  TestStatus();
  TestBuffers();
  TestTensors();
  TestUnalignedTensor();
  TestTStrings();
  TestGraphBuildingAndIntrospection();
  TestAttrs();
  TestGraphErrors();
  TestImportExport();
  TestSessionOptions();
  TestSessionRun();
  TestFrozenGraph();
  TestGradients();
  TestPartialRuns();
  TestLibraries();
  printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
