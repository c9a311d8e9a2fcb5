// half (IEEE binary16) values for kernel tests, without Eigen: normal numbers and zero only,
// rounded to nearest even.
#ifndef TESSERA_TESTS_KERNELS_CPU_HALF_TEST_UTIL_H_
#define TESSERA_TESTS_KERNELS_CPU_HALF_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {

inline uint16_t HalfBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  if (value == 0 || exponent <= 0) return sign;
  const uint32_t mantissa = bits & 0x7FFFFF;
  uint32_t half = (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

inline float HalfValue(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1F;
  const float magnitude =
      exponent == 0 ? 0.0f
                    : std::ldexp(1.0f + static_cast<float>(bits & 0x3FF) / 1024.0f, exponent - 15);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

// The nearest half to `value`, as a float.
inline float RoundToHalf(float value) { return HalfValue(HalfBits(value)); }

inline Tensor HalfTensor(const TensorShape& shape, const std::vector<float>& values) {
  Tensor t(TSR_DTYPE_HALF, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data<uint16_t>()[i] = HalfBits(values[i]);
  return t;
}

}  // namespace tessera::cpu::test

#endif  // TESSERA_TESTS_KERNELS_CPU_HALF_TEST_UTIL_H_
