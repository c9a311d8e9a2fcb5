// GemmSerial's last resort: Eigen's single-threaded product over strided row-major maps.
#include <Eigen/Core>

#include "plugins/cpu/kernels/gemm/gemm_backends.h"

namespace tessera::cpu::internal {
namespace {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MutableMap = Eigen::Map<RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T>
void Multiply(const GemmArgs<T>& args) {
  ConstMap<T> a(args.a, args.transpose_a ? args.k : args.m, args.transpose_a ? args.m : args.k,
                Eigen::OuterStride<>(args.lda));
  ConstMap<T> b(args.b, args.transpose_b ? args.n : args.k, args.transpose_b ? args.k : args.n,
                Eigen::OuterStride<>(args.ldb));
  MutableMap<T> c(args.c, args.m, args.n, Eigen::OuterStride<>(args.ldc));
  if (args.beta == T(0)) {
    c.setZero();
  } else if (args.beta != T(1)) {
    c *= args.beta;
  }
  if (args.transpose_a && args.transpose_b) {
    c.noalias() += args.alpha * a.transpose() * b.transpose();
  } else if (args.transpose_a) {
    c.noalias() += args.alpha * a.transpose() * b;
  } else if (args.transpose_b) {
    c.noalias() += args.alpha * a * b.transpose();
  } else {
    c.noalias() += args.alpha * a * b;
  }
}

}  // namespace

void EigenGemm(const GemmArgs<float>& args) { Multiply(args); }
void EigenGemm(const GemmArgs<double>& args) { Multiply(args); }

}  // namespace tessera::cpu::internal
