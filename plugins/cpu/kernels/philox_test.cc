// Tests of the Philox4x32-10 generator and TensorFlow's distributions over it: the Random123
// known-answer vectors, TensorFlow's seeding, counter and skip arithmetic, the float conversions,
// and that a sharded fill gives the same values for every split.
#include "plugins/cpu/kernels/philox.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/kernels/philox_distributions.h"

namespace tessera::cpu {
namespace {

using Block = Philox4x32::Block;

// The philox4x32 (10 rounds) known-answer vectors published with Random123 (kat_vectors):
// counter, key, expected block.
TEST(PhiloxTest, MatchesTheRandom123KnownAnswers) {
  EXPECT_EQ(Philox4x32::Generate({0, 0, 0, 0}, {0, 0}),
            (Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32::Generate({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                                 {0xffffffff, 0xffffffff}),
            (Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox4x32::Generate({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                                 {0xa4093822, 0x299f31d0}),
            (Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(PhiloxTest, SeedsTheKeyAndTheHighCounterWordsAsTensorFlow) {
  Philox4x32 generator(0x1122334455667788u, 0x99aabbccddeeff00u);
  EXPECT_EQ(generator.key(), (Philox4x32::Key{0x55667788, 0x11223344}));
  EXPECT_EQ(generator.counter(), (Block{0, 0, 0xddeeff00, 0x99aabbcc}));
  const Block first = generator();
  EXPECT_EQ(first, Philox4x32::Generate({0, 0, 0xddeeff00, 0x99aabbcc}, generator.key()));
  EXPECT_EQ(generator.counter(), (Block{1, 0, 0xddeeff00, 0x99aabbcc}));
}

TEST(PhiloxTest, EachCallIncrementsTheCounterWithCarry) {
  Philox4x32 generator({0xffffffff, 0xffffffff, 0xffffffff, 5}, {7, 9});
  EXPECT_EQ(generator(), Philox4x32::Generate({0xffffffff, 0xffffffff, 0xffffffff, 5}, {7, 9}));
  EXPECT_EQ(generator.counter(), (Block{0, 0, 0, 6}));
}

TEST(PhiloxTest, SkipEqualsThatManyCalls) {
  Philox4x32 called(42, 7);
  Philox4x32 skipped = called;
  for (int i = 0; i < 1000; ++i) called();
  skipped.Skip(1000);
  EXPECT_EQ(skipped.counter(), called.counter());
  EXPECT_EQ(skipped(), called());
}

TEST(PhiloxTest, SkipCarriesIntoTheHighWords) {
  Philox4x32 generator({0xfffffff0, 0xffffffff, 7, 0}, {0, 0});
  generator.Skip(0x20);
  EXPECT_EQ(generator.counter(), (Block{0x10, 0, 8, 0}));
  generator.Skip((uint64_t{3} << 32) | 5);
  EXPECT_EQ(generator.counter(), (Block{0x15, 3, 8, 0}));
  Philox4x32 wrap({0, 0xffffffff, 0xffffffff, 1}, {0, 0});
  wrap.Skip(uint64_t{1} << 32);
  EXPECT_EQ(wrap.counter(), (Block{0, 0, 0, 2}));
}

TEST(PhiloxTest, WordsComeOutInBlockOrder) {
  Philox4x32 generator(3, 4);
  Philox4x32 reference = generator;
  PhiloxWords words(&generator);
  for (int block = 0; block < 3; ++block) {
    const Block expected = reference();
    for (uint32_t word : expected) EXPECT_EQ(words(), word);
  }
}

TEST(PhiloxDistributionsTest, UnitFloatUsesTheLow23Bits) {
  EXPECT_EQ(UnitFloat(0), 0.0f);
  EXPECT_EQ(UnitFloat(0xffffffffu), 1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(UnitFloat(0x80400000u), 0.5f);
  EXPECT_EQ(UnitDouble(0, 0), 0.0);
  EXPECT_EQ(UnitDouble(0xffffffffu, 0xffffffffu), 1.0 - std::ldexp(1.0, -52));
  EXPECT_EQ(UnitDouble(0xfff80000u, 0), 0.5);
  EXPECT_EQ(UnitDouble(0, 1), std::ldexp(1.0, -52));
}

TEST(PhiloxDistributionsTest, HalfConversionRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalfBits(0.1f), 0x2e66);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);  // the tie above the largest half overflows
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie to even
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie to even
  EXPECT_EQ(FloatToHalfBits(1e-7f), 0x0002);                             // subnormal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::quiet_NaN()), 0x7e00);
}

TEST(PhiloxDistributionsTest, Bfloat16ConversionRoundsToNearestEven) {
  EXPECT_EQ(FloatToBfloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBfloat16Bits(0.1f), 0x3dcd);
  EXPECT_EQ(FloatToBfloat16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(FloatToBfloat16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(FloatToBfloat16Bits(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  EXPECT_EQ(FloatToBfloat16Bits(-std::numeric_limits<float>::quiet_NaN()), 0xffc0);
}

// Values TensorFlow's RandomUniform and RandomStandardNormal return for seed=1, seed2=2 and
// shape [2,2] (float), as printed by a TensorFlow C++ client.
TEST(PhiloxDistributionsTest, FirstGroupMatchesTensorFlowForSeeds1And2) {
  const Philox4x32 base(1, 2);
  float uniform[4];
  FillGroups(base, uniform, 4, 0, 1, UniformDistribution<float>());
  EXPECT_EQ(uniform[0], 0.4063967466354370117f);
  EXPECT_EQ(uniform[1], 0.8575996160507202148f);
  EXPECT_EQ(uniform[2], 0.05539584159851074219f);
  EXPECT_EQ(uniform[3], 0.08587229251861572266f);
  float normal[4];
  FillGroups(base, normal, 4, 0, 1, NormalDistribution<float>());
  EXPECT_EQ(normal[0], -1.046779274940490723f);
  EXPECT_EQ(normal[1], 0.8397045731544494629f);
  EXPECT_EQ(normal[2], 1.235836386680603027f);
  EXPECT_EQ(normal[3], 2.063785314559936523f);
  // The truncated normal draws the same pairs, keeps the three inside (-2, 2) and redraws.
  float truncated[4];
  FillGroups(base, truncated, 4, 0, 1, TruncatedNormalDistribution<float>());
  EXPECT_EQ(truncated[0], normal[0]);
  EXPECT_EQ(truncated[1], normal[1]);
  EXPECT_EQ(truncated[2], normal[2]);
  float next[2];
  Philox4x32 after = base;
  after();
  const Block second = after();
  BoxMullerFloat(second[0], second[1], &next[0], &next[1]);
  EXPECT_EQ(truncated[3], std::fabs(next[0]) < 2.0f ? next[0] : next[1]);
}

TEST(PhiloxDistributionsTest, HalfAndBfloat16UseLowBitsOrRoundTheFloatNormal) {
  const Philox4x32 base(11, 12);
  Philox4x32 reference = base;
  const Block block = reference();
  Half half[4];
  Bfloat16 bfloat[4];
  FillGroups(base, half, 4, 0, 1, UniformDistribution<Half>());
  FillGroups(base, bfloat, 4, 0, 1, UniformDistribution<Bfloat16>());
  float normal[4];
  Half half_normal[4];
  Bfloat16 bfloat_normal[4];
  FillGroups(base, normal, 4, 0, 1, NormalDistribution<float>());
  FillGroups(base, half_normal, 4, 0, 1, NormalDistribution<Half>());
  FillGroups(base, bfloat_normal, 4, 0, 1, NormalDistribution<Bfloat16>());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(half[i].bits, FloatToHalfBits(static_cast<float>(block[i] & 0x3ff) / 1024));
    EXPECT_EQ(bfloat[i].bits, FloatToBfloat16Bits(static_cast<float>(block[i] & 0x7f) / 128));
    EXPECT_EQ(half_normal[i].bits, FloatToHalfBits(normal[i]));
    EXPECT_EQ(bfloat_normal[i].bits, FloatToBfloat16Bits(normal[i]));
  }
}

TEST(PhiloxDistributionsTest, FixedSampleGroupsUseOneBlockEach) {
  const Philox4x32 base(21, 22);
  std::vector<double> values(7);
  FillGroups(base, values.data(), 7, 0, NumGroups<UniformDistribution<double>>(7),
             UniformDistribution<double>());
  Philox4x32 reference = base;
  for (int group = 0; group < 4; ++group) {
    const Block block = reference();
    EXPECT_EQ(values[2 * group], UnitDouble(block[0], block[1]));
    if (2 * group + 1 < 7) {
      EXPECT_EQ(values[2 * group + 1], UnitDouble(block[2], block[3]));
    }
  }
}

TEST(PhiloxDistributionsTest, UniformIntegersCoverSignedAndFullRanges) {
  const Philox4x32 base(31, 32);
  std::vector<int32_t> ints(1000);
  UniformIntDistribution<int32_t> narrow(-3, 4);
  FillGroups(base, ints.data(), 1000, 0, NumGroups<UniformIntDistribution<int32_t>>(1000), narrow);
  Philox4x32 reference = base;
  const Block first = reference();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ints[i], -3 + static_cast<int32_t>(first[i] % 7));
  for (int32_t v : ints) EXPECT_TRUE(v >= -3 && v < 4) << v;

  const int32_t lowest = std::numeric_limits<int32_t>::min();
  const int32_t highest = std::numeric_limits<int32_t>::max();
  FillGroups(base, ints.data(), 4, 0, 1, UniformIntDistribution<int32_t>(lowest, highest));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(ints[i],
              static_cast<int32_t>(static_cast<uint32_t>(lowest) + first[i] % 0xffffffffu));
  }

  int64_t wide[2];
  FillGroups(base, wide, 2, 0, 1, UniformIntDistribution<int64_t>(-(int64_t{1} << 40), 5));
  const uint64_t range = (uint64_t{1} << 40) + 5;
  EXPECT_EQ(wide[0], -(int64_t{1} << 40) +
                         static_cast<int64_t>(((uint64_t{first[1]} << 32) | first[0]) % range));
  EXPECT_EQ(wide[1], -(int64_t{1} << 40) +
                         static_cast<int64_t>(((uint64_t{first[3]} << 32) | first[2]) % range));
}

TEST(PhiloxDistributionsTest, TruncatedNormalStaysInsideTwo) {
  const Philox4x32 base(41, 42);
  std::vector<float> floats(4001);
  FillGroups(base, floats.data(), 4001, 0, NumGroups<TruncatedNormalDistribution<float>>(4001),
             TruncatedNormalDistribution<float>());
  for (float v : floats) EXPECT_LT(std::fabs(v), 2.0f);
  std::vector<double> doubles(3001);
  FillGroups(base, doubles.data(), 3001, 0, NumGroups<TruncatedNormalDistribution<double>>(3001),
             TruncatedNormalDistribution<double>());
  for (double v : doubles) EXPECT_LT(std::fabs(v), 2.0);
}

// Fills `size` outputs in one call and again split at random group boundaries; the bytes agree.
template <typename Distribution>
void ExpectSplitIndependent(const Distribution& distribution, int64_t size) {
  using Element = typename Distribution::Element;
  const Philox4x32 base(0x5eed, 0xbeef);
  const int64_t groups = NumGroups<Distribution>(size);
  std::vector<Element> whole(size);
  FillGroups(base, whole.data(), size, 0, groups, distribution);
  std::mt19937 rng(static_cast<uint32_t>(size));
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<Element> pieces(size);
    int64_t begin = 0;
    while (begin < groups) {
      const int64_t end = std::min(groups, begin + 1 + static_cast<int64_t>(rng() % 40));
      FillGroups(base, pieces.data(), size, begin, end, distribution);
      begin = end;
    }
    ASSERT_EQ(std::memcmp(whole.data(), pieces.data(), size * sizeof(Element)), 0)
        << "size " << size << " trial " << trial;
  }
}

TEST(PhiloxDistributionsTest, ShardedFillsDoNotDependOnTheSplit) {
  for (int64_t size : {1, 5, 203, 1000}) {
    ExpectSplitIndependent(UniformDistribution<float>(), size);
    ExpectSplitIndependent(UniformDistribution<double>(), size);
    ExpectSplitIndependent(UniformDistribution<Half>(), size);
    ExpectSplitIndependent(NormalDistribution<float>(), size);
    ExpectSplitIndependent(NormalDistribution<double>(), size);
    ExpectSplitIndependent(NormalDistribution<Bfloat16>(), size);
    ExpectSplitIndependent(TruncatedNormalDistribution<float>(), size);
    ExpectSplitIndependent(TruncatedNormalDistribution<double>(), size);
    ExpectSplitIndependent(TruncatedNormalDistribution<Half>(), size);
    ExpectSplitIndependent(UniformIntDistribution<int32_t>(-10, 1000), size);
    ExpectSplitIndependent(UniformIntDistribution<int64_t>(0, int64_t{1} << 50), size);
  }
}

}  // namespace
}  // namespace tessera::cpu
