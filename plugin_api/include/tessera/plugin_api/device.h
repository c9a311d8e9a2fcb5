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

typedef struct TSR_DeviceProperties {
  size_t struct_size;
  const char* description; /* out: borrowed; valid while the device lives */
  int64_t memory_bytes;    /* out: 0 when unknown */
  int32_t compute_units;   /* out: cores, SMs, ...; 0 when unknown */
  size_t memory_alignment; /* out: alignment of Memory_Allocate results */
} TSR_DeviceProperties;

/* A device type registered by a plugin.
 *
 * Threading: every function may be called concurrently from any host thread unless the type sets
 * TSR_DEVICE_FLAG_SERIALIZE_CALLS. Streams order device work; a NULL stream means the call
 * completes before it returns.
 *
 * Required: GetDeviceCount, Device_Create, Device_Destroy, Memory_Allocate, Memory_Free and the
 * three Memcpy functions. The stream and event slots are optional (NULL: the device is
 * synchronous, every call completes before it returns), and so is GetDeviceCountForConfig. */
typedef struct TSR_DeviceTypeRegistration {
  size_t struct_size;
  TSR_Extension* extension_start;
  const char* device_type; /* in: [A-Z][A-Z0-9_]*, e.g. "CPU"; copied by the host */
  int32_t priority;        /* in: placement preference among device types; higher wins */
  uint32_t flags;          /* in: TSR_DeviceFlag bits */
  void* user_data;         /* in: passed back to GetDeviceCount(ForConfig) and Device_Create */

  TSR_Status* (*GetDeviceCount)(void* user_data, int32_t* count);
  TSR_Status* (*Device_Create)(void* user_data, const TSR_Device_Create_Args* args,
                               TSR_Device** device);
  void (*Device_Destroy)(TSR_Device* device);
  TSR_Status* (*Device_GetProperties)(TSR_Device* device, TSR_DeviceProperties* properties);

  /* Memory: Memory_Free(device, NULL, 0) is a no-op. Out of memory is RESOURCE_EXHAUSTED. */
  TSR_Status* (*Memory_Allocate)(TSR_Device* device, size_t size, size_t alignment, void** ptr);
  void (*Memory_Free)(TSR_Device* device, void* ptr, size_t size);

  TSR_Status* (*Memcpy_HostToDevice)(TSR_Device* device, TSR_Stream* stream, void* dst,
                                     const void* src, size_t size);
  TSR_Status* (*Memcpy_DeviceToHost)(TSR_Device* device, TSR_Stream* stream, void* dst,
                                     const void* src, size_t size);
  TSR_Status* (*Memcpy_DeviceToDevice)(TSR_Device* device, TSR_Stream* stream, void* dst,
                                       const void* src, size_t size);

  /* Streams and events (optional). */
  TSR_Status* (*Stream_Create)(TSR_Device* device, TSR_Stream** stream);
  void (*Stream_Destroy)(TSR_Device* device, TSR_Stream* stream);
  TSR_Status* (*Stream_Synchronize)(TSR_Device* device, TSR_Stream* stream);
  TSR_Status* (*Event_Create)(TSR_Device* device, TSR_Event** event);
  void (*Event_Destroy)(TSR_Device* device, TSR_Event* event);
  TSR_Status* (*Event_Record)(TSR_Device* device, TSR_Event* event, TSR_Stream* stream);
  TSR_Status* (*Stream_WaitEvent)(TSR_Device* device, TSR_Stream* stream, TSR_Event* event);
  TSR_Status* (*Event_Synchronize)(TSR_Device* device, TSR_Event* event);

  /* ---- Added in minor 2 ----------------------------------------------------------------- */

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
   * NULL: the host uses GetDeviceCount and, for a request, creates min(requested, count)
   * devices. A host reads this slot only from a plugin that reports abi_version_minor >= 2
   * and whose struct_size covers it. */
  TSR_Status* (*GetDeviceCountForConfig)(void* user_data, int32_t requested, int32_t* count);
} TSR_DeviceTypeRegistration;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_API_DEVICE_H_ */
