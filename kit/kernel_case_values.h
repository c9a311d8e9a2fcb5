// Random input values of the kernel suite, for every dense numeric dtype, and the conversions
// of half and bfloat16 that the suite needs on the host side.
#ifndef TESSERA_KIT_KERNEL_CASE_VALUES_H_
#define TESSERA_KIT_KERNEL_CASE_VALUES_H_

#include <cstdint>
#include <random>
#include <vector>

#include "host/runtime/tensor.h"

namespace tessera::plugin_check {

// The range random inputs are drawn from.
enum class ValueDomain {
  kAny,       // floats in [-2, 2]; integers in [-5, 5] ([0, 10] unsigned)
  kPositive,  // floats in [0.1, 4]; integers in [1, 10]
  kNonZero,   // floats in +-[0.5, 2]; integers in +-[1, 5] ([1, 10] unsigned)
  kUnit,      // floats in [0.5, 1.5] (products stay near 1); integers in [1, 2]
};

// True for the dtypes RandomValues fills: every dense numeric type and bool.
bool CanGenerateValues(DataType dtype);

// A host tensor of `dtype` and `shape` holding random values of `domain` (bool: either value).
// Half and bfloat16 values are multiples of 1/64, exact in both. `dtype` must pass
// CanGenerateValues.
Tensor RandomValues(DataType dtype, const TensorShape& shape, ValueDomain domain,
                    std::mt19937_64* random);

// A vector or a scalar of an integer dtype (int32 or int64) holding `values`.
Tensor IntVector(DataType dtype, const std::vector<int64_t>& values);
Tensor IntScalar(DataType dtype, int64_t value);
// A scalar of any dtype CanGenerateValues accepts holding `value`, an integer small enough to be
// exact in every one of them (|value| < 128).
Tensor SmallIntegerScalar(DataType dtype, int64_t value);

// IEEE half and bfloat16 bits to float (exact).
float HalfToFloat(uint16_t bits);
float BFloat16ToFloat(uint16_t bits);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_KERNEL_CASE_VALUES_H_
