/* build_and_run: builds a graph node by node with the C API and runs it many times.
 *
 *   build_and_run
 *
 * The graph is one dense layer, y = relu(x w + b), for inputs x of shape [batch, 2] whose batch
 * size is unknown when the graph is built. The program prints the output shape that shape
 * inference finds, runs the graph 1000 times in one session on a 2x2 input, checks the result
 * against the same computation done in plain C and prints it. Exits 0 when they agree, 1 on a
 * mismatch or on any error (with the message on stderr). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tensorflow/c/c_api.h>

enum { kBatch = 2, kInputs = 2, kUnits = 3, kRuns = 1000, kMaxRank = 8 };

static const char* program = "build_and_run";

/* The layer's parameters and the input, row-major. Some pre-activations are negative so that
 * the Relu has something to do. */
static const float kWeights[kInputs * kUnits] = {0.5f, -1.0f, 2.0f,   /* row 0 */
                                                 1.5f, 0.25f, -0.5f}; /* row 1 */
static const float kBias[kUnits] = {0.1f, 0.2f, 0.3f};
static const float kInput[kBatch * kInputs] = {1.0f, 2.0f,   /* first example */
                                               3.0f, -1.0f}; /* second example */
static const int64_t kInputDims[2] = {kBatch, kInputs};

/* Reports `what` with the status message when the status holds an error; returns 1 then, else 0
 * (so that `if (failed(...)) goto done;` reads naturally). */
static int failed(const TF_Status* status, const char* what) {
  if (TF_GetCode(status) == TF_OK) return 0;
  fprintf(stderr, "%s: %s: %s\n", program, what, TF_Message(status));
  return 1;
}

/* Adds a Const node named `name` holding a float tensor of the given dims and values. */
static TF_Operation* add_float_const(TF_Graph* graph, const char* name, const float* values,
                                     const int64_t* dims, int num_dims, TF_Status* status) {
  size_t count = 1;
  for (int i = 0; i < num_dims; ++i) count *= (size_t)dims[i];
  TF_Tensor* value = TF_AllocateTensor(TF_FLOAT, dims, num_dims, count * sizeof(float));
  if (value == NULL) {
    TF_SetStatus(status, TF_INTERNAL, "cannot allocate a constant");
    return NULL;
  }
  memcpy(TF_TensorData(value), values, count * sizeof(float));

  TF_OperationDescription* desc = TF_NewOperation(graph, "Const", name);
  /* The attr keeps a copy of the tensor, so ours can go right away. An error here is reported
   * again by TF_FinishOperation, which must run in any case to free the description. */
  TF_SetAttrTensor(desc, "value", value, status);
  TF_DeleteTensor(value);
  TF_SetAttrType(desc, "dtype", TF_FLOAT);
  return TF_FinishOperation(desc, status);
}

/* Adds a node with one or two inputs and no attrs beyond the type, which the inputs give. */
static TF_Operation* add_op(TF_Graph* graph, const char* type, const char* name, TF_Output a,
                            const TF_Output* b, TF_Status* status) {
  TF_OperationDescription* desc = TF_NewOperation(graph, type, name);
  TF_AddInput(desc, a);
  if (b != NULL) TF_AddInput(desc, *b);
  return TF_FinishOperation(desc, status);
}

/* Builds y = relu(x w + b). Returns 0 and sets *x and *y on success, 1 with a message otherwise;
 * the graph owns every node added. */
static int build_graph(TF_Graph* graph, TF_Status* status, TF_Output* x, TF_Output* y) {
  /* The input: float [-1, 2], the batch size left open (-1) until a run feeds a tensor. */
  TF_OperationDescription* desc = TF_NewOperation(graph, "Placeholder", "x");
  TF_SetAttrType(desc, "dtype", TF_FLOAT);
  const int64_t x_dims[2] = {-1, kInputs};
  TF_SetAttrShape(desc, "shape", x_dims, 2);
  TF_Operation* x_op = TF_FinishOperation(desc, status);
  if (failed(status, "adding x")) return 1;

  const int64_t w_dims[2] = {kInputs, kUnits};
  TF_Operation* w_op = add_float_const(graph, "w", kWeights, w_dims, 2, status);
  if (failed(status, "adding w")) return 1;
  const int64_t b_dims[1] = {kUnits};
  TF_Operation* b_op = add_float_const(graph, "b", kBias, b_dims, 1, status);
  if (failed(status, "adding b")) return 1;

  const TF_Output w = {w_op, 0}, b = {b_op, 0};
  TF_Operation* matmul = add_op(graph, "MatMul", "xw", (TF_Output){x_op, 0}, &w, status);
  if (failed(status, "adding MatMul")) return 1;
  /* BiasAdd adds b, of shape [3], to each row of the [-1, 3] product. */
  TF_Operation* bias_add = add_op(graph, "BiasAdd", "xw_plus_b", (TF_Output){matmul, 0}, &b,
                                  status);
  if (failed(status, "adding BiasAdd")) return 1;
  TF_Operation* relu = add_op(graph, "Relu", "y", (TF_Output){bias_add, 0}, NULL, status);
  if (failed(status, "adding Relu")) return 1;

  *x = (TF_Output){x_op, 0};
  *y = (TF_Output){relu, 0};
  return 0;
}

/* Prints the shape that inference found for `output` when the graph was built, e.g. [-1, 3]. */
static int print_inferred_shape(TF_Graph* graph, TF_Output output, TF_Status* status) {
  const int num_dims = TF_GraphGetTensorNumDims(graph, output, status);
  if (failed(status, "reading the rank of y")) return 1;
  if (num_dims < 0) {
    printf("y: shape unknown\n");
    return 0;
  }
  int64_t dims[kMaxRank];
  if (num_dims > kMaxRank) {
    fprintf(stderr, "%s: y has rank %d, more than this program prints\n", program, num_dims);
    return 1;
  }
  TF_GraphGetTensorShape(graph, output, dims, num_dims, status);
  if (failed(status, "reading the shape of y")) return 1;
  printf("y = relu(x w + b): inferred shape [");
  for (int i = 0; i < num_dims; ++i) printf("%s%lld", i == 0 ? "" : ", ", (long long)dims[i]);
  printf("]\n");
  return 0;
}

/* The same layer in plain C: expected[i][j] = max(0, sum_k x[i][k] w[k][j] + b[j]). */
static void compute_expected(float expected[kBatch * kUnits]) {
  for (int i = 0; i < kBatch; ++i) {
    for (int j = 0; j < kUnits; ++j) {
      float sum = kBias[j];
      for (int k = 0; k < kInputs; ++k) sum += kInput[i * kInputs + k] * kWeights[k * kUnits + j];
      expected[i * kUnits + j] = sum > 0.0f ? sum : 0.0f;
    }
  }
}

/* |v|, without linking the math library for fabsf. */
static float absolute(float v) { return v < 0.0f ? -v : v; }

/* Compares the fetched tensor with the plain C result and prints both. Returns 0 when they
 * agree (to a float rounding difference: the runtime may sum in another order), 1 otherwise. */
static int check_result(const TF_Tensor* y) {
  if (TF_TensorType(y) != TF_FLOAT || TF_NumDims(y) != 2 || TF_Dim(y, 0) != kBatch ||
      TF_Dim(y, 1) != kUnits) {
    fprintf(stderr, "%s: expected y to be float [%d, %d]\n", program, kBatch, kUnits);
    return 1;
  }
  float expected[kBatch * kUnits];
  compute_expected(expected);
  const float* actual = TF_TensorData(y);
  int mismatches = 0;
  for (int i = 0; i < kBatch; ++i) {
    printf("y[%d] =", i);
    for (int j = 0; j < kUnits; ++j) {
      const float a = actual[i * kUnits + j], e = expected[i * kUnits + j];
      printf(" %.4f", a);
      if (absolute(a - e) > 1e-5f * (1.0f + absolute(e))) {
        fprintf(stderr, "%s: y[%d][%d] is %.7g, expected %.7g\n", program, i, j, a, e);
        ++mismatches;
      }
    }
    printf("\n");
  }
  if (mismatches == 0) printf("matches the plain C computation\n");
  return mismatches == 0 ? 0 : 1;
}

/* Wall-clock seconds (C11 timespec_get), for timing the runs. */
static double now_seconds(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void) {
  /* Every object the program creates, NULL until it exists, so that the single cleanup at the
   * end can free whatever was made before an error. */
  int exit_code = 1;
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_SessionOptions* options = NULL;
  TF_Session* session = NULL;
  TF_Tensor* input = NULL;
  TF_Tensor* result = NULL;
  TF_Output x, y;
  double start;

  /* 1. Build the graph; shape inference runs as each node is added. */
  if (build_graph(graph, status, &x, &y) != 0) goto done;
  if (print_inferred_shape(graph, y, status) != 0) goto done;

  /* 2. One session for all the runs: the first run with a given set of feeds and fetches
   * prepares the graph for them (placement, executors), and later runs reuse that work. */
  options = TF_NewSessionOptions();
  session = TF_NewSession(graph, options, status);
  if (failed(status, "creating the session")) goto done;

  /* 3. The input, [2, 2]. The run reads it without taking it, so it serves every run. */
  input = TF_AllocateTensor(TF_FLOAT, kInputDims, 2, sizeof kInput);
  if (input == NULL) {
    fprintf(stderr, "%s: cannot allocate the input\n", program);
    goto done;
  }
  memcpy(TF_TensorData(input), kInput, sizeof kInput);

  /* 4. Run. Each run returns a new output tensor; all but the last are dropped at once. */
  start = now_seconds();
  for (int run = 0; run < kRuns; ++run) {
    TF_DeleteTensor(result);
    result = NULL;
    TF_SessionRun(session, NULL, &x, &input, 1, &y, &result, 1, NULL, 0, NULL, status);
    if (failed(status, "running the graph")) goto done;
  }
  printf("%d runs in one session, %.1f us per run\n", kRuns,
         (now_seconds() - start) * 1e6 / kRuns);

  /* 5. The last result must be what plain C computes. */
  exit_code = check_result(result);

done:
  /* Everything is freed on every path; each TF_Delete* accepts NULL. The session goes before
   * the graph it runs. */
  TF_DeleteTensor(result);
  TF_DeleteTensor(input);
  TF_DeleteSession(session, status);
  if (failed(status, "closing the session")) exit_code = 1;
  TF_DeleteSessionOptions(options);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
  return exit_code;
}
