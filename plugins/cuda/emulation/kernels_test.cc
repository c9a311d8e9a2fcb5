// The shared GPU kernel sources, run on the CPU emulation of the kernel language against plain
// reference loops: broadcasting binary ops, unary ops, casts, fills and the tiled matrix product,
// for every element type they take. Under ThreadSanitizer a missing __syncthreads shows as a race.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cuda/copy_kernels.h"
#include "plugins/cuda/elementwise_kernels.h"
#include "plugins/cuda/gemm_kernels.h"
#include "plugins/cuda/gpu_kernels.h"
#include "plugins/cuda/test_host_api.h"

namespace tessera::gpu {
namespace {

// Shapes as dims; the broadcast plan as the kernels expect it (what broadcast_plan.cc makes, built
// here from first principles: one dimension per output dimension, no merging).
BroadcastPlan GeneralPlan(const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                          std::vector<int64_t>* out) {
  BroadcastPlan plan;
  plan.mode = BroadcastPlan::kGeneral;
  const size_t rank = std::max(x.size(), y.size());
  out->assign(rank, 1);
  plan.rank = static_cast<int32_t>(rank);
  int64_t xs = 1;
  int64_t ys = 1;
  for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
    const int xd = d - static_cast<int>(rank - x.size());
    const int yd = d - static_cast<int>(rank - y.size());
    const int64_t xn = xd < 0 ? 1 : x[xd];
    const int64_t yn = yd < 0 ? 1 : y[yd];
    (*out)[d] = std::max(xn, yn);
    plan.dims[d] = (*out)[d];
    plan.x_strides[d] = xn == 1 ? 0 : xs;
    plan.y_strides[d] = yn == 1 ? 0 : ys;
    xs *= xn;
    ys *= yn;
  }
  return plan;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The flat index into an input of `dims` (right-aligned) of output element i of `out`.
int64_t InputIndex(const std::vector<int64_t>& out, const std::vector<int64_t>& dims, int64_t i) {
  int64_t index = 0;
  int64_t stride = 1;
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    const int64_t coordinate = i % out[d];
    i /= out[d];
    const int dd = d - static_cast<int>(out.size() - dims.size());
    if (dd < 0) continue;
    if (dims[dd] != 1) index += coordinate * stride;
    stride *= dims[dd];
  }
  return index;
}

std::vector<float> Values(int64_t n, unsigned seed, float lo = -3, float hi = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

TEST(EmulatedKernelsTest, BinaryOpsBroadcastLikeNumpy) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 1, 5}, {1, 4, 1}}, {{2, 3, 4}, {4}}, {{7}, {7}}, {{5, 1}, {1, 6}}, {{1}, {3, 3}}};
  for (int merged = 0; merged < 2; ++merged) {
    for (const auto& [xd, yd] : shapes) {
      std::vector<int64_t> od;
      BroadcastPlan plan = GeneralPlan(xd, yd, &od);
      if (merged == 1) {
        // The plan the kernels really get: dimensions merged, scalar and same-shape modes.
        sdk::Shape out_shape;
        ASSERT_TRUE(MakeBroadcastPlan(sdk::Shape(static_cast<int>(xd.size()), xd.data()),
                                      sdk::Shape(static_cast<int>(yd.size()), yd.data()),
                                      &out_shape, &plan)
                        .ok());
        ASSERT_EQ(out_shape.num_elements(), Count(od));
      }
      const std::vector<float> x = Values(Count(xd), 1);
      std::vector<float> y = Values(Count(yd), 2);
      y[0] = std::numeric_limits<float>::quiet_NaN();
      const int64_t n = Count(od);
      for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv,
                          BinaryOp::kMaximum, BinaryOp::kMinimum, BinaryOp::kSquaredDifference}) {
        std::vector<float> out(static_cast<size_t>(n), -1);
        ASSERT_EQ(
            LaunchBinary(op, ElementType::kFloat, x.data(), y.data(), out.data(), n, plan, nullptr),
            gpuSuccess);
        for (int64_t i = 0; i < n; ++i) {
          const float a = x[InputIndex(od, xd, i)];
          const float b = y[InputIndex(od, yd, i)];
          float expected = 0;
          switch (op) {
            case BinaryOp::kAdd:
              expected = a + b;
              break;
            case BinaryOp::kSub:
              expected = a - b;
              break;
            case BinaryOp::kMul:
              expected = a * b;
              break;
            case BinaryOp::kDiv:
              expected = a / b;
              break;
            case BinaryOp::kMaximum:
              expected = std::isnan(b) ? b : std::max(a, b);
              break;
            case BinaryOp::kMinimum:
              expected = std::isnan(b) ? b : std::min(a, b);
              break;
            default:
              expected = (a - b) * (a - b);
              break;
          }
          if (std::isnan(expected)) {
            EXPECT_TRUE(std::isnan(out[i])) << static_cast<int>(op) << " at " << i;
          } else {
            EXPECT_FLOAT_EQ(out[i], expected) << static_cast<int>(op) << " at " << i;
          }
        }
      }
      std::vector<uint8_t> less(static_cast<size_t>(n), 7);
      ASSERT_EQ(LaunchBinary(BinaryOp::kLess, ElementType::kFloat, x.data(), y.data(), less.data(),
                             n, plan, nullptr),
                gpuSuccess);
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(less[i], x[InputIndex(od, xd, i)] < y[InputIndex(od, yd, i)] ? 1 : 0) << i;
      }
    }
  }
}

TEST(EmulatedKernelsTest, ScalarModesAndIntegerWrapping) {
  const std::vector<int32_t> x = {std::numeric_limits<int32_t>::max(), -5, 0, 9};
  const std::vector<int32_t> one = {1};
  std::vector<int32_t> out(4);
  BroadcastPlan plan;
  plan.mode = BroadcastPlan::kYScalar;
  ASSERT_EQ(LaunchBinary(BinaryOp::kAdd, ElementType::kInt32, x.data(), one.data(), out.data(), 4,
                         plan, nullptr),
            gpuSuccess);
  EXPECT_EQ(out, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -4, 1, 10}));
  plan.mode = BroadcastPlan::kXScalar;
  ASSERT_EQ(LaunchBinary(BinaryOp::kSub, ElementType::kInt32, one.data(), x.data(), out.data(), 4,
                         plan, nullptr),
            gpuSuccess);
  EXPECT_EQ(out, (std::vector<int32_t>{std::numeric_limits<int32_t>::min() + 2, 6, 1, -8}));
  const std::vector<int64_t> a = {3, -4};
  const std::vector<int64_t> b = {-3, 4};
  std::vector<uint8_t> equal(2, 9);
  plan.mode = BroadcastPlan::kSame;
  ASSERT_EQ(LaunchBinary(BinaryOp::kGreater, ElementType::kInt64, a.data(), b.data(), equal.data(),
                         2, plan, nullptr),
            gpuSuccess);
  EXPECT_EQ(equal, (std::vector<uint8_t>{1, 0}));
  // Division is floating point only.
  EXPECT_EQ(LaunchBinary(BinaryOp::kDiv, ElementType::kInt32, x.data(), x.data(), out.data(), 4,
                         plan, nullptr),
            gpuErrorInvalidValue);
}

TEST(EmulatedKernelsTest, ActivationGradients) {
  const std::vector<float> a = {-1.0f, 0.0f, 0.5f, 3.0f, 7.0f};
  const std::vector<float> b = {2.0f, -2.0f, 0.25f, 1.5f, 0.5f};
  BroadcastPlan plan;
  std::vector<float> out(5);
  auto run = [&](BinaryOp op) {
    EXPECT_EQ(
        LaunchBinary(op, ElementType::kFloat, a.data(), b.data(), out.data(), 5, plan, nullptr),
        gpuSuccess);
    return out;
  };
  // ReluGrad(gradients=a, features=b), Relu6Grad; SigmoidGrad(y=a, dy=b), TanhGrad(y=a, dy=b).
  EXPECT_EQ(run(BinaryOp::kReluGrad), (std::vector<float>{-1, 0, 0.5f, 3, 7}));
  EXPECT_EQ(run(BinaryOp::kRelu6Grad), (std::vector<float>{-1, 0, 0.5f, 3, 7}));
  const std::vector<float> sigmoid = run(BinaryOp::kSigmoidGrad);
  const std::vector<float> tanh = run(BinaryOp::kTanhGrad);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_FLOAT_EQ(sigmoid[i], b[i] * a[i] * (1 - a[i]));
    EXPECT_FLOAT_EQ(tanh[i], b[i] * (1 - a[i] * a[i]));
  }
}

TEST(EmulatedKernelsTest, HalfAndBfloat16ComputeInFloat) {
  const std::vector<float> values = {0.5f, -1.25f, 3.0f, 1024.0f, 1e-3f, 65504.0f};
  std::vector<__half> h(values.size());
  std::vector<gpu_bfloat16> bf(values.size());
  ASSERT_EQ(LaunchCast(ElementType::kFloat, ElementType::kHalf, values.data(), h.data(),
                       static_cast<int64_t>(values.size()), nullptr),
            gpuSuccess);
  ASSERT_EQ(LaunchCast(ElementType::kFloat, ElementType::kBFloat16, values.data(), bf.data(),
                       static_cast<int64_t>(values.size()), nullptr),
            gpuSuccess);
  std::vector<__half> sum(values.size());
  BroadcastPlan plan;
  ASSERT_EQ(LaunchBinary(BinaryOp::kAdd, ElementType::kHalf, h.data(), h.data(), sum.data(),
                         static_cast<int64_t>(values.size()), plan, nullptr),
            gpuSuccess);
  std::vector<float> back(values.size());
  ASSERT_EQ(LaunchCast(ElementType::kHalf, ElementType::kFloat, sum.data(), back.data(),
                       static_cast<int64_t>(values.size()), nullptr),
            gpuSuccess);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -2.5f);
  EXPECT_EQ(back[3], 2048.0f);
  EXPECT_NEAR(back[4], 2e-3f, 1e-6f);
  EXPECT_TRUE(std::isinf(back[5]));  // 131008 overflows half
  std::vector<gpu_bfloat16> product(values.size());
  ASSERT_EQ(LaunchBinary(BinaryOp::kMul, ElementType::kBFloat16, bf.data(), bf.data(),
                         product.data(), static_cast<int64_t>(values.size()), plan, nullptr),
            gpuSuccess);
  ASSERT_EQ(LaunchCast(ElementType::kBFloat16, ElementType::kFloat, product.data(), back.data(),
                       static_cast<int64_t>(values.size()), nullptr),
            gpuSuccess);
  EXPECT_EQ(back[0], 0.25f);
  EXPECT_EQ(back[1], 1.5625f);
  EXPECT_EQ(back[2], 9.0f);
  EXPECT_NEAR(back[5], 65504.0f * 65504.0f, 65504.0f * 65504.0f / 128);
}

TEST(EmulatedKernelsTest, UnaryOps) {
  std::vector<float> x = Values(300, 3, -4, 4);
  x[0] = 0.0f;
  x[1] = 30.0f;   // Softplus: x itself
  x[2] = -30.0f;  // Softplus: exp(x)
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> positive(x.size());
  for (size_t i = 0; i < x.size(); ++i) positive[i] = std::fabs(x[i]) + 0.5f;
  struct Case {
    UnaryOp op;
    bool positive_input;
    float (*reference)(float);
  };
  const Case cases[] = {
      {UnaryOp::kNeg, false, [](float v) { return -v; }},
      {UnaryOp::kAbs, false, [](float v) { return std::fabs(v); }},
      {UnaryOp::kSquare, false, [](float v) { return v * v; }},
      {UnaryOp::kSqrt, true, [](float v) { return std::sqrt(v); }},
      {UnaryOp::kRsqrt, true, [](float v) { return 1 / std::sqrt(v); }},
      {UnaryOp::kReciprocal, true, [](float v) { return 1 / v; }},
      {UnaryOp::kExp, false, [](float v) { return std::exp(v); }},
      {UnaryOp::kLog, true, [](float v) { return std::log(v); }},
      {UnaryOp::kTanh, false, [](float v) { return std::tanh(v); }},
      {UnaryOp::kSigmoid, false, [](float v) { return 1 / (1 + std::exp(-v)); }},
      {UnaryOp::kRelu, false, [](float v) { return v > 0 ? v : 0.0f; }},
      {UnaryOp::kRelu6, false, [](float v) { return std::min(std::max(v, 0.0f), 6.0f); }},
      {UnaryOp::kElu, false, [](float v) { return v < 0 ? std::expm1(v) : v; }},
      {UnaryOp::kSelu, false,
       [](float v) {
         return v < 0 ? 1.7580993408473768599402175208123f * std::expm1(v)
                      : 1.0507009873554804934193349852946f * v;
       }},
      {UnaryOp::kSoftplus, false,
       [](float v) { return static_cast<float>(std::log1p(std::exp(static_cast<double>(v)))); }},
  };
  for (const Case& c : cases) {
    const std::vector<float>& in = c.positive_input ? positive : x;
    std::vector<float> out(x.size());
    ASSERT_EQ(LaunchUnary(c.op, ElementType::kFloat, in.data(), out.data(), n, 0, nullptr),
              gpuSuccess);
    for (size_t i = 0; i < x.size(); ++i) {
      const float expected = c.reference(in[i]);
      EXPECT_NEAR(out[i], expected, 2e-6f * std::max(1.0f, std::fabs(expected)))
          << static_cast<int>(c.op) << " of " << in[i];
    }
  }
  // Neg(+0) is -0 (a sign flip, not 0 - x), Abs(-0) is +0.
  const float zeros[2] = {0.0f, -0.0f};
  float signed_zeros[2];
  ASSERT_EQ(LaunchUnary(UnaryOp::kNeg, ElementType::kFloat, zeros, signed_zeros, 2, 0, nullptr),
            gpuSuccess);
  EXPECT_TRUE(std::signbit(signed_zeros[0]));
  EXPECT_FALSE(std::signbit(signed_zeros[1]));
  ASSERT_EQ(LaunchUnary(UnaryOp::kAbs, ElementType::kFloat, zeros, signed_zeros, 2, 0, nullptr),
            gpuSuccess);
  EXPECT_FALSE(std::signbit(signed_zeros[1]));
  std::vector<float> leaky(x.size());
  ASSERT_EQ(LaunchUnary(UnaryOp::kLeakyRelu, ElementType::kFloat, x.data(), leaky.data(), n, -0.5f,
                        nullptr),
            gpuSuccess);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(leaky[i], x[i] > 0 ? x[i] : x[i] * -0.5f);
  // Integers: wrapping negation, and no transcendental ops.
  const std::vector<int64_t> ints = {std::numeric_limits<int64_t>::min(), -3, 4};
  std::vector<int64_t> negated(3);
  ASSERT_EQ(
      LaunchUnary(UnaryOp::kNeg, ElementType::kInt64, ints.data(), negated.data(), 3, 0, nullptr),
      gpuSuccess);
  EXPECT_EQ(negated, (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 3, -4}));
  EXPECT_EQ(
      LaunchUnary(UnaryOp::kExp, ElementType::kInt64, ints.data(), negated.data(), 3, 0, nullptr),
      gpuErrorInvalidValue);
}

TEST(EmulatedKernelsTest, CastsSaturateAndFillsRepeat) {
  const std::vector<float> x = {1.9f, -1.9f, 3e9f, -3e9f, std::numeric_limits<float>::quiet_NaN(),
                                0.0f};
  std::vector<int32_t> i32(x.size());
  ASSERT_EQ(LaunchCast(ElementType::kFloat, ElementType::kInt32, x.data(), i32.data(), 6, nullptr),
            gpuSuccess);
  EXPECT_EQ(i32, (std::vector<int32_t>{1, -1, std::numeric_limits<int32_t>::max(),
                                       std::numeric_limits<int32_t>::min(), 0, 0}));
  std::vector<uint8_t> flags(x.size());
  ASSERT_EQ(LaunchCast(ElementType::kFloat, ElementType::kBool, x.data(), flags.data(), 6, nullptr),
            gpuSuccess);
  EXPECT_EQ(flags, (std::vector<uint8_t>{1, 1, 1, 1, 1, 0}));
  std::vector<int64_t> wide(x.size());
  ASSERT_EQ(
      LaunchCast(ElementType::kBool, ElementType::kInt64, flags.data(), wide.data(), 6, nullptr),
      gpuSuccess);
  EXPECT_EQ(wide, (std::vector<int64_t>{1, 1, 1, 1, 1, 0}));
  const int64_t value = -7;
  std::vector<int64_t> filled(500, 0);
  ASSERT_EQ(LaunchFill(ElementType::kInt64, &value, filled.data(), 500, nullptr), gpuSuccess);
  EXPECT_EQ(filled, std::vector<int64_t>(500, -7));
}

// The tiled product against a double-precision reference, every transpose, ragged tiles, shared
// and walked batch operands.
TEST(EmulatedKernelsTest, TiledGemm) {
  struct Shape {
    int64_t m, n, k, batch;
    bool x_shared, y_shared;
  };
  const Shape shapes[] = {{1, 1, 1, 1, false, false},
                          {17, 5, 33, 1, false, false},
                          {16, 16, 16, 2, false, true},
                          {3, 20, 7, 3, true, false},
                          {33, 2, 18, 1, false, false}};
  unsigned seed = 10;
  for (const Shape& s : shapes) {
    for (int transposes = 0; transposes < 4; ++transposes) {
      GemmProduct p;
      p.transpose_x = (transposes & 1) != 0;
      p.transpose_y = (transposes & 2) != 0;
      p.m = s.m;
      p.n = s.n;
      p.k = s.k;
      p.batch = s.batch;
      p.x_cols = p.transpose_x ? s.m : s.k;
      p.y_cols = p.transpose_y ? s.k : s.n;
      p.x_stride = s.x_shared ? 0 : s.m * s.k;
      p.y_stride = s.y_shared ? 0 : s.k * s.n;
      const std::vector<float> x = Values((s.x_shared ? 1 : s.batch) * s.m * s.k, ++seed);
      const std::vector<float> y = Values((s.y_shared ? 1 : s.batch) * s.k * s.n, ++seed);
      std::vector<float> out(static_cast<size_t>(s.batch * s.m * s.n), -1);
      ASSERT_EQ(LaunchTiledGemm(ElementType::kFloat, p, x.data(), y.data(), out.data(), nullptr),
                gpuSuccess);
      for (int64_t b = 0; b < s.batch; ++b) {
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) {
            double expected = 0;
            for (int64_t q = 0; q < s.k; ++q) {
              const float xv =
                  x[b * p.x_stride + (p.transpose_x ? q * p.x_cols + i : i * p.x_cols + q)];
              const float yv =
                  y[b * p.y_stride + (p.transpose_y ? j * p.y_cols + q : q * p.y_cols + j)];
              expected += static_cast<double>(xv) * yv;
            }
            EXPECT_NEAR(out[(b * s.m + i) * s.n + j], expected, 1e-4 * (1 + std::fabs(expected)))
                << s.m << "x" << s.n << "x" << s.k << " batch " << b << " transposes " << transposes
                << " at " << i << "," << j;
          }
        }
      }
    }
  }
  EXPECT_EQ(LaunchTiledGemm(ElementType::kInt32, GemmProduct(), nullptr, nullptr, nullptr, nullptr),
            gpuSuccess);  // an empty product launches nothing
  GemmProduct one;
  one.m = one.n = one.k = 1;
  int32_t value = 1;
  EXPECT_EQ(LaunchTiledGemm(ElementType::kInt32, one, &value, &value, &value, nullptr),
            gpuErrorInvalidValue);
}

// Strided copies as Transpose and Tile plan them, for every element size.
TEST(EmulatedKernelsTest, StridedCopiesTransposeAndTile) {
  // [2, 3, 4] transposed by (2, 0, 1) into [4, 2, 3].
  std::vector<int64_t> x(24);
  for (int64_t i = 0; i < 24; ++i) x[i] = i;
  CopyPlan transpose;
  transpose.rank = 3;
  const int64_t dims[3] = {4, 2, 3};
  const int64_t src[3] = {1, 12, 4};  // x's strides (12, 4, 1) permuted
  const int64_t dst[3] = {6, 3, 1};
  for (int d = 0; d < 3; ++d) {
    transpose.dims[d] = dims[d];
    transpose.src_strides[d] = src[d];
    transpose.dst_strides[d] = dst[d];
  }
  std::vector<int64_t> out(24, -1);
  ASSERT_EQ(LaunchStridedCopy(8, x.data(), out.data(), transpose, nullptr), gpuSuccess);
  for (int64_t a = 0; a < 4; ++a) {
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(out[a * 6 + b * 3 + c], b * 12 + c * 4 + a);
    }
  }
  // [2, 3] bytes tiled (2, 2) into [4, 6]: the plan pairs each multiple with its dimension.
  const std::vector<uint8_t> small = {1, 2, 3, 4, 5, 6};
  CopyPlan tile;
  tile.rank = 4;
  const int64_t tile_dims[4] = {2, 2, 2, 3};
  const int64_t tile_src[4] = {0, 3, 0, 1};
  const int64_t tile_dst[4] = {12, 6, 3, 1};
  for (int d = 0; d < 4; ++d) {
    tile.dims[d] = tile_dims[d];
    tile.src_strides[d] = tile_src[d];
    tile.dst_strides[d] = tile_dst[d];
  }
  std::vector<uint8_t> tiled(24, 0);
  ASSERT_EQ(LaunchStridedCopy(1, small.data(), tiled.data(), tile, nullptr), gpuSuccess);
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 6; ++c) EXPECT_EQ(tiled[r * 6 + c], small[(r % 2) * 3 + c % 3]);
  }
  // An offset window (Slice) of 16-bit elements, and an unsupported element size.
  const std::vector<uint16_t> row = {10, 11, 12, 13, 14};
  CopyPlan slice;
  slice.rank = 1;
  slice.dims[0] = 3;
  slice.src_strides[0] = 1;
  slice.dst_strides[0] = 1;
  slice.src_offset = 1;
  std::vector<uint16_t> window(3);
  ASSERT_EQ(LaunchStridedCopy(2, row.data(), window.data(), slice, nullptr), gpuSuccess);
  EXPECT_EQ(window, (std::vector<uint16_t>{11, 12, 13}));
  EXPECT_EQ(LaunchStridedCopy(3, row.data(), window.data(), slice, nullptr), gpuErrorInvalidValue);
}

}  // namespace
}  // namespace tessera::gpu
