// Exp, Log, Sqrt and Rsqrt functors that keep Eigen's vectorized approximations for ordinary
// inputs and give the C library's answer for the inputs where those approximations are wrong.
//
// Debian's Eigen 3.4 builds with EIGEN_FAST_MATH: float sqrt is x * rsqrt(x), which gives NaN for
// +inf and +inf for a negative denormal; exp clamps its argument, so exp(-inf) is a denormal
// instead of 0; log treats a denormal as the smallest normal. TensorFlow's answers are the IEEE
// ones. Each functor computes the packet, tests the packet's inputs for the few cases its
// approximation gets wrong, and, only when a lane has one, redoes those lanes with std::.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_EXACT_MATH_H_
#define TESSERA_PLUGINS_CPU_KERNELS_EXACT_MATH_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "plugins/cpu/kernels/eigen_util.h"

namespace tessera::cpu {

// Lanes of `y` whose `mask` lane is set are replaced by Policy::Exact of the same lane of `x`.
template <typename Policy, typename T, typename Packet>
Packet FixLanes(const Packet& x, Packet y, const Packet& mask) {
  if (!Eigen::internal::predux_any(mask)) return y;
  constexpr int kLanes = Eigen::internal::unpacket_traits<Packet>::size;
  T xs[kLanes];
  T ys[kLanes];
  T ms[kLanes];
  Eigen::internal::pstoreu(xs, x);
  Eigen::internal::pstoreu(ys, y);
  Eigen::internal::pstoreu(ms, mask);
  for (int i = 0; i < kLanes; ++i) {
    // A set mask lane is all ones: a NaN pattern, never equal to itself.
    if (ms[i] != ms[i]) ys[i] = Policy::template Exact<T>(xs[i]);
  }
  return Eigen::internal::ploadu<Packet>(ys);
}

// Exp: Eigen clamps arguments below about -88.4 (float) or -709.4 (double).
struct ExpPolicy {
  template <typename T>
  static T Exact(T x) {
    return std::exp(x);
  }
  template <typename T, typename Packet>
  static Packet Fast(const Packet& x) {
    return Eigen::internal::pexp(x);
  }
  template <typename T, typename Packet>
  static Packet Mask(const Packet& x) {
    const T low = std::is_same_v<T, float> ? T(-87) : T(-708);
    return Eigen::internal::pcmp_lt(x, Eigen::internal::pset1<Packet>(low));
  }
};

// Log: Eigen reads a denormal as the smallest normal number.
struct LogPolicy {
  template <typename T>
  static T Exact(T x) {
    return std::log(x);
  }
  template <typename T, typename Packet>
  static Packet Fast(const Packet& x) {
    return Eigen::internal::plog(x);
  }
  template <typename T, typename Packet>
  static Packet Mask(const Packet& x) {
    return Eigen::internal::pcmp_lt(x, Eigen::internal::pset1<Packet>(std::numeric_limits<T>::min()));
  }
};

// Inputs that are not positive normal finite numbers: zeros, denormals, negatives, inf, NaN.
template <typename T, typename Packet>
Packet NotPositiveNormal(const Packet& x) {
  using Eigen::internal::pcmp_eq;
  using Eigen::internal::pcmp_lt_or_nan;
  using Eigen::internal::por;
  using Eigen::internal::pset1;
  return por(pcmp_lt_or_nan(x, pset1<Packet>(std::numeric_limits<T>::min())),
             pcmp_eq(x, pset1<Packet>(std::numeric_limits<T>::infinity())));
}

// Sqrt: the x86 instructions are correctly rounded (and on current CPUs no slower than Eigen's
// x * rsqrt(x), which misses perfect squares: sqrt(49) = 7.0000005); elsewhere Eigen's packet.
// (Packets are told apart by their scalar and lane count: naming the vector types themselves as
// template arguments drops their attributes.)
template <typename T, typename Packet>
constexpr bool kHasSqrtInstruction =
#if defined(EIGEN_VECTORIZE_SSE2)
    Eigen::internal::unpacket_traits<Packet>::size * sizeof(T) == 16 ||
#endif
#if defined(EIGEN_VECTORIZE_AVX)
    Eigen::internal::unpacket_traits<Packet>::size * sizeof(T) == 32 ||
#endif
    false;

struct SqrtPolicy {
  template <typename T>
  static T Exact(T x) {
    return std::sqrt(x);
  }
  template <typename T, typename Packet>
  static Packet Fast(const Packet& x) {
    constexpr size_t kBytes = Eigen::internal::unpacket_traits<Packet>::size * sizeof(T);
#if defined(EIGEN_VECTORIZE_SSE2)
    if constexpr (kBytes == 16 && std::is_same_v<T, float>) return _mm_sqrt_ps(x);
    if constexpr (kBytes == 16 && std::is_same_v<T, double>) return _mm_sqrt_pd(x);
#endif
#if defined(EIGEN_VECTORIZE_AVX)
    if constexpr (kBytes == 32 && std::is_same_v<T, float>) return _mm256_sqrt_ps(x);
    if constexpr (kBytes == 32 && std::is_same_v<T, double>) return _mm256_sqrt_pd(x);
#endif
    return Eigen::internal::psqrt(x);
  }
  template <typename T, typename Packet>
  static Packet Mask(const Packet& x) {
    if constexpr (kHasSqrtInstruction<T, Packet>) return Eigen::internal::pzero(x);
    return NotPositiveNormal<T>(x);
  }
};

struct RsqrtPolicy {
  template <typename T>
  static T Exact(T x) {
    return T(1) / std::sqrt(x);
  }
  template <typename T, typename Packet>
  static Packet Fast(const Packet& x) {
    return Eigen::internal::prsqrt(x);
  }
  template <typename T, typename Packet>
  static Packet Mask(const Packet& x) {
    return NotPositiveNormal<T>(x);
  }
};

// The element-wise functor Eigen's expressions take (see functor_traits below).
template <typename Policy, typename T>
struct ExactUnaryOp {
  T operator()(const T& x) const { return Policy::template Exact<T>(x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    return FixLanes<Policy, T>(x, Policy::template Fast<T>(x), Policy::template Mask<T>(x));
  }
};

}  // namespace tessera::cpu

namespace Eigen::internal {

template <typename Policy, typename T>
struct functor_traits<tessera::cpu::ExactUnaryOp<Policy, T>> {
  enum {
    Cost = 20 * NumTraits<T>::MulCost,
    PacketAccess = packet_traits<T>::HasExp && packet_traits<T>::HasLog &&
                   packet_traits<T>::HasSqrt && packet_traits<T>::HasRsqrt,
  };
};

}  // namespace Eigen::internal

#endif  // TESSERA_PLUGINS_CPU_KERNELS_EXACT_MATH_H_
