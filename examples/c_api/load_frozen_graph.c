/* load_frozen_graph: runs a frozen TensorFlow graph through the C API.
 *
 *   load_frozen_graph GRAPH.pb
 *
 * Reads a binary GraphDef, imports it into a TF_Graph, feeds three 2-D points to the placeholder
 * "x" and prints what the graph computes for them: "probabilities" (float [3, 3]) and
 * "predicted_class" (int64 [3]). examples/mlp/mlp.pb, the dartboard classifier, fits that
 * signature. Exits 0 on success; on any error prints the message to stderr and exits 1. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflow/c/c_api.h>

enum { kNumPoints = 3, kNumClasses = 3 };

static const char* program = "load_frozen_graph";

/* Reports `what` with the status message when the status holds an error; returns 1 then, else 0
 * (so that `if (failed(...)) goto done;` reads naturally). */
static int failed(const TF_Status* status, const char* what) {
  if (TF_GetCode(status) == TF_OK) return 0;
  fprintf(stderr, "%s: %s: %s\n", program, what, TF_Message(status));
  return 1;
}

/* Reads the whole file at `path` into a TF_Buffer (which copies the bytes). NULL, with a message
 * on stderr, when the file cannot be read. */
static TF_Buffer* read_file(const char* path) {
  FILE* file = fopen(path, "rb");
  if (file == NULL) {
    fprintf(stderr, "%s: cannot open %s: %s\n", program, path, strerror(errno));
    return NULL;
  }
  /* Grow a heap block until the end of the file: this also works for pipes such as /dev/stdin,
   * which cannot report their size up front. */
  size_t size = 0, capacity = 1 << 16;
  char* bytes = malloc(capacity);
  while (bytes != NULL) {
    size += fread(bytes + size, 1, capacity - size, file);
    if (size < capacity) break;
    char* bigger = realloc(bytes, capacity * 2);
    if (bigger == NULL) {
      free(bytes);
      bytes = NULL;
      break;
    }
    bytes = bigger;
    capacity *= 2;
  }
  const int read_error = bytes == NULL || ferror(file);
  const int error_number = errno;
  fclose(file);
  if (read_error) {
    fprintf(stderr, "%s: cannot read %s: %s\n", program, path, strerror(error_number));
    free(bytes);
    return NULL;
  }
  TF_Buffer* buffer = TF_NewBufferFromString(bytes, size);
  free(bytes);
  return buffer;
}

/* The deallocator given to TF_NewTensor: the tensor owns the malloc'ed block and calls this
 * once, when its last reference goes. */
static void free_tensor_data(void* data, size_t length, void* arg) {
  (void)length;
  (void)arg;
  free(data);
}

/* A float tensor of shape [rows, cols] over a copy of `values`, in a block the tensor owns. The
 * block is aligned to 64 bytes so that the runtime uses it in place instead of copying it. */
static TF_Tensor* new_float_matrix(const float* values, int64_t rows, int64_t cols) {
  const size_t length = (size_t)(rows * cols) * sizeof(float);
  /* aligned_alloc wants a size that is a multiple of the alignment. */
  const size_t padded = (length + 63) / 64 * 64;
  float* data = aligned_alloc(64, padded);
  if (data == NULL) return NULL;
  memcpy(data, values, length);
  const int64_t dims[2] = {rows, cols};
  /* From here the tensor owns `data`, even when this fails (it frees it then). */
  return TF_NewTensor(TF_FLOAT, dims, 2, data, length, free_tensor_data, NULL);
}

/* True when `tensor` has type `type` and exactly the dims `dims[0, num_dims)`. */
static int has_shape(const TF_Tensor* tensor, TF_DataType type, const int64_t* dims,
                     int num_dims) {
  if (TF_TensorType(tensor) != type || TF_NumDims(tensor) != num_dims) return 0;
  for (int i = 0; i < num_dims; ++i) {
    if (TF_Dim(tensor, i) != dims[i]) return 0;
  }
  return 1;
}

/* The operation named `name`, or NULL with a message on stderr. */
static TF_Operation* find_operation(TF_Graph* graph, const char* name) {
  TF_Operation* op = TF_GraphOperationByName(graph, name);
  if (op == NULL) fprintf(stderr, "%s: the graph has no operation named \"%s\"\n", program, name);
  return op;
}

/* Prints one line per point from the fetched tensors, after checking that they have the types
 * and shapes this program expects. Returns 0 on success, 1 (with a message) otherwise. */
static int print_results(const float* points, TF_Tensor* const* outputs) {
  const int64_t probabilities_dims[2] = {kNumPoints, kNumClasses};
  const int64_t class_dims[1] = {kNumPoints};
  if (!has_shape(outputs[0], TF_FLOAT, probabilities_dims, 2) ||
      !has_shape(outputs[1], TF_INT64, class_dims, 1)) {
    fprintf(stderr, "%s: expected probabilities float [%d, %d] and predicted_class int64 [%d]\n",
            program, kNumPoints, kNumClasses, kNumPoints);
    return 1;
  }
  const float* p = TF_TensorData(outputs[0]);
  const int64_t* classes = TF_TensorData(outputs[1]);
  for (int i = 0; i < kNumPoints; ++i) {
    printf("point (%.1f, %.1f): class %lld, probabilities", points[2 * i], points[2 * i + 1],
           (long long)classes[i]);
    for (int k = 0; k < kNumClasses; ++k) printf(" %.3f", p[i * kNumClasses + k]);
    printf("\n");
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s GRAPH.pb\n", program);
    return 1;
  }
  printf("C API version %s\n", TF_Version());

  /* The three points to classify, row-major: one (x, y) pair per row. */
  static const float points[kNumPoints * 2] = {0.2f, 0.3f, 1.2f, -0.5f, -2.5f, 1.0f};

  /* Every object the program creates, NULL until it exists, so that the single cleanup at the
   * end can free whatever was made before an error. */
  int exit_code = 1;
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_Buffer* graph_def = NULL;
  TF_ImportGraphDefOptions* import_options = NULL;
  TF_SessionOptions* session_options = NULL;
  TF_Session* session = NULL;
  TF_Tensor* input = NULL;
  TF_Tensor* outputs[2] = {NULL, NULL};
  TF_Output feed, fetches[2];

  /* 1. Load the GraphDef into the graph. Without a prefix, the nodes keep their names. */
  graph_def = read_file(argv[1]);
  if (graph_def == NULL) goto done;
  import_options = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(graph, graph_def, import_options, status);
  if (failed(status, "importing the graph")) goto done;

  /* 2. Name the feed and the fetches: output 0 of each operation. */
  feed = (TF_Output){find_operation(graph, "x"), 0};
  fetches[0] = (TF_Output){find_operation(graph, "probabilities"), 0};
  fetches[1] = (TF_Output){find_operation(graph, "predicted_class"), 0};
  if (feed.oper == NULL || fetches[0].oper == NULL || fetches[1].oper == NULL) goto done;

  /* 3. A session on the graph (default options: run locally). */
  session_options = TF_NewSessionOptions();
  session = TF_NewSession(graph, session_options, status);
  if (failed(status, "creating the session")) goto done;

  /* 4. Feed the points as a [3, 2] float tensor and fetch both outputs in one step. */
  input = new_float_matrix(points, kNumPoints, 2);
  if (input == NULL) {
    fprintf(stderr, "%s: cannot create the input tensor\n", program);
    goto done;
  }
  TF_SessionRun(session, NULL, &feed, &input, 1, fetches, outputs, 2, NULL, 0, NULL, status);
  if (failed(status, "running the graph")) goto done;

  /* 5. Print what the graph says about each point. */
  exit_code = print_results(points, outputs);

done:
  /* Everything is freed on every path; each TF_Delete* accepts NULL. The session goes before
   * the graph it runs. */
  TF_DeleteTensor(outputs[0]);
  TF_DeleteTensor(outputs[1]);
  TF_DeleteTensor(input);
  TF_DeleteSession(session, status);
  if (failed(status, "closing the session")) exit_code = 1;
  TF_DeleteSessionOptions(session_options);
  TF_DeleteImportGraphDefOptions(import_options);
  TF_DeleteBuffer(graph_def);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
  return exit_code;
}
