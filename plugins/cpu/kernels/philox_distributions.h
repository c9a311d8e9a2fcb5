// TensorFlow's distributions over Philox4x32 blocks (uniform, standard normal, truncated normal,
// uniform integers) and the block-sharded fill that makes a tensor's values independent of how
// its work is split between threads.
//
// The conversions reproduce TensorFlow's bit for bit: a uniform float puts 23 random bits in the
// mantissa of a number in [1, 2) and subtracts 1 (a double takes 52 bits from two words, half 10
// and bfloat16 7 bits from the low half of a word); normals are Box-Muller pairs computed in
// float (half and bfloat16 round the float result) or in double; the truncated normal redraws
// pairs until four (double: two) values lie strictly inside (-2, 2); integers in [lo, hi) are the
// low word (int32) or two words (int64) modulo hi - lo, as unsigned numbers.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_PHILOX_DISTRIBUTIONS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_PHILOX_DISTRIBUTIONS_H_

#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "plugins/cpu/kernels/philox.h"

namespace tessera::cpu {

// The 16-bit storage of half and bfloat16 outputs.
struct Half {
  uint16_t bits;
};
struct Bfloat16 {
  uint16_t bits;
};

// Every output reserves this many blocks of the kernel's generator, so that a step never reuses
// the blocks of an earlier step whatever the distribution consumes (TensorFlow's multiplier).
inline constexpr uint64_t kReservedBlocksPerOutput = 256;
// A truncated-normal group may draw up to kGroupSize * 256 words, starting at its own offset.
inline constexpr int64_t kReservedWordsPerTruncatedOutput = 256;

// ---- Conversions ----

// [0, 1) from the low 23 bits of `x`.
inline float UnitFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float one_to_two;
  std::memcpy(&one_to_two, &bits, sizeof(bits));
  return one_to_two - 1.0f;
}

// [0, 1) from the low 20 bits of `high` and all of `low`.
inline double UnitDouble(uint32_t high, uint32_t low) {
  const uint64_t bits =
      (uint64_t{1023} << 52) | (static_cast<uint64_t>(high & 0xfffffu) << 32) | low;
  double one_to_two;
  std::memcpy(&one_to_two, &bits, sizeof(bits));
  return one_to_two - 1.0;
}

// Round-to-nearest-even float -> IEEE half, with subnormals, infinities and NaN.
inline uint16_t FloatToHalfBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint32_t sign = bits & 0x80000000u;
  bits ^= sign;
  uint16_t out;
  if (bits >= (143u << 23)) {  // at least 2^16: overflows half (or is Inf/NaN)
    out = bits > (255u << 23) ? 0x7e00 : 0x7c00;
  } else if (bits < (113u << 23)) {  // below 2^-14: a half subnormal or zero
    // Adding 0.5 aligns the ten subnormal mantissa bits at the bottom of a float, and the float
    // addition performs the round-to-nearest-even.
    const uint32_t magic_bits = 126u << 23;
    float magic;
    std::memcpy(&magic, &magic_bits, sizeof(magic));
    float shifted;
    std::memcpy(&shifted, &bits, sizeof(shifted));
    shifted += magic;
    uint32_t shifted_bits;
    std::memcpy(&shifted_bits, &shifted, sizeof(shifted_bits));
    out = static_cast<uint16_t>(shifted_bits - magic_bits);
  } else {
    const uint32_t odd = (bits >> 13) & 1u;
    bits += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;
    out = static_cast<uint16_t>(bits >> 13);
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

// Round-to-nearest-even float -> bfloat16; NaN becomes the quiet NaN of its sign.
inline uint16_t FloatToBfloat16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value)) return static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7fc0u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

// Box-Muller in float: two standard normals from two words. The angle is computed in double and
// rounded, the radius in float, as TensorFlow does.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  constexpr float kEpsilon = 1.0e-7f;
  constexpr double kTwoPi = 2.0 * 3.14159265358979323846;
  float u1 = UnitFloat(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const float angle = static_cast<float>(kTwoPi * static_cast<double>(UnitFloat(x1)));
  const float radius = std::sqrt(-2.0f * std::log(u1));
  ::sincosf(angle, f0, f1);
  *f0 *= radius;
  *f1 *= radius;
}

// Box-Muller in double: two standard normals from four words.
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                            double* d1) {
  constexpr double kEpsilon = 1.0e-7;
  constexpr double kTwoPi = 2.0 * 3.14159265358979323846;
  double u1 = UnitDouble(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double angle = kTwoPi * UnitDouble(x2, x3);
  const double radius = std::sqrt(-2.0 * std::log(u1));
  ::sincos(angle, d0, d1);
  *d0 *= radius;
  *d1 *= radius;
}

// A float result stored as T (float, Half or Bfloat16).
template <typename T>
T FromFloat(float value) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{FloatToHalfBits(value)};
  } else if constexpr (std::is_same_v<T, Bfloat16>) {
    return Bfloat16{FloatToBfloat16Bits(value)};
  } else {
    return value;
  }
}

// ---- Distributions ----
//
// Each has `Element` (the stored type), `kGroupSize` (outputs per group), `kElementCost`
// (estimated cycles per output, TensorFlow's figures) and `kVariableSamples`. A fixed-sample
// distribution turns one block into one group: `operator()(Philox4x32*, Element*)`. A
// variable-sample one draws words until its group is full: `operator()(PhiloxWords*, Element*)`.

template <typename T>
class UniformDistribution {  // float, Half, Bfloat16
 public:
  using Element = T;
  static constexpr int kGroupSize = 4;
  static constexpr int kElementCost = 3;
  static constexpr bool kVariableSamples = false;
  void operator()(Philox4x32* generator, T* out) const {
    const Philox4x32::Block block = (*generator)();
    for (int i = 0; i < kGroupSize; ++i) {
      if constexpr (std::is_same_v<T, Half>) {
        out[i] = Half{FloatToHalfBits(static_cast<float>(block[i] & 0x3ffu) / 1024.0f)};
      } else if constexpr (std::is_same_v<T, Bfloat16>) {
        out[i] = Bfloat16{FloatToBfloat16Bits(static_cast<float>(block[i] & 0x7fu) / 128.0f)};
      } else {
        out[i] = UnitFloat(block[i]);
      }
    }
  }
};

template <>
class UniformDistribution<double> {
 public:
  using Element = double;
  static constexpr int kGroupSize = 2;
  static constexpr int kElementCost = 3;
  static constexpr bool kVariableSamples = false;
  void operator()(Philox4x32* generator, double* out) const {
    const Philox4x32::Block block = (*generator)();
    out[0] = UnitDouble(block[0], block[1]);
    out[1] = UnitDouble(block[2], block[3]);
  }
};

// Integers in [lo, hi); requires lo < hi.
template <typename T>
class UniformIntDistribution;

template <>
class UniformIntDistribution<int32_t> {
 public:
  using Element = int32_t;
  static constexpr int kGroupSize = 4;
  static constexpr int kElementCost = 3;
  static constexpr bool kVariableSamples = false;
  UniformIntDistribution(int32_t lo, int32_t hi)
      : lo_(static_cast<uint32_t>(lo)), range_(static_cast<uint32_t>(hi) - lo_) {}
  void operator()(Philox4x32* generator, int32_t* out) const {
    const Philox4x32::Block block = (*generator)();
    for (int i = 0; i < kGroupSize; ++i) out[i] = static_cast<int32_t>(lo_ + block[i] % range_);
  }

 private:
  uint32_t lo_;
  uint32_t range_;  // hi - lo fits in unsigned even when it overflows the signed type
};

template <>
class UniformIntDistribution<int64_t> {
 public:
  using Element = int64_t;
  static constexpr int kGroupSize = 2;
  static constexpr int kElementCost = 3;
  static constexpr bool kVariableSamples = false;
  UniformIntDistribution(int64_t lo, int64_t hi)
      : lo_(static_cast<uint64_t>(lo)), range_(static_cast<uint64_t>(hi) - lo_) {}
  void operator()(Philox4x32* generator, int64_t* out) const {
    const Philox4x32::Block block = (*generator)();
    for (int i = 0; i < kGroupSize; ++i) {
      const uint64_t bits = block[2 * i] | (static_cast<uint64_t>(block[2 * i + 1]) << 32);
      out[i] = static_cast<int64_t>(lo_ + bits % range_);
    }
  }

 private:
  uint64_t lo_;
  uint64_t range_;
};

template <typename T>
class NormalDistribution {  // float, Half, Bfloat16
 public:
  using Element = T;
  static constexpr int kGroupSize = 4;
  static constexpr int kElementCost = 70;
  static constexpr bool kVariableSamples = false;
  void operator()(Philox4x32* generator, T* out) const {
    const Philox4x32::Block block = (*generator)();
    for (int i = 0; i < kGroupSize; i += 2) {
      float f[2];
      BoxMullerFloat(block[i], block[i + 1], &f[0], &f[1]);
      out[i] = FromFloat<T>(f[0]);
      out[i + 1] = FromFloat<T>(f[1]);
    }
  }
};

template <>
class NormalDistribution<double> {
 public:
  using Element = double;
  static constexpr int kGroupSize = 2;
  static constexpr int kElementCost = 70;
  static constexpr bool kVariableSamples = false;
  void operator()(Philox4x32* generator, double* out) const {
    const Philox4x32::Block block = (*generator)();
    BoxMullerDouble(block[0], block[1], block[2], block[3], &out[0], &out[1]);
  }
};

template <typename T>
class TruncatedNormalDistribution {  // float, Half, Bfloat16
 public:
  using Element = T;
  static constexpr int kGroupSize = 4;
  static constexpr int kElementCost = 90;
  static constexpr bool kVariableSamples = true;
  void operator()(PhiloxWords* words, T* out) const {
    int filled = 0;
    while (true) {
      const uint32_t x0 = (*words)();
      const uint32_t x1 = (*words)();
      float f[2];
      BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (float value : f) {
        if (std::fabs(value) < 2.0f) {
          out[filled++] = FromFloat<T>(value);
          if (filled == kGroupSize) return;
        }
      }
    }
  }
};

template <>
class TruncatedNormalDistribution<double> {
 public:
  using Element = double;
  static constexpr int kGroupSize = 2;
  static constexpr int kElementCost = 90;
  static constexpr bool kVariableSamples = true;
  void operator()(PhiloxWords* words, double* out) const {
    int filled = 0;
    while (true) {
      const uint32_t x0 = (*words)();
      const uint32_t x1 = (*words)();
      const uint32_t x2 = (*words)();
      const uint32_t x3 = (*words)();
      double d[2];
      BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
      for (double value : d) {
        if (std::fabs(value) < 2.0) {
          out[filled++] = value;
          if (filled == kGroupSize) return;
        }
      }
    }
  }
};

// ---- Filling ----

// Number of groups covering `size` outputs.
template <typename Distribution>
int64_t NumGroups(int64_t size) {
  return (size + Distribution::kGroupSize - 1) / Distribution::kGroupSize;
}

// Writes groups [begin_group, end_group) of the `size` outputs at `data`, drawing from `base` (the
// generator as it stood for output 0). A fixed-sample group g uses block g; a variable-sample
// group g starts its words at block g * kGroupSize * 256 / 4. Any split of the groups into calls
// therefore gives the same tensor.
template <typename Distribution>
void FillGroups(const Philox4x32& base, typename Distribution::Element* data, int64_t size,
                int64_t begin_group, int64_t end_group, const Distribution& distribution) {
  using Element = typename Distribution::Element;
  constexpr int kGroupSize = Distribution::kGroupSize;
  Element partial[kGroupSize];
  Philox4x32 generator = base;
  if constexpr (!Distribution::kVariableSamples) generator.Skip(static_cast<uint64_t>(begin_group));
  for (int64_t group = begin_group; group < end_group; ++group) {
    const int64_t offset = group * kGroupSize;
    const bool full = size - offset >= kGroupSize;
    Element* out = full ? data + offset : partial;
    if constexpr (Distribution::kVariableSamples) {
      constexpr uint64_t kBlocksPerGroup =
          kGroupSize * kReservedWordsPerTruncatedOutput / Philox4x32::kBlockSize;
      generator = base;
      generator.Skip(static_cast<uint64_t>(group) * kBlocksPerGroup);
      PhiloxWords words(&generator);
      distribution(&words, out);
    } else {
      distribution(&generator, out);
    }
    if (!full) std::copy(partial, partial + (size - offset), data + offset);
  }
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_PHILOX_DISTRIBUTIONS_H_
