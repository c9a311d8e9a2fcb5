// Random values per dtype. Half and bfloat16 are produced from floats that both formats hold
// exactly, so no rounding mode is involved.
#include "kit/kernel_case_values.h"

#include <cmath>
#include <complex>
#include <cstring>

namespace tessera::plugin_check {
namespace {

struct Range {
  double low, high;
};

Range FloatRange(ValueDomain domain) {
  switch (domain) {
    case ValueDomain::kPositive: return {0.1, 4};
    case ValueDomain::kNonZero: return {0.5, 2};  // sign drawn separately
    case ValueDomain::kUnit: return {0.5, 1.5};
    case ValueDomain::kAny: break;
  }
  return {-2, 2};
}

Range IntRange(ValueDomain domain, bool is_unsigned) {
  switch (domain) {
    case ValueDomain::kPositive: return {1, 10};
    case ValueDomain::kNonZero: return is_unsigned ? Range{1, 10} : Range{1, 5};
    case ValueDomain::kUnit: return {1, 2};
    case ValueDomain::kAny: break;
  }
  return is_unsigned ? Range{0, 10} : Range{-5, 5};
}

double Sign(ValueDomain domain, std::mt19937_64* random) {
  if (domain != ValueDomain::kNonZero) return 1;
  return std::bernoulli_distribution(0.5)(*random) ? 1 : -1;
}

double RandomFloat(ValueDomain domain, std::mt19937_64* random) {
  const Range r = FloatRange(domain);
  return Sign(domain, random) * std::uniform_real_distribution<double>(r.low, r.high)(*random);
}

// A multiple of 1/64 within the domain: at most 9 significant bits, exact in half and bfloat16.
float RandomCoarseFloat(ValueDomain domain, std::mt19937_64* random) {
  const Range r = FloatRange(domain);
  const auto low = static_cast<int64_t>(std::ceil(r.low * 64));
  const auto high = static_cast<int64_t>(std::floor(r.high * 64));
  const int64_t k = std::uniform_int_distribution<int64_t>(low, high)(*random);
  return static_cast<float>(Sign(domain, random) * static_cast<double>(k) / 64);
}

int64_t RandomInt(ValueDomain domain, bool is_unsigned, std::mt19937_64* random) {
  const Range r = IntRange(domain, is_unsigned);
  const auto value = std::uniform_int_distribution<int64_t>(static_cast<int64_t>(r.low),
                                                            static_cast<int64_t>(r.high))(*random);
  return static_cast<int64_t>(Sign(is_unsigned ? ValueDomain::kAny : domain, random)) * value;
}

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// Exact for floats with at most 11 significant bits in half's normal range (RandomCoarseFloat's).
uint16_t FloatToHalf(float value) {
  const uint32_t bits = FloatBits(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if ((bits & 0x7fffffff) == 0) return sign;
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3ff));
}

template <typename T>
void FillInts(const Tensor& t, ValueDomain domain, std::mt19937_64* random) {
  for (T& v : t.flat<T>()) v = static_cast<T>(RandomInt(domain, !std::is_signed_v<T>, random));
}

template <typename T>
void FillFloats(const Tensor& t, ValueDomain domain, std::mt19937_64* random) {
  for (T& v : t.flat<T>()) v = static_cast<T>(RandomFloat(domain, random));
}

template <typename T>
void FillComplex(const Tensor& t, ValueDomain domain, std::mt19937_64* random) {
  auto* values = static_cast<std::complex<T>*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const T re = static_cast<T>(RandomFloat(domain, random));
    values[i] = {re, static_cast<T>(RandomFloat(domain, random))};
  }
}

}  // namespace

bool CanGenerateValues(DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_FLOAT: case TSR_DTYPE_DOUBLE: case TSR_DTYPE_HALF: case TSR_DTYPE_BFLOAT16:
    case TSR_DTYPE_INT8: case TSR_DTYPE_INT16: case TSR_DTYPE_INT32: case TSR_DTYPE_INT64:
    case TSR_DTYPE_UINT8: case TSR_DTYPE_UINT16: case TSR_DTYPE_UINT32: case TSR_DTYPE_UINT64:
    case TSR_DTYPE_BOOL: case TSR_DTYPE_COMPLEX64: case TSR_DTYPE_COMPLEX128:
      return true;
    default:
      return false;
  }
}

Tensor RandomValues(DataType dtype, const TensorShape& shape, ValueDomain domain,
                    std::mt19937_64* random) {
  Tensor t(dtype, shape);
  switch (dtype) {
    case TSR_DTYPE_FLOAT: FillFloats<float>(t, domain, random); break;
    case TSR_DTYPE_DOUBLE: FillFloats<double>(t, domain, random); break;
    case TSR_DTYPE_INT8: FillInts<int8_t>(t, domain, random); break;
    case TSR_DTYPE_INT16: FillInts<int16_t>(t, domain, random); break;
    case TSR_DTYPE_INT32: FillInts<int32_t>(t, domain, random); break;
    case TSR_DTYPE_INT64: FillInts<int64_t>(t, domain, random); break;
    case TSR_DTYPE_UINT8: FillInts<uint8_t>(t, domain, random); break;
    case TSR_DTYPE_UINT16: FillInts<uint16_t>(t, domain, random); break;
    case TSR_DTYPE_UINT32: FillInts<uint32_t>(t, domain, random); break;
    case TSR_DTYPE_UINT64: FillInts<uint64_t>(t, domain, random); break;
    case TSR_DTYPE_COMPLEX64: FillComplex<float>(t, domain, random); break;
    case TSR_DTYPE_COMPLEX128: FillComplex<double>(t, domain, random); break;
    case TSR_DTYPE_BOOL:
      for (bool& v : t.flat<bool>()) v = std::bernoulli_distribution(0.5)(*random);
      break;
    case TSR_DTYPE_HALF:
      for (uint16_t& v : t.flat<uint16_t>()) v = FloatToHalf(RandomCoarseFloat(domain, random));
      break;
    case TSR_DTYPE_BFLOAT16:
      for (uint16_t& v : t.flat<uint16_t>()) {
        v = static_cast<uint16_t>(FloatBits(RandomCoarseFloat(domain, random)) >> 16);
      }
      break;
    default:
      break;  // CanGenerateValues is false: the caller never asks
  }
  return t;
}

Tensor IntVector(DataType dtype, const std::vector<int64_t>& values) {
  Tensor t(dtype, TensorShape{static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == TSR_DTYPE_INT64) {
      t.data<int64_t>()[i] = values[i];
    } else {
      t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  }
  return t;
}

Tensor IntScalar(DataType dtype, int64_t value) {
  return IntVector(dtype, {value}).Reshaped(TensorShape{});
}

Tensor SmallIntegerScalar(DataType dtype, int64_t value) {
  Tensor t(dtype, TensorShape{});
  const auto f = static_cast<float>(value);
  switch (dtype) {
    case TSR_DTYPE_FLOAT: *t.data<float>() = f; break;
    case TSR_DTYPE_DOUBLE: *t.data<double>() = static_cast<double>(value); break;
    case TSR_DTYPE_HALF: *t.data<uint16_t>() = FloatToHalf(f); break;
    case TSR_DTYPE_BFLOAT16: *t.data<uint16_t>() = static_cast<uint16_t>(FloatBits(f) >> 16); break;
    case TSR_DTYPE_INT8: *t.data<int8_t>() = static_cast<int8_t>(value); break;
    case TSR_DTYPE_INT16: *t.data<int16_t>() = static_cast<int16_t>(value); break;
    case TSR_DTYPE_INT32: *t.data<int32_t>() = static_cast<int32_t>(value); break;
    case TSR_DTYPE_INT64: *t.data<int64_t>() = value; break;
    case TSR_DTYPE_UINT8: *t.data<uint8_t>() = static_cast<uint8_t>(value); break;
    case TSR_DTYPE_UINT16: *t.data<uint16_t>() = static_cast<uint16_t>(value); break;
    case TSR_DTYPE_UINT32: *t.data<uint32_t>() = static_cast<uint32_t>(value); break;
    case TSR_DTYPE_UINT64: *t.data<uint64_t>() = static_cast<uint64_t>(value); break;
    case TSR_DTYPE_BOOL: *t.data<bool>() = value != 0; break;
    case TSR_DTYPE_COMPLEX64:
      static_cast<std::complex<float>*>(t.data())[0] = {f, 0};
      break;
    case TSR_DTYPE_COMPLEX128:
      static_cast<std::complex<double>*>(t.data())[0] = {static_cast<double>(value), 0};
      break;
    default: break;
  }
  return t;
}

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const int exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero and subnormals
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return sign != 0 ? -magnitude : magnitude;
}

float BFloat16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

}  // namespace tessera::plugin_check
