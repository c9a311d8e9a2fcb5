/* Tessera's C API, compatible with TensorFlow's c_api.h: the same function names, argument lists,
 * enum values and semantics, so that programs and language bindings written for TensorFlow's C
 * API compile against these headers and link against libtessera_c (also installed as
 * libtensorflow.so) unchanged. docs/c_api.md lists what is covered and what differs.
 *
 * Conventions, as TensorFlow's:
 *  - Every call that can fail takes a TF_Status* last and sets it (TF_OK on success). A NULL
 *    argument, a wrong type or a wrong size is an error status, never a crash.
 *  - Objects returned by TF_New* are freed by the matching TF_Delete*; strings and arrays
 *    returned by the introspection functions belong to the object they came from.
 *  - A TF_Graph may be used from several threads; a TF_OperationDescription by one at a time.
 */
#ifndef TENSORFLOW_C_C_API_H_
#define TENSORFLOW_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_attrtype.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "<tessera version>-tf-c-api-<TensorFlow C API level>", e.g. "0.1.0-tf-c-api-2.15". */
TF_CAPI_EXPORT extern const char* TF_Version(void);

/* ---------------------------------------------------------------------------------------------
 * Session options */

typedef struct TF_SessionOptions TF_SessionOptions;

TF_CAPI_EXPORT extern TF_SessionOptions* TF_NewSessionOptions(void);
/* "" (local, the default), "local", or "<transport>://host:port" such as "grpc://host:2222". */
TF_CAPI_EXPORT extern void TF_SetTarget(TF_SessionOptions* options, const char* target);
/* A serialized tensorflow.ConfigProto. Read: device_count, intra_op_parallelism_threads,
 * inter_op_parallelism_threads, allow_soft_placement, log_device_placement,
 * operation_timeout_in_ms and graph_options.optimizer_options.opt_level (L0 turns op fusion off).
 * Other fields are accepted and ignored; bytes that are not a ConfigProto are INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TF_SetConfig(TF_SessionOptions* options, const void* proto,
                                        size_t proto_len, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteSessionOptions(TF_SessionOptions* options);

/* ---------------------------------------------------------------------------------------------
 * Graphs and operations */

typedef struct TF_Graph TF_Graph;
typedef struct TF_OperationDescription TF_OperationDescription;
typedef struct TF_Operation TF_Operation;

/* Input `index` of an operation. */
typedef struct TF_Input {
  TF_Operation* oper;
  int index;
} TF_Input;

/* Output `index` of an operation. */
typedef struct TF_Output {
  TF_Operation* oper;
  int index;
} TF_Output;

/* An empty graph. Its ops are checked against the op registry of the default plugins (those of
 * TESSERA_PLUGIN_PATH and of the install, plus libraries loaded with
 * TF_LoadPluggableDeviceLibrary before this call). */
TF_CAPI_EXPORT extern TF_Graph* TF_NewGraph(void);
/* Frees the graph once every session created on it is deleted too; NULL is ignored. */
TF_CAPI_EXPORT extern void TF_DeleteGraph(TF_Graph* graph);

/* Refines the shape known for `output` (dims -1 are unknown; num_dims -1 an unknown rank). The
 * new shape must be compatible with what inference found; INVALID_ARGUMENT otherwise. */
TF_CAPI_EXPORT extern void TF_GraphSetTensorShape(TF_Graph* graph, TF_Output output,
                                                  const int64_t* dims, const int num_dims,
                                                  TF_Status* status);
/* The rank known for `output`, -1 when unknown. */
TF_CAPI_EXPORT extern int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output,
                                                   TF_Status* status);
/* Writes the `num_dims` dimensions (-1 for unknown ones); num_dims must be the known rank. */
TF_CAPI_EXPORT extern void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output,
                                                  int64_t* dims, int num_dims,
                                                  TF_Status* status);

/* Starts building a node of type `op_type` named `oper_name` (which must not be in use when the
 * node is finished). Finish it with TF_FinishOperation, which also frees the description. */
TF_CAPI_EXPORT extern TF_OperationDescription* TF_NewOperation(TF_Graph* graph,
                                                               const char* op_type,
                                                               const char* oper_name);
TF_CAPI_EXPORT extern void TF_SetDevice(TF_OperationDescription* desc, const char* device);
/* The next input: one tensor for a single-tensor argument. */
TF_CAPI_EXPORT extern void TF_AddInput(TF_OperationDescription* desc, TF_Output input);
/* The next input: a list of tensors for a list argument. */
TF_CAPI_EXPORT extern void TF_AddInputList(TF_OperationDescription* desc,
                                           const TF_Output* inputs, int num_inputs);
TF_CAPI_EXPORT extern void TF_AddControlInput(TF_OperationDescription* desc, TF_Operation* input);
/* Places the node with `op` (the "_class" attr "loc:@<op>"). */
TF_CAPI_EXPORT extern void TF_ColocateWith(TF_OperationDescription* desc, TF_Operation* op);

TF_CAPI_EXPORT extern void TF_SetAttrString(TF_OperationDescription* desc, const char* attr_name,
                                            const void* value, size_t length);
TF_CAPI_EXPORT extern void TF_SetAttrStringList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* const* values, const size_t* lengths,
                                                int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrInt(TF_OperationDescription* desc, const char* attr_name,
                                         int64_t value);
TF_CAPI_EXPORT extern void TF_SetAttrIntList(TF_OperationDescription* desc, const char* attr_name,
                                             const int64_t* values, int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrFloat(TF_OperationDescription* desc, const char* attr_name,
                                           float value);
TF_CAPI_EXPORT extern void TF_SetAttrFloatList(TF_OperationDescription* desc,
                                               const char* attr_name, const float* values,
                                               int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrBool(TF_OperationDescription* desc, const char* attr_name,
                                          unsigned char value);
TF_CAPI_EXPORT extern void TF_SetAttrBoolList(TF_OperationDescription* desc,
                                              const char* attr_name, const unsigned char* values,
                                              int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrType(TF_OperationDescription* desc, const char* attr_name,
                                          TF_DataType value);
TF_CAPI_EXPORT extern void TF_SetAttrTypeList(TF_OperationDescription* desc,
                                              const char* attr_name, const TF_DataType* values,
                                              int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrPlaceholder(TF_OperationDescription* desc,
                                                 const char* attr_name, const char* placeholder);
TF_CAPI_EXPORT extern void TF_SetAttrFuncName(TF_OperationDescription* desc,
                                              const char* attr_name, const char* value,
                                              size_t length);
/* num_dims -1: unknown rank; a dim -1: unknown size. */
TF_CAPI_EXPORT extern void TF_SetAttrShape(TF_OperationDescription* desc, const char* attr_name,
                                           const int64_t* dims, int num_dims);
TF_CAPI_EXPORT extern void TF_SetAttrShapeList(TF_OperationDescription* desc,
                                               const char* attr_name, const int64_t* const* dims,
                                               const int* num_dims, int num_shapes);
/* A serialized tensorflow.TensorShapeProto. */
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProto(TF_OperationDescription* desc,
                                                      const char* attr_name, const void* proto,
                                                      size_t proto_len, TF_Status* status);
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProtoList(TF_OperationDescription* desc,
                                                          const char* attr_name,
                                                          const void* const* protos,
                                                          const size_t* proto_lens,
                                                          int num_shapes, TF_Status* status);
/* Copies the tensor's value into the attr (the caller keeps `value`). */
TF_CAPI_EXPORT extern void TF_SetAttrTensor(TF_OperationDescription* desc, const char* attr_name,
                                            TF_Tensor* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_SetAttrTensorList(TF_OperationDescription* desc,
                                                const char* attr_name, TF_Tensor* const* values,
                                                int num_values, TF_Status* status);
/* A serialized tensorflow.AttrValue, for any kind of attr. */
TF_CAPI_EXPORT extern void TF_SetAttrValueProto(TF_OperationDescription* desc,
                                                const char* attr_name, const void* proto,
                                                size_t proto_len, TF_Status* status);

/* Checks the node against its op (attrs, defaults, input count and types), adds it, infers its
 * output shapes and frees `desc` whatever the outcome. NULL with the error in `status` (and the
 * graph unchanged) on failure; the first error of a TF_SetAttr* or TF_Add* call is reported here. */
TF_CAPI_EXPORT extern TF_Operation* TF_FinishOperation(TF_OperationDescription* desc,
                                                       TF_Status* status);

TF_CAPI_EXPORT extern const char* TF_OperationName(TF_Operation* oper);
TF_CAPI_EXPORT extern const char* TF_OperationOpType(TF_Operation* oper);
/* The device the node asked for ("" when none). */
TF_CAPI_EXPORT extern const char* TF_OperationDevice(TF_Operation* oper);

TF_CAPI_EXPORT extern int TF_OperationNumOutputs(TF_Operation* oper);
/* TF_DataType 0 (invalid) for an output that does not exist. */
TF_CAPI_EXPORT extern TF_DataType TF_OperationOutputType(TF_Output oper_out);
/* How many tensors the output argument `arg_name` stands for. */
TF_CAPI_EXPORT extern int TF_OperationOutputListLength(TF_Operation* oper, const char* arg_name,
                                                       TF_Status* status);
TF_CAPI_EXPORT extern int TF_OperationNumInputs(TF_Operation* oper);
TF_CAPI_EXPORT extern TF_DataType TF_OperationInputType(TF_Input oper_in);
TF_CAPI_EXPORT extern int TF_OperationInputListLength(TF_Operation* oper, const char* arg_name,
                                                      TF_Status* status);
/* The output feeding input `oper_in` ({NULL, -1} for an input that does not exist). */
TF_CAPI_EXPORT extern TF_Output TF_OperationInput(TF_Input oper_in);
/* Writes the first min(max_inputs, TF_OperationNumInputs) inputs' sources. */
TF_CAPI_EXPORT extern void TF_OperationAllInputs(TF_Operation* oper, TF_Output* inputs,
                                                 int max_inputs);
TF_CAPI_EXPORT extern int TF_OperationOutputNumConsumers(TF_Output oper_out);
/* Writes up to `max_consumers` inputs that read `oper_out`; returns how many there are. */
TF_CAPI_EXPORT extern int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input* consumers,
                                                      int max_consumers);
TF_CAPI_EXPORT extern int TF_OperationNumControlInputs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetControlInputs(TF_Operation* oper,
                                                       TF_Operation** control_inputs,
                                                       int max_control_inputs);
TF_CAPI_EXPORT extern int TF_OperationNumControlOutputs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetControlOutputs(TF_Operation* oper,
                                                        TF_Operation** control_outputs,
                                                        int max_control_outputs);

/* What an attr holds: for a list, is_list is 1 and list_size its length; total_size is the bytes
 * a string (or all strings of a list) take, or the dims a shape (list) has; -1 otherwise. */
typedef struct TF_AttrMetadata {
  unsigned char is_list;
  int64_t list_size;
  TF_AttrType type;
  int64_t total_size;
} TF_AttrMetadata;

TF_CAPI_EXPORT extern TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation* oper,
                                                                  const char* attr_name,
                                                                  TF_Status* status);
/* Copies up to max_length bytes (TF_AttrMetadata.total_size gives the length). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrString(TF_Operation* oper, const char* attr_name,
                                                     void* value, size_t max_length,
                                                     TF_Status* status);
/* values[i] points into `storage` (storage_size bytes, at least total_size). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrStringList(TF_Operation* oper,
                                                         const char* attr_name, void** values,
                                                         size_t* lengths, int max_values,
                                                         void* storage, size_t storage_size,
                                                         TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrInt(TF_Operation* oper, const char* attr_name,
                                                  int64_t* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrIntList(TF_Operation* oper, const char* attr_name,
                                                      int64_t* values, int max_values,
                                                      TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloat(TF_Operation* oper, const char* attr_name,
                                                    float* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloatList(TF_Operation* oper,
                                                        const char* attr_name, float* values,
                                                        int max_values, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrBool(TF_Operation* oper, const char* attr_name,
                                                   unsigned char* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrBoolList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       unsigned char* values, int max_values,
                                                       TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrType(TF_Operation* oper, const char* attr_name,
                                                   TF_DataType* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTypeList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       TF_DataType* values, int max_values,
                                                       TF_Status* status);
/* Writes num_dims dims (TF_AttrMetadata.total_size gives the rank, -1 for an unknown rank). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShape(TF_Operation* oper, const char* attr_name,
                                                    int64_t* value, int num_dims,
                                                    TF_Status* status);
/* dims[i] points into `storage`; num_dims[i] is -1 for an unknown rank. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShapeList(TF_Operation* oper,
                                                        const char* attr_name, int64_t** dims,
                                                        int* num_dims, int num_shapes,
                                                        int64_t* storage, int storage_size,
                                                        TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProto(TF_Operation* oper,
                                                               const char* attr_name,
                                                               TF_Buffer* value,
                                                               TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProtoList(TF_Operation* oper,
                                                                   const char* attr_name,
                                                                   TF_Buffer** values,
                                                                   int max_values,
                                                                   TF_Status* status);
/* A new tensor the caller deletes. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensor(TF_Operation* oper, const char* attr_name,
                                                     TF_Tensor** value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorList(TF_Operation* oper,
                                                         const char* attr_name,
                                                         TF_Tensor** values, int max_values,
                                                         TF_Status* status);
/* The attr as a serialized tensorflow.AttrValue. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrValueProto(TF_Operation* oper,
                                                         const char* attr_name,
                                                         TF_Buffer* output_attr_value,
                                                         TF_Status* status);
TF_CAPI_EXPORT extern int TF_OperationGetNumAttrs(TF_Operation* oper);
/* Attr `i` in name order; -1 when out of range. */
TF_CAPI_EXPORT extern int TF_OperationGetAttrNameLength(TF_Operation* oper, int i);
/* Writes attr `i`'s name (TF_OperationGetAttrNameLength bytes, no NUL) to `output`. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrName(TF_Operation* oper, int i, char* output,
                                                   TF_Status* status);

TF_CAPI_EXPORT extern TF_Operation* TF_GraphOperationByName(TF_Graph* graph,
                                                            const char* oper_name);
/* Iterates the operations in the order they were added: start with *pos = 0; NULL at the end. */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos);
/* The graph as a serialized tensorflow.GraphDef. */
TF_CAPI_EXPORT extern void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def,
                                              TF_Status* status);
/* The serialized tensorflow.OpDef of `op_name`; NOT_FOUND for an unknown op. */
TF_CAPI_EXPORT extern void TF_GraphGetOpDef(TF_Graph* graph, const char* op_name,
                                            TF_Buffer* output_op_def, TF_Status* status);
/* The serialized tensorflow.VersionDef of the graph. */
TF_CAPI_EXPORT extern void TF_GraphVersions(TF_Graph* graph, TF_Buffer* output_version_def,
                                            TF_Status* status);
/* The node as a serialized tensorflow.NodeDef. */
TF_CAPI_EXPORT extern void TF_OperationToNodeDef(TF_Operation* oper, TF_Buffer* output_node_def,
                                                 TF_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Importing a GraphDef into a graph */

typedef struct TF_ImportGraphDefOptions TF_ImportGraphDefOptions;
typedef struct TF_ImportGraphDefResults TF_ImportGraphDefResults;

TF_CAPI_EXPORT extern TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void);
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts);
/* Imported nodes are named "<prefix>/<name>"; the prefix must not be a name in use. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts,
                                                             const char* prefix);
/* The device of imported nodes that name none. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetDefaultDevice(TF_ImportGraphDefOptions* opts,
                                                                    const char* device);
/* Renames imported nodes whose names are in use ("a" becomes "a_1"). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetUniquifyNames(TF_ImportGraphDefOptions* opts,
                                                                    unsigned char uniquify_names);
/* Renames a prefix in use instead of failing. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetUniquifyPrefix(
    TF_ImportGraphDefOptions* opts, unsigned char uniquify_prefix);
/* Imported inputs reading src_name:src_index read `dst` (a tensor of the graph) instead. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddInputMapping(TF_ImportGraphDefOptions* opts,
                                                                   const char* src_name,
                                                                   int src_index, TF_Output dst);
/* Imported control inputs on src_name depend on `dst` instead. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsRemapControlDependency(
    TF_ImportGraphDefOptions* opts, const char* src_name, TF_Operation* dst);
/* Every imported node without data inputs runs after `oper`. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddControlDependency(
    TF_ImportGraphDefOptions* opts, TF_Operation* oper);
/* Asks for the imported tensor oper_name:index among the results (oper_name before renaming). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOutput(TF_ImportGraphDefOptions* opts,
                                                                   const char* oper_name,
                                                                   int index);
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOutputs(
    const TF_ImportGraphDefOptions* opts);
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOperation(
    TF_ImportGraphDefOptions* opts, const char* oper_name);
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOperations(
    const TF_ImportGraphDefOptions* opts);

/* The arrays belong to `results`. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOutputs(TF_ImportGraphDefResults* results,
                                                                 int* num_outputs,
                                                                 TF_Output** outputs);
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOperations(
    TF_ImportGraphDefResults* results, int* num_opers, TF_Operation*** opers);
/* Input mappings whose source the GraphDef does not have or never reads. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsMissingUnusedInputMappings(
    TF_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes);
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults* results);

/* Adds the nodes of a serialized tensorflow.GraphDef (and its function library) to `graph`. All
 * or nothing: on error the graph is unchanged. */
TF_CAPI_EXPORT extern TF_ImportGraphDefResults* TF_GraphImportGraphDefWithResults(
    TF_Graph* graph, const TF_Buffer* graph_def, const TF_ImportGraphDefOptions* options,
    TF_Status* status);
TF_CAPI_EXPORT extern void TF_GraphImportGraphDefWithReturnOutputs(
    TF_Graph* graph, const TF_Buffer* graph_def, const TF_ImportGraphDefOptions* options,
    TF_Output* return_outputs, int num_return_outputs, TF_Status* status);
TF_CAPI_EXPORT extern void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                                                  const TF_ImportGraphDefOptions* options,
                                                  TF_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Gradients */

/* Adds nodes computing dy[j] = sum over i of d(y[i])/d(x[j]), weighted by dx[i] when dx is not
 * NULL (otherwise by ones), under name scopes "gradients", "gradients_1", ... not yet used.
 * `dy` receives nx outputs. All or nothing: on error the graph is unchanged. NOT_FOUND names an
 * op on the way that has no gradient function. */
TF_CAPI_EXPORT extern void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny, TF_Output* x, int nx,
                                           TF_Output* dx, TF_Status* status, TF_Output* dy);
/* The same under the name scope "<prefix>/" (which must not be in use; NULL: as
 * TF_AddGradients). */
TF_CAPI_EXPORT extern void TF_AddGradientsWithPrefix(TF_Graph* g, const char* prefix, TF_Output* y,
                                                     int ny, TF_Output* x, int nx, TF_Output* dx,
                                                     TF_Status* status, TF_Output* dy);

/* ---------------------------------------------------------------------------------------------
 * Sessions */

typedef struct TF_Session TF_Session;

/* A session running `graph` (which must outlive it). Nodes added to the graph later are seen by
 * the session's next run. */
TF_CAPI_EXPORT extern TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts,
                                                TF_Status* status);
/* Loads the SavedModel in export_dir (saved_model.pb or saved_model.pbtxt, variables/, assets/)
 * as TensorFlow's loader does: the MetaGraph whose tags are exactly tags[0..tags_len), its
 * variables restored and its init op run. Its graph is imported into `graph`, which must be empty
 * and outlive the session; meta_graph_def, when not NULL, receives the chosen MetaGraphDef,
 * serialized (its signature_def maps signature keys to the graph's tensor names). run_options
 * (a serialized tensorflow.RunOptions or NULL) gives the restore and init steps their
 * timeout_in_ms. session_options and run_options may be NULL. */
TF_CAPI_EXPORT extern TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len, TF_Graph* graph,
    TF_Buffer* meta_graph_def, TF_Status* status);
/* Refuses new runs; runs in progress finish. */
TF_CAPI_EXPORT extern void TF_CloseSession(TF_Session* session, TF_Status* status);
/* Closes the session if needed and frees it; NULL is ignored. */
TF_CAPI_EXPORT extern void TF_DeleteSession(TF_Session* session, TF_Status* status);

/* Runs one step: feeds inputs[i] = input_values[i] (the caller keeps the input tensors), computes
 * outputs (output_values[i] receives a new tensor the caller deletes, NULL on error) and runs
 * target_opers. run_options is a serialized tensorflow.RunOptions or NULL (timeout_in_ms and
 * trace_level are read: any trace level records step stats); run_metadata, when not NULL,
 * receives a serialized tensorflow.RunMetadata with step_stats when they were recorded. */
TF_CAPI_EXPORT extern void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options,
                                         const TF_Output* inputs, TF_Tensor* const* input_values,
                                         int ninputs, const TF_Output* outputs,
                                         TF_Tensor** output_values, int noutputs,
                                         const TF_Operation* const* target_opers, int ntargets,
                                         TF_Buffer* run_metadata, TF_Status* status);

/* Partial runs: a step whose feeds and fetches arrive over several calls. Setup names every
 * input, output and target the step may use and returns a handle (freed with
 * TF_DeletePRunHandle); each TF_SessionPRun feeds some inputs and fetches some outputs, running
 * only what those need and what has not run yet. The partial run ends when every declared output
 * has been fetched and every target run, or when the step of a call fails (an argument error
 * leaves it as it was). */
TF_CAPI_EXPORT extern void TF_SessionPRunSetup(TF_Session* session, const TF_Output* inputs,
                                               int ninputs, const TF_Output* outputs, int noutputs,
                                               const TF_Operation* const* target_opers,
                                               int ntargets, const char** handle,
                                               TF_Status* status);
TF_CAPI_EXPORT extern void TF_SessionPRun(TF_Session* session, const char* handle,
                                          const TF_Output* inputs, TF_Tensor* const* input_values,
                                          int ninputs, const TF_Output* outputs,
                                          TF_Tensor** output_values, int noutputs,
                                          const TF_Operation* const* target_opers, int ntargets,
                                          TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeletePRunHandle(const char* handle);

/* ---------------------------------------------------------------------------------------------
 * Devices */

typedef struct TF_DeviceList TF_DeviceList;

TF_CAPI_EXPORT extern TF_DeviceList* TF_SessionListDevices(TF_Session* session, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteDeviceList(TF_DeviceList* list);
TF_CAPI_EXPORT extern int TF_DeviceListCount(const TF_DeviceList* list);
/* "/job:localhost/replica:0/task:0/device:CPU:0"; the string belongs to the list. */
TF_CAPI_EXPORT extern const char* TF_DeviceListName(const TF_DeviceList* list, int index,
                                                    TF_Status* status);
/* "CPU", "GPU", ... */
TF_CAPI_EXPORT extern const char* TF_DeviceListType(const TF_DeviceList* list, int index,
                                                    TF_Status* status);
/* The device's memory in bytes as its plugin reports it; 0 when it reports none. */
TF_CAPI_EXPORT extern int64_t TF_DeviceListMemoryBytes(const TF_DeviceList* list, int index,
                                                       TF_Status* status);
TF_CAPI_EXPORT extern uint64_t TF_DeviceListIncarnation(const TF_DeviceList* list, int index,
                                                        TF_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Plugins and op lists */

typedef struct TF_Library TF_Library;

/* Loads a Tessera plugin: `library_filename` is its manifest (<name>.tessera-plugin.json), its
 * shared object (the manifest beside it is used) or a folder of plugins. Graphs and sessions
 * created afterwards use it. The plugin is checked as any plugin is (manifest, ABI range,
 * allowlist); a rejected plugin is FAILED_PRECONDITION with the reason. */
TF_CAPI_EXPORT extern TF_Library* TF_LoadPluggableDeviceLibrary(const char* library_filename,
                                                                TF_Status* status);
/* Frees the handle; the plugin stays loaded for the process, as TensorFlow's does. */
TF_CAPI_EXPORT extern void TF_DeletePluggableDeviceLibraryHandle(TF_Library* lib_handle);
/* The same loading, for op and kernel libraries. */
TF_CAPI_EXPORT extern TF_Library* TF_LoadLibrary(const char* library_filename, TF_Status* status);
/* The serialized tensorflow.OpList of the ops the library defines (the buffer belongs to it). */
TF_CAPI_EXPORT extern TF_Buffer TF_GetOpList(TF_Library* lib_handle);
TF_CAPI_EXPORT extern void TF_DeleteLibraryHandle(TF_Library* lib_handle);
/* Every registered op as a serialized tensorflow.OpList; the caller deletes the buffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllOpList(void);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_C_API_H_ */
