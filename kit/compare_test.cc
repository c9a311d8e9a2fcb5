// The kernel suite's comparison: tolerances per dtype, NaN, shapes, and the messages a report
// shows.
#include "kit/compare.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::plugin_check {
namespace {

using ::testing::HasSubstr;

Tensor Floats(const TensorShape& shape, std::vector<float> values) {
  return Tensor::FromVector<float>(shape, values);
}

TEST(CompareTest, NamesTheWorstElementOfAFailure) {
  Comparison c = CompareTensors(Floats({2, 2}, {2, 1, 1, 1}), Floats({2, 2}, {3, 1, 1, 1.5f}),
                                ToleranceFor(TSR_DTYPE_FLOAT));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.message,
            "largest difference 1 at element 0 ([0,0]) (expected 2, got 3); tolerance 2.1e-05; "
            "2 of 4 elements differ");
}

TEST(CompareTest, PassesWithinTheToleranceAndReportsTheLargestDifference) {
  Comparison c = CompareTensors(Floats({2}, {1, 100}), Floats({2}, {1, 100.0005f}),
                                ToleranceFor(TSR_DTYPE_FLOAT));
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_THAT(c.message, HasSubstr("largest difference 0.000504 (tolerance 1e-06 + 1e-05"));
}

TEST(CompareTest, NanEqualsNanButNothingElse) {
  EXPECT_TRUE(CompareTensors(Floats({1}, {NAN}), Floats({1}, {NAN}),
                             ToleranceFor(TSR_DTYPE_FLOAT)).ok);
  Comparison c = CompareTensors(Floats({1}, {1}), Floats({1}, {NAN}),
                                ToleranceFor(TSR_DTYPE_FLOAT));
  EXPECT_FALSE(c.ok);
  EXPECT_THAT(c.message, HasSubstr("largest difference inf at element 0 (expected 1, got nan)"));
  EXPECT_FALSE(CompareTensors(Floats({1}, {INFINITY}), Floats({1}, {-INFINITY}),
                              ToleranceFor(TSR_DTYPE_FLOAT)).ok);
}

TEST(CompareTest, IntegersAreExact) {
  Tensor expected = Tensor::FromVector<int64_t>({2}, {int64_t{1} << 60, 5});
  Tensor actual = Tensor::FromVector<int64_t>({2}, {(int64_t{1} << 60) + 1, 5});
  Comparison c = CompareTensors(expected, actual, ToleranceFor(TSR_DTYPE_INT64));
  EXPECT_FALSE(c.ok);  // the two differ by one, which a double cannot see
  EXPECT_THAT(c.message, HasSubstr("tolerance 0 (exact); 1 of 2 elements differ"));
}

TEST(CompareTest, ShapesAndDtypesMustMatchExactly) {
  Comparison shape = CompareTensors(Floats({2, 1}, {1, 2}), Floats({2}, {1, 2}),
                                    ToleranceFor(TSR_DTYPE_FLOAT));
  EXPECT_FALSE(shape.ok);
  EXPECT_EQ(shape.message, "shape [2], expected [2,1]");
  Comparison dtype = CompareTensors(Floats({1}, {1}), Tensor::FromVector<int32_t>({1}, {1}),
                                    ToleranceFor(TSR_DTYPE_FLOAT));
  EXPECT_EQ(dtype.message, "dtype int32, expected float");
}

TEST(CompareTest, ToleranceScalesAndLoosensForNarrowTypes) {
  EXPECT_TRUE(ToleranceFor(TSR_DTYPE_INT32, 100).exact());
  EXPECT_DOUBLE_EQ(ToleranceFor(TSR_DTYPE_FLOAT, 10).relative, 1e-4);
  EXPECT_GT(ToleranceFor(TSR_DTYPE_HALF).relative, ToleranceFor(TSR_DTYPE_FLOAT).relative);
  EXPECT_GT(ToleranceFor(TSR_DTYPE_BFLOAT16).relative, ToleranceFor(TSR_DTYPE_HALF).relative);
}

TEST(CompareTest, SeveralOutputsAreNamed) {
  Comparison c = CompareOutputs({Floats({1}, {1}), Floats({1}, {2})},
                                {Floats({1}, {1}), Floats({1}, {4})}, 1);
  EXPECT_FALSE(c.ok);
  EXPECT_THAT(c.message, HasSubstr("output 1: largest difference 2 at element 0"));
  EXPECT_EQ(CompareOutputs({Floats({1}, {1})}, {}, 1).message, "0 outputs, expected 1");
}

TEST(CompareTest, FailuresPassOnlyWithTheSameCode) {
  Comparison both = CompareFailures(absl::InvalidArgumentError("bad shapes"),
                                    absl::InvalidArgumentError("shapes differ"));
  EXPECT_TRUE(both.ok);
  EXPECT_EQ(both.message, "both failed with INVALID_ARGUMENT: bad shapes");
  Comparison codes = CompareFailures(absl::InvalidArgumentError("bad shapes"),
                                     absl::InternalError("crash"));
  EXPECT_FALSE(codes.ok);
  EXPECT_THAT(codes.message, HasSubstr("the plugin failed with INTERNAL: crash; the CPU oracle "
                                       "failed with INVALID_ARGUMENT: bad shapes"));
  Comparison plugin = CompareFailures(absl::OkStatus(), absl::UnimplementedError("no"));
  EXPECT_FALSE(plugin.ok);
  EXPECT_EQ(plugin.message, "the plugin failed with UNIMPLEMENTED: no; the CPU oracle succeeded");
  Comparison oracle = CompareFailures(absl::InternalError("oops"), absl::OkStatus());
  EXPECT_FALSE(oracle.ok);
  EXPECT_EQ(oracle.message, "the plugin succeeded where the CPU oracle failed with INTERNAL: oops");
}

}  // namespace
}  // namespace tessera::plugin_check
