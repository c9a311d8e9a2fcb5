// Cast between every pair of float, double, int32, int64, bool, uint8, int16 and uint32, against
// static_cast (bool results are value != 0); half and bfloat16 against their bit patterns.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename Src, typename Dst>
void CheckCast() {
  SCOPED_TRACE(DataTypeString(DataTypeOf<Src>::value) + " -> " +
               DataTypeString(DataTypeOf<Dst>::value));
  // Values every destination type can represent (no out-of-range float to integer casts).
  Tensor x = Random<Src>(Shape({3, 7}), 0, 100);
  std::vector<Dst> expected(static_cast<size_t>(x.NumElements()));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    if constexpr (std::is_same_v<Dst, bool>) {
      expected[i] = x.data<Src>()[i] != Src(0);
    } else {
      expected[i] = static_cast<Dst>(x.data<Src>()[i]);
    }
  }
  OpTester tester("Cast");
  tester.Attr("SrcT", DataTypeOf<Src>::value).Attr("DstT", DataTypeOf<Dst>::value).Input(x);
  ExpectTensorNear<Dst>(RunOk(tester), DataTypeOf<Dst>::value, x.shape(), expected);
}

template <typename Src>
void CheckFrom() {
  CheckCast<Src, float>();
  CheckCast<Src, double>();
  CheckCast<Src, int32_t>();
  CheckCast<Src, int64_t>();
  CheckCast<Src, bool>();
  CheckCast<Src, uint8_t>();
  CheckCast<Src, int16_t>();
  CheckCast<Src, uint32_t>();
}

TEST(CastOpTest, ConvertsBetweenEveryPair) {
  CheckFrom<float>();
  CheckFrom<double>();
  CheckFrom<int32_t>();
  CheckFrom<int64_t>();
  CheckFrom<bool>();
  CheckFrom<uint8_t>();
  CheckFrom<int16_t>();
  CheckFrom<uint32_t>();
}

TEST(CastOpTest, TruncatesFloatsTowardZero) {
  OpTester tester("Cast");
  tester.Attr("SrcT", TSR_DTYPE_FLOAT)
      .Attr("DstT", TSR_DTYPE_INT32)
      .Input(Make<float>(Shape({4}), {1.9f, -1.9f, 0.5f, -0.5f}));
  ExpectTensorNear<int32_t>(RunOk(tester), TSR_DTYPE_INT32, Shape({4}), {1, -1, 0, 0});
}

// Out-of-range floats saturate at the integer type's limits and NaN becomes 0 (C++ leaves these
// conversions undefined).
TEST(CastOpTest, SaturatesOutOfRangeFloatsAndMapsNanToZero) {
  const std::vector<float> values = {-8.625f, 300.5f, NAN, 1e20f, -1e20f, 2.9f};
  OpTester to_uint8("Cast");
  to_uint8.Attr("SrcT", TSR_DTYPE_FLOAT)
      .Attr("DstT", TSR_DTYPE_UINT8)
      .Input(Make<float>(Shape({6}), values));
  ExpectTensorNear<uint8_t>(RunOk(to_uint8), TSR_DTYPE_UINT8, Shape({6}), {0, 255, 0, 255, 0, 2});
  OpTester to_int32("Cast");
  to_int32.Attr("SrcT", TSR_DTYPE_FLOAT)
      .Attr("DstT", TSR_DTYPE_INT32)
      .Input(Make<float>(Shape({6}), values));
  ExpectTensorNear<int32_t>(
      RunOk(to_int32), TSR_DTYPE_INT32, Shape({6}),
      {-8, 300, 0, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 2});
  OpTester to_int64("Cast");
  to_int64.Attr("SrcT", TSR_DTYPE_DOUBLE)
      .Attr("DstT", TSR_DTYPE_INT64)
      .Input(Make<double>(Shape({3}), {1e300, -1e300, -3.5}));
  ExpectTensorNear<int64_t>(
      RunOk(to_int64), TSR_DTYPE_INT64, Shape({3}),
      {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), -3});
}

// A half or bfloat16 tensor from bit patterns, and the bit patterns of one.
Tensor Bits16(DataType dtype, const std::vector<uint16_t>& bits) {
  Tensor t(dtype, Shape({static_cast<int64_t>(bits.size())}));
  std::memcpy(t.data(), bits.data(), bits.size() * 2);
  return t;
}
std::vector<uint16_t> BitsOf(const Tensor& t) {
  std::vector<uint16_t> bits(static_cast<size_t>(t.NumElements()));
  std::memcpy(bits.data(), t.data(), bits.size() * 2);
  return bits;
}

Tensor CastTo(DataType dst, const Tensor& x, bool truncate = false) {
  OpTester tester("Cast");
  tester.Attr("SrcT", x.dtype()).Attr("DstT", dst).Attr("Truncate", truncate).Input(x);
  return RunOk(tester);
}

// Round to nearest even, overflow to inf, underflow to zero, NaN stays NaN.
TEST(CastOpTest, FloatToHalfRoundsToNearestEven) {
  Tensor x = Make<float>(Shape({9}),
                         {1.0f, -2.5f, 65504.f, 65520.f, 1e-8f, NAN, INFINITY, 0.1f, -0.0f});
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_HALF, x)),
            (std::vector<uint16_t>{0x3C00, 0xC100, 0x7BFF, 0x7C00, 0x0000, 0x7E00, 0x7C00, 0x2E66,
                                   0x8000}));
  Tensor d = Make<double>(Shape({2}), {3.0, -65504.0});
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_HALF, d)), (std::vector<uint16_t>{0x4200, 0xFBFF}));
}

TEST(CastOpTest, HalfWidensExactly) {
  Tensor h = Bits16(TSR_DTYPE_HALF, {0x3C00, 0xC100, 0x7BFF, 0x0001, 0x7C00, 0xFC00});
  ExpectTensorNear<float>(CastTo(TSR_DTYPE_FLOAT, h), TSR_DTYPE_FLOAT, Shape({6}),
                          {1.0f, -2.5f, 65504.f, 5.9604645e-8f, INFINITY, -INFINITY});
  ExpectTensorNear<double>(CastTo(TSR_DTYPE_DOUBLE, h), TSR_DTYPE_DOUBLE, Shape({6}),
                           {1.0, -2.5, 65504.0, 5.9604644775390625e-8, INFINITY, -INFINITY});
}

// float to bfloat16 rounds to nearest even, or with Truncate drops the low 16 bits.
TEST(CastOpTest, FloatToBfloat16RoundsOrTruncates) {
  float up;  // 1.005859375: low half 0xC000, above the halfway point
  const uint32_t up_bits = 0x3F80C000;
  std::memcpy(&up, &up_bits, 4);
  float tie;  // 1.00390625: exactly halfway, rounds to the even 0x3F80
  const uint32_t tie_bits = 0x3F808000;
  std::memcpy(&tie, &tie_bits, 4);
  Tensor x = Make<float>(Shape({5}), {up, tie, NAN, -0.0f, 3.0f});
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_BFLOAT16, x)),
            (std::vector<uint16_t>{0x3F81, 0x3F80, 0x7FC0, 0x8000, 0x4040}));
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_BFLOAT16, x, /*truncate=*/true)),
            (std::vector<uint16_t>{0x3F80, 0x3F80, 0x7FC0, 0x8000, 0x4040}));
  Tensor b = Bits16(TSR_DTYPE_BFLOAT16, {0x3F81, 0x4040, 0xFF80});
  ExpectTensorNear<float>(CastTo(TSR_DTYPE_FLOAT, b), TSR_DTYPE_FLOAT, Shape({3}),
                          {1.0078125f, 3.0f, -INFINITY});
}

// Integers and bool to and from the 16-bit floats; half and bfloat16 to each other via float.
TEST(CastOpTest, ReducedFloatsMeetIntegersBoolAndEachOther) {
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_HALF, Make<int32_t>(Shape({3}), {70000, -3, 0}))),
            (std::vector<uint16_t>{0x7C00, 0xC200, 0x0000}));
  Tensor h = Bits16(TSR_DTYPE_HALF, {0x7C00, 0xC200, 0x3E00, 0x7E00});  // inf, -3, 1.5, NaN
  ExpectTensorNear<int32_t>(CastTo(TSR_DTYPE_INT32, h), TSR_DTYPE_INT32, Shape({4}),
                            {std::numeric_limits<int32_t>::max(), -3, 1, 0});
  ExpectTensorNear<uint8_t>(CastTo(TSR_DTYPE_UINT8, h), TSR_DTYPE_UINT8, Shape({4}),
                            {255, 0, 1, 0});
  Tensor b = Bits16(TSR_DTYPE_HALF, {0x0000, 0x8000, 0x7E00, 0x0001});
  ExpectTensorNear<bool>(CastTo(TSR_DTYPE_BOOL, b), TSR_DTYPE_BOOL, Shape({4}),
                         {false, false, true, true});
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_HALF, Make<bool>(Shape({2}), {true, false}))),
            (std::vector<uint16_t>{0x3C00, 0x0000}));
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_HALF, Bits16(TSR_DTYPE_BFLOAT16, {0x3F80, 0xC040}))),
            (std::vector<uint16_t>{0x3C00, 0xC200}));
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_BFLOAT16, Bits16(TSR_DTYPE_HALF, {0x3C00, 0x7BFF}))),
            (std::vector<uint16_t>{0x3F80, 0x4780}));
  EXPECT_EQ(BitsOf(CastTo(TSR_DTYPE_BFLOAT16, Make<int64_t>(Shape({1}), {257}))),
            (std::vector<uint16_t>{0x4380}));
}

TEST(CastOpTest, HandlesEmptyTensors) {
  OpTester tester("Cast");
  tester.Attr("SrcT", TSR_DTYPE_INT64)
      .Attr("DstT", TSR_DTYPE_FLOAT)
      .Input(Tensor(TSR_DTYPE_INT64, Shape({0, 3})));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({0, 3}), {});
}

}  // namespace
}  // namespace tessera::cpu::test
