/* Kernels: what a kernel library registers for an (op, device type, dtypes) and the contexts
 * through which a kernel sees its attributes, inputs, outputs, stream and the intra-op pool. */
#ifndef TESSERA_PLUGIN_API_KERNEL_H_
#define TESSERA_PLUGIN_API_KERNEL_H_

#include "tessera/plugin_api/common.h"
#include "tessera/plugin_api/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host-defined opaque contexts; valid only during the call that receives them (for an async
 * kernel: until its done callback is called). */
typedef struct TSR_KernelConstruction TSR_KernelConstruction;
typedef struct TSR_KernelContext TSR_KernelContext;
typedef struct TSR_ThreadPool TSR_ThreadPool;

/* For each type attribute of the op, the dtypes this kernel accepts. */
typedef struct TSR_TypeConstraint {
  size_t struct_size;
  const char* attr_name;      /* in */
  const TSR_DataType* dtypes; /* in */
  size_t num_dtypes;
} TSR_TypeConstraint;

typedef enum TSR_KernelFlag {
  /* Implemented by Compute_Async instead of Compute. */
  TSR_KERNEL_FLAG_ASYNC = 1u << 0,
  /* Cheap enough to run inline on the thread that made it ready (e.g. shape ops). */
  TSR_KERNEL_FLAG_CHEAP = 1u << 1,
  /* Outputs depend only on attributes (e.g. Const): the host may run the kernel once when it
   * builds the executor and reuse the outputs in every step. */
  TSR_KERNEL_FLAG_CONSTANT_OUTPUTS = 1u << 2,
} TSR_KernelFlag;

/* Completion of an async kernel: takes ownership of `status` (NULL: OK). Called exactly once,
 * from any thread. */
typedef void (*TSR_KernelDoneFn)(void* done_arg, TSR_Status* status);

/* A kernel registration. The host copies every string and array during the call.
 *
 * Threading: Create and Destroy are called once per kernel instance. Compute (or Compute_Async)
 * may be called concurrently on one instance for different steps; a kernel keeps per-step data
 * on the stack or in temporaries, never in its state. */
typedef struct TSR_KernelRegistration {
  size_t struct_size;
  TSR_Extension* extension_start;
  const char* op_name;     /* in */
  const char* device_type; /* in */
  const TSR_TypeConstraint* type_constraints; /* in */
  size_t num_type_constraints;
  const char* const* host_memory_args; /* in: names of inputs/outputs kept in host memory */
  size_t num_host_memory_args;
  int32_t priority; /* in: among kernels for the same (op, device type); higher wins */
  uint32_t flags;   /* in: TSR_KernelFlag bits */
  void* user_data;  /* in: passed back to Create */

  /* Reads attributes and builds the kernel's state (may set *state to NULL). */
  TSR_Status* (*Create)(void* user_data, TSR_KernelConstruction* ctx, void** state);
  /* Required unless TSR_KERNEL_FLAG_ASYNC is set. */
  TSR_Status* (*Compute)(void* state, TSR_KernelContext* ctx);
  /* Required when TSR_KERNEL_FLAG_ASYNC is set. Must call `done` exactly once. */
  void (*Compute_Async)(void* state, TSR_KernelContext* ctx, TSR_KernelDoneFn done,
                        void* done_arg);
  /* Destroy(NULL) must be a no-op. */
  void (*Destroy)(void* state);
} TSR_KernelRegistration;

/* Variables. A kernel whose op has a ref input (OpArg.is_ref) or a resource input (dtype
 * TSR_DTYPE_RESOURCE) sees that input as the variable's own storage: a view of the variable's
 * dtype and current shape that the kernel may update in place during Compute (AssignAdd,
 * ApplyAdam, ResourceApplyAdam...). The host holds the variable's lock around Compute: exclusive
 * for resource variables and for ref variables when the node's `use_locking` attr is true, shared
 * otherwise; it copies a resource variable first when an earlier read still holds its buffer, and
 * it fails the node with FAILED_PRECONDITION before Compute when a variable is uninitialized.
 * Construction reports a ref input's type as its base type. A ref output is filled by the host
 * with the node's first ref input; the kernel must not allocate it. Variable kernels must be
 * synchronous. */

/* Work item of a parallel loop: processes [begin, end). */
typedef void (*TSR_ParallelForFn)(void* arg, int64_t begin, int64_t end);
/* Closure scheduled on a thread pool. */
typedef void (*TSR_ClosureFn)(void* arg);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_API_KERNEL_H_ */
