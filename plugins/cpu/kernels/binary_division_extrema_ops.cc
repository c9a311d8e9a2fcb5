// RealDiv (float, double: TensorFlow registers no integer RealDiv on CPU), Maximum and Minimum
// (float, double, int32, int64; NaN propagates as in TensorFlow).
#include "plugins/cpu/kernels/binary_op.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename T>
using QuotientOp = Eigen::internal::scalar_quotient_op<T, T>;
template <typename T>
using MaxOp = Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>;
template <typename T>
using MinOp = Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>;

}  // namespace

Status RegisterBinaryDivisionExtremaKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(
      (RegisterBinaryKernel<QuotientOp, float, double>(registrar, "RealDiv", FloatingTypes())));
  TESSERA_SDK_RETURN_IF_ERROR((RegisterBinaryKernel<MaxOp, float, double, int32_t, int64_t>(
      registrar, "Maximum", RealNumberTypes())));
  return RegisterBinaryKernel<MinOp, float, double, int32_t, int64_t>(registrar, "Minimum",
                                                                      RealNumberTypes());
}

}  // namespace tessera::cpu
