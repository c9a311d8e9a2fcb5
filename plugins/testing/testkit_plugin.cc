// testkit: a test-only plugin written against the raw C ABI. It defines its own ops (with a shape
// function) and CPU kernels that exercise the executor's harder paths: an asynchronous kernel
// completed from another thread, a kernel that fails, and a slow kernel for deadlines. It also
// provides a second device type, TESTKIT (priority 50, below CPU's 60), with a few kernels, so
// placement rules can be tested across device types.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "tessera/plugin_api/plugin_api.h"

namespace {

const TSR_HostApi* host = nullptr;

TSR_Status* Error(TSR_Code code, const std::string& message) {
  return host->Status_Create(code, message.c_str());
}

// ---- Op definitions -------------------------------------------------------------------------

TSR_Status* SameShapeAsInput(void*, TSR_ShapeContext* ctx) {
  int32_t rank;
  const int64_t* dims;
  TSR_Status* s = host->ShapeContext_GetInputShape(ctx, 0, &rank, &dims);
  if (s != nullptr) return s;
  return host->ShapeContext_SetOutputShape(ctx, 0, rank, dims);
}

TSR_Status* DefineUnaryOp(TSR_Registrar* registrar, const char* name, bool with_delay) {
  TSR_OpDefBuilder* b = host->OpDefBuilder_Create(name);
  TSR_OpArg x{sizeof(TSR_OpArg), "x", TSR_DTYPE_INVALID, "T", nullptr, nullptr, false};
  TSR_OpArg y{sizeof(TSR_OpArg), "y", TSR_DTYPE_INVALID, "T", nullptr, nullptr, false};
  TSR_OpAttr t{};
  t.struct_size = sizeof(TSR_OpAttr);
  t.name = "T";
  t.type = TSR_ATTR_TYPE_TYPE;
  TSR_Status* s = host->OpDefBuilder_AddInput(b, &x);
  if (s == nullptr) s = host->OpDefBuilder_AddOutput(b, &y);
  if (s == nullptr) s = host->OpDefBuilder_AddAttr(b, &t);
  if (s == nullptr && with_delay) {
    TSR_AttrValue zero{};
    zero.struct_size = sizeof(TSR_AttrValue);
    zero.type = TSR_ATTR_TYPE_INT;
    zero.i = 0;
    TSR_OpAttr delay{};
    delay.struct_size = sizeof(TSR_OpAttr);
    delay.name = "delay_ms";
    delay.type = TSR_ATTR_TYPE_INT;
    delay.default_value = &zero;
    s = host->OpDefBuilder_AddAttr(b, &delay);
  }
  if (s != nullptr) {
    host->OpDefBuilder_Destroy(b);
    return s;
  }
  host->OpDefBuilder_SetShapeFn(b, SameShapeAsInput, nullptr);
  return host->Registrar_RegisterOp(registrar, b);
}

// ---- Kernels ----------------------------------------------------------------------------------

struct DelayState {
  int64_t delay_ms = 0;
};

TSR_Status* CreateDelay(void*, TSR_KernelConstruction* ctx, void** state) {
  TSR_AttrValue value;
  TSR_Status* s = host->KernelConstruction_GetAttr(ctx, "delay_ms", &value);
  if (s != nullptr) return s;
  auto* d = new DelayState;
  d->delay_ms = value.i;
  *state = d;
  return nullptr;
}

void DestroyDelay(void* state) { delete static_cast<DelayState*>(state); }

// Finishes on its own thread after `delay_ms`, like a device completion callback would.
void AsyncIdentity(void* state, TSR_KernelContext* ctx, TSR_KernelDoneFn done, void* done_arg) {
  int64_t delay = static_cast<DelayState*>(state)->delay_ms;
  std::thread([ctx, done, done_arg, delay] {
    if (delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    done(done_arg, host->KernelContext_SetOutputFromInput(ctx, 0, 0, -1, nullptr));
  }).detach();
}

TSR_Status* Fail(void*, TSR_KernelContext* ctx) {
  return Error(TSR_CODE_INVALID_ARGUMENT,
               std::string("TestFail: node '") + host->KernelContext_GetNodeName(ctx) +
                   "' fails on purpose");
}

TSR_Status* RegisterKernel(TSR_Registrar* registrar, const char* op, const char* device_type,
                           uint32_t flags,
                           TSR_Status* (*create)(void*, TSR_KernelConstruction*, void**),
                           TSR_Status* (*compute)(void*, TSR_KernelContext*),
                           void (*compute_async)(void*, TSR_KernelContext*, TSR_KernelDoneFn, void*),
                           void (*destroy)(void*)) {
  TSR_KernelRegistration r{};
  r.struct_size = sizeof(TSR_KernelRegistration);
  r.op_name = op;
  r.device_type = device_type;
  r.flags = flags;
  r.Create = create;
  r.Compute = compute;
  r.Compute_Async = compute_async;
  r.Destroy = destroy;
  return host->Registrar_RegisterKernel(registrar, &r);
}

// ---- The TESTKIT device: host memory behind the device interface ----------------------------

struct TestkitDevice {
  int32_t ordinal;
};

TSR_Status* DeviceCount(void*, int32_t* count) {
  *count = 1;
  return nullptr;
}

TSR_Status* DeviceCreate(void*, const TSR_Device_Create_Args* args, TSR_Device** device) {
  *device = reinterpret_cast<TSR_Device*>(new TestkitDevice{args->ordinal});
  return nullptr;
}

void DeviceDestroy(TSR_Device* device) { delete reinterpret_cast<TestkitDevice*>(device); }

TSR_Status* MemoryAllocate(TSR_Device*, TSR_Memory_Allocate_Args* args) {
  const size_t alignment = args->alignment < 64 ? 64 : args->alignment;
  size_t rounded = (args->size + alignment - 1) / alignment * alignment;
  args->ptr = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (args->ptr == nullptr) return Error(TSR_CODE_RESOURCE_EXHAUSTED, "testkit: out of memory");
  return nullptr;
}

TSR_Status* MemoryFree(TSR_Device*, const TSR_Memory_Free_Args* args) {
  std::free(args->ptr);
  return nullptr;
}

TSR_Status* Copy(TSR_Device*, TSR_Stream*, void* dst, const void* src, size_t size) {
  if (size > 0) std::memcpy(dst, src, size);
  return nullptr;
}

TSR_Status* RegisterDevice(TSR_Registrar* registrar) {
  TSR_DeviceTypeRegistration r{};
  r.struct_size = sizeof(r);
  r.device_type = "TESTKIT";
  r.priority = 50;
  r.flags = TSR_DEVICE_FLAG_HOST_MEMORY;
  r.GetDeviceCount = DeviceCount;
  r.Device_Create = DeviceCreate;
  r.Device_Destroy = DeviceDestroy;
  r.Memory_Allocate = MemoryAllocate;
  r.Memory_Free = MemoryFree;
  r.Memcpy_HostToDevice = Copy;
  r.Memcpy_DeviceToHost = Copy;
  r.Memcpy_DeviceToDevice = Copy;
  return host->Registrar_RegisterDeviceType(registrar, &r);
}

// ---- TestConstant: a generator op (no inputs) with kernels on CPU and TESTKIT ---------------

TSR_Status* ScalarShape(void*, TSR_ShapeContext* ctx) {
  return host->ShapeContext_SetOutputShape(ctx, 0, 0, nullptr);
}

TSR_Status* DefineConstantOp(TSR_Registrar* registrar) {
  TSR_OpDefBuilder* b = host->OpDefBuilder_Create("TestConstant");
  TSR_OpArg out{sizeof(TSR_OpArg), "output", TSR_DTYPE_FLOAT, nullptr, nullptr, nullptr, false};
  TSR_AttrValue zero{};
  zero.struct_size = sizeof(zero);
  zero.type = TSR_ATTR_TYPE_FLOAT;
  TSR_OpAttr value{};
  value.struct_size = sizeof(value);
  value.name = "value";
  value.type = TSR_ATTR_TYPE_FLOAT;
  value.default_value = &zero;
  TSR_Status* s = host->OpDefBuilder_AddOutput(b, &out);
  if (s == nullptr) s = host->OpDefBuilder_AddAttr(b, &value);
  if (s != nullptr) {
    host->OpDefBuilder_Destroy(b);
    return s;
  }
  host->OpDefBuilder_SetShapeFn(b, ScalarShape, nullptr);
  return host->Registrar_RegisterOp(registrar, b);
}

TSR_Status* CreateConstant(void*, TSR_KernelConstruction* ctx, void** state) {
  TSR_AttrValue value;
  TSR_Status* s = host->KernelConstruction_GetAttr(ctx, "value", &value);
  if (s != nullptr) return s;
  *state = new float(value.f);
  return nullptr;
}

void DestroyConstant(void* state) { delete static_cast<float*>(state); }

TSR_Status* ComputeConstant(void* state, TSR_KernelContext* ctx) {
  TSR_TensorView out;
  TSR_Status* s = host->KernelContext_AllocateOutput(ctx, 0, 0, nullptr, &out);
  if (s != nullptr) return s;
  *static_cast<float*>(out.data) = *static_cast<float*>(state);
  return nullptr;
}

// Shape on TESTKIT, so the metadata placement rule has a second device type to choose.
TSR_Status* ComputeShape(void*, TSR_KernelContext* ctx) {
  TSR_TensorView in;
  TSR_Status* s = host->KernelContext_GetInput(ctx, 0, &in);
  if (s != nullptr) return s;
  int64_t rank = in.rank;
  TSR_TensorView out;
  s = host->KernelContext_AllocateOutput(ctx, 0, 1, &rank, &out);
  if (s != nullptr) return s;
  for (int32_t i = 0; i < in.rank; ++i) static_cast<int32_t*>(out.data)[i] = static_cast<int32_t>(in.dims[i]);
  return nullptr;
}

}  // namespace

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  host = args->host;
  args->info->name = "testkit";
  args->info->version = "0.1.0";
  args->info->abi_version_major = TSR_ABI_VERSION_MAJOR;
  args->info->abi_version_minor = TSR_ABI_VERSION_MINOR;
  args->info->min_host_abi_version_minor = 0;
  if (args->host_abi_version_major != TSR_ABI_VERSION_MAJOR) {
    return host->Status_Create(TSR_CODE_FAILED_PRECONDITION, "testkit needs host ABI major 0");
  }
  TSR_Registrar* registrar = args->registrar;
  TSR_Status* s = DefineUnaryOp(registrar, "TestAsyncIdentity", true);
  if (s == nullptr) s = DefineUnaryOp(registrar, "TestFail", false);
  if (s == nullptr) s = DefineConstantOp(registrar);
  if (s == nullptr) s = RegisterDevice(registrar);
  for (const char* device_type : {"CPU", "TESTKIT"}) {
    if (s == nullptr) {
      s = RegisterKernel(registrar, "TestAsyncIdentity", device_type, TSR_KERNEL_FLAG_ASYNC,
                         CreateDelay, nullptr, AsyncIdentity, DestroyDelay);
    }
    if (s == nullptr) {
      s = RegisterKernel(registrar, "TestConstant", device_type, TSR_KERNEL_FLAG_CONSTANT_OUTPUTS,
                         CreateConstant, ComputeConstant, nullptr, DestroyConstant);
    }
  }
  if (s == nullptr) {
    s = RegisterKernel(registrar, "TestFail", "CPU", 0, nullptr, Fail, nullptr, nullptr);
  }
  if (s == nullptr) {
    TSR_DataType out_types[] = {TSR_DTYPE_INT32};
    TSR_TypeConstraint constraint{sizeof(TSR_TypeConstraint), "out_type", out_types, 1};
    const char* host_memory[] = {"output"};
    TSR_KernelRegistration r{};
    r.struct_size = sizeof(r);
    r.op_name = "Shape";
    r.device_type = "TESTKIT";
    r.type_constraints = &constraint;
    r.num_type_constraints = 1;
    r.host_memory_args = host_memory;
    r.num_host_memory_args = 1;
    r.flags = TSR_KERNEL_FLAG_CHEAP;
    r.Compute = ComputeShape;
    s = host->Registrar_RegisterKernel(registrar, &r);
  }
  return s;
}
