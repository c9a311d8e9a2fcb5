// Range (every Tidx, both directions, fractional steps) and Where (bool and numeric inputs of
// ranks 0 to 5, -0.0 and NaN) against reference loops, and TensorFlow's errors.
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

template <typename T>
void CheckRange(T start, T limit, T delta) {
  SCOPED_TRACE(std::to_string(static_cast<double>(start)) + " " +
               std::to_string(static_cast<double>(limit)) + " " +
               std::to_string(static_cast<double>(delta)));
  std::vector<T> expected;
  if constexpr (std::is_integral_v<T>) {
    for (int64_t v = start; delta > 0 ? v < limit : v > limit; v += delta) {
      expected.push_back(static_cast<T>(v));
    }
  } else {
    const int64_t n = static_cast<int64_t>(std::ceil(std::abs((limit - start) / delta)));
    for (int64_t i = 0; i < n; ++i) expected.push_back(start + static_cast<T>(i) * delta);
  }
  OpTester tester("Range");
  tester.Attr("Tidx", DataTypeOf<T>::value)
      .Input(Tensor::Scalar<T>(start))
      .Input(Tensor::Scalar<T>(limit))
      .Input(Tensor::Scalar<T>(delta));
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value,
                      TensorShape{static_cast<int64_t>(expected.size())}, expected);
}

TEST(RangeOpTest, EveryIntegerType) {
  CheckRange<int32_t>(0, 10, 3);
  CheckRange<int32_t>(10, -5, -4);
  CheckRange<int32_t>(3, 3, 1);
  CheckRange<int64_t>(-7, 8, 5);
  CheckRange<int64_t>(int64_t{1} << 40, (int64_t{1} << 40) + 10, 2);
  CheckRange<int8_t>(-100, 100, 37);
  CheckRange<int16_t>(300, -300, -71);
  CheckRange<uint16_t>(10, 60000, 999);
  CheckRange<uint32_t>(0, 7, 7);
}

TEST(RangeOpTest, FloatingTypes) {
  CheckRange<float>(0.f, 1.f, 0.1f);
  CheckRange<float>(2.5f, -1.f, -0.75f);
  CheckRange<double>(-1.0, 1.0, 0.3);
  CheckRange<double>(5.0, 5.0, 1.0);
}

// The length is ceil(|limit - start| / |delta|) in the op's type: these quotients are whole
// numbers in float but land just above them in double.
TEST(RangeOpTest, FloatLengthIsComputedInFloat) {
  for (auto [limit, delta, size] : {std::tuple{0.3f, 0.1f, 3}, std::tuple{1.2f, 0.4f, 3},
                                    std::tuple{7.8f, 0.2f, 39}}) {
    SCOPED_TRACE(limit);
    OpTester tester("Range");
    tester.Attr("Tidx", TSR_DTYPE_FLOAT)
        .Input(Tensor::Scalar<float>(0.f))
        .Input(Tensor::Scalar<float>(limit))
        .Input(Tensor::Scalar<float>(delta));
    Tensor out = RunOk(tester);
    ASSERT_EQ(out.shape(), Shape({size}));
    EXPECT_LT(out.flat<float>()[size - 1], limit);
  }
}

TEST(RangeOpTest, HalfAndBfloat16ComputeInFloat) {
  // 0, 0.5, ..., 2.5 are exact in both formats.
  const uint16_t half_bits[] = {0x0000, 0x3800, 0x3C00, 0x3E00, 0x4000, 0x4100};
  const uint16_t bf16_bits[] = {0x0000, 0x3F00, 0x3F80, 0x3FC0, 0x4000, 0x4020};
  for (DataType dtype : {TSR_DTYPE_HALF, TSR_DTYPE_BFLOAT16}) {
    const uint16_t* bits = dtype == TSR_DTYPE_HALF ? half_bits : bf16_bits;
    auto scalar = [&](uint16_t b) {
      Tensor t(dtype, TensorShape{});
      std::memcpy(t.data(), &b, 2);
      return t;
    };
    // start 0, limit 3 (bits of 3.0), delta 0.5
    const uint16_t three = dtype == TSR_DTYPE_HALF ? 0x4200 : 0x4040;
    OpTester tester("Range");
    tester.Attr("Tidx", dtype).Input(scalar(bits[0])).Input(scalar(three)).Input(scalar(bits[1]));
    const Tensor out = RunOk(tester);
    ASSERT_EQ(out.shape(), Shape({6}));
    for (int i = 0; i < 6; ++i) EXPECT_EQ(static_cast<const uint16_t*>(out.data())[i], bits[i]);
  }
}

OpTester RangeOf(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  OpTester tester("Range");
  tester.Attr("Tidx", start.dtype()).Input(start).Input(limit).Input(delta);
  return tester;
}

TEST(RangeOpTest, RejectsBadArguments) {
  OpTester zero =
      RangeOf(Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(0));
  ExpectRunError(zero, absl::StatusCode::kInvalidArgument, "Requires delta != 0");
  OpTester up =
      RangeOf(Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(1));
  ExpectRunError(up, absl::StatusCode::kInvalidArgument,
                 "Requires start <= limit when delta > 0: 5/1");
  OpTester down =
      RangeOf(Tensor::Scalar<float>(1), Tensor::Scalar<float>(5.5f), Tensor::Scalar<float>(-1));
  ExpectRunError(down, absl::StatusCode::kInvalidArgument,
                 "Requires start >= limit when delta < 0: 1/5.5");
  OpTester vector = RangeOf(Tensor::Vector<int32_t>({0, 1}), Tensor::Scalar<int32_t>(5),
                            Tensor::Scalar<int32_t>(1));
  ExpectRunError(vector, absl::StatusCode::kInvalidArgument,
                 "start must be a scalar, not shape [2]");
  OpTester infinite = RangeOf(Tensor::Scalar<double>(0),
                              Tensor::Scalar<double>(std::numeric_limits<double>::infinity()),
                              Tensor::Scalar<double>(1));
  ExpectRunError(infinite, absl::StatusCode::kInvalidArgument,
                 "Requires ((limit - start) / delta) <= 9223372036854775807");
}

// Where's reference: coordinates of the elements `nonzero` marks, in row-major order.
void CheckWhere(const Tensor& input, const std::vector<bool>& nonzero) {
  SCOPED_TRACE(DataTypeString(input.dtype()) + " " + input.shape().DebugString());
  std::vector<int64_t> expected;
  int64_t count = 0;
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    if (!nonzero[i]) continue;
    ++count;
    for (int64_t c : Coordinates(input.shape(), i)) expected.push_back(c);
  }
  OpTester tester("Where");
  tester.Attr("T", input.dtype()).Input(input);
  ExpectTensorNear<int64_t>(RunOk(tester), TSR_DTYPE_INT64,
                            TensorShape{count, input.shape().rank()}, expected);
}

template <typename T>
void CheckWhereOf(const TensorShape& shape) {
  const Tensor input = Random<T>(shape, -1, 1);
  std::vector<bool> nonzero;
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    nonzero.push_back(input.data<T>()[i] != T(0));
  }
  CheckWhere(input, nonzero);
}

TEST(WhereOpTest, RanksZeroToFive) {
  for (int rank = 0; rank <= 5; ++rank) {
    CheckWhereOf<bool>(RandomShape(rank, 1, 4));
    CheckWhereOf<int32_t>(RandomShape(rank, 1, 4));
    CheckWhereOf<uint8_t>(RandomShape(rank, 1, 4));
    CheckWhereOf<int64_t>(RandomShape(rank, 0, 3));
  }
  CheckWhereOf<bool>(Shape({100000}));  // several blocks
}

TEST(WhereOpTest, FloatingZeroesIgnoreTheSign) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor floats = Make<float>(Shape({2, 3}), {0.f, -0.f, 1.f, nan, -2.f, 1e-40f});
  CheckWhere(floats, {false, false, true, true, true, true});
  const Tensor doubles = Make<double>(Shape({4}), {-0.0, 0.0, -1.0, 0.5});
  CheckWhere(doubles, {false, false, true, true});
  // complex64 pairs: (0, -0) is zero, (0, 1) and (-0, nan) are not.
  Tensor complex(TSR_DTYPE_COMPLEX64, Shape({3}));
  const float parts[] = {0.f, -0.f, 0.f, 1.f, -0.f, nan};
  std::memcpy(complex.data(), parts, sizeof(parts));
  CheckWhere(complex, {false, true, true});
  // half: 0x8000 is -0, 0x0001 the smallest subnormal.
  Tensor half(TSR_DTYPE_HALF, Shape({3}));
  const uint16_t half_bits[] = {0x8000, 0x0001, 0x0000};
  std::memcpy(half.data(), half_bits, sizeof(half_bits));
  CheckWhere(half, {false, true, false});
}

}  // namespace
}  // namespace tessera::cpu::test
