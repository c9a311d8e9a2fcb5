// Eigen maps over kernel tensor views; include only from translation units that use Eigen.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_EIGEN_UTIL_H_
#define TESSERA_PLUGINS_CPU_KERNELS_EIGEN_UTIL_H_

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include "plugins/cpu/kernels/kernel_util.h"
#include "tessera/sdk/eigen_thread_pool.h"
#include "tessera/sdk/tensor_view.h"

namespace tessera::cpu {

// Views may start anywhere the host put them (forwarded or sliced buffers): map them unaligned.
template <typename T, int Rank>
using TensorMap =
    Eigen::TensorMap<Eigen::Tensor<T, Rank, Eigen::RowMajor, Eigen::DenseIndex>, Eigen::Unaligned>;

template <typename T>
TensorMap<T, 1> Flat(const sdk::TensorView& view) {
  return TensorMap<T, 1>(view.data<T>(), static_cast<Eigen::DenseIndex>(view.num_elements()));
}

template <typename T>
TensorMap<const T, 1> ConstFlat(const sdk::TensorView& view) {
  return TensorMap<const T, 1>(view.data<const T>(),
                               static_cast<Eigen::DenseIndex>(view.num_elements()));
}

template <typename T>
TensorMap<T, 2> Matrix(T* data, int64_t rows, int64_t cols) {
  return TensorMap<T, 2>(data, static_cast<Eigen::DenseIndex>(rows),
                         static_cast<Eigen::DenseIndex>(cols));
}

// Eigen's estimate of the cycles one coefficient of `expr` costs (its loads, stores and compute),
// as a ParallelFor cost per unit.
template <typename Expr>
int64_t CostPerCoefficient(const Expr& expr) {
  Eigen::DefaultDevice device;
  const Eigen::TensorEvaluator<const Expr, Eigen::DefaultDevice> evaluator(expr, device);
  return CostPerUnit(Eigen::TensorCostModel<Eigen::DefaultDevice>::totalCost(
      1, evaluator.costPerCoeff(/*vectorized=*/true)));
}

// out[i] = expression for the `n` coefficients of `out`, in ParallelFor shards of the host's pool,
// each shard with Eigen's vectorised single-threaded evaluator: make(begin, size) returns the
// expression of coefficients [begin, begin + size). The calling thread computes a shard of its
// own (with Eigen's thread-pool device it would only wait for the pool's threads).
template <typename T, typename Make>
void EvaluateSharded(const KernelContext& ctx, T* out, int64_t n, Make&& make) {
  const int64_t cost = CostPerCoefficient(make(0, 0));
  ctx.ParallelFor(n, cost, [&](int64_t begin, int64_t end) {
    TensorMap<T, 1>(out + begin, static_cast<Eigen::DenseIndex>(end - begin)) =
        make(begin, end - begin);
  });
}

// The flat map of `size` coefficients from `begin` of a tensor's data.
template <typename T>
TensorMap<const T, 1> FlatRange(const T* data, int64_t begin, int64_t size) {
  return TensorMap<const T, 1>(data + begin, static_cast<Eigen::DenseIndex>(size));
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_EIGEN_UTIL_H_
