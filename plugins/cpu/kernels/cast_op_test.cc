// Cast between every pair of float, double, int32, int64, bool, uint8, int16 and uint32, against
// static_cast (bool results are value != 0).
#include <cmath>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/kernel_test_util.h"

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

TEST(CastOpTest, HandlesEmptyTensors) {
  OpTester tester("Cast");
  tester.Attr("SrcT", TSR_DTYPE_INT64)
      .Attr("DstT", TSR_DTYPE_FLOAT)
      .Input(Tensor(TSR_DTYPE_INT64, Shape({0, 3})));
  ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({0, 3}), {});
}

}  // namespace
}  // namespace tessera::cpu::test
