// The skeleton fake plugin for registry tests: one source, compiled with different -D macros per
// case (see CMakeLists.txt): a good plugin, failing inits, version refusals, rival providers.
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "tessera/plugin_api/plugin_api.h"

#ifndef FAKE_NAME
#error "FAKE_NAME must name the plugin"
#endif
#ifndef FAKE_VERSION
#define FAKE_VERSION "1.0.0"
#endif
#ifndef FAKE_INFO_NAME
#define FAKE_INFO_NAME FAKE_NAME
#endif
#ifndef FAKE_INFO_MIN_HOST_MINOR
#define FAKE_INFO_MIN_HOST_MINOR 0
#endif
// FAKE_SHORT_DEVICE_TABLE: the device registration's struct_size ends after the copies, as a
// plugin built before the later slots existed would write it; traps stand in the slots past it.
#ifndef FAKE_KERNEL_DEVICE_TYPE
#ifdef FAKE_DEVICE_TYPE
#define FAKE_KERNEL_DEVICE_TYPE FAKE_DEVICE_TYPE
#else
#define FAKE_KERNEL_DEVICE_TYPE "FAKE"
#endif
#endif

namespace {

const TSR_HostApi* host = nullptr;

// ---- Device: host memory, two devices ------------------------------------------------------
struct FakeDevice {
  int32_t ordinal;
};

TSR_Status* GetDeviceCount(void* user_data, int32_t* count) {
  *count = 2;
  return nullptr;
}

// Stands past the end of a short table: the host must never call it.
[[maybe_unused]] TSR_Status* TrapStreamCreate(TSR_Device*, TSR_Stream_Create_Args*) {
  return host->Status_Create(TSR_CODE_INTERNAL, "a slot past the table's struct_size was called");
}

TSR_Status* DeviceCreate(void* user_data, const TSR_Device_Create_Args* args, TSR_Device** device) {
  for (size_t i = 0; i < args->num_options; ++i) {
    if (std::strcmp(args->option_keys[i], "fail") == 0) {
      return host->Status_Create(TSR_CODE_INVALID_ARGUMENT, args->option_values[i]);
    }
  }
  auto* fake = new FakeDevice{args->ordinal};
  *device = reinterpret_cast<TSR_Device*>(fake);
  return nullptr;
}

void DeviceDestroy(TSR_Device* device) { delete reinterpret_cast<FakeDevice*>(device); }

TSR_Status* DeviceGetProperties(TSR_Device* device, TSR_DeviceProperties* properties) {
  properties->description = "fake device";
  properties->memory_bytes = 1 << 20;
  properties->compute_units = 1;
  properties->memory_alignment = 64;
  return nullptr;
}

[[maybe_unused]] TSR_Status* MemoryAllocate(TSR_Device* device, TSR_Memory_Allocate_Args* args) {
  if (args->size > (size_t{1} << 20)) {
    return host->Status_Create(TSR_CODE_RESOURCE_EXHAUSTED, "fake device memory is 1 MiB");
  }
  args->ptr = std::aligned_alloc(64, args->size == 0 ? 64 : (args->size + 63) / 64 * 64);
  return nullptr;
}

TSR_Status* MemoryFree(TSR_Device* device, const TSR_Memory_Free_Args* args) {
  std::free(args->ptr);
  return nullptr;
}

TSR_Status* Memcpy(TSR_Device* device, TSR_Stream* stream, void* dst, const void* src,
                   size_t size) {
  std::memcpy(dst, src, size);
  return nullptr;
}

// ---- Kernel: FakeOp ---------------------------------------------------------------------
TSR_Status* KernelCreate(void* user_data, TSR_KernelConstruction* ctx, void** state) {
  *state = host->HostMemory_Allocate(16, 16);
  return nullptr;
}

TSR_Status* KernelCompute(void* state, TSR_KernelContext* ctx) {
  if (ctx == nullptr) return host->Status_Create(TSR_CODE_INVALID_ARGUMENT, "no context");
  return nullptr;
}

void KernelDestroy(void* state) { host->HostMemory_Free(state); }

// ---- Transport: every call fails cleanly --------------------------------------------------
TSR_Status* ServerStart(void*, const TSR_Transport_Listen_Args*, TSR_TransportServer**) {
  return host->Status_Create(TSR_CODE_UNIMPLEMENTED, "fake transport cannot listen");
}
const char* ServerAddress(TSR_TransportServer*) { return ""; }
void ServerStop(TSR_TransportServer*) {}
TSR_Status* ChannelCreate(void*, const TSR_Transport_Connect_Args*, TSR_TransportChannel**) {
  return host->Status_Create(TSR_CODE_UNIMPLEMENTED, "fake transport cannot connect");
}
void ChannelDestroy(TSR_TransportChannel*) {}
void ChannelCall(TSR_TransportChannel*, const char*, const void*, size_t, int64_t,
                 TSR_CallDoneFn done, void* done_arg) {
  done(done_arg, host->Status_Create(TSR_CODE_UNAVAILABLE, "fake"), nullptr, 0);
}
void ChannelRecvTensor(TSR_TransportChannel*, const TSR_Channel_RecvTensor_Args* args) {
  args->done(args->done_arg, host->Status_Create(TSR_CODE_UNAVAILABLE, "fake"), false);
}
void ReplySend(TSR_TransportReply*, TSR_Status* status, const void*, size_t) {
  host->Status_Destroy(status);
}
void ReplySendTensor(TSR_TransportReply*, TSR_Status* status, const TSR_TensorView*, bool,
                     TSR_ReleaseFn release, void* release_arg) {
  host->Status_Destroy(status);
  if (release != nullptr) release(release_arg);
}

// ---- Registration -------------------------------------------------------------------------
[[maybe_unused]] TSR_Status* RegisterDevice(TSR_Registrar* registrar, const char* device_type) {
  TSR_DeviceTypeRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.device_type = device_type;
  r.priority = 10;
  r.flags = TSR_DEVICE_FLAG_HOST_MEMORY;
  r.GetDeviceCount = GetDeviceCount;
  r.Device_Create = DeviceCreate;
  r.Device_Destroy = DeviceDestroy;
  r.Device_GetProperties = DeviceGetProperties;
#ifndef FAKE_BAD_DEVICE_SLOT
  r.Memory_Allocate = MemoryAllocate;
#endif
  r.Memory_Free = MemoryFree;
  r.Memcpy_HostToDevice = Memcpy;
  r.Memcpy_DeviceToHost = Memcpy;
  r.Memcpy_DeviceToDevice = Memcpy;
#ifdef FAKE_SHORT_DEVICE_TABLE
  r.Stream_Create = TrapStreamCreate;
  r.struct_size = TSR_STRUCT_SIZE(TSR_DeviceTypeRegistration, Memcpy_DeviceToDevice);
#endif
  return host->Registrar_RegisterDeviceType(registrar, &r);
}

[[maybe_unused]] TSR_Status* RegisterOp(TSR_Registrar* registrar) {
  TSR_OpDefBuilder* builder = host->OpDefBuilder_Create("FakeOp");
  TSR_AttrValue default_type;
  std::memset(&default_type, 0, sizeof(default_type));
  default_type.struct_size = sizeof(default_type);
  default_type.type = TSR_ATTR_TYPE_TYPE;
  default_type.dtype = TSR_DTYPE_FLOAT;
  TSR_OpAttr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.struct_size = sizeof(attr);
  attr.name = "T";
  attr.type = TSR_ATTR_TYPE_TYPE;
  attr.default_value = &default_type;
  TSR_Status* status = host->OpDefBuilder_AddAttr(builder, &attr);
  TSR_OpArg arg;
  std::memset(&arg, 0, sizeof(arg));
  arg.struct_size = sizeof(arg);
  arg.type_attr = "T";
  arg.name = "x";
  if (status == nullptr) status = host->OpDefBuilder_AddInput(builder, &arg);
  arg.name = "y";
  if (status == nullptr) status = host->OpDefBuilder_AddOutput(builder, &arg);
  if (status != nullptr) {
    host->OpDefBuilder_Destroy(builder);
    return status;
  }
  return host->Registrar_RegisterOp(registrar, builder);
}

[[maybe_unused]] TSR_Status* RegisterKernel(TSR_Registrar* registrar) {
  static const TSR_DataType kTypes[] = {TSR_DTYPE_FLOAT, TSR_DTYPE_INT32};
  TSR_TypeConstraint constraint;
  std::memset(&constraint, 0, sizeof(constraint));
  constraint.struct_size = sizeof(constraint);
  constraint.attr_name = "T";
  constraint.dtypes = kTypes;
  constraint.num_dtypes = 2;
  TSR_KernelRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.op_name = "FakeOp";
  r.device_type = FAKE_KERNEL_DEVICE_TYPE;
  r.type_constraints = &constraint;
  r.num_type_constraints = 1;
  r.priority = 1;
  r.Create = KernelCreate;
  r.Compute = KernelCompute;
  r.Destroy = KernelDestroy;
  return host->Registrar_RegisterKernel(registrar, &r);
}

[[maybe_unused]] TSR_Status* RegisterTransport(TSR_Registrar* registrar, const char* name) {
  TSR_TransportRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.name = name;
  r.Server_Start = ServerStart;
  r.Server_Address = ServerAddress;
  r.Server_Stop = ServerStop;
  r.Channel_Create = ChannelCreate;
  r.Channel_Destroy = ChannelDestroy;
  r.Channel_Call = ChannelCall;
  r.Channel_RecvTensor = ChannelRecvTensor;
  r.Reply_Send = ReplySend;
  r.Reply_SendTensor = ReplySendTensor;
  return host->Registrar_RegisterTransport(registrar, &r);
}

TSR_Status* Init(const TSR_Plugin_Init_Args* args) {
  host = args->host;
  args->info->name = FAKE_INFO_NAME;
  args->info->version = FAKE_VERSION;
  args->info->abi_version_major = TSR_ABI_VERSION_MAJOR;
  args->info->abi_version_minor = TSR_ABI_VERSION_MINOR;
  args->info->min_host_abi_version_minor = FAKE_INFO_MIN_HOST_MINOR;
  host->Log(TSR_LOG_SEVERITY_INFO, FAKE_NAME, "initialising");
  TSR_Status* status = nullptr;
#ifdef FAKE_DEVICE_TYPE
  status = RegisterDevice(args->registrar, FAKE_DEVICE_TYPE);
  if (status != nullptr) return status;
#endif
#ifdef FAKE_REGISTER_OP
  status = RegisterOp(args->registrar);
  if (status != nullptr) return status;
#endif
#ifdef FAKE_REGISTER_KERNEL
  status = RegisterKernel(args->registrar);
  if (status != nullptr) return status;
#endif
#ifdef FAKE_TRANSPORT
  status = RegisterTransport(args->registrar, FAKE_TRANSPORT);
  if (status != nullptr) return status;
#endif
#ifdef FAKE_INIT_FAILS
  return host->Status_Create(TSR_CODE_FAILED_PRECONDITION, "fake device driver not installed");
#endif
#ifdef FAKE_INIT_THROWS
  throw std::runtime_error("fake plugin exploded during init");
#endif
  return status;
}

}  // namespace

#ifdef FAKE_NO_INIT
// Misspelled on purpose: the library exports no TSR_Plugin_Init.
extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Initialize(const TSR_Plugin_Init_Args* args) {
  return Init(args);
}
#else
extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  return Init(args);
}
#endif
