// Launchers of the reducing device kernels (reduce_kernels.cu and softmax_kernels.cu, shared by
// CUDA and HIP): Sum, Mean, Max, Min and Prod over any set of axes, ArgMax and ArgMin, and the
// row-wise softmax family. One block per output element (or row), its threads striding over the
// reduced elements and combining in shared memory.
#ifndef TESSERA_PLUGINS_CUDA_REDUCE_KERNELS_H_
#define TESSERA_PLUGINS_CUDA_REDUCE_KERNELS_H_

#include <cstdint>

#include "plugins/cuda/elementwise_kernels.h"
#include "plugins/cuda/gpu_runtime.h"

namespace tessera::gpu {

enum class ReduceOp : int32_t { kSum, kMean, kMax, kMin, kProd, kArgMax, kArgMin };

// The input as kept and reduced dimensions (adjacent ones of a kind merged; sizes of 1 dropped)
// with their element strides: output element o (row-major over the kept dimensions) folds the
// input elements base(o) + offset(r) for r in [0, reduced).
struct ReducePlan {
  static constexpr int kMaxRank = 8;
  int32_t kept_rank = 0;
  int64_t kept_dims[kMaxRank] = {};
  int64_t kept_strides[kMaxRank] = {};
  int32_t reduced_rank = 0;
  int64_t reduced_dims[kMaxRank] = {};
  int64_t reduced_strides[kMaxRank] = {};
  int64_t outputs = 1;
  int64_t reduced = 1;
};

// out[o] = the fold of its reduced elements. An empty reduction gives the fold's identity (0, 1,
// -inf or lowest for Max, +inf or highest for Min; NaN for a floating Mean, 0 for an integer one).
// Max and Min propagate NaN. half and bfloat16 accumulate in float, integers wrap.
// kArgMax/kArgMin write the reduced index (of one reduced dimension) as `index_type` (kInt32 or
// kInt64): the first of equal extremes; a number wins over NaN, a slice of only NaN gives 0.
gpuError_t LaunchReduce(ReduceOp op, ElementType type, const void* x, void* out,
                        const ReducePlan& plan, gpuStream_t stream,
                        ElementType index_type = ElementType::kInt64);

enum class SoftmaxOp : int32_t { kSoftmax, kLogSoftmax };

// Softmax or LogSoftmax of each of `rows` rows of `depth` elements.
gpuError_t LaunchSoftmax(SoftmaxOp op, ElementType type, const void* logits, void* out,
                         int64_t rows, int64_t depth, gpuStream_t stream);

// SparseSoftmaxCrossEntropyWithLogits: per row, loss = logsumexp(logits) - logits[label] and
// backprop = softmax(logits) - onehot(label). `labels` are kInt32 or kInt64; a label outside
// [0, depth) gives a NaN loss and a NaN backprop row, as TensorFlow's GPU kernel.
gpuError_t LaunchSparseSoftmaxCrossEntropy(ElementType type, ElementType label_type,
                                           const void* logits, const void* labels, void* loss,
                                           void* backprop, int64_t rows, int64_t depth,
                                           gpuStream_t stream);

// SoftmaxCrossEntropyWithLogits with labels of the logits' shape: loss = sum(labels *
// (logsumexp(logits) - logits)), backprop = softmax(logits) - labels.
gpuError_t LaunchSoftmaxCrossEntropy(ElementType type, const void* logits, const void* labels,
                                     void* loss, void* backprop, int64_t rows, int64_t depth,
                                     gpuStream_t stream);

}  // namespace tessera::gpu

#endif  // TESSERA_PLUGINS_CUDA_REDUCE_KERNELS_H_
