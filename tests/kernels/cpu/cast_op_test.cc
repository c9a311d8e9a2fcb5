// Cast between every pair of float, double, int32, int64, bool, uint8, int16 and uint32, against
// static_cast (bool results are value != 0).
#include <cmath>
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

TEST(CastOpTest, HandlesEmptyTensors) {
  OpTester tester("Cast");
  tester.Attr("SrcT", TSR_DTYPE_INT64)
      .Attr("DstT", TSR_DTYPE_FLOAT)
      .Input(Tensor(TSR_DTYPE_INT64, Shape({0, 3})));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({0, 3}), {});
}

}  // namespace
}  // namespace tessera::cpu::test
