/* The C API suite: session options and runs, a frozen graph, gradients, partial runs, plugins
 * and op lists. */
#include <stdlib.h>

#include "host/c_api/tests/c_api_test_util.h"
#include "tessera/c_api.h"

/* ---- Sessions ----------------------------------------------------------------------------- */

void TestSessionOptions(void) {
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

void TestSessionRun(void) {
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

void TestFrozenGraph(void) {
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

void TestGradients(void) {
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

void TestPartialRuns(void) {
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

/* More signatures than the session keeps prepared (64): each still runs, the later ones by name;
 * a tensor both fed and fetched is the value fed on either path; a prepared signature runs on
 * after the graph grew, and not once the session is closed. */
void TestManySignatures(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  enum { kConsts = 70 };
  TF_Operation* consts[kConsts];
  char name[32];
  for (int i = 0; i < kConsts; ++i) {
    snprintf(name, sizeof name, "c%d", i);
    TF_Tensor* value = ScalarFloat((float)i);
    consts[i] = ConstTensor(g, name, value, s);
    TF_DeleteTensor(value);
    CHECK_OK(s);
  }
  TF_Operation* x = Placeholder(g, "x", TF_FLOAT, s);
  TF_Session* session = TF_NewSession(g, NULL, s);
  CHECK_OK(s);
  /* The first signature, prepared: x fed and fetched beside c3. */
  TF_Tensor* first = ScalarFloat(1.5f);
  TF_Output first_input = {x, 0};
  TF_Output first_outputs[2] = {{x, 0}, {consts[3], 0}};
  TF_Tensor* first_values[2] = {NULL, NULL};
  for (int step = 0; step < 2; ++step) {
    TF_SessionRun(session, NULL, &first_input, &first, 1, first_outputs, first_values, 2, NULL, 0,
                  NULL, s);
    CHECK_OK(s);
    CHECK(first_values[0] != NULL && TF_TensorData(first_values[0]) == TF_TensorData(first));
    CHECK(first_values[1] != NULL && *(const float*)TF_TensorData(first_values[1]) == 3.0f);
    TF_DeleteTensor(first_values[0]);
    TF_DeleteTensor(first_values[1]);
  }
  TF_DeleteTensor(first);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kConsts; ++i) {
      TF_Output output = {consts[i], 0};
      TF_Tensor* value = NULL;
      TF_SessionRun(session, NULL, NULL, NULL, 0, &output, &value, 1, NULL, 0, NULL, s);
      CHECK_OK(s);
      CHECK(value != NULL && *(const float*)TF_TensorData(value) == (float)i);
      TF_DeleteTensor(value);
    }
  }
  TF_Tensor* fed = ScalarFloat(4.5f);
  TF_Output input = {x, 0};
  TF_Output outputs[2] = {{x, 0}, {consts[3], 0}};
  TF_Tensor* values[2] = {NULL, NULL};
  TF_SessionRun(session, NULL, &input, &fed, 1, outputs, values, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(values[0] != NULL && TF_TensorData(values[0]) == TF_TensorData(fed));
  CHECK(values[1] != NULL && *(const float*)TF_TensorData(values[1]) == 3.0f);
  TF_DeleteTensor(values[0]);
  TF_DeleteTensor(values[1]);
  TF_SessionRun(session, NULL, &input, &fed, 1, outputs, values, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(values[0] != NULL && TF_TensorData(values[0]) == TF_TensorData(fed));
  TF_DeleteTensor(values[0]);
  TF_DeleteTensor(fed);

  /* The graph grows: prepared signatures run on, the new node runs by name. */
  TF_Operation* sum = Binary(g, "AddV2", "sum", consts[1], consts[2], s);
  CHECK_OK(s);
  TF_Output prepared = {consts[0], 0};
  TF_Output added = {sum, 0};
  TF_Tensor* value = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, &prepared, &value, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(value != NULL && *(const float*)TF_TensorData(value) == 0.0f);
  TF_DeleteTensor(value);
  value = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, &added, &value, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(value != NULL && *(const float*)TF_TensorData(value) == 3.0f);
  TF_DeleteTensor(value);

  /* Closed, no step runs: a prepared one, or one whose outputs are all fed. */
  TF_CloseSession(session, s);
  value = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, &prepared, &value, 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_FAILED_PRECONDITION, "TF_SessionRun: the session has been closed");
  CHECK(value == NULL);
  TF_Tensor* again = ScalarFloat(2.0f);
  TF_SessionRun(session, NULL, &input, &again, 1, &input, &value, 1, NULL, 0, NULL, s);
  CHECK_ERROR(s, TF_FAILED_PRECONDITION, "TF_SessionRun: the session has been closed");
  TF_DeleteTensor(again);
  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

void TestLibraries(void) {
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

