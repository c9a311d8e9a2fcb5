// The row-wise softmax family: Softmax, LogSoftmax and the two cross-entropy ops. One block per
// row, grid-striding over the rows; the row's maximum and the sum of exponentials are block
// reductions in float.
#include <cmath>
#include <cstdint>

#include "plugins/cuda/elementwise_common.cuh"
#include "plugins/cuda/reduce_kernels.h"

namespace tessera::gpu {
namespace {

struct Max {
  __device__ float operator()(float a, float b) const { return b > a || b != b ? b : a; }
};
struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// The row's maximum and the sum of exp(x - maximum), for every thread of the block.
template <typename T>
__device__ void RowStatistics(const T* row, int64_t depth, float* scratch, float* row_max,
                              float* row_sum) {
  float local = -INFINITY;
  for (int64_t j = threadIdx.x; j < depth; j += blockDim.x) {
    local = Max()(local, static_cast<float>(Traits<T>::Load(row[j])));
  }
  *row_max = BlockReduce(local, scratch, Max());
  float sum = 0.0f;
  for (int64_t j = threadIdx.x; j < depth; j += blockDim.x) {
    sum += expf(static_cast<float>(Traits<T>::Load(row[j])) - *row_max);
  }
  *row_sum = BlockReduce(sum, scratch, Sum());
}

template <bool kLog, typename T>
__global__ void SoftmaxKernel(const T* logits, T* out, int64_t rows, int64_t depth) {
  __shared__ float scratch[kThreadsPerBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = logits + r * depth;
    float row_max;
    float row_sum;
    RowStatistics(row, depth, scratch, &row_max, &row_sum);
    const float log_sum = logf(row_sum);
    for (int64_t j = threadIdx.x; j < depth; j += blockDim.x) {
      const float shifted = static_cast<float>(Traits<T>::Load(row[j])) - row_max;
      out[r * depth + j] = Traits<T>::Store(kLog ? shifted - log_sum : expf(shifted) / row_sum);
    }
  }
}

template <typename T, typename Label>
__global__ void SparseXentKernel(const T* logits, const Label* labels, T* loss, T* backprop,
                                 int64_t rows, int64_t depth) {
  __shared__ float scratch[kThreadsPerBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = logits + r * depth;
    float row_max;
    float row_sum;
    RowStatistics(row, depth, scratch, &row_max, &row_sum);
    const int64_t label = static_cast<int64_t>(labels[r]);
    const bool valid = label >= 0 && label < depth;
    if (threadIdx.x == 0) {
      // log(sum) - (x - max) on the shifted logits: no cancellation of two large terms.
      const float shifted = static_cast<float>(Traits<T>::Load(row[label])) - row_max;
      loss[r] = Traits<T>::Store(valid ? logf(row_sum) - shifted : NAN);
    }
    for (int64_t j = threadIdx.x; j < depth; j += blockDim.x) {
      const float p = expf(static_cast<float>(Traits<T>::Load(row[j])) - row_max) / row_sum;
      backprop[r * depth + j] = Traits<T>::Store(valid ? p - (j == label ? 1.0f : 0.0f) : NAN);
    }
  }
}

template <typename T>
__global__ void XentKernel(const T* logits, const T* labels, T* loss, T* backprop, int64_t rows,
                           int64_t depth) {
  __shared__ float scratch[kThreadsPerBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = logits + r * depth;
    const T* target = labels + r * depth;
    float row_max;
    float row_sum;
    RowStatistics(row, depth, scratch, &row_max, &row_sum);
    const float log_sum = logf(row_sum);
    float partial = 0.0f;
    for (int64_t j = threadIdx.x; j < depth; j += blockDim.x) {
      const float x = static_cast<float>(Traits<T>::Load(row[j]));
      const float y = static_cast<float>(Traits<T>::Load(target[j]));
      partial += y * (log_sum - (x - row_max));
      backprop[r * depth + j] = Traits<T>::Store(expf(x - row_max) / row_sum - y);
    }
    const float total = BlockReduce(partial, scratch, Sum());
    if (threadIdx.x == 0) loss[r] = Traits<T>::Store(total);
  }
}

unsigned RowBlocks(int64_t rows) {
  return static_cast<unsigned>(rows < kMaxBlocks ? rows : kMaxBlocks);
}

// Calls f(T{}) for the floating types; gpuErrorInvalidValue for the others.
template <typename F>
gpuError_t DispatchFloating(ElementType type, F&& f) {
  return DispatchType</*kWithBool=*/false>(type, [&](auto zero) -> gpuError_t {
    if constexpr (std::is_integral_v<decltype(zero)>) {
      return gpuErrorInvalidValue;
    } else {
      return f(zero);
    }
  });
}

}  // namespace

gpuError_t LaunchSoftmax(SoftmaxOp op, ElementType type, const void* logits, void* out,
                         int64_t rows, int64_t depth, gpuStream_t stream) {
  if (rows == 0 || depth == 0) return gpuSuccess;
  return DispatchFloating(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    const auto* x = static_cast<const T*>(logits);
    auto* y = static_cast<T*>(out);
    return op == SoftmaxOp::kLogSoftmax
               ? Launch(SoftmaxKernel<true, T>, RowBlocks(rows), kThreadsPerBlock, stream, x, y,
                        rows, depth)
               : Launch(SoftmaxKernel<false, T>, RowBlocks(rows), kThreadsPerBlock, stream, x, y,
                        rows, depth);
  });
}

gpuError_t LaunchSparseSoftmaxCrossEntropy(ElementType type, ElementType label_type,
                                           const void* logits, const void* labels, void* loss,
                                           void* backprop, int64_t rows, int64_t depth,
                                           gpuStream_t stream) {
  if (rows == 0) return gpuSuccess;
  return DispatchFloating(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    const auto* x = static_cast<const T*>(logits);
    auto* l = static_cast<T*>(loss);
    auto* b = static_cast<T*>(backprop);
    if (label_type == ElementType::kInt32) {
      return Launch(SparseXentKernel<T, int32_t>, RowBlocks(rows), kThreadsPerBlock, stream, x,
                    static_cast<const int32_t*>(labels), l, b, rows, depth);
    }
    if (label_type == ElementType::kInt64) {
      return Launch(SparseXentKernel<T, int64_t>, RowBlocks(rows), kThreadsPerBlock, stream, x,
                    static_cast<const int64_t*>(labels), l, b, rows, depth);
    }
    return gpuErrorInvalidValue;
  });
}

gpuError_t LaunchSoftmaxCrossEntropy(ElementType type, const void* logits, const void* labels,
                                     void* loss, void* backprop, int64_t rows, int64_t depth,
                                     gpuStream_t stream) {
  if (rows == 0) return gpuSuccess;
  return DispatchFloating(type, [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    return Launch(XentKernel<T>, RowBlocks(rows), kThreadsPerBlock, stream,
                  static_cast<const T*>(logits), static_cast<const T*>(labels),
                  static_cast<T*>(loss), static_cast<T*>(backprop), rows, depth);
  });
}

}  // namespace tessera::gpu
