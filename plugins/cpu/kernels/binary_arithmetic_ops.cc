// Add, AddV2, Sub and Mul on CPU (float, double, int32, int64).
#include "plugins/cpu/kernels/binary_op.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename T>
using SumOp = Eigen::internal::scalar_sum_op<T, T>;
template <typename T>
using DifferenceOp = Eigen::internal::scalar_difference_op<T, T>;
template <typename T>
using ProductOp = Eigen::internal::scalar_product_op<T, T>;

}  // namespace

Status RegisterBinaryArithmeticKernels(TSR_Registrar* registrar) {
  // One kernel class serves Add and AddV2 (they differ only for strings in TensorFlow).
  TSR_SDK_RETURN_IF_ERROR((RegisterBinaryKernel<SumOp, float, double, int32_t, int64_t>(
      registrar, "Add", RealNumberTypes())));
  TSR_SDK_RETURN_IF_ERROR((RegisterBinaryKernel<SumOp, float, double, int32_t, int64_t>(
      registrar, "AddV2", RealNumberTypes())));
  TSR_SDK_RETURN_IF_ERROR((RegisterBinaryKernel<DifferenceOp, float, double, int32_t, int64_t>(
      registrar, "Sub", RealNumberTypes())));
  return RegisterBinaryKernel<ProductOp, float, double, int32_t, int64_t>(registrar, "Mul",
                                                                          RealNumberTypes());
}

}  // namespace tessera::cpu
