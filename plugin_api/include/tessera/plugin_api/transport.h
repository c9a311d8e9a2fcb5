/* Transports: how tensors and control-plane messages cross between tasks (processes). Declared
 * for both stream transports (gRPC) and one-sided ones (RDMA). The host drives every transport
 * through this interface only; the model is TensorFlow's receiver-pull: a sender leaves a tensor
 * in its step's rendezvous and the receiver asks the sender's task for it by rendezvous key. */
#ifndef TESSERA_PLUGIN_API_TRANSPORT_H_
#define TESSERA_PLUGIN_API_TRANSPORT_H_

#include "tessera/plugin_api/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TSR_TransportServer TSR_TransportServer;   /* plugin: a listening endpoint */
typedef struct TSR_TransportChannel TSR_TransportChannel; /* plugin: a connection to a peer */
typedef struct TSR_TransportReply TSR_TransportReply;     /* plugin: one pending incoming call */
typedef struct TSR_MemoryRegion TSR_MemoryRegion;         /* plugin: registered memory */

typedef enum TSR_TransportCapability {
  TSR_TRANSPORT_CAPABILITY_DEVICE_MEMORY = 1u << 0, /* reads/writes device memory directly */
  TSR_TRANSPORT_CAPABILITY_RMA = 1u << 1,           /* one-sided writes into registered memory */
  TSR_TRANSPORT_CAPABILITY_TLS = 1u << 2,           /* can authenticate and encrypt */
} TSR_TransportCapability;

/* Called by the host to release a tensor it lent to the transport (sender-side zero copy). */
typedef void (*TSR_ReleaseFn)(void* release_arg);

/* The host's handlers for incoming calls, given to Server_Start. Called from transport threads;
 * each must answer through the reply exactly once (possibly later, from another thread). */
typedef struct TSR_TransportHandlers {
  size_t struct_size;
  void* handler_arg;
  /* A control-plane request (`method` names the service call, e.g. "Worker/RunGraph"). */
  void (*HandleCall)(void* handler_arg, const char* method, const void* request,
                     size_t request_size, TSR_TransportReply* reply);
  /* A receiver asks for the tensor stored under `rendezvous_key` in step `step_id`. */
  void (*HandleRecvTensor)(void* handler_arg, uint64_t step_id, const char* rendezvous_key,
                           TSR_TransportReply* reply);
} TSR_TransportHandlers;

typedef struct TSR_Transport_Listen_Args {
  size_t struct_size;
  const char* address;           /* in: "host:port"; port 0 picks a free port */
  size_t num_options;            /* in: e.g. "tls_cert_file", "tls_key_file", "tls_ca_file" */
  const char* const* option_keys;
  const char* const* option_values;
  const TSR_TransportHandlers* handlers; /* in: copied */
} TSR_Transport_Listen_Args;

typedef struct TSR_Transport_Connect_Args {
  size_t struct_size;
  const char* address; /* in: "host:port" */
  size_t num_options;
  const char* const* option_keys;
  const char* const* option_values;
} TSR_Transport_Connect_Args;

/* Completion of a control-plane call; `response` is borrowed for the duration of the callback;
 * the callback owns `status`. */
typedef void (*TSR_CallDoneFn)(void* done_arg, TSR_Status* status, const void* response,
                               size_t response_size);

/* The receiver's allocation of the destination tensor, called once dtype, shape and byte size are
 * known (from the sender's view) so that bytes land straight in it. `byte_size` is the sender's
 * view's: for a string tensor the packed size (common.h), otherwise it must equal the element
 * count times the element size (the host answers DATA_LOSS when it does not). The transport
 * writes exactly destination->byte_size bytes. */
typedef TSR_Status* (*TSR_AllocateTensorFn)(void* allocate_arg, TSR_DataType dtype, int32_t rank,
                                            const int64_t* dims, size_t byte_size,
                                            TSR_TensorView* destination);

/* Completion of a tensor pull; the callback owns `status`. */
typedef void (*TSR_RecvTensorDoneFn)(void* done_arg, TSR_Status* status, bool is_dead);

typedef struct TSR_Channel_RecvTensor_Args {
  size_t struct_size;
  uint64_t step_id;
  const char* rendezvous_key;
  int64_t deadline_ms; /* in: relative; <= 0 means the transport's default */
  TSR_AllocateTensorFn allocate;
  void* allocate_arg;
  TSR_RecvTensorDoneFn done;
  void* done_arg;
} TSR_Channel_RecvTensor_Args;

/* A transport registered by a plugin. Every function is thread-safe; none blocks for the network
 * (completion is reported through callbacks). Tensors of every dtype cross as their views' bytes
 * (string tensors in the packed layout of common.h). A transport with
 * TSR_TRANSPORT_CAPABILITY_RMA provides a TSR_TransportRmaExtension in its extension list. */
typedef struct TSR_TransportRegistration {
  size_t struct_size;
  TSR_Extension* extension_start;
  const char* name;      /* in: e.g. "grpc", the scheme of session targets ("grpc://") */
  uint32_t capabilities; /* in: TSR_TransportCapability bits */
  void* user_data;

  TSR_Status* (*Server_Start)(void* user_data, const TSR_Transport_Listen_Args* args,
                              TSR_TransportServer** server);
  /* The bound address (useful with port 0); borrowed while the server lives. */
  const char* (*Server_Address)(TSR_TransportServer* server);
  /* Stops accepting, fails pending calls with UNAVAILABLE, and frees the server. */
  void (*Server_Stop)(TSR_TransportServer* server);

  TSR_Status* (*Channel_Create)(void* user_data, const TSR_Transport_Connect_Args* args,
                                TSR_TransportChannel** channel);
  void (*Channel_Destroy)(TSR_TransportChannel* channel);
  void (*Channel_Call)(TSR_TransportChannel* channel, const char* method, const void* request,
                       size_t request_size, int64_t deadline_ms, TSR_CallDoneFn done,
                       void* done_arg);
  void (*Channel_RecvTensor)(TSR_TransportChannel* channel,
                             const TSR_Channel_RecvTensor_Args* args);

  /* Answers an incoming call; takes ownership of `status`; `response` is copied. */
  void (*Reply_Send)(TSR_TransportReply* reply, TSR_Status* status, const void* response,
                     size_t response_size);
  /* Answers a tensor pull without copying: the transport reads `tensor` until it calls
   * `release(release_arg)`. */
  void (*Reply_SendTensor)(TSR_TransportReply* reply, TSR_Status* status,
                           const TSR_TensorView* tensor, bool is_dead, TSR_ReleaseFn release,
                           void* release_arg);

  /* Optional (NULL: the transport cannot tell, and the host relies on deadlines alone). True
   * once the caller of an unanswered incoming call no longer waits for the answer: its deadline
   * passed, it cancelled the call, its connection broke (the calling process died or its host
   * vanished) or the server stopped. Never blocks; the host may ask from any thread, as often as
   * it likes, until it answers the reply. The host uses it to stop work whose requester is
   * gone. */
  bool (*Reply_IsCancelled)(const TSR_TransportReply* reply);
} TSR_TransportRegistration;

/* ---------------------------------------------------------------------------------------------
 * Extension TSR_EXTENSION_TYPE_TRANSPORT_RMA: registration of memory for one-sided transfers.
 * Required with TSR_TRANSPORT_CAPABILITY_RMA (the host refuses the registration without it).
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_TransportRmaExtension {
  TSR_Extension base; /* type TSR_EXTENSION_TYPE_TRANSPORT_RMA */
  /* Registers [ptr, ptr + size) of memory kind `memory_kind` (a TSR_MemoryKind; device memory
   * only with TSR_TRANSPORT_CAPABILITY_DEVICE_MEMORY) for remote access. Registering the same
   * range again may return the same region (a registration cache). RESOURCE_EXHAUSTED when the
   * NIC's registration limit is reached. */
  TSR_Status* (*Memory_Register)(void* user_data, void* ptr, size_t size, int32_t memory_kind,
                                 TSR_MemoryRegion** region);
  /* NULL is a no-op. Called once per successful Memory_Register. */
  void (*Memory_Deregister)(void* user_data, TSR_MemoryRegion* region);
} TSR_TransportRmaExtension;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_API_TRANSPORT_H_ */
