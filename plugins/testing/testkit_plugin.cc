// testkit: a test-only plugin written against the raw C ABI. It defines its own ops (with a shape
// function) and CPU kernels that exercise the executor's harder paths: an asynchronous kernel
// completed from another thread, a kernel that fails, and a slow kernel for deadlines.
#include <chrono>
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

TSR_Status* RegisterKernel(TSR_Registrar* registrar, const char* op, uint32_t flags,
                           TSR_Status* (*create)(void*, TSR_KernelConstruction*, void**),
                           TSR_Status* (*compute)(void*, TSR_KernelContext*),
                           void (*compute_async)(void*, TSR_KernelContext*, TSR_KernelDoneFn, void*),
                           void (*destroy)(void*)) {
  TSR_KernelRegistration r{};
  r.struct_size = sizeof(TSR_KernelRegistration);
  r.op_name = op;
  r.device_type = "CPU";
  r.flags = flags;
  r.Create = create;
  r.Compute = compute;
  r.Compute_Async = compute_async;
  r.Destroy = destroy;
  return host->Registrar_RegisterKernel(registrar, &r);
}

}  // namespace

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  host = args->host;
  args->info->name = "testkit";
  args->info->version = "0.1.0";
  args->info->abi_version_major = TSR_ABI_VERSION_MAJOR;
  args->info->abi_version_minor = TSR_ABI_VERSION_MINOR;
  args->info->min_host_abi_version_minor = 1;
  if (args->host_abi_version_major != TSR_ABI_VERSION_MAJOR) {
    return host->Status_Create(TSR_CODE_FAILED_PRECONDITION, "testkit needs host ABI major 0");
  }
  TSR_Registrar* registrar = args->registrar;
  TSR_Status* s = DefineUnaryOp(registrar, "TestAsyncIdentity", true);
  if (s == nullptr) s = DefineUnaryOp(registrar, "TestFail", false);
  if (s == nullptr) {
    s = RegisterKernel(registrar, "TestAsyncIdentity", TSR_KERNEL_FLAG_ASYNC, CreateDelay, nullptr,
                       AsyncIdentity, DestroyDelay);
  }
  if (s == nullptr) s = RegisterKernel(registrar, "TestFail", 0, nullptr, Fail, nullptr, nullptr);
  return s;
}
