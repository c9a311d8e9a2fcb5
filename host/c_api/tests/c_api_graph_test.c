/* The C API suite: graphs built node by node, their introspection and attrs, the errors of
 * building them, and GraphDef import and export. */
#include <stdlib.h>

#include "host/c_api/tests/c_api_test_util.h"

void TestGraphBuildingAndIntrospection(void) {
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

void TestAttrs(void) {
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

void TestGraphErrors(void) {
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

void TestImportExport(void) {
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

