/* TF_LoadSessionFromSavedModel on the TensorFlow 1 test SavedModel (written by
 * make_test_saved_model): the MetaGraph by tags, the graph imported, variables restored, the
 * init op run, the MetaGraphDef returned, the session growing with the graph, and the errors. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "host/c_api/tests/c_api_test_util.h"

/* True when the buffer's bytes contain `text`. */
static int BufferContains(const TF_Buffer* buffer, const char* text) {
  const size_t n = strlen(text);
  const char* data = (const char*)buffer->data;
  for (size_t i = 0; i + n <= buffer->length; ++i) {
    if (memcmp(data + i, text, n) == 0) return 1;
  }
  return 0;
}

/* Runs y (and z) for x = [1, 2, 5] and checks a * x + b with a = 0.5, b = 2 (z adds 7). */
static void CheckHalfPlusTwo(TF_Graph* g, TF_Session* session, TF_Status* s) {
  const int64_t dims[1] = {3};
  const float xs[3] = {1.0f, 2.0f, 5.0f};
  TF_Tensor* x = FloatTensor(dims, 1, xs);
  TF_Output input = {TF_GraphOperationByName(g, "x"), 0};
  TF_Output outputs[2] = {{TF_GraphOperationByName(g, "y"), 0}, {TF_GraphOperationByName(g, "z"), 0}};
  CHECK(input.oper != NULL && outputs[0].oper != NULL && outputs[1].oper != NULL);
  TF_Tensor* values[2] = {NULL, NULL};
  TF_SessionRun(session, NULL, &input, &x, 1, outputs, values, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (values[0] != NULL && values[1] != NULL) {
    const float* y = TF_TensorData(values[0]);
    const float* z = TF_TensorData(values[1]);
    CHECK(y[0] == 2.5f && y[1] == 3.0f && y[2] == 4.5f);
    CHECK(z[0] == 9.5f && z[1] == 10.0f && z[2] == 11.5f);
  }
  TF_DeleteTensor(values[0]);
  TF_DeleteTensor(values[1]);
  TF_DeleteTensor(x);
}

void TestSavedModel(void) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s/c_api_test_saved_model_%d", TESSERA_BINARY_DIR, (int)getpid());
  char command[768];
  snprintf(command, sizeof command, "'%s/bin/make_test_saved_model' '%s'", TESSERA_BINARY_DIR,
           dir);
  const int made = system(command);
  CHECK(made == 0);
  if (made != 0) return;

  TF_Status* s = TF_NewStatus();
  const char* serve[1] = {"serve"};
  TF_Graph* g = TF_NewGraph();
  TF_Buffer* meta = TF_NewBuffer();
  TF_Session* session = TF_LoadSessionFromSavedModel(NULL, NULL, dir, serve, 1, g, meta, s);
  CHECK_OK(s);
  CHECK(session != NULL);
  if (session != NULL) {
    CHECK(TF_GraphOperationByName(g, "save/restore_all") != NULL);
    CHECK(meta->length > 0 && BufferContains(meta, "serving_default") &&
          BufferContains(meta, "save/restore_all"));
    CheckHalfPlusTwo(g, session, s);

    /* The session sees operations added to the graph afterwards: w = y + y. */
    TF_Operation* y = TF_GraphOperationByName(g, "y");
    TF_Operation* w = Binary(g, "AddV2", "w", y, y, s);
    CHECK_OK(s);
    const int64_t dims[1] = {1};
    const float one = 1.0f;
    TF_Tensor* x = FloatTensor(dims, 1, &one);
    TF_Output input = {TF_GraphOperationByName(g, "x"), 0};
    TF_Output output = {w, 0};
    TF_Tensor* value = NULL;
    TF_SessionRun(session, NULL, &input, &x, 1, &output, &value, 1, NULL, 0, NULL, s);
    CHECK_OK(s);
    CHECK(value != NULL && *(const float*)TF_TensorData(value) == 5.0f);
    TF_DeleteTensor(value);
    TF_DeleteTensor(x);

    /* A graph that is not empty is refused. */
    TF_Session* again = TF_LoadSessionFromSavedModel(NULL, NULL, dir, serve, 1, g, NULL, s);
    CHECK_ERROR(s, TF_INVALID_ARGUMENT, "TF_LoadSessionFromSavedModel: the graph must be empty");
    CHECK(again == NULL);
    TF_DeleteSession(session, s);
    CHECK_OK(s);
  }
  TF_DeleteBuffer(meta);
  TF_DeleteGraph(g);

  /* Options, a run deadline and no MetaGraphDef buffer. */
  g = TF_NewGraph();
  TF_SessionOptions* options = TF_NewSessionOptions();
  const unsigned char run_options[] = {0x10, 0xe8, 0x07}; /* timeout_in_ms (field 2): 1000 */
  TF_Buffer* run = TF_NewBufferFromString(run_options, sizeof run_options);
  session = TF_LoadSessionFromSavedModel(options, run, dir, serve, 1, g, NULL, s);
  CHECK_OK(s);
  if (session != NULL) {
    CheckHalfPlusTwo(g, session, s);
    TF_DeleteSession(session, s);
  }
  TF_DeleteGraph(g);

  /* Errors: each leaves the graph empty. */
  g = TF_NewGraph();
  const char* train[1] = {"train"};
  CHECK(TF_LoadSessionFromSavedModel(NULL, NULL, dir, train, 1, g, NULL, s) == NULL);
  CHECK_ERROR(s, TF_NOT_FOUND, "no MetaGraph has the tag-set { train }; the SavedModel's tag-sets "
                               "are { serve }");
  CHECK(CountOperations(g) == 0);
  CHECK(TF_LoadSessionFromSavedModel(NULL, NULL, TESSERA_BINARY_DIR "/no_such_model", serve, 1, g,
                                     NULL, s) == NULL);
  CHECK_ERROR(s, TF_NOT_FOUND, "no_such_model' does not exist");
  CHECK(TF_LoadSessionFromSavedModel(NULL, NULL, NULL, serve, 1, g, NULL, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "TF_LoadSessionFromSavedModel: export_dir is NULL");
  CHECK(TF_LoadSessionFromSavedModel(NULL, NULL, dir, serve, 1, NULL, NULL, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "TF_LoadSessionFromSavedModel: graph is NULL");
  CHECK(TF_LoadSessionFromSavedModel(NULL, NULL, dir, NULL, 1, g, NULL, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "tags must hold tags_len (1 given) tags");
  const char* null_tag[1] = {NULL};
  CHECK(TF_LoadSessionFromSavedModel(NULL, NULL, dir, null_tag, 1, g, NULL, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "TF_LoadSessionFromSavedModel: tag 0 is NULL");
  const unsigned char garbage[] = {0xff, 0xff, 0xff};
  TF_Buffer* bad = TF_NewBufferFromString(garbage, sizeof garbage);
  CHECK(TF_LoadSessionFromSavedModel(NULL, bad, dir, serve, 1, g, NULL, s) == NULL);
  CHECK_ERROR(s, TF_INVALID_ARGUMENT, "run_options is not a valid serialized RunOptions");
  CHECK(CountOperations(g) == 0);
  TF_DeleteBuffer(bad);
  TF_DeleteBuffer(run);
  TF_DeleteSessionOptions(options);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);

  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  CHECK(system(command) == 0);
}
