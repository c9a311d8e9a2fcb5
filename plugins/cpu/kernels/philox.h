// Philox4x32-10, the counter-based generator behind TensorFlow's random ops, seeded and skipped
// exactly as TensorFlow seeds and skips it.
//
// The generator maps a 128-bit counter and a 64-bit key to one 128-bit block (four uint32) in ten
// rounds (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11). Each call returns
// the block of the current counter and then increments the counter, so `Skip(n)` jumps over n
// blocks in constant time; shards of a large tensor use it to start at their own block and
// produce the same values whatever the sharding.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_PHILOX_H_
#define TESSERA_PLUGINS_CPU_KERNELS_PHILOX_H_

#include <array>
#include <cstdint>

namespace tessera::cpu {

class Philox4x32 {
 public:
  // One output block, and also the shape of the counter.
  using Block = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;
  static constexpr int kBlockSize = 4;

  // Zero counter and key.
  Philox4x32() = default;
  // TensorFlow's seeding from the (seed, seed2) attributes: the key is `seed` (low word first),
  // counter words 2 and 3 are `seed2` (low word first), counter words 0 and 1 start at zero.
  Philox4x32(uint64_t seed, uint64_t seed2)
      : counter_{0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)},
        key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)} {}
  Philox4x32(const Block& counter, const Key& key) : counter_(counter), key_(key) {}

  const Block& counter() const { return counter_; }
  const Key& key() const { return key_; }

  // Advances the counter by `blocks`. As in TensorFlow, the 64-bit count is added to the low two
  // words and a carry out of word 1 propagates into words 2 and 3.
  void Skip(uint64_t blocks) {
    const uint32_t low = static_cast<uint32_t>(blocks);
    uint32_t high = static_cast<uint32_t>(blocks >> 32);
    counter_[0] += low;
    if (counter_[0] < low) ++high;
    counter_[1] += high;
    if (counter_[1] < high) {
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  // The block of the current counter; then moves to the next counter.
  Block operator()() {
    Block out = Generate(counter_, key_);
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) ++counter_[3];
    return out;
  }

  // The ten-round bijection itself, for a given counter and key.
  static Block Generate(Block counter, Key key) {
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key[0] += kWeylA;
        key[1] += kWeylB;
      }
      counter = Round(counter, key);
    }
    return counter;
  }

 private:
  // The multipliers and Weyl key increments recommended by the Philox paper.
  static constexpr uint32_t kMultiplierA = 0xD2511F53u;
  static constexpr uint32_t kMultiplierB = 0xCD9E8D57u;
  static constexpr uint32_t kWeylA = 0x9E3779B9u;
  static constexpr uint32_t kWeylB = 0xBB67AE85u;

  static Block Round(const Block& counter, const Key& key) {
    const uint64_t product_a = static_cast<uint64_t>(kMultiplierA) * counter[0];
    const uint64_t product_b = static_cast<uint64_t>(kMultiplierB) * counter[2];
    return Block{static_cast<uint32_t>(product_b >> 32) ^ counter[1] ^ key[0],
                 static_cast<uint32_t>(product_b),
                 static_cast<uint32_t>(product_a >> 32) ^ counter[3] ^ key[1],
                 static_cast<uint32_t>(product_a)};
  }

  Block counter_{};
  Key key_{};
};

// Hands out the words of successive blocks one at a time (TensorFlow's SingleSampleAdapter), for
// distributions that consume a variable number of words per output.
class PhiloxWords {
 public:
  explicit PhiloxWords(Philox4x32* generator) : generator_(generator) {}

  uint32_t operator()() {
    if (next_ == Philox4x32::kBlockSize) {
      block_ = (*generator_)();
      next_ = 0;
    }
    return block_[next_++];
  }

 private:
  Philox4x32* generator_;
  Philox4x32::Block block_{};
  int next_ = Philox4x32::kBlockSize;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_PHILOX_H_
