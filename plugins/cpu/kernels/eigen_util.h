// Eigen maps over kernel tensor views; include only from translation units that use Eigen.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_EIGEN_UTIL_H_
#define TESSERA_PLUGINS_CPU_KERNELS_EIGEN_UTIL_H_

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

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

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_EIGEN_UTIL_H_
