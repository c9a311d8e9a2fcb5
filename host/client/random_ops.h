// Typed wrappers of TensorFlow's stateful random ops: RandomUniform, RandomNormal (the op
// RandomStandardNormal), TruncatedNormal and RandomUniformInt.
//
//   auto noise = ops::RandomNormal(root, {64, 10}, DT_FLOAT, ops::RandomNormal::Seed(1).Seed2(2));
//
// Each node keeps a generator across the steps of a session: successive runs continue its
// stream. Seeds (seed, seed2) = (0, 0), the default, draw a non-deterministic seed; any other
// pair gives TensorFlow's values for that pair. PythonSeeds maps TensorFlow Python's global and
// op seeds to the pair its ops receive.
#ifndef TESSERA_HOST_CLIENT_RANDOM_OPS_H_
#define TESSERA_HOST_CLIENT_RANDOM_OPS_H_

#include <cstdint>
#include <optional>

#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// The attrs of every random op here.
struct RandomAttrs {
  RandomAttrs Seed(int64_t x) const {
    RandomAttrs ret = *this;
    ret.seed_ = x;
    return ret;
  }
  RandomAttrs Seed2(int64_t x) const {
    RandomAttrs ret = *this;
    ret.seed2_ = x;
    return ret;
  }
  int64_t seed_ = 0;
  int64_t seed2_ = 0;
};

// Uniform values in [0, 1) of type `dtype` (half, bfloat16, float or double) with the shape given
// by the int32/int64 vector `shape`. Attrs dtype, seed, seed2, T.
class RandomUniform {
 public:
  using Attrs = RandomAttrs;
  RandomUniform(const Scope& scope, Input shape, DataType dtype);
  RandomUniform(const Scope& scope, Input shape, DataType dtype, const Attrs& attrs);
  static Attrs Seed(int64_t x) { return Attrs().Seed(x); }
  static Attrs Seed2(int64_t x) { return Attrs().Seed2(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Standard normal values; the op is RandomStandardNormal (TensorFlow's C++ class and default
// node name are RandomNormal). Attrs as RandomUniform.
class RandomNormal {
 public:
  using Attrs = RandomAttrs;
  RandomNormal(const Scope& scope, Input shape, DataType dtype);
  RandomNormal(const Scope& scope, Input shape, DataType dtype, const Attrs& attrs);
  static Attrs Seed(int64_t x) { return Attrs().Seed(x); }
  static Attrs Seed2(int64_t x) { return Attrs().Seed2(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Standard normal values redrawn until they lie inside (-2, 2). Attrs as RandomUniform.
class TruncatedNormal {
 public:
  using Attrs = RandomAttrs;
  TruncatedNormal(const Scope& scope, Input shape, DataType dtype);
  TruncatedNormal(const Scope& scope, Input shape, DataType dtype, const Attrs& attrs);
  static Attrs Seed(int64_t x) { return Attrs().Seed(x); }
  static Attrs Seed2(int64_t x) { return Attrs().Seed2(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Integers in [minval, maxval) (scalars of one type, int32 or int64; running with
// minval >= maxval is an error unless the output is empty). Attrs seed, seed2, Tout, T.
class RandomUniformInt {
 public:
  using Attrs = RandomAttrs;
  RandomUniformInt(const Scope& scope, Input shape, Input minval, Input maxval);
  RandomUniformInt(const Scope& scope, Input shape, Input minval, Input maxval, const Attrs& attrs);
  static Attrs Seed(int64_t x) { return Attrs().Seed(x); }
  static Attrs Seed2(int64_t x) { return Attrs().Seed2(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The (seed, seed2) that TensorFlow Python gives a random op, from the global seed
// (tf.random.set_seed; none when unset) and the op's `seed` argument. Both are reduced modulo
// 2^31 - 1; an unset global seed becomes 87654321; the pair (0, 0) becomes (0, 2^31 - 1) so that
// it stays deterministic. When Python picks the op seed itself (global seed only), pass the one it
// picks: in a TensorFlow 1 graph, the id of the last op created before the random op.
RandomAttrs PythonSeeds(std::optional<int64_t> global_seed, int64_t op_seed);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_RANDOM_OPS_H_
