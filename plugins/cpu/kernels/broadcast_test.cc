// Tests of BroadcastPlan and BroadcastLoop against a direct numpy-rule reference.
#include "plugins/cpu/kernels/broadcast.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera::cpu {
namespace {

using sdk::Shape;

// out[i] for the output multi-index of i, reading x and y with numpy broadcasting.
std::vector<int64_t> Reference(const Shape& x, const Shape& y, const Shape& out,
                               const std::vector<int64_t>& xv, const std::vector<int64_t>& yv) {
  std::vector<int64_t> result(static_cast<size_t>(out.num_elements()));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    int64_t rest = i;
    int64_t xi = 0, yi = 0, xs = 1, ys = 1;
    for (int d = out.rank() - 1; d >= 0; --d) {
      const int64_t index = rest % out.dim(d);
      rest /= out.dim(d);
      const int xd = d - (out.rank() - x.rank());
      const int yd = d - (out.rank() - y.rank());
      if (xd >= 0) {
        xi += (x.dim(xd) == 1 ? 0 : index) * xs;
        xs *= x.dim(xd);
      }
      if (yd >= 0) {
        yi += (y.dim(yd) == 1 ? 0 : index) * ys;
        ys *= y.dim(yd);
      }
    }
    result[i] = xv[xi] * 1000 + yv[yi];
  }
  return result;
}

void CheckPair(const Shape& x, const Shape& y, const Shape& expected_out) {
  SCOPED_TRACE(x.DebugString() + " vs " + y.DebugString());
  BroadcastPlan plan;
  ASSERT_TRUE(plan.Init(x, y));
  EXPECT_EQ(plan.output_shape(), expected_out);
  std::vector<int64_t> xv(static_cast<size_t>(x.num_elements()));
  std::vector<int64_t> yv(static_cast<size_t>(y.num_elements()));
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<int64_t>(i) + 1;
  for (size_t i = 0; i < yv.size(); ++i) yv[i] = static_cast<int64_t>(i) + 1;
  const int64_t n = expected_out.num_elements();
  std::vector<int64_t> out(static_cast<size_t>(n));
  auto fn = [](int64_t a, int64_t b) { return a * 1000 + b; };
  if (n > 0) {
    // Every split point must give the same result as one whole pass.
    for (int64_t split : {int64_t{0}, n / 3, n - 1}) {
      std::fill(out.begin(), out.end(), -1);
      BroadcastLoop(plan, xv.data(), yv.data(), out.data(), 0, split, fn);
      BroadcastLoop(plan, xv.data(), yv.data(), out.data(), split, n, fn);
      EXPECT_EQ(out, Reference(x, y, expected_out, xv, yv)) << "split at " << split;
    }
  }
}

TEST(BroadcastPlanTest, ComputesOutputShapesAndValues) {
  CheckPair({}, {}, {});
  CheckPair({}, {3}, {3});
  CheckPair({2, 3}, {}, {2, 3});
  CheckPair({2, 3}, {3}, {2, 3});
  CheckPair({2, 3}, {2, 1}, {2, 3});
  CheckPair({2, 1}, {1, 3}, {2, 3});
  CheckPair({4, 1, 5}, {3, 1}, {4, 3, 5});
  CheckPair({1, 1, 1}, {7}, {1, 1, 7});
  CheckPair({2, 3, 4, 5}, {3, 1, 5}, {2, 3, 4, 5});
  CheckPair({2, 1, 4, 1, 3}, {1, 5, 1, 2, 1}, {2, 5, 4, 2, 3});
  CheckPair({0, 3}, {3}, {0, 3});
  CheckPair({0}, {1}, {0});
  CheckPair({1, 2, 1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 1}, {2, 2, 2, 2, 2, 2, 2, 2});
}

TEST(BroadcastPlanTest, RandomShapesMatchReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = static_cast<int>(rng() % 6);
    Shape x, y, out;
    const int x_rank = static_cast<int>(rng() % (rank + 1));
    const int y_rank = static_cast<int>(rng() % (rank + 1));
    Shape full;
    for (int d = 0; d < rank; ++d) full.AddDim(static_cast<int64_t>(rng() % 4));
    for (int d = 0; d < rank; ++d) {
      const bool x_has = d >= rank - x_rank;
      const bool y_has = d >= rank - y_rank;
      const int64_t size = full.dim(d);
      const bool x_one = rng() % 3 == 0;
      const bool y_one = !x_one && rng() % 3 == 0;
      if (x_has) x.AddDim(x_one ? 1 : size);
      if (y_has) y.AddDim(y_one ? 1 : size);
      const int64_t xd = x_has ? (x_one ? 1 : size) : 1;
      const int64_t yd = y_has ? (y_one ? 1 : size) : 1;
      if (x_has || y_has) out.AddDim(xd == 1 ? yd : xd);
    }
    CheckPair(x, y, out);
  }
}

TEST(BroadcastPlanTest, RejectsIncompatibleShapes) {
  BroadcastPlan plan;
  EXPECT_FALSE(plan.Init({2, 3}, {4}));
  EXPECT_FALSE(plan.Init({0}, {2}));
  EXPECT_FALSE(plan.Init({2, 3, 4}, {3, 5}));
}

}  // namespace
}  // namespace tessera::cpu
