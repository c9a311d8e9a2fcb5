/* What the C API suite's files share: the check macros and their counters, the helpers that
 * make tensors and nodes, the small model most graph and session tests use, and the test
 * functions main() runs. Plain C11. */
#ifndef TESSERA_HOST_C_API_TESTS_C_API_TEST_UTIL_H_
#define TESSERA_HOST_C_API_TESTS_C_API_TEST_UTIL_H_

#include <stdio.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

#if !defined(TESSERA_SOURCE_DIR) || !defined(TESSERA_BINARY_DIR)
#error "TESSERA_SOURCE_DIR and TESSERA_BINARY_DIR must name the source and build trees"
#endif

extern int g_failures;
extern int g_checks;

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

/* ---- Helpers (c_api_test.c) ------------------------------------------------------------------ */

/* Deallocators that count their calls (and free the memory). */
extern int g_deallocations;
void CountingDeallocator(void* data, size_t len, void* arg);
extern int g_buffer_deallocations;
void CountingBufferDeallocator(void* data, size_t length);

TF_Tensor* FloatTensor(const int64_t* dims, int num_dims, const float* values);
TF_Tensor* ScalarFloat(float v);
TF_Operation* Placeholder(TF_Graph* g, const char* name, TF_DataType type, TF_Status* s);
TF_Operation* ConstTensor(TF_Graph* g, const char* name, TF_Tensor* value, TF_Status* s);
TF_Operation* Binary(TF_Graph* g, const char* op, const char* name, TF_Operation* a,
                     TF_Operation* b, TF_Status* s);
int CountOperations(TF_Graph* g);
/* The file's bytes in a new buffer, or NULL when it cannot be read. */
TF_Buffer* ReadFile(const char* path);

/* x: Placeholder float [-1,2]; w: Const 2x3; mm = MatMul(x, w); b: Const [3]; y = Add(mm, b). */
typedef struct {
  TF_Graph* graph;
  TF_Operation* x;
  TF_Operation* w;
  TF_Operation* mm;
  TF_Operation* b;
  TF_Operation* y;
} Model;

void BuildModel(Model* m, TF_Status* s);

/* ---- The tests -------------------------------------------------------------------------------- */

/* c_api_tensor_test.c */
void TestStatus(void);
void TestBuffers(void);
void TestTensors(void);
void TestUnalignedTensor(void);
void TestTStrings(void);
/* c_api_graph_test.c */
void TestGraphBuildingAndIntrospection(void);
void TestAttrs(void);
void TestGraphErrors(void);
void TestImportExport(void);
/* c_api_session_test.c */
void TestSessionOptions(void);
void TestSessionRun(void);
void TestFrozenGraph(void);
void TestGradients(void);
void TestPartialRuns(void);
void TestLibraries(void);
void TestManySignatures(void);
/* c_api_saved_model_test.c */
void TestSavedModel(void);

#endif /* TESSERA_HOST_C_API_TESTS_C_API_TEST_UTIL_H_ */
