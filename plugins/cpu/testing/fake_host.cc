// FakeHost: the host table's functions over plain C++ containers and an Eigen thread pool.
#include "plugins/cpu/testing/fake_host.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/ThreadPool>

namespace tessera::cpu::testing {
struct FakeHostAccess;
}  // namespace tessera::cpu::testing

struct TSR_Status {
  TSR_Code code;
  std::string message;
};

struct TSR_Registrar {
  tessera::cpu::testing::FakeHost* host;
};

struct TSR_ThreadPool {
  Eigen::ThreadPool pool{2};
};

struct TSR_KernelConstruction {
  std::string node_name;
  const tessera::cpu::testing::FakeAttrs* attrs;
  std::vector<TSR_DataType> input_types;
  std::vector<TSR_DataType> output_types;
};

struct TSR_KernelContext {
  std::string node_name;
  std::vector<tessera::cpu::testing::FakeTensor>* inputs;
  std::vector<tessera::cpu::testing::FakeTensor> outputs;
  std::vector<TSR_DataType> output_types;
  std::vector<int32_t> forwarded;
  std::vector<tessera::cpu::testing::FakeTensor> temps;
  TSR_ThreadPool* pool;
};

namespace tessera::cpu::testing {

struct FakeHostAccess {
  static std::vector<TSR_DeviceTypeRegistration>& PendingDevices(FakeHost* host) {
    return host->pending_device_types_;
  }
  static std::vector<KernelRecord>& PendingKernels(FakeHost* host) {
    return host->pending_kernels_;
  }
};

namespace {

size_t ElementSize(TSR_DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_BOOL:
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_INT8:
      return 1;
    case TSR_DTYPE_INT16:
    case TSR_DTYPE_UINT16:
    case TSR_DTYPE_HALF:
    case TSR_DTYPE_BFLOAT16:
      return 2;
    case TSR_DTYPE_FLOAT:
    case TSR_DTYPE_INT32:
    case TSR_DTYPE_UINT32:
      return 4;
    case TSR_DTYPE_DOUBLE:
    case TSR_DTYPE_INT64:
    case TSR_DTYPE_UINT64:
    case TSR_DTYPE_COMPLEX64:
      return 8;
    case TSR_DTYPE_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

TSR_Status* NewStatus(TSR_Code code, const std::string& message) {
  if (code == TSR_CODE_OK) return nullptr;
  return new TSR_Status{code, message};
}

void FillView(const FakeTensor& t, TSR_TensorView* view) {
  view->struct_size = sizeof(TSR_TensorView);
  view->dtype = t.dtype;
  view->rank = static_cast<int32_t>(t.dims.size());
  view->dims = t.dims.data();
  view->data = t.byte_size == 0 ? nullptr : t.buffer.get();
  view->byte_size = t.byte_size;
}

// ---- status, log, memory --------------------------------------------------------------------
TSR_Status* StatusCreate(TSR_Code code, const char* message) {
  return NewStatus(code, message == nullptr ? "" : message);
}
void StatusDestroy(TSR_Status* status) { delete status; }
TSR_Code StatusGetCode(const TSR_Status* status) {
  return status == nullptr ? TSR_CODE_OK : status->code;
}
const char* StatusGetMessage(const TSR_Status* status) {
  return status == nullptr ? "" : status->message.c_str();
}
void Log(TSR_LogSeverity, const char*, const char*) {}
void* HostAllocate(size_t size, size_t alignment) {
  void* ptr = nullptr;
  return posix_memalign(&ptr, std::max<size_t>(alignment, sizeof(void*)), size) == 0 ? ptr
                                                                                     : nullptr;
}
void HostFree(void* ptr) { std::free(ptr); }

// ---- registration --------------------------------------------------------------------------
TSR_Status* RegisterDeviceType(TSR_Registrar* registrar,
                               const TSR_DeviceTypeRegistration* registration) {
  FakeHostAccess::PendingDevices(registrar->host).push_back(*registration);
  return nullptr;
}
TSR_Status* RegisterOp(TSR_Registrar*, TSR_OpDefBuilder*) {
  return NewStatus(TSR_CODE_UNIMPLEMENTED, "the fake host defines no ops");
}
TSR_Status* RegisterKernel(TSR_Registrar* registrar, const TSR_KernelRegistration* r) {
  KernelRecord record;
  record.op_name = r->op_name;
  record.device_type = r->device_type;
  for (size_t i = 0; i < r->num_type_constraints; ++i) {
    const TSR_TypeConstraint& c = r->type_constraints[i];
    record.constraints[c.attr_name].assign(c.dtypes, c.dtypes + c.num_dtypes);
  }
  for (size_t i = 0; i < r->num_host_memory_args; ++i) {
    record.host_memory_args.emplace_back(r->host_memory_args[i]);
  }
  record.priority = r->priority;
  record.flags = r->flags;
  record.registration = *r;
  FakeHostAccess::PendingKernels(registrar->host).push_back(std::move(record));
  return nullptr;
}
TSR_Status* RegisterTransport(TSR_Registrar*, const TSR_TransportRegistration*) {
  return NewStatus(TSR_CODE_UNIMPLEMENTED, "the fake host takes no transports");
}

// ---- kernel construction -------------------------------------------------------------------
const char* ConstructionNodeName(const TSR_KernelConstruction* ctx) {
  return ctx->node_name.c_str();
}
TSR_Status* ConstructionGetAttr(const TSR_KernelConstruction* ctx, const char* name,
                                TSR_AttrValue* value) {
  auto it = ctx->attrs->find(name);
  if (it == ctx->attrs->end()) {
    return NewStatus(TSR_CODE_NOT_FOUND, std::string("no attribute '") + name + "'");
  }
  const FakeAttr& a = it->second;
  value->type = a.type;
  value->i = a.i;
  value->f = a.f;
  value->b = a.b;
  value->dtype = a.dtype;
  value->s = a.s.data();
  value->s_size = a.s.size();
  value->list_size = a.list_i.size();
  value->list_i = a.list_i.data();
  value->shape_rank = a.shape_rank;
  value->shape_dims = a.list_i.data();
  if (a.type == TSR_ATTR_TYPE_TENSOR) FillView(a.tensor, &value->tensor);
  return nullptr;
}
int32_t ConstructionNumInputs(const TSR_KernelConstruction* ctx) {
  return static_cast<int32_t>(ctx->input_types.size());
}
int32_t ConstructionNumOutputs(const TSR_KernelConstruction* ctx) {
  return static_cast<int32_t>(ctx->output_types.size());
}
TSR_DataType ConstructionInputType(const TSR_KernelConstruction* ctx, int32_t i) {
  return ctx->input_types.at(i);
}
TSR_DataType ConstructionOutputType(const TSR_KernelConstruction* ctx, int32_t i) {
  return ctx->output_types.at(i);
}
TSR_Device* ConstructionDevice(const TSR_KernelConstruction*) { return nullptr; }

// ---- kernel context ------------------------------------------------------------------------
const char* ContextNodeName(const TSR_KernelContext* ctx) { return ctx->node_name.c_str(); }
int64_t ContextStepId(const TSR_KernelContext*) { return 1; }
int32_t ContextNumInputs(const TSR_KernelContext* ctx) {
  return static_cast<int32_t>(ctx->inputs->size());
}
int32_t ContextNumOutputs(const TSR_KernelContext* ctx) {
  return static_cast<int32_t>(ctx->outputs.size());
}
TSR_Status* ContextGetInput(const TSR_KernelContext* ctx, int32_t index, TSR_TensorView* view) {
  if (index < 0 || index >= static_cast<int32_t>(ctx->inputs->size())) {
    return NewStatus(TSR_CODE_OUT_OF_RANGE,
                     "input index " + std::to_string(index) + " out of range");
  }
  FillView((*ctx->inputs)[index], view);
  return nullptr;
}
TSR_Status* ContextAllocateOutput(TSR_KernelContext* ctx, int32_t index, int32_t rank,
                                  const int64_t* dims, TSR_TensorView* view) {
  if (index < 0 || index >= static_cast<int32_t>(ctx->outputs.size())) {
    return NewStatus(TSR_CODE_OUT_OF_RANGE, "output index out of range");
  }
  ctx->outputs[index] =
      FakeTensor::Allocate(ctx->output_types[index], std::vector<int64_t>(dims, dims + rank));
  FillView(ctx->outputs[index], view);
  return nullptr;
}
TSR_Status* ContextForwardOrAllocate(TSR_KernelContext* ctx, const int32_t* candidates,
                                     int32_t num_candidates, int32_t output_index, int32_t rank,
                                     const int64_t* dims, TSR_TensorView* view,
                                     int32_t* forwarded_input) {
  *forwarded_input = -1;
  FakeTensor wanted =
      FakeTensor{ctx->output_types.at(output_index), std::vector<int64_t>(dims, dims + rank)};
  const size_t bytes = static_cast<size_t>(wanted.num_elements()) * ElementSize(wanted.dtype);
  for (int32_t i = 0; i < num_candidates; ++i) {
    FakeTensor& input = (*ctx->inputs)[candidates[i]];
    if (input.dtype == wanted.dtype && input.byte_size == bytes && input.buffer != nullptr &&
        input.buffer.use_count() == 1) {
      wanted.buffer = input.buffer;
      wanted.byte_size = bytes;
      ctx->outputs[output_index] = std::move(wanted);
      ctx->forwarded[output_index] = candidates[i];
      *forwarded_input = candidates[i];
      FillView(ctx->outputs[output_index], view);
      return nullptr;
    }
  }
  return ContextAllocateOutput(ctx, output_index, rank, dims, view);
}
TSR_Status* ContextSetOutputFromInput(TSR_KernelContext* ctx, int32_t output_index,
                                      int32_t input_index, int32_t rank, const int64_t* dims) {
  const FakeTensor& input = (*ctx->inputs).at(input_index);
  FakeTensor out = input;
  if (rank >= 0) out.dims.assign(dims, dims + rank);
  if (out.num_elements() != input.num_elements()) {
    return NewStatus(TSR_CODE_INVALID_ARGUMENT, "SetOutputFromInput changes the element count");
  }
  ctx->outputs.at(output_index) = std::move(out);
  ctx->forwarded[output_index] = input_index;
  return nullptr;
}
TSR_Status* ContextAllocateTemp(TSR_KernelContext* ctx, TSR_DataType dtype, int32_t rank,
                                const int64_t* dims, TSR_TensorView* view) {
  ctx->temps.push_back(FakeTensor::Allocate(dtype, std::vector<int64_t>(dims, dims + rank)));
  FillView(ctx->temps.back(), view);
  return nullptr;
}
TSR_Device* ContextDevice(const TSR_KernelContext*) { return nullptr; }
TSR_Stream* ContextStream(const TSR_KernelContext*) { return nullptr; }
TSR_ThreadPool* ContextThreadPool(const TSR_KernelContext* ctx) { return ctx->pool; }
bool ContextIsCancelled(const TSR_KernelContext*) { return false; }

// ---- thread pool ---------------------------------------------------------------------------
int32_t PoolNumThreads(const TSR_ThreadPool* pool) { return pool->pool.NumThreads(); }
int32_t PoolCurrentThreadId(const TSR_ThreadPool* pool) { return pool->pool.CurrentThreadId(); }
void PoolSchedule(TSR_ThreadPool* pool, TSR_ClosureFn fn, void* arg) {
  pool->pool.Schedule([fn, arg] { fn(arg); });
}
// Always splits into up to four shards, so that kernels' shard boundaries are exercised.
void PoolParallelFor(TSR_ThreadPool* pool, int64_t total, int64_t, TSR_ParallelForFn fn,
                     void* arg) {
  if (total <= 0) return;
  const int64_t shards = std::min<int64_t>(total, 4);
  const int64_t block = (total + shards - 1) / shards;
  Eigen::Barrier barrier(static_cast<unsigned>(shards - 1));
  for (int64_t s = 1; s < shards; ++s) {
    const int64_t begin = std::min(total, s * block);
    const int64_t end = std::min(total, begin + block);
    pool->pool.Schedule([&barrier, fn, arg, begin, end] {
      if (begin < end) fn(arg, begin, end);
      barrier.Notify();
    });
  }
  fn(arg, 0, std::min(block, total));
  barrier.Wait();
}

TSR_HostApi MakeApi() {
  TSR_HostApi api{};
  api.struct_size = sizeof(TSR_HostApi);
  api.abi_version_major = TSR_ABI_VERSION_MAJOR;
  api.abi_version_minor = TSR_ABI_VERSION_MINOR;
  api.host_version = "0.1.0-fake";
  api.Status_Create = &StatusCreate;
  api.Status_Destroy = &StatusDestroy;
  api.Status_GetCode = &StatusGetCode;
  api.Status_GetMessage = &StatusGetMessage;
  api.Log = &Log;
  api.HostMemory_Allocate = &HostAllocate;
  api.HostMemory_Free = &HostFree;
  api.Registrar_RegisterDeviceType = &RegisterDeviceType;
  api.Registrar_RegisterOp = &RegisterOp;
  api.Registrar_RegisterKernel = &RegisterKernel;
  api.Registrar_RegisterTransport = &RegisterTransport;
  api.KernelConstruction_GetNodeName = &ConstructionNodeName;
  api.KernelConstruction_GetAttr = &ConstructionGetAttr;
  api.KernelConstruction_NumInputs = &ConstructionNumInputs;
  api.KernelConstruction_NumOutputs = &ConstructionNumOutputs;
  api.KernelConstruction_GetInputType = &ConstructionInputType;
  api.KernelConstruction_GetOutputType = &ConstructionOutputType;
  api.KernelConstruction_GetDevice = &ConstructionDevice;
  api.KernelContext_GetNodeName = &ContextNodeName;
  api.KernelContext_GetStepId = &ContextStepId;
  api.KernelContext_NumInputs = &ContextNumInputs;
  api.KernelContext_NumOutputs = &ContextNumOutputs;
  api.KernelContext_GetInput = &ContextGetInput;
  api.KernelContext_AllocateOutput = &ContextAllocateOutput;
  api.KernelContext_ForwardInputOrAllocateOutput = &ContextForwardOrAllocate;
  api.KernelContext_SetOutputFromInput = &ContextSetOutputFromInput;
  api.KernelContext_AllocateTemp = &ContextAllocateTemp;
  api.KernelContext_GetDevice = &ContextDevice;
  api.KernelContext_GetStream = &ContextStream;
  api.KernelContext_GetThreadPool = &ContextThreadPool;
  api.ThreadPool_NumThreads = &PoolNumThreads;
  api.ThreadPool_CurrentThreadId = &PoolCurrentThreadId;
  api.ThreadPool_Schedule = &PoolSchedule;
  api.ThreadPool_ParallelFor = &PoolParallelFor;
  api.KernelContext_IsCancelled = &ContextIsCancelled;
  return api;
}

const TSR_HostApi& Api() {
  static const TSR_HostApi api = MakeApi();
  return api;
}

TSR_ThreadPool& Pool() {
  static TSR_ThreadPool* pool = new TSR_ThreadPool();
  return *pool;
}

}  // namespace

FakeTensor FakeTensor::Allocate(TSR_DataType dtype, std::vector<int64_t> dims) {
  FakeTensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.byte_size = static_cast<size_t>(t.num_elements()) * ElementSize(dtype);
  void* ptr = nullptr;
  if (posix_memalign(&ptr, 64, t.byte_size == 0 ? 64 : t.byte_size) != 0) std::abort();
  t.buffer = std::shared_ptr<char>(static_cast<char*>(ptr), [](char* p) { std::free(p); });
  return t;
}

int64_t FakeTensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

FakeAttr FakeAttr::Int(int64_t v) {
  FakeAttr a;
  a.type = TSR_ATTR_TYPE_INT;
  a.i = v;
  return a;
}
FakeAttr FakeAttr::Bool(bool v) {
  FakeAttr a;
  a.type = TSR_ATTR_TYPE_BOOL;
  a.b = v;
  return a;
}
FakeAttr FakeAttr::Type(TSR_DataType v) {
  FakeAttr a;
  a.type = TSR_ATTR_TYPE_TYPE;
  a.dtype = v;
  return a;
}
FakeAttr FakeAttr::String(std::string v) {
  FakeAttr a;
  a.type = TSR_ATTR_TYPE_STRING;
  a.s = std::move(v);
  return a;
}
FakeAttr FakeAttr::IntList(std::vector<int64_t> v) {
  FakeAttr a;
  a.type = TSR_ATTR_TYPE_LIST_INT;
  a.list_i = std::move(v);
  return a;
}
FakeAttr FakeAttr::ShapeOf(std::vector<int64_t> dims) {
  FakeAttr a;
  a.type = TSR_ATTR_TYPE_SHAPE;
  a.shape_rank = static_cast<int32_t>(dims.size());
  a.list_i = std::move(dims);
  return a;
}
FakeAttr FakeAttr::Tensor(FakeTensor v) {
  FakeAttr a;
  a.type = TSR_ATTR_TYPE_TENSOR;
  a.tensor = std::move(v);
  return a;
}

FakeHost::FakeHost() = default;
FakeHost::~FakeHost() = default;

const TSR_HostApi* FakeHost::api() const { return &Api(); }

TSR_Code FakeHost::Code(TSR_Status* status, std::string* message) {
  const TSR_Code code = StatusGetCode(status);
  if (message != nullptr) *message = StatusGetMessage(status);
  StatusDestroy(status);
  return code;
}

TSR_Code FakeHost::LoadPlugin(const std::string& path, std::string* message, const TSR_HostApi* api,
                              uint32_t host_major, uint32_t host_minor) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *message = dlerror();
    return TSR_CODE_NOT_FOUND;
  }
  auto init = reinterpret_cast<TSR_Plugin_InitFn>(dlsym(handle, TSR_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) {
    *message = "no TSR_Plugin_Init";
    return TSR_CODE_NOT_FOUND;
  }
  return InitPlugin(init, message, api, host_major, host_minor);
}

TSR_Code FakeHost::InitPlugin(TSR_Plugin_InitFn init, std::string* message, const TSR_HostApi* api,
                              uint32_t host_major, uint32_t host_minor) {
  TSR_Registrar registrar{this};
  info_ = TSR_PluginInfo{};
  info_.struct_size = sizeof(TSR_PluginInfo);
  TSR_Plugin_Init_Args args{};
  args.struct_size = sizeof(TSR_Plugin_Init_Args);
  args.host_abi_version_major = host_major;
  args.host_abi_version_minor = host_minor;
  args.host = api == nullptr ? &Api() : api;
  args.info = &info_;
  args.registrar = &registrar;
  args.plugin_dir = "";
  pending_device_types_.clear();
  pending_kernels_.clear();
  const TSR_Code code = Code(init(&args), message);
  if (code == TSR_CODE_OK) {
    for (TSR_DeviceTypeRegistration& r : pending_device_types_) {
      device_type_names_.emplace_back(r.device_type);
      device_types_.push_back(r);
    }
    for (KernelRecord& k : pending_kernels_) kernels_.push_back(std::move(k));
  }
  pending_device_types_.clear();
  pending_kernels_.clear();
  return code;
}

const KernelRecord* FakeHost::FindKernel(const std::string& op_name, const FakeAttrs& attrs) const {
  for (const KernelRecord& k : kernels_) {
    if (k.op_name != op_name) continue;
    bool accepted = true;
    for (const auto& [attr, dtypes] : k.constraints) {
      auto it = attrs.find(attr);
      if (it == attrs.end()) continue;
      if (std::find(dtypes.begin(), dtypes.end(), it->second.dtype) == dtypes.end()) {
        accepted = false;
      }
    }
    if (accepted) return &k;
  }
  return nullptr;
}

RunResult FakeHost::Run(const std::string& op_name, std::vector<FakeTensor> inputs,
                        const FakeAttrs& attrs, int num_outputs,
                        std::vector<TSR_DataType> output_dtypes) {
  RunResult result;
  const KernelRecord* kernel = FindKernel(op_name, attrs);
  if (kernel == nullptr) {
    result.code = TSR_CODE_NOT_FOUND;
    result.message = "no kernel for " + op_name;
    return result;
  }
  if (output_dtypes.empty()) {
    output_dtypes.assign(static_cast<size_t>(num_outputs),
                         inputs.empty() ? TSR_DTYPE_FLOAT : inputs[0].dtype);
  }
  // Inputs arrive through initializer lists (copies): give each its own buffer so that the
  // kernel may forward it, as a host does for tensors nothing else references.
  for (FakeTensor& input : inputs) {
    if (input.buffer.use_count() > 1) {
      FakeTensor copy = FakeTensor::Allocate(input.dtype, input.dims);
      if (input.byte_size != 0) std::memcpy(copy.buffer.get(), input.buffer.get(), input.byte_size);
      input = std::move(copy);
    }
  }
  TSR_KernelConstruction construction;
  construction.node_name = "node";
  construction.attrs = &attrs;
  for (const FakeTensor& t : inputs) construction.input_types.push_back(t.dtype);
  construction.output_types = output_dtypes;
  void* state = nullptr;
  const TSR_KernelRegistration& r = kernel->registration;
  result.code = Code(r.Create(r.user_data, &construction, &state), &result.message);
  if (result.code != TSR_CODE_OK) return result;
  TSR_KernelContext context;
  context.node_name = "node";
  context.inputs = &inputs;
  context.outputs.resize(static_cast<size_t>(num_outputs));
  context.output_types = output_dtypes;
  context.forwarded.assign(static_cast<size_t>(num_outputs), -1);
  context.pool = &Pool();
  result.code = Code(r.Compute(state, &context), &result.message);
  r.Destroy(state);
  if (result.code == TSR_CODE_OK) {
    result.outputs = std::move(context.outputs);
    result.forwarded_inputs = std::move(context.forwarded);
  }
  return result;
}

}  // namespace tessera::cpu::testing
