// Fuzz target: untrusted bytes through the C API's parsers. The first byte picks the entry point:
//   0: a serialized GraphDef imported into a graph that already has a Placeholder "x" (under a
//      prefix, with x's output mapped in, unique names), then exported and walked;
//   1: a serialized ConfigProto given to TF_SetConfig;
//   2: a serialized AttrValue set on a node with TF_SetAttrValueProto and finished;
//   3: a serialized TensorShapeProto as a Placeholder's shape, finished and read back.
// Any input must give a status, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>

#include "tensorflow/c/c_api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  const void* bytes = data + 1;
  const size_t length = size - 1;
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_OperationDescription* desc = TF_NewOperation(graph, "Placeholder", "x");
  TF_SetAttrType(desc, "dtype", TF_FLOAT);
  TF_Operation* x = TF_FinishOperation(desc, status);
  switch (mode) {
    case 0: {
      TF_Buffer* def = TF_NewBufferFromString(bytes, length);
      TF_ImportGraphDefOptions* options = TF_NewImportGraphDefOptions();
      if (length % 2 == 0) TF_ImportGraphDefOptionsSetPrefix(options, "imported");
      TF_ImportGraphDefOptionsSetUniquifyNames(options, 1);
      TF_ImportGraphDefOptionsAddInputMapping(options, "x", 0, TF_Output{x, 0});
      TF_ImportGraphDefResults* results =
          TF_GraphImportGraphDefWithResults(graph, def, options, status);
      if (results != nullptr) {
        TF_Buffer* exported = TF_NewBuffer();
        TF_GraphToGraphDef(graph, exported, status);
        TF_DeleteBuffer(exported);
        size_t pos = 0;
        while (TF_Operation* op = TF_GraphNextOperation(graph, &pos)) {
          for (int i = 0; i < TF_OperationNumOutputs(op); ++i) {
            TF_GraphGetTensorNumDims(graph, TF_Output{op, i}, status);
          }
          TF_OperationGetNumAttrs(op);
        }
        TF_DeleteImportGraphDefResults(results);
      }
      TF_DeleteImportGraphDefOptions(options);
      TF_DeleteBuffer(def);
      break;
    }
    case 1: {
      TF_SessionOptions* options = TF_NewSessionOptions();
      TF_SetConfig(options, bytes, length, status);
      TF_DeleteSessionOptions(options);
      break;
    }
    case 2: {
      desc = TF_NewOperation(graph, "NoOp", "annotated");
      TF_SetAttrValueProto(desc, "_value", bytes, length, status);
      TF_Operation* op = TF_FinishOperation(desc, status);
      if (op != nullptr) {
        TF_Buffer* value = TF_NewBuffer();
        TF_OperationGetAttrMetadata(op, "_value", status);
        TF_OperationGetAttrValueProto(op, "_value", value, status);
        TF_DeleteBuffer(value);
      }
      break;
    }
    default: {
      desc = TF_NewOperation(graph, "Placeholder", "shaped");
      TF_SetAttrType(desc, "dtype", TF_FLOAT);
      TF_SetAttrTensorShapeProto(desc, "shape", bytes, length, status);
      TF_Operation* op = TF_FinishOperation(desc, status);
      if (op != nullptr) {
        const int rank = TF_GraphGetTensorNumDims(graph, TF_Output{op, 0}, status);
        if (rank > 0 && rank <= 64) {
          int64_t dims[64];
          TF_GraphGetTensorShape(graph, TF_Output{op, 0}, dims, rank, status);
        }
      }
      break;
    }
  }
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
  return 0;
}
