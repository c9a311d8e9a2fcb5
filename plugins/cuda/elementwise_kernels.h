// Launchers of the element-wise device kernels (elementwise_kernels.cu, one source for CUDA and
// HIP): binary ops with broadcasting, unary ops, casts and fills. Each only enqueues on `stream`
// and returns the launch's error; the kernels behind the SDK (gpu_kernels.cc) check shapes.
#ifndef TESSERA_PLUGINS_CUDA_ELEMENTWISE_KERNELS_H_
#define TESSERA_PLUGINS_CUDA_ELEMENTWISE_KERNELS_H_

#include <cstdint>

#include "plugins/cuda/gpu_runtime.h"

namespace tessera::gpu {

// Element types of the device kernels (the plugin maps TSR_DataType onto them).
enum class ElementType : int32_t { kFloat, kHalf, kBFloat16, kInt32, kInt64, kBool };

enum class BinaryOp : int32_t {
  kAdd,
  kSub,
  kMul,
  kDiv,  // floating point only
  kMaximum,
  kMinimum,
  kSquaredDifference,
  // Comparisons: bool outputs.
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kEqual,
  kNotEqual,
  // Activation gradients, with the op's inputs in order (same shapes).
  kReluGrad,     // (gradients, features)
  kRelu6Grad,    // (gradients, features)
  kSigmoidGrad,  // (y, dy): the forward output first
  kTanhGrad,     // (y, dy)
};

enum class UnaryOp : int32_t {
  kNeg,
  kAbs,
  kSquare,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kExp,
  kLog,
  kTanh,
  kSigmoid,
  kRelu,
  kRelu6,
  kElu,
  kSelu,
  kLeakyRelu,  // uses `alpha`
  kSoftplus,
};

// How two inputs broadcast to the output, with adjacent dimensions that broadcast alike merged.
struct BroadcastPlan {
  static constexpr int kMaxRank = 8;
  enum Mode : int32_t { kSame, kXScalar, kYScalar, kGeneral };
  Mode mode = kSame;
  int32_t rank = 0;  // kGeneral only
  int64_t dims[kMaxRank] = {};
  int64_t x_strides[kMaxRank] = {};  // 0 where x is broadcast
  int64_t y_strides[kMaxRank] = {};
};

// out[i] = op(x[...], y[...]) for the n output elements. `type` is the inputs' type; comparisons
// write bool.
gpuError_t LaunchBinary(BinaryOp op, ElementType type, const void* x, const void* y, void* out,
                        int64_t n, const BroadcastPlan& plan, gpuStream_t stream);

gpuError_t LaunchUnary(UnaryOp op, ElementType type, const void* x, void* out, int64_t n,
                       float alpha, gpuStream_t stream);

// Converts n elements; float to integer truncates toward zero and saturates (NaN is 0), anything
// to bool is "!= 0".
gpuError_t LaunchCast(ElementType from, ElementType to, const void* x, void* out, int64_t n,
                      gpuStream_t stream);

// gpuSuccess when the current device can run this library's kernels; otherwise the runtime's error
// (no kernel image for the device's architecture).
gpuError_t ProbeKernelImage();

// Every element of out is *value (value in device memory).
gpuError_t LaunchFill(ElementType type, const void* value, void* out, int64_t n,
                      gpuStream_t stream);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_ELEMENTWISE_KERNELS_H_
