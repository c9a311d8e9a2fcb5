// The KernelConstruction_*, KernelContext_* and ThreadPool_* slots of the host table.
#include "host/abi/host_kernel_context.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/abi/abi_attr_value.h"
#include "host/graph/graph.h"
#include "host/runtime/device.h"
#include "host/runtime/packed_strings.h"
#include "host/runtime/thread_pool.h"
#include "registry/abi_status.h"

namespace tessera {
namespace {

TSR_Status* Error(absl::StatusCode code, std::string message) {
  return ToAbiStatus(absl::Status(code, message));
}

// NULL when a tensor of `dtype` may have the shape (rank, dims): a rank in [0, TSR_MAX_RANK],
// dims given, every dimension >= 0 and the size within CheckTensorSize's limits (no element count
// or byte size can wrap). Otherwise INVALID_ARGUMENT naming the node, `what` and the shape.
TSR_Status* CheckShape(const TSR_KernelContext* ctx, const std::string& what, DataType dtype,
                       int32_t rank, const int64_t* dims) {
  const std::string node = absl::StrCat("node '", ctx->info->name, "' (", ctx->info->op, "): ");
  if (rank < 0 || rank > TSR_MAX_RANK || (rank > 0 && dims == nullptr)) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat(node, what, " has rank ", rank, rank > 0 ? " and no dimensions" : "",
                              " (rank must be 0..", TSR_MAX_RANK, ")"));
  }
  absl::Status size = CheckTensorSize(dtype, absl::MakeConstSpan(dims, rank));
  if (!size.ok()) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat(node, what, ": ", size.message()));
  }
  return nullptr;
}

std::string OutputName(int32_t index) { return absl::StrCat("output ", index); }

TSR_Status* BadOutputIndex(const TSR_KernelContext* ctx, int32_t index) {
  return Error(absl::StatusCode::kInvalidArgument,
               absl::StrCat("node '", ctx->info->name, "' has ", ctx->outputs.size(),
                            " outputs; output index ", index, " is out of range"));
}

TSR_Status* BadInputIndex(const TSR_KernelContext* ctx, int32_t index) {
  return Error(absl::StatusCode::kInvalidArgument,
               absl::StrCat("node '", ctx->info->name, "' has ", ctx->num_inputs,
                            " inputs; input index ", index, " is out of range"));
}

Allocator* OutputAllocator(const TSR_KernelContext* ctx, int32_t index) {
  if (ctx->info->output_in_host_memory[index]) return HostAllocator();
  return ctx->device->allocator();
}

// ---- Kernel construction ----------------------------------------------------------------------

const char* ConstructionGetNodeName(const TSR_KernelConstruction* ctx) {
  return ctx->info->name.c_str();
}

TSR_Status* ConstructionGetAttr(const TSR_KernelConstruction* ctx, const char* name,
                                TSR_AttrValue* value) {
  const tensorflow::AttrValue* attr = ctx->node->attr(name);
  if (attr == nullptr) {
    return Error(absl::StatusCode::kNotFound,
                 absl::StrCat("node '", ctx->info->name, "' (", ctx->info->op,
                              ") has no attribute '", name, "'"));
  }
  auto* mutable_ctx = const_cast<TSR_KernelConstruction*>(ctx);
  return ToAbiStatus(
      WithContext(FillAbiAttrValue(*attr, &mutable_ctx->scratch, value),
                  absl::StrCat("attribute '", name, "' of node '", ctx->info->name, "'")));
}

int32_t ConstructionNumInputs(const TSR_KernelConstruction* ctx) {
  return static_cast<int32_t>(ctx->info->input_types.size());
}

int32_t ConstructionNumOutputs(const TSR_KernelConstruction* ctx) {
  return static_cast<int32_t>(ctx->info->output_types.size());
}

TSR_DataType ConstructionGetInputType(const TSR_KernelConstruction* ctx, int32_t index) {
  if (index < 0 || index >= ConstructionNumInputs(ctx)) return TSR_DTYPE_INVALID;
  // A ref input reaches a plugin kernel as the variable's storage: its type is the value's.
  return BaseType(ctx->info->input_types[index]);
}

TSR_DataType ConstructionGetOutputType(const TSR_KernelConstruction* ctx, int32_t index) {
  if (index < 0 || index >= ConstructionNumOutputs(ctx)) return TSR_DTYPE_INVALID;
  return BaseType(ctx->info->output_types[index]);
}

TSR_Device* ConstructionGetDevice(const TSR_KernelConstruction* ctx) {
  return ctx->device == nullptr ? nullptr : ctx->device->abi_handle();
}

// ---- Kernel context ---------------------------------------------------------------------------

const char* ContextGetNodeName(const TSR_KernelContext* ctx) { return ctx->info->name.c_str(); }

int64_t ContextGetStepId(const TSR_KernelContext* ctx) {
  return ctx->step == nullptr ? 0 : ctx->step->step_id;
}

int32_t ContextNumInputs(const TSR_KernelContext* ctx) { return ctx->num_inputs; }

int32_t ContextNumOutputs(const TSR_KernelContext* ctx) {
  return static_cast<int32_t>(ctx->outputs.size());
}

TSR_Status* ContextGetInput(const TSR_KernelContext* ctx, int32_t index, TSR_TensorView* view) {
  if (index < 0 || index >= ctx->num_inputs) return BadInputIndex(ctx, index);
  const Tensor& input = ctx->inputs[index];
  if (input.dtype() != TSR_DTYPE_STRING) {
    FillTensorView(input, view);
    return nullptr;
  }
  // Packed once per input and kept until the kernel completes; a second GetInput of the same
  // input (from any shard) sees the same buffer.
  auto* mutable_ctx = const_cast<TSR_KernelContext*>(ctx);
  std::lock_guard<std::mutex> lock(mutable_ctx->packed_mutex);
  const Tensor* found = nullptr;
  for (const auto& packed : mutable_ctx->packed_inputs) {
    if (packed->index == index) found = &packed->buffer;
  }
  if (found == nullptr) {
    absl::StatusOr<Tensor> packed = PackStringsToBuffer(input);
    if (!packed.ok()) {
      return ToAbiStatus(WithContext(
          packed.status(),
          absl::StrCat("packing string input ", index, " of node '", ctx->info->name, "'")));
    }
    mutable_ctx->packed_inputs.push_back(std::make_unique<TSR_KernelContext::PackedInput>(
        TSR_KernelContext::PackedInput{index, std::move(*packed)}));
    mutable_ctx->has_packed_strings = true;
    found = &mutable_ctx->packed_inputs.back()->buffer;
  }
  const Tensor& buffer = *found;
  view->struct_size = sizeof(TSR_TensorView);
  view->dtype = TSR_DTYPE_STRING;
  view->rank = input.shape().rank();
  view->dims = input.shape().data();
  view->data = buffer.data();
  view->byte_size = static_cast<size_t>(buffer.NumElements());
  return nullptr;
}

TSR_Status* ContextAllocateOutput(TSR_KernelContext* ctx, int32_t index, int32_t rank,
                                  const int64_t* dims, TSR_TensorView* view) {
  if (index < 0 || index >= static_cast<int32_t>(ctx->outputs.size())) {
    return BadOutputIndex(ctx, index);
  }
  if (ctx->info->output_types[index] == TSR_DTYPE_STRING) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("node '", ctx->info->name, "': output ", index,
                              " is a string tensor; allocate it with "
                              "KernelContext_AllocateStringOutput"));
  }
  if (TSR_Status* bad =
          CheckShape(ctx, OutputName(index), ctx->info->output_types[index], rank, dims)) {
    return bad;
  }
  absl::StatusOr<Tensor> tensor =
      Tensor::Allocate(OutputAllocator(ctx, index), ctx->info->output_types[index],
                       TensorShape(absl::MakeConstSpan(dims, rank)));
  if (!tensor.ok()) {
    return ToAbiStatus(
        WithContext(tensor.status(),
                    absl::StrCat("allocating output ", index, " of node '", ctx->info->name, "'")));
  }
  ctx->outputs[index] = std::move(*tensor);
  FillTensorView(ctx->outputs[index], view);
  return nullptr;
}

TSR_Status* ContextForwardInputOrAllocateOutput(TSR_KernelContext* ctx,
                                                const int32_t* candidate_inputs,
                                                int32_t num_candidates, int32_t output_index,
                                                int32_t rank, const int64_t* dims,
                                                TSR_TensorView* view, int32_t* forwarded_input) {
  if (forwarded_input != nullptr) *forwarded_input = -1;
  if (output_index < 0 || output_index >= static_cast<int32_t>(ctx->outputs.size())) {
    return BadOutputIndex(ctx, output_index);
  }
  DataType dtype = ctx->info->output_types[output_index];
  if (TSR_Status* bad = CheckShape(ctx, OutputName(output_index), dtype, rank, dims)) return bad;
  bool want_host = ctx->info->output_in_host_memory[output_index];
  TensorShape shape(absl::MakeConstSpan(dims, rank));
  for (int32_t c = 0; c < num_candidates; ++c) {
    int32_t i = candidate_inputs[c];
    if (i < 0 || i >= ctx->num_inputs) return BadInputIndex(ctx, i);
    Tensor& input = ctx->inputs[i];
    // Reusable only when nobody else holds the buffer: the executor moved the value into this
    // node's slot and no other consumer, the client or a constant cache keeps a reference.
    if (input.dtype() != dtype || !input.RefCountIsOne() ||
        input.NumElements() != shape.num_elements() || (want_host && !input.host_accessible())) {
      continue;
    }
    // The kernel may still read the input through the view it already holds: the data stays
    // where it is and the input keeps its shape; only the ownership moves to the output.
    ctx->outputs[output_index] = input.TakeBufferAs(shape);
    FillTensorView(ctx->outputs[output_index], view);
    if (forwarded_input != nullptr) *forwarded_input = i;
    return nullptr;
  }
  return ContextAllocateOutput(ctx, output_index, rank, dims, view);
}

TSR_Status* ContextSetOutputFromInput(TSR_KernelContext* ctx, int32_t output_index,
                                      int32_t input_index, int32_t rank, const int64_t* dims) {
  if (output_index < 0 || output_index >= static_cast<int32_t>(ctx->outputs.size())) {
    return BadOutputIndex(ctx, output_index);
  }
  if (input_index < 0 || input_index >= ctx->num_inputs) return BadInputIndex(ctx, input_index);
  const Tensor& input = ctx->inputs[input_index];
  DataType expected = ctx->info->output_types[output_index];
  if (input.dtype() != expected) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("node '", ctx->info->name, "': output ", output_index, " has type ",
                              DataTypeString(expected), " but input ", input_index, " is ",
                              DataTypeString(input.dtype())));
  }
  if (rank == -1) {
    ctx->outputs[output_index] = input;
    return nullptr;
  }
  if (TSR_Status* bad = CheckShape(ctx, OutputName(output_index), expected, rank, dims)) {
    return bad;
  }
  TensorShape shape(absl::MakeConstSpan(dims, rank));
  if (shape.num_elements() != input.NumElements()) {
    return Error(
        absl::StatusCode::kInvalidArgument,
        absl::StrCat("node '", ctx->info->name, "': cannot view input ", input_index, " of shape ",
                     input.shape().DebugString(), " (", input.NumElements(), " elements) as shape ",
                     shape.DebugString(), " (", shape.num_elements(), " elements)"));
  }
  ctx->outputs[output_index] = input.Reshaped(shape);
  return nullptr;
}

TSR_Status* ContextAllocateTemp(TSR_KernelContext* ctx, TSR_DataType dtype, int32_t rank,
                                const int64_t* dims, TSR_TensorView* view) {
  if (TSR_Status* bad = CheckShape(ctx, "a temporary", dtype, rank, dims)) return bad;
  absl::StatusOr<Tensor> tensor = Tensor::Allocate(ctx->device->allocator(), dtype,
                                                   TensorShape(absl::MakeConstSpan(dims, rank)));
  if (!tensor.ok()) {
    return ToAbiStatus(WithContext(
        tensor.status(), absl::StrCat("allocating a temporary for node '", ctx->info->name, "'")));
  }
  ctx->temps.push_back(std::move(*tensor));
  FillTensorView(ctx->temps.back(), view);
  return nullptr;
}

TSR_Status* ContextAllocateStringOutput(TSR_KernelContext* ctx, int32_t index, int32_t rank,
                                        const int64_t* dims, size_t total_bytes,
                                        TSR_TensorView* view) {
  if (index < 0 || index >= static_cast<int32_t>(ctx->outputs.size())) {
    return BadOutputIndex(ctx, index);
  }
  if (ctx->info->output_types[index] != TSR_DTYPE_STRING) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("node '", ctx->info->name, "': output ", index, " has type ",
                              DataTypeString(ctx->info->output_types[index]),
                              ", not string; allocate it with KernelContext_AllocateOutput"));
  }
  if (TSR_Status* bad = CheckShape(ctx, OutputName(index), TSR_DTYPE_STRING, rank, dims)) {
    return bad;
  }
  TensorShape shape(absl::MakeConstSpan(dims, rank));
  const size_t offsets = TSR_STRING_OFFSETS_SIZE(shape.num_elements());
  const size_t limit = static_cast<size_t>(kMaxTensorBytes);
  if (total_bytes > limit || offsets > limit - total_bytes) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("node '", ctx->info->name, "': string output ", index, " of shape ",
                              shape.DebugString(), " with ", total_bytes,
                              " bytes of elements exceeds the limit of ", limit,
                              " bytes"));
  }
  absl::StatusOr<Tensor> buffer =
      Tensor::Allocate(HostAllocator(), TSR_DTYPE_UINT8,
                       TensorShape{static_cast<int64_t>(offsets + total_bytes)});
  if (!buffer.ok()) {
    return ToAbiStatus(WithContext(buffer.status(), absl::StrCat("allocating string output ",
                                                                 index, " of node '",
                                                                 ctx->info->name, "'")));
  }
  std::lock_guard<std::mutex> lock(ctx->packed_mutex);
  ctx->packed_outputs.push_back(std::make_unique<TSR_KernelContext::PackedOutput>(
      TSR_KernelContext::PackedOutput{index, shape, std::move(*buffer)}));
  ctx->has_packed_strings = true;
  const TSR_KernelContext::PackedOutput& packed = *ctx->packed_outputs.back();
  view->struct_size = sizeof(TSR_TensorView);
  view->dtype = TSR_DTYPE_STRING;
  view->rank = packed.shape.rank();
  view->dims = packed.shape.data();
  view->data = packed.buffer.data();
  view->byte_size = offsets + total_bytes;
  return nullptr;
}

TSR_Device* ContextGetDevice(const TSR_KernelContext* ctx) {
  return ctx->device == nullptr ? nullptr : ctx->device->abi_handle();
}

TSR_Stream* ContextGetStream(const TSR_KernelContext* ctx) {
  return ctx->device == nullptr ? nullptr : ctx->device->compute_stream();
}

TSR_ThreadPool* ContextGetThreadPool(const TSR_KernelContext* ctx) {
  return reinterpret_cast<TSR_ThreadPool*>(ctx->intra_op_pool);
}

bool ContextIsCancelled(const TSR_KernelContext* ctx) {
  const StepServices* step = ctx->step;
  if (step == nullptr) return false;
  return (step->cancelled != nullptr && step->cancelled->load(std::memory_order_relaxed)) ||
         (step->failed != nullptr && step->failed->load(std::memory_order_relaxed));
}

// ---- Thread pool ------------------------------------------------------------------------------

ThreadPool* Pool(const TSR_ThreadPool* pool) {
  return reinterpret_cast<ThreadPool*>(const_cast<TSR_ThreadPool*>(pool));
}

int32_t PoolNumThreads(const TSR_ThreadPool* pool) { return Pool(pool)->NumThreads(); }

int32_t PoolCurrentThreadId(const TSR_ThreadPool* pool) { return Pool(pool)->CurrentThreadId(); }

void PoolSchedule(TSR_ThreadPool* pool, TSR_ClosureFn fn, void* arg) {
  Pool(pool)->Schedule([fn, arg] { fn(arg); });
}

void PoolParallelFor(TSR_ThreadPool* pool, int64_t total, int64_t cost_per_unit,
                     TSR_ParallelForFn fn, void* arg) {
  Pool(pool)->ParallelFor(total, cost_per_unit,
                          [fn, arg](int64_t begin, int64_t end) { fn(arg, begin, end); });
}

}  // namespace

absl::Status FinishPackedStringOutputs(TSR_KernelContext* ctx) {
  for (const auto& entry : ctx->packed_outputs) {
    TSR_KernelContext::PackedOutput& packed = *entry;
    absl::StatusOr<Tensor> strings = UnpackStrings(packed.shape, packed.buffer.data(),
                                                   static_cast<size_t>(packed.buffer.NumElements()));
    if (!strings.ok()) {
      return absl::InternalError(absl::StrCat("the kernel of node '", ctx->info->name,
                                              "' left string output ", packed.index,
                                              " malformed: ", strings.status().message()));
    }
    ctx->outputs[packed.index] = std::move(*strings);
  }
  ctx->packed_outputs.clear();
  return absl::OkStatus();
}

void FillTensorView(const Tensor& tensor, TSR_TensorView* view) {
  view->struct_size = sizeof(TSR_TensorView);
  view->dtype = tensor.dtype();
  view->rank = tensor.shape().rank();
  view->dims = tensor.shape().data();
  view->data = tensor.data();
  view->byte_size = tensor.TotalBytes();
}

void FillKernelSlots(TSR_HostApi* api) {
  api->KernelConstruction_GetNodeName = ConstructionGetNodeName;
  api->KernelConstruction_GetAttr = ConstructionGetAttr;
  api->KernelConstruction_NumInputs = ConstructionNumInputs;
  api->KernelConstruction_NumOutputs = ConstructionNumOutputs;
  api->KernelConstruction_GetInputType = ConstructionGetInputType;
  api->KernelConstruction_GetOutputType = ConstructionGetOutputType;
  api->KernelConstruction_GetDevice = ConstructionGetDevice;

  api->KernelContext_GetNodeName = ContextGetNodeName;
  api->KernelContext_GetStepId = ContextGetStepId;
  api->KernelContext_NumInputs = ContextNumInputs;
  api->KernelContext_NumOutputs = ContextNumOutputs;
  api->KernelContext_GetInput = ContextGetInput;
  api->KernelContext_AllocateOutput = ContextAllocateOutput;
  api->KernelContext_ForwardInputOrAllocateOutput = ContextForwardInputOrAllocateOutput;
  api->KernelContext_SetOutputFromInput = ContextSetOutputFromInput;
  api->KernelContext_AllocateTemp = ContextAllocateTemp;
  api->KernelContext_GetDevice = ContextGetDevice;
  api->KernelContext_GetStream = ContextGetStream;
  api->KernelContext_AllocateStringOutput = ContextAllocateStringOutput;
  api->KernelContext_GetThreadPool = ContextGetThreadPool;
  api->KernelContext_IsCancelled = ContextIsCancelled;

  api->ThreadPool_NumThreads = PoolNumThreads;
  api->ThreadPool_CurrentThreadId = PoolCurrentThreadId;
  api->ThreadPool_Schedule = PoolSchedule;
  api->ThreadPool_ParallelFor = PoolParallelFor;
}

}  // namespace tessera
