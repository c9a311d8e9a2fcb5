/* Versions, status, data types, tensor views and the extension chain shared by every part of the
 * Tessera plugin ABI. Plain C11; see docs/abi.md for the rules these types follow. */
#ifndef TESSERA_PLUGIN_API_COMMON_H_
#define TESSERA_PLUGIN_API_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions
 *
 * MAJOR changes on any breaking edit; MINOR on additive edits (new slots at the end of a table,
 * new fields at the end of a struct, new enum values). A host accepts a plugin when the majors
 * are equal and the host minor is >= the minimum minor the plugin declares it needs.
 * ------------------------------------------------------------------------------------------- */
#define TSR_ABI_VERSION_MAJOR 1
#define TSR_ABI_VERSION_MINOR 0

/* Size of a struct up to and including `last_field`: what a writer puts in `struct_size`. */
#define TSR_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

/* True when a struct whose writer set `struct_size` has `field` (a reader's check before it reads
 * a field added in a later minor). */
#define TSR_STRUCT_HAS_FIELD(ptr, type, field) ((ptr)->struct_size >= TSR_STRUCT_SIZE(type, field))

/* Symbol visibility for the one exported entry point of a plugin. */
#if defined(_WIN32)
#define TSR_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TSR_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------------------------
 * Extensions: optional feature groups, a singly linked list found once at load time.
 * ------------------------------------------------------------------------------------------- */
typedef enum TSR_ExtensionType {
  TSR_EXTENSION_TYPE_NONE = 0,
  /* TSR_DeviceProfilingExtension (device.h), on a TSR_DeviceTypeRegistration. */
  TSR_EXTENSION_TYPE_DEVICE_PROFILING = 1,
  /* TSR_TransportRmaExtension (transport.h), on a TSR_TransportRegistration. */
  TSR_EXTENSION_TYPE_TRANSPORT_RMA = 2,
  /* Later values are assigned in CHANGELOG.md as feature groups are added. A reader skips an
   * extension whose type it does not know. */
} TSR_ExtensionType;

/* The header every extension struct starts with. A registration's `extension_start` points at
 * the first; each `next` at the following one (NULL ends the list). The host reads the list once,
 * while it copies the registration, and copies each extension it knows; the plugin's structs need
 * not outlive the registration call. */
typedef struct TSR_Extension {
  size_t struct_size; /* of the whole extension struct */
  int32_t type;       /* a TSR_ExtensionType */
  struct TSR_Extension* next;
} TSR_Extension;

/* ---------------------------------------------------------------------------------------------
 * Status
 *
 * Every fallible call returns TSR_Status*: NULL means OK. Statuses are created only by the
 * host's TSR_HostApi.Status_Create and destroyed by TSR_HostApi.Status_Destroy; a plugin never
 * frees one with free(). A status returned to the host transfers ownership to the host.
 * Codes are Abseil's canonical codes.
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_Status TSR_Status;

typedef enum TSR_Code {
  TSR_CODE_OK = 0,
  TSR_CODE_CANCELLED = 1,
  TSR_CODE_UNKNOWN = 2,
  TSR_CODE_INVALID_ARGUMENT = 3,
  TSR_CODE_DEADLINE_EXCEEDED = 4,
  TSR_CODE_NOT_FOUND = 5,
  TSR_CODE_ALREADY_EXISTS = 6,
  TSR_CODE_PERMISSION_DENIED = 7,
  TSR_CODE_RESOURCE_EXHAUSTED = 8,
  TSR_CODE_FAILED_PRECONDITION = 9,
  TSR_CODE_ABORTED = 10,
  TSR_CODE_OUT_OF_RANGE = 11,
  TSR_CODE_UNIMPLEMENTED = 12,
  TSR_CODE_INTERNAL = 13,
  TSR_CODE_UNAVAILABLE = 14,
  TSR_CODE_DATA_LOSS = 15,
  TSR_CODE_UNAUTHENTICATED = 16,
} TSR_Code;

/* ---------------------------------------------------------------------------------------------
 * Data types: numbered exactly as TensorFlow's DataType enum (types.proto).
 * ------------------------------------------------------------------------------------------- */
typedef enum TSR_DataType {
  TSR_DTYPE_INVALID = 0,
  TSR_DTYPE_FLOAT = 1,
  TSR_DTYPE_DOUBLE = 2,
  TSR_DTYPE_INT32 = 3,
  TSR_DTYPE_UINT8 = 4,
  TSR_DTYPE_INT16 = 5,
  TSR_DTYPE_INT8 = 6,
  TSR_DTYPE_STRING = 7,
  TSR_DTYPE_COMPLEX64 = 8,
  TSR_DTYPE_INT64 = 9,
  TSR_DTYPE_BOOL = 10,
  TSR_DTYPE_QINT8 = 11,
  TSR_DTYPE_QUINT8 = 12,
  TSR_DTYPE_QINT32 = 13,
  TSR_DTYPE_BFLOAT16 = 14,
  TSR_DTYPE_QINT16 = 15,
  TSR_DTYPE_QUINT16 = 16,
  TSR_DTYPE_UINT16 = 17,
  TSR_DTYPE_COMPLEX128 = 18,
  TSR_DTYPE_HALF = 19,
  TSR_DTYPE_RESOURCE = 20,
  TSR_DTYPE_VARIANT = 21,
  TSR_DTYPE_UINT32 = 22,
  TSR_DTYPE_UINT64 = 23,
  /* Not a data type. Keeps the enum 32 bits wide and lets every value up to it be held in a
   * TSR_DataType, as the host does for TensorFlow's reference types inside graphs (base type +
   * 100, e.g. 101 for float_ref). A plugin never receives such a value. */
  TSR_DTYPE_MAX_ENUM = 0x7FFFFFFF,
} TSR_DataType;

/* Highest rank a tensor may have anywhere in Tessera. */
#define TSR_MAX_RANK 8

/* ---------------------------------------------------------------------------------------------
 * Tensor views
 *
 * A borrowed description of a dense, row-major tensor. The viewer never frees `data` or `dims`;
 * both stay valid for the lifetime stated by the call that produced the view (for kernel inputs
 * and outputs: until the kernel's compute returns, or until its done callback is called for an
 * async kernel). Filling a view never allocates.
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_TensorView {
  size_t struct_size;
  TSR_DataType dtype;
  int32_t rank;
  const int64_t* dims; /* `rank` entries; may be NULL when rank == 0 */
  void* data;          /* device memory of the owning device; NULL when the tensor is empty */
  size_t byte_size;    /* element count times element size; strings: the packed size below */
} TSR_TensorView;

/* ---------------------------------------------------------------------------------------------
 * String tensors (TSR_DTYPE_STRING)
 *
 * A string tensor crosses the ABI as one packed host-memory buffer, the same for kernels and for
 * transports. For N elements (the product of the dims), `data` holds N + 1 little-endian uint64
 * offsets followed by the bytes of every element back to back: element i is the bytes
 * [offsets[i], offsets[i + 1]) counted from the first byte after the offsets. offsets[0] is 0,
 * offsets never decrease, and byte_size is TSR_STRING_OFFSETS_SIZE(N) + offsets[N]. Elements are
 * arbitrary bytes (no terminating NUL, may contain NUL). The offsets start at `data`, which the
 * host aligns to 8 bytes.
 *
 * Ownership: the buffer belongs to the side that allocated it and lives as the view it arrives
 * in says. A kernel reads string inputs as such a view (packed by the host, valid until compute
 * returns or done is called) and produces a string output with
 * TSR_HostApi.KernelContext_AllocateStringOutput, filling the offsets and bytes before compute
 * returns (or before done). A transport sends a string tensor's packed buffer as it sends any
 * tensor's bytes, and the receiving host checks the offsets before it uses them: a malformed
 * buffer is DATA_LOSS, never a read out of bounds.
 * ------------------------------------------------------------------------------------------- */
#define TSR_STRING_OFFSETS_SIZE(num_elements) (((size_t)(num_elements) + 1) * sizeof(uint64_t))

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_API_COMMON_H_ */
