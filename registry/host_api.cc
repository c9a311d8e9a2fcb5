// Builds the TSR_HostApi table: the registry's own slots plus the runtime's.
#include "registry/host_api.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>

#include "registry/abi_op_def_builder.h"
#include "registry/abi_status.h"
#include "registry/registrar.h"

namespace tessera {
namespace {

struct LogState {
  std::mutex mutex;
  PluginLogSink sink;
};

LogState& GetLogState() {
  static auto* state = new LogState;  // never destroyed: plugins may log during exit
  return *state;
}

const char* SeverityName(TSR_LogSeverity severity) {
  switch (severity) {
    case TSR_LOG_SEVERITY_DEBUG:
      return "DEBUG";
    case TSR_LOG_SEVERITY_INFO:
      return "INFO";
    case TSR_LOG_SEVERITY_WARNING:
      return "WARNING";
    case TSR_LOG_SEVERITY_ERROR:
      return "ERROR";
  }
  return "UNKNOWN";
}

void HostLog(TSR_LogSeverity severity, const char* source, const char* message) {
  const absl::string_view source_view = source == nullptr ? "" : source;
  const absl::string_view message_view = message == nullptr ? "" : message;
  LogState& state = GetLogState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.sink) {
    state.sink(severity, source_view, message_view);
    return;
  }
  if (severity < TSR_LOG_SEVERITY_WARNING) return;
  std::fprintf(stderr, "[plugin '%.*s'] %s: %.*s\n", static_cast<int>(source_view.size()),
               source_view.data(), SeverityName(severity), static_cast<int>(message_view.size()),
               message_view.data());
}

void* HostMemoryAllocate(size_t size, size_t alignment) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  if ((alignment & (alignment - 1)) != 0) return nullptr;  // not a power of two
  void* ptr = nullptr;
  if (posix_memalign(&ptr, alignment, size == 0 ? 1 : size) != 0) return nullptr;
  return ptr;
}

void HostMemoryFree(void* ptr) { std::free(ptr); }

// clang-format off
#define TESSERA_RUNTIME_SLOTS(X) \
  X(ShapeContext_NumInputs) \
  X(ShapeContext_NumOutputs) \
  X(ShapeContext_GetInputShape) \
  X(ShapeContext_GetInputConstant) \
  X(ShapeContext_GetAttr) \
  X(ShapeContext_SetOutputShape) \
  X(KernelConstruction_GetNodeName) \
  X(KernelConstruction_GetAttr) \
  X(KernelConstruction_NumInputs) \
  X(KernelConstruction_NumOutputs) \
  X(KernelConstruction_GetInputType) \
  X(KernelConstruction_GetOutputType) \
  X(KernelConstruction_GetDevice) \
  X(KernelContext_GetNodeName) \
  X(KernelContext_GetStepId) \
  X(KernelContext_NumInputs) \
  X(KernelContext_NumOutputs) \
  X(KernelContext_GetInput) \
  X(KernelContext_AllocateOutput) \
  X(KernelContext_ForwardInputOrAllocateOutput) \
  X(KernelContext_SetOutputFromInput) \
  X(KernelContext_AllocateTemp) \
  X(KernelContext_GetDevice) \
  X(KernelContext_GetStream) \
  X(KernelContext_GetThreadPool) \
  X(ThreadPool_NumThreads) \
  X(ThreadPool_CurrentThreadId) \
  X(ThreadPool_Schedule) \
  X(ThreadPool_ParallelFor) \
  X(KernelContext_IsCancelled) \
  X(KernelContext_AllocateStringOutput)
// clang-format on

TSR_HostApi BuildHostApi(const TSR_HostApi& runtime_slots) {
  TSR_HostApi api;
  std::memset(&api, 0, sizeof(api));
  api.struct_size = sizeof(TSR_HostApi);
  api.abi_version_major = TSR_ABI_VERSION_MAJOR;
  api.abi_version_minor = TSR_ABI_VERSION_MINOR;
  api.host_version = kHostVersion;
  api.Status_Create = AbiStatusCreate;
  api.Status_Destroy = AbiStatusDestroy;
  api.Status_GetCode = AbiStatusGetCode;
  api.Status_GetMessage = AbiStatusGetMessage;
  api.Log = HostLog;
  api.HostMemory_Allocate = HostMemoryAllocate;
  api.HostMemory_Free = HostMemoryFree;
  api.Registrar_RegisterDeviceType = RegistrarRegisterDeviceType;
  api.Registrar_RegisterOp = RegistrarRegisterOp;
  api.Registrar_RegisterKernel = RegistrarRegisterKernel;
  api.Registrar_RegisterTransport = RegistrarRegisterTransport;
  api.OpDefBuilder_Create = OpDefBuilderCreate;
  api.OpDefBuilder_Destroy = OpDefBuilderDestroy;
  api.OpDefBuilder_AddInput = OpDefBuilderAddInput;
  api.OpDefBuilder_AddOutput = OpDefBuilderAddOutput;
  api.OpDefBuilder_AddAttr = OpDefBuilderAddAttr;
  api.OpDefBuilder_SetFlags = OpDefBuilderSetFlags;
  api.OpDefBuilder_SetShapeFn = OpDefBuilderSetShapeFn;
  const size_t given_size =
      runtime_slots.struct_size == 0 ? sizeof(TSR_HostApi) : runtime_slots.struct_size;
#define TESSERA_COPY_SLOT(slot)                                                   \
  if (given_size >= TSR_STRUCT_SIZE(TSR_HostApi, slot) && runtime_slots.slot) \
    api.slot = runtime_slots.slot;
  TESSERA_RUNTIME_SLOTS(TESSERA_COPY_SLOT)
#undef TESSERA_COPY_SLOT
  return api;
}

bool HasRuntimeSlots(const TSR_HostApi& runtime_slots) {
  bool any = false;
#define TESSERA_ANY_SLOT(slot) any = any || runtime_slots.slot != nullptr;
  TESSERA_RUNTIME_SLOTS(TESSERA_ANY_SLOT)
#undef TESSERA_ANY_SLOT
  return any;
}

// A plugin keeps one host table for the process (every Init replaces it), so a registry made
// without the runtime's slots (a tool, a test) must not hand a loaded plugin a table whose
// kernel-context slots are NULL while sessions still run its kernels: it gets the runtime slots
// given last in this process.
TSR_HostApi GivenOrLastRuntimeSlots(const TSR_HostApi& runtime_slots) {
  static std::mutex* mutex = new std::mutex;
  static auto* last = new TSR_HostApi{};
  std::lock_guard<std::mutex> lock(*mutex);
  if (HasRuntimeSlots(runtime_slots)) {
    *last = runtime_slots;
    return runtime_slots;
  }
  return *last;
}

}  // namespace

void LogForPlugin(TSR_LogSeverity severity, absl::string_view source, absl::string_view message) {
  const std::string source_text(source);
  const std::string message_text(message);
  HostLog(severity, source_text.c_str(), message_text.c_str());
}

void SetPluginLogSink(PluginLogSink sink) {
  LogState& state = GetLogState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.sink = std::move(sink);
}

const TSR_HostApi* GetHostApi(const TSR_HostApi& runtime_slots) {
  static std::mutex* mutex = new std::mutex;
  // Never destroyed: the ABI promises the table until the process exits. A deque keeps
  // addresses stable as it grows.
  static auto* tables = new std::deque<TSR_HostApi>;
  const TSR_HostApi api = BuildHostApi(GivenOrLastRuntimeSlots(runtime_slots));
  std::lock_guard<std::mutex> lock(*mutex);
  for (const TSR_HostApi& table : *tables) {
    if (std::memcmp(&table, &api, sizeof(api)) == 0) return &table;
  }
  tables->push_back(api);
  return &tables->back();
}

const TSR_HostApi* GetEmulatedNewerHostApi(const TSR_HostApi& runtime_slots, uint32_t abi_minor) {
  // The host's table followed by slots it does not know; struct_size covers both.
  struct NewerTable {
    TSR_HostApi api;
    void* tail[kEmulatedHostTailSlots];
  };
  static std::mutex* mutex = new std::mutex;
  static auto* tables = new std::deque<NewerTable>;  // never destroyed, as in GetHostApi
  NewerTable table;
  std::memset(&table, 0, sizeof(table));
  table.api = BuildHostApi(GivenOrLastRuntimeSlots(runtime_slots));
  table.api.struct_size = sizeof(NewerTable);
  table.api.abi_version_minor = abi_minor;
  std::lock_guard<std::mutex> lock(*mutex);
  for (const NewerTable& existing : *tables) {
    if (std::memcmp(&existing, &table, sizeof(table)) == 0) return &existing.api;
  }
  tables->push_back(table);
  return &tables->back().api;
}

}  // namespace tessera
