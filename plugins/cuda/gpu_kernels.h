// The GPU kernels behind the SDK: each checks its arguments on the host, allocates its outputs
// and enqueues device work on the compute stream without waiting for it.
#ifndef TESSERA_PLUGINS_CUDA_GPU_KERNELS_H_
#define TESSERA_PLUGINS_CUDA_GPU_KERNELS_H_

#include <cstdint>
#include <vector>

#include "plugins/cuda/elementwise_kernels.h"
#include "plugins/cuda/reduce_kernels.h"
#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/kernel_context.h"
#include "tessera/sdk/shape.h"
#include "tessera/sdk/tensor_view.h"
#include "tessera/sdk/status.h"

namespace tessera::gpu {

// The element-wise, cast, fill, constant and buffer-sharing kernels (gpu_kernels.cc).
sdk::Status RegisterElementwiseKernels(TSR_Registrar* registrar);
// MatMul and BatchMatMulV2 (gpu_matmul.cc), multiplying through Gemm (gemm.h).
sdk::Status RegisterMatMulKernels(TSR_Registrar* registrar);
// Sum, Mean, Max, Min, Prod, ArgMax, ArgMin, BiasAddGrad, Softmax, LogSoftmax and the
// cross-entropy ops (gpu_reduction_kernels.cc).
sdk::Status RegisterReductionKernels(TSR_Registrar* registrar);
// AssignAdd, AssignSub (and their resource forms) and the optimizers' Apply*/ResourceApply*
// (gpu_training_kernels.cc).
sdk::Status RegisterTrainingKernels(TSR_Registrar* registrar);
// Transpose, Slice, ConcatV2, Pack, Tile, Pad and PadV2 (gpu_array_kernels.cc).
sdk::Status RegisterArrayKernels(TSR_Registrar* registrar);

// The type sets of the kernels' registrations: float, half and bfloat16; those and int32, int64;
// those and bool (every ElementType); int32 and int64 (indices, shapes); every fixed-size type
// (ops that only move or share bytes).
const std::vector<TSR_DataType>& FloatingTypes();
const std::vector<TSR_DataType>& NumberTypes();
const std::vector<TSR_DataType>& ElementTypes();
const std::vector<TSR_DataType>& IndexTypes();
const std::vector<TSR_DataType>& FixedSizeTypes();

// Makes the kernel's device current on the calling thread (INTERNAL when it has none).
sdk::Status UseDevice(sdk::KernelContext& ctx);
// OK, or the error of enqueueing the node's device work, naming the node.
sdk::Status Enqueued(gpuError_t error, sdk::KernelContext& ctx);
// The values of an int32 or int64 tensor in host memory (shapes, axes, indices).
std::vector<int64_t> ReadIndexValues(const sdk::TensorView& view);
// True for data_format "NCHW", false for "NHWC" (or no such attribute); anything else sets an
// INVALID_ARGUMENT on `ctx`.
bool ReadChannelsFirst(sdk::KernelConstruction& ctx);

// The device element type of `dtype`; INVALID_ARGUMENT naming `what` for a type the device
// kernels do not have.
sdk::Status ElementTypeOf(TSR_DataType dtype, const char* what, ElementType* type);

// The output shape of broadcasting x against y (numpy rules) and the plan the binary kernels
// follow, with adjacent dimensions that broadcast alike merged. INVALID_ARGUMENT "Incompatible
// shapes: [2,3] vs. [4]" as TensorFlow.
sdk::Status MakeBroadcastPlan(const sdk::Shape& x, const sdk::Shape& y, sdk::Shape* out,
                              BroadcastPlan* plan);

// The plan of reducing `input` over `axes` (negative ones count from the end) and the output shape
// (reduced dimensions kept as 1 with `keep_dims`). INVALID_ARGUMENT with TensorFlow's messages for
// an axis out of range or given twice (reduce_plan.cc).
sdk::Status MakeReducePlan(const sdk::Shape& input, const std::vector<int64_t>& axes,
                           bool keep_dims, sdk::Shape* out, ReducePlan* plan);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_GPU_KERNELS_H_
