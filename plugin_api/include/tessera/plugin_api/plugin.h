/* The plugin entry point and the table of host services every plugin receives. A plugin exports
 * exactly one symbol, TSR_Plugin_Init; everything else it needs from the host (statuses, logging,
 * host memory, registration, kernel contexts, the intra-op thread pool) arrives in TSR_HostApi. */
#ifndef TESSERA_PLUGIN_API_PLUGIN_H_
#define TESSERA_PLUGIN_API_PLUGIN_H_

#include "tessera/plugin_api/common.h"
#include "tessera/plugin_api/device.h"
#include "tessera/plugin_api/kernel.h"
#include "tessera/plugin_api/op.h"
#include "tessera/plugin_api/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collects a plugin's registrations during TSR_Plugin_Init. Registrations take effect only when
 * Init returns OK and the host accepts the plugin's versions; otherwise all are discarded. */
typedef struct TSR_Registrar TSR_Registrar;

typedef enum TSR_LogSeverity {
  TSR_LOG_SEVERITY_DEBUG = 0,
  TSR_LOG_SEVERITY_INFO = 1,
  TSR_LOG_SEVERITY_WARNING = 2,
  TSR_LOG_SEVERITY_ERROR = 3,
} TSR_LogSeverity;

/* ---------------------------------------------------------------------------------------------
 * Host services. Filled by the host; valid from TSR_Plugin_Init until the process exits.
 * Slots are only ever appended; a plugin that needs a slot added in minor N declares N as the
 * minimum host minor it needs. All functions are thread-safe unless stated otherwise.
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_HostApi {
  size_t struct_size;
  TSR_Extension* extension_start;
  uint32_t abi_version_major;
  uint32_t abi_version_minor;
  const char* host_version; /* semantic version of the host, e.g. "0.1.0" */

  /* ---- Status --------------------------------------------------------------------------- */
  /* `message` is copied. A status created with TSR_CODE_OK is NULL. */
  TSR_Status* (*Status_Create)(TSR_Code code, const char* message);
  void (*Status_Destroy)(TSR_Status* status); /* NULL is a no-op */
  TSR_Code (*Status_GetCode)(const TSR_Status* status);
  const char* (*Status_GetMessage)(const TSR_Status* status); /* borrowed from `status` */

  /* ---- Logging -------------------------------------------------------------------------- */
  void (*Log)(TSR_LogSeverity severity, const char* source, const char* message);

  /* ---- Host memory (for plugin bookkeeping, not device memory) -------------------------- */
  void* (*HostMemory_Allocate)(size_t size, size_t alignment); /* NULL when out of memory */
  void (*HostMemory_Free)(void* ptr);                          /* NULL is a no-op */

  /* ---- Registration (only during TSR_Plugin_Init, only on the Init thread) -------------- */
  TSR_Status* (*Registrar_RegisterDeviceType)(TSR_Registrar* registrar,
                                              const TSR_DeviceTypeRegistration* registration);
  /* Consumes `builder`, also on failure. */
  TSR_Status* (*Registrar_RegisterOp)(TSR_Registrar* registrar, TSR_OpDefBuilder* builder);
  TSR_Status* (*Registrar_RegisterKernel)(TSR_Registrar* registrar,
                                          const TSR_KernelRegistration* registration);
  TSR_Status* (*Registrar_RegisterTransport)(TSR_Registrar* registrar,
                                             const TSR_TransportRegistration* registration);

  /* ---- Op definitions ------------------------------------------------------------------- */
  TSR_OpDefBuilder* (*OpDefBuilder_Create)(const char* op_name);
  void (*OpDefBuilder_Destroy)(TSR_OpDefBuilder* builder); /* NULL is a no-op */
  TSR_Status* (*OpDefBuilder_AddInput)(TSR_OpDefBuilder* builder, const TSR_OpArg* arg);
  TSR_Status* (*OpDefBuilder_AddOutput)(TSR_OpDefBuilder* builder, const TSR_OpArg* arg);
  TSR_Status* (*OpDefBuilder_AddAttr)(TSR_OpDefBuilder* builder, const TSR_OpAttr* attr);
  void (*OpDefBuilder_SetFlags)(TSR_OpDefBuilder* builder, uint32_t flags); /* TSR_OpFlag */
  /* `user_data` must stay valid until the process exits. */
  void (*OpDefBuilder_SetShapeFn)(TSR_OpDefBuilder* builder, TSR_ShapeFn fn, void* user_data);

  /* ---- Shape-inference context (valid during a TSR_ShapeFn call) ------------------------ */
  int32_t (*ShapeContext_NumInputs)(const TSR_ShapeContext* ctx);
  int32_t (*ShapeContext_NumOutputs)(const TSR_ShapeContext* ctx);
  /* *rank is -1 when unknown; dims entries are -1 when unknown; *dims borrowed for the call. */
  TSR_Status* (*ShapeContext_GetInputShape)(const TSR_ShapeContext* ctx, int32_t index,
                                            int32_t* rank, const int64_t** dims);
  /* True and a host-memory view when input `index` is a known constant. */
  bool (*ShapeContext_GetInputConstant)(const TSR_ShapeContext* ctx, int32_t index,
                                        TSR_TensorView* value);
  TSR_Status* (*ShapeContext_GetAttr)(const TSR_ShapeContext* ctx, const char* name,
                                      TSR_AttrValue* value);
  TSR_Status* (*ShapeContext_SetOutputShape)(TSR_ShapeContext* ctx, int32_t index, int32_t rank,
                                             const int64_t* dims);

  /* ---- Kernel construction (valid during TSR_KernelRegistration.Create) ----------------- */
  const char* (*KernelConstruction_GetNodeName)(const TSR_KernelConstruction* ctx);
  /* NOT_FOUND when the node has no such attribute. */
  TSR_Status* (*KernelConstruction_GetAttr)(const TSR_KernelConstruction* ctx, const char* name,
                                            TSR_AttrValue* value);
  int32_t (*KernelConstruction_NumInputs)(const TSR_KernelConstruction* ctx);
  int32_t (*KernelConstruction_NumOutputs)(const TSR_KernelConstruction* ctx);
  TSR_DataType (*KernelConstruction_GetInputType)(const TSR_KernelConstruction* ctx,
                                                  int32_t index);
  TSR_DataType (*KernelConstruction_GetOutputType)(const TSR_KernelConstruction* ctx,
                                                   int32_t index);
  TSR_Device* (*KernelConstruction_GetDevice)(const TSR_KernelConstruction* ctx);

  /* ---- Kernel context (valid during Compute, or until an async kernel's done) ----------- */
  const char* (*KernelContext_GetNodeName)(const TSR_KernelContext* ctx);
  int64_t (*KernelContext_GetStepId)(const TSR_KernelContext* ctx);
  int32_t (*KernelContext_NumInputs)(const TSR_KernelContext* ctx);
  int32_t (*KernelContext_NumOutputs)(const TSR_KernelContext* ctx);
  /* Fills a borrowed view of input `index`; never allocates, except that a string input is
   * packed (common.h) once per call into memory the host frees when the kernel completes. */
  TSR_Status* (*KernelContext_GetInput)(const TSR_KernelContext* ctx, int32_t index,
                                        TSR_TensorView* view);
  /* Allocates output `index` (dtype from the node; not a string, see AllocateStringOutput) and
   * fills its view. */
  TSR_Status* (*KernelContext_AllocateOutput)(TSR_KernelContext* ctx, int32_t index, int32_t rank,
                                              const int64_t* dims, TSR_TensorView* view);
  /* Reuses the buffer of the first candidate input that has the same dtype and byte size and
   * that nothing else references; otherwise allocates. *forwarded_input is the input used or -1. */
  TSR_Status* (*KernelContext_ForwardInputOrAllocateOutput)(
      TSR_KernelContext* ctx, const int32_t* candidate_inputs, int32_t num_candidates,
      int32_t output_index, int32_t rank, const int64_t* dims, TSR_TensorView* view,
      int32_t* forwarded_input);
  /* Makes output `output_index` share input `input_index`'s buffer, with a new shape of the same
   * element count (Identity, Reshape, ExpandDims, Squeeze). rank -1 keeps the input's shape. */
  TSR_Status* (*KernelContext_SetOutputFromInput)(TSR_KernelContext* ctx, int32_t output_index,
                                                  int32_t input_index, int32_t rank,
                                                  const int64_t* dims);
  /* Scratch memory freed after the kernel completes. */
  TSR_Status* (*KernelContext_AllocateTemp)(TSR_KernelContext* ctx, TSR_DataType dtype,
                                            int32_t rank, const int64_t* dims,
                                            TSR_TensorView* view);
  TSR_Device* (*KernelContext_GetDevice)(const TSR_KernelContext* ctx);
  /* The device's compute stream (see device.h); NULL for a device without streams. */
  TSR_Stream* (*KernelContext_GetStream)(const TSR_KernelContext* ctx);
  /* The host's intra-op thread pool; never NULL. */
  TSR_ThreadPool* (*KernelContext_GetThreadPool)(const TSR_KernelContext* ctx);

  /* ---- Intra-op thread pool -------------------------------------------------------------- */
  int32_t (*ThreadPool_NumThreads)(const TSR_ThreadPool* pool);
  /* Index of the calling thread in the pool, or -1 when the caller is not a pool thread. */
  int32_t (*ThreadPool_CurrentThreadId)(const TSR_ThreadPool* pool);
  void (*ThreadPool_Schedule)(TSR_ThreadPool* pool, TSR_ClosureFn fn, void* arg);
  /* Splits [0, total) into shards sized from `cost_per_unit` (estimated cycles per element),
   * runs them on the pool and the calling thread, and returns when all are done. */
  void (*ThreadPool_ParallelFor)(TSR_ThreadPool* pool, int64_t total, int64_t cost_per_unit,
                                 TSR_ParallelForFn fn, void* arg);

  /* True once the kernel's step is cancelled (its deadline passed, its client or master is
   * gone) or failed elsewhere: nothing the kernel computes from then on is used. A long kernel
   * asks between pieces of its work and, when true, returns any non-OK status (the step keeps
   * its own reason); a kernel that changes state (a variable) finishes its change or makes none.
   * Cheap (one atomic load); callable from any thread while the context is valid. */
  bool (*KernelContext_IsCancelled)(const TSR_KernelContext* ctx);
  /* Allocates string output `index` (its dtype must be TSR_DTYPE_STRING) in the packed layout of
   * common.h, with room for `total_bytes` bytes of elements after the offsets, and fills `view`
   * (host memory; byte_size is TSR_STRING_OFFSETS_SIZE(N) + total_bytes). The kernel writes all
   * N + 1 offsets (the last equal to total_bytes) and the bytes before it completes; the host then
   * checks them and fails the node with INTERNAL naming it when they are malformed.
   * AllocateOutput refuses string outputs. */
  TSR_Status* (*KernelContext_AllocateStringOutput)(TSR_KernelContext* ctx, int32_t index,
                                                    int32_t rank, const int64_t* dims,
                                                    size_t total_bytes, TSR_TensorView* view);
} TSR_HostApi;

/* ---------------------------------------------------------------------------------------------
 * Plugin info: filled by the plugin during Init.
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_PluginInfo {
  size_t struct_size;        /* set by the host */
  const char* name;          /* out: static storage */
  const char* version;       /* out: semantic version of the plugin, static storage */
  uint32_t abi_version_major; /* out: TSR_ABI_VERSION_MAJOR the plugin was built with */
  uint32_t abi_version_minor; /* out: the minor whose slots the plugin implements */
  uint32_t min_host_abi_version_minor; /* out: the lowest host minor whose slots it calls */
} TSR_PluginInfo;

/* Arguments of TSR_Plugin_Init. The first five fields are frozen across every major version so
 * that any host and any plugin can at least read each other's versions and refuse cleanly. */
typedef struct TSR_Plugin_Init_Args {
  size_t struct_size;
  uint32_t host_abi_version_major;
  uint32_t host_abi_version_minor;
  const TSR_HostApi* host;  /* in: valid until the process exits */
  TSR_PluginInfo* info;     /* out */
  TSR_Registrar* registrar; /* in: valid during the call */
  const char* plugin_dir;   /* in: folder of the plugin's manifest, for its own data files */
} TSR_Plugin_Init_Args;

/* The one symbol a plugin exports. Called on one thread right after the library is loaded, and
 * again (on the already loaded library) by every further plugin registry the process creates, so
 * Init must be repeatable: it registers from scratch each time and keeps no state that a second
 * call would break.
 * The plugin fills `info`, checks the host's version, registers what it provides and returns
 * NULL, or returns a status saying why it cannot serve this host (all registrations are then
 * discarded). */
typedef TSR_Status* (*TSR_Plugin_InitFn)(const TSR_Plugin_Init_Args* args);
#define TSR_PLUGIN_INIT_SYMBOL "TSR_Plugin_Init"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_API_PLUGIN_H_ */
