/* The C API's test suite, in plain C11 as its clients write it: every function of the headers,
 * their ownership rules (each deallocator runs exactly once; the suite runs under
 * AddressSanitizer's leak checker) and their errors (code and message). This file holds the
 * shared helpers and main(); the tests are in c_api_tensor_test.c (status, buffers, tensors,
 * strings), c_api_graph_test.c (building, attrs, errors, import) and c_api_session_test.c
 * (sessions, gradients, partial runs, plugins). */
#include <stdlib.h>

#include "host/c_api/tests/c_api_test_util.h"

int g_failures = 0;
int g_checks = 0;

/* ---- Helpers ------------------------------------------------------------------------------ */

int g_deallocations = 0;
void CountingDeallocator(void* data, size_t len, void* arg) {
  (void)len;
  (void)arg;
  ++g_deallocations;
  free(data);
}

int g_buffer_deallocations = 0;
void CountingBufferDeallocator(void* data, size_t length) {
  (void)length;
  ++g_buffer_deallocations;
  free(data);
}

TF_Tensor* FloatTensor(const int64_t* dims, int num_dims, const float* values) {
  size_t n = 1;
  for (int i = 0; i < num_dims; ++i) n *= (size_t)dims[i];
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, num_dims, n * sizeof(float));
  if (t != NULL && n > 0) memcpy(TF_TensorData(t), values, n * sizeof(float));
  return t;
}

TF_Tensor* ScalarFloat(float v) { return FloatTensor(NULL, 0, &v); }

TF_Operation* Placeholder(TF_Graph* g, const char* name, TF_DataType type,
                                 TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", type);
  return TF_FinishOperation(d, s);
}

TF_Operation* ConstTensor(TF_Graph* g, const char* name, TF_Tensor* value, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", value, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_FinishOperation(d, s);
    return NULL;
  }
  TF_SetAttrType(d, "dtype", TF_TensorType(value));
  return TF_FinishOperation(d, s);
}

TF_Operation* Binary(TF_Graph* g, const char* op, const char* name, TF_Operation* a,
                            TF_Operation* b, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, op, name);
  TF_Output ia = {a, 0};
  TF_Output ib = {b, 0};
  TF_AddInput(d, ia);
  TF_AddInput(d, ib);
  return TF_FinishOperation(d, s);
}

int CountOperations(TF_Graph* g) {
  size_t pos = 0;
  int n = 0;
  while (TF_GraphNextOperation(g, &pos) != NULL) ++n;
  return n;
}

TF_Buffer* ReadFile(const char* path) {
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

void BuildModel(Model* m, TF_Status* s) {
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
  TestManySignatures();
  TestSavedModel();
  printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
