/* The device interface: what a device plugin implements so that the host can place work on its
 * devices, allocate their memory and move bytes to and from them. */
#ifndef TESSERA_PLUGIN_API_DEVICE_H_
#define TESSERA_PLUGIN_API_DEVICE_H_

#include "tessera/plugin_api/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Plugin-defined opaque handles. */
typedef struct TSR_Device TSR_Device;
typedef struct TSR_Stream TSR_Stream;
typedef struct TSR_Event TSR_Event;

typedef enum TSR_DeviceFlag {
  /* Device memory is ordinary host memory that the host may read and write directly (CPU-like
   * devices). Without it the host reaches device memory only through the Memcpy functions. */
  TSR_DEVICE_FLAG_HOST_MEMORY = 1u << 0,
  /* The plugin cannot make its device functions thread-safe: the host serializes every call
   * into this device type. */
  TSR_DEVICE_FLAG_SERIALIZE_CALLS = 1u << 1,
} TSR_DeviceFlag;

/* Options the host passes when it creates a device (from session options). */
typedef struct TSR_Device_Create_Args {
  size_t struct_size;
  int32_t ordinal;                /* in: 0 .. count-1 */
  size_t num_options;             /* in */
  const char* const* option_keys; /* in: borrowed for the call */
  const char* const* option_values;
} TSR_Device_Create_Args;

/* Kinds of memory a device may allocate. DEVICE is what tensors placed on the device live in;
 * the others are optional (a device lists the kinds it has in TSR_DeviceProperties). */
typedef enum TSR_MemoryKind {
  TSR_MEMORY_KIND_DEVICE = 0,      /* the device's own memory */
  TSR_MEMORY_KIND_HOST_PINNED = 1, /* host memory the device copies from and to at full speed */
  TSR_MEMORY_KIND_MANAGED = 2,     /* one address valid on the host and on the device */
} TSR_MemoryKind;

/* What the host learns about a device. The host zeroes the struct and sets numa_node and the
 * compute capability to -1 before Device_GetProperties, so a field the plugin leaves alone reads
 * as unknown. Strings are borrowed and stay valid while the device lives. */
typedef struct TSR_DeviceProperties {
  size_t struct_size;
  const char* description;  /* out: one line for logs, e.g. "Acme NPU 2 (16 GiB, 4 cores)" */
  int64_t memory_bytes;     /* out: total device memory; 0 when unknown */
  int32_t compute_units;    /* out: cores, SMs, ...; 0 when unknown */
  size_t memory_alignment;  /* out: alignment of every Memory_Allocate result (a power of two) */
  const char* name;         /* out: product name, e.g. "NVIDIA H100 80GB HBM3"; NULL unknown */
  const char* vendor;       /* out: e.g. "NVIDIA"; NULL unknown */
  /* out: compute capability or its vendor's equivalent (e.g. 9.0; gfx90a as 9.10); -1 unknown */
  int32_t compute_capability_major;
  int32_t compute_capability_minor;
  const char* bus_id;       /* out: PCI bus id "0000:3b:00.0"; NULL when not on a bus */
  int32_t numa_node;        /* out: the host NUMA node nearest the device; -1 unknown */
  uint32_t memory_kinds;    /* out: bit (1u << kind) for each TSR_MemoryKind it allocates; 0 is
                             * read as DEVICE only */
  const char* driver_version; /* out: NULL unknown */
} TSR_DeviceProperties;

/* Memory_Allocate's arguments. */
typedef struct TSR_Memory_Allocate_Args {
  size_t struct_size;
  size_t size;      /* in: bytes; 0 is valid and returns a unique pointer or NULL */
  size_t alignment; /* in: a power of two; the result is aligned to at least this */
  int32_t kind;     /* in: a TSR_MemoryKind the device lists; otherwise INVALID_ARGUMENT */
  void* ptr;        /* out */
} TSR_Memory_Allocate_Args;

/* Memory_Free's arguments: exactly what Memory_Allocate was given and returned. */
typedef struct TSR_Memory_Free_Args {
  size_t struct_size;
  void* ptr;   /* in: NULL is a no-op */
  size_t size; /* in */
  int32_t kind;
} TSR_Memory_Free_Args;

/* Device memory statistics, for DEVICE memory. -1 means the plugin does not know. */
typedef struct TSR_MemoryStats {
  size_t struct_size;
  int64_t bytes_in_use;      /* out: allocated and not yet freed by the host */
  int64_t peak_bytes_in_use; /* out: the highest bytes_in_use since the device was created */
  int64_t bytes_limit;       /* out: the most the host can get (-1: no fixed limit) */
  int64_t bytes_reserved;    /* out: held from the system, in use or cached for reuse */
  int64_t num_allocations;   /* out: successful Memory_Allocate calls so far */
} TSR_MemoryStats;

typedef enum TSR_StreamKind {
  TSR_STREAM_KIND_COMPUTE = 0,          /* kernels */
  TSR_STREAM_KIND_HOST_TO_DEVICE = 1,   /* copies in */
  TSR_STREAM_KIND_DEVICE_TO_HOST = 2,   /* copies out */
  TSR_STREAM_KIND_DEVICE_TO_DEVICE = 3, /* copies between devices of the type */
} TSR_StreamKind;

typedef struct TSR_Stream_Create_Args {
  size_t struct_size;
  int32_t kind;        /* in: a TSR_StreamKind (a hint: a plugin may use one queue for several) */
  int32_t priority;    /* in: 0 normal; higher is more urgent where the device supports it */
  TSR_Stream* stream;  /* out */
} TSR_Stream_Create_Args;

/* A device type registered by a plugin.
 *
 * Threading: every function may be called concurrently from any host thread unless the type sets
 * TSR_DEVICE_FLAG_SERIALIZE_CALLS.
 *
 * Required: GetDeviceCount, Device_Create, Device_Destroy, Memory_Allocate, Memory_Free and the
 * three Memcpy functions. Optional (NULL): GetDeviceCountForConfig, Device_GetProperties,
 * Memory_GetStats, and the stream and event slots, which come all together or not at all.
 *
 * Asynchronous devices (those with streams). The host creates, per device, a COMPUTE, a
 * HOST_TO_DEVICE and a DEVICE_TO_HOST stream when it creates the device (DEVICE_TO_DEVICE is for
 * plugins and later hosts), and drains and destroys them before the device.
 *  - Kernels get the compute stream (TSR_HostApi.KernelContext_GetStream), enqueue their work on
 *    it and return: the host does not wait. Work of consecutive kernels on one device is ordered
 *    by the stream alone.
 *  - Before bytes of a device tensor leave the device (a copy to the host or to another device,
 *    a fetch, a _Send to another task), the host records an event on the compute stream, makes the
 *    copy stream wait for it (Stream_WaitEvent) and enqueues the copy there; it then waits on an
 *    event recorded after the copy (Event_Synchronize), never on the whole device. A copy into
 *    the device (a feed, a _Recv) runs on the host-to-device stream, and the compute stream waits
 *    for its event before the consumer's work.
 *  - A Memcpy with a stream only enqueues: host memory it reads or writes stays valid, and is
 *    not touched by the host, until an event recorded after it completes.
 *  - Memory_Free may be called for memory that work already enqueued on the compute stream still
 *    uses (the kernel that used it has returned). The plugin must not hand that memory to work
 *    that could run before the enqueued work completes: reusing it only for work on the same
 *    compute stream (stream-ordered reuse) or deferring the release until the stream passes the
 *    free are both correct.
 *  - Errors of queued work surface from the next Event_Synchronize/Query or Stream_Synchronize;
 *    Event_Destroy may come while queued work still records or waits on the event (keep it).
 * Without streams, the stream arguments are NULL and every call completes before it returns. */
typedef struct TSR_DeviceTypeRegistration {
  size_t struct_size;
  TSR_Extension* extension_start; /* in: e.g. a TSR_DeviceProfilingExtension */
  const char* device_type; /* in: [A-Z][A-Z0-9_]*, e.g. "CPU"; copied by the host */
  int32_t priority;        /* in: placement preference among device types; higher wins */
  uint32_t flags;          /* in: TSR_DeviceFlag bits */
  void* user_data;         /* in: passed back to GetDeviceCount(ForConfig) and Device_Create */

  /* ---- Devices ---------------------------------------------------------------------------- */
  TSR_Status* (*GetDeviceCount)(void* user_data, int32_t* count);
  /* How many devices of this type the plugin provides for a configuration (optional).
   *
   * in:  `requested` is the count the configuration asks for (SessionOptions::device_count, e.g.
   *      {"CPU": 4}), always >= 1, or -1 when the configuration says nothing about this type. The
   *      host never asks for 0: a type configured to 0 gets no devices and this is not called.
   * out: `*count`, the number of devices the host may create, ordinals 0 .. *count-1. For -1
   *      the plugin's default (usually GetDeviceCount's answer). Otherwise at most `requested`:
   *      fewer when the hardware has fewer (the host creates what the plugin answers and
   *      reports the shortfall); more is an error the host reports as INTERNAL.
   * errors: INVALID_ARGUMENT for a request the plugin refuses outright (e.g. more devices than
   *      the type can ever have); the host turns an error for an explicit request into a session
   *      creation error naming the plugin. Any error leaves `*count` unread.
   * After an answer, Device_Create must accept every ordinal below it, whatever GetDeviceCount
   * says. Called from any thread, possibly concurrently, before devices are created; the answer
   * must depend only on `requested` (several configurations may coexist in one process).
   * NULL: the host uses GetDeviceCount and, for a request, creates min(requested, count). */
  TSR_Status* (*GetDeviceCountForConfig)(void* user_data, int32_t requested, int32_t* count);
  TSR_Status* (*Device_Create)(void* user_data, const TSR_Device_Create_Args* args,
                               TSR_Device** device);
  void (*Device_Destroy)(TSR_Device* device);
  TSR_Status* (*Device_GetProperties)(TSR_Device* device, TSR_DeviceProperties* properties);

  /* ---- Memory ----------------------------------------------------------------------------- */
  /* Out of memory is RESOURCE_EXHAUSTED, after the plugin released what it caches and tried
   * again; never a crash. An alignment that is not a power of two, or a kind the device does not
   * list, is INVALID_ARGUMENT. */
  TSR_Status* (*Memory_Allocate)(TSR_Device* device, TSR_Memory_Allocate_Args* args);
  /* A pointer the device did not allocate, or a size or kind that differs from its allocation,
   * is INVALID_ARGUMENT (the host reports it as its own bug). See the stream rules above. */
  TSR_Status* (*Memory_Free)(TSR_Device* device, const TSR_Memory_Free_Args* args);
  /* Optional. */
  TSR_Status* (*Memory_GetStats)(TSR_Device* device, TSR_MemoryStats* stats);

  /* ---- Copies ----------------------------------------------------------------------------- */
  TSR_Status* (*Memcpy_HostToDevice)(TSR_Device* device, TSR_Stream* stream, void* dst,
                                     const void* src, size_t size);
  TSR_Status* (*Memcpy_DeviceToHost)(TSR_Device* device, TSR_Stream* stream, void* dst,
                                     const void* src, size_t size);
  /* One end is this device's memory; the other may be any device of the same type. */
  TSR_Status* (*Memcpy_DeviceToDevice)(TSR_Device* device, TSR_Stream* stream, void* dst,
                                       const void* src, size_t size);

  /* ---- Streams and events (optional, all together) ---------------------------------------- */
  TSR_Status* (*Stream_Create)(TSR_Device* device, TSR_Stream_Create_Args* args);
  void (*Stream_Destroy)(TSR_Device* device, TSR_Stream* stream); /* after its work completes */
  /* Waits until everything enqueued on `stream` has completed; its first error, if any. */
  TSR_Status* (*Stream_Synchronize)(TSR_Device* device, TSR_Stream* stream);
  /* Work enqueued on `stream` after this call waits for `event`'s recorded point. Waiting on an
   * event never recorded does nothing. */
  TSR_Status* (*Stream_WaitEvent)(TSR_Device* device, TSR_Stream* stream, TSR_Event* event);
  TSR_Status* (*Event_Create)(TSR_Device* device, TSR_Event** event);
  void (*Event_Destroy)(TSR_Device* device, TSR_Event* event);
  /* Marks the point after the work enqueued on `stream` so far; re-recording moves the point. */
  TSR_Status* (*Event_Record)(TSR_Device* device, TSR_Event* event, TSR_Stream* stream);
  /* Never blocks: *complete is true once the recorded point has passed (or it was never
   * recorded). An error of the work before it is returned here. */
  TSR_Status* (*Event_Query)(TSR_Device* device, TSR_Event* event, bool* complete);
  /* Blocks the calling host thread until the recorded point has passed. */
  TSR_Status* (*Event_Synchronize)(TSR_Device* device, TSR_Event* event);
} TSR_DeviceTypeRegistration;

/* ---------------------------------------------------------------------------------------------
 * Extension TSR_EXTENSION_TYPE_DEVICE_PROFILING: device-side timing, the time between two events
 * of one device (e.g. recorded before and after a kernel's work). Needs the stream and event
 * slots; the host finds it once, when it loads the plugin.
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_DeviceProfilingExtension {
  TSR_Extension base; /* type TSR_EXTENSION_TYPE_DEVICE_PROFILING */
  /* Microseconds between two completed events of one device. FAILED_PRECONDITION when either
   * has not completed. */
  TSR_Status* (*Event_ElapsedMicros)(TSR_Device* device, TSR_Event* start, TSR_Event* end,
                                     double* micros);
} TSR_DeviceProfilingExtension;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_API_DEVICE_H_ */
