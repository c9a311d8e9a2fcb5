// Tests of ReductionPlan: axis checks with TensorFlow's messages, output shapes and grouping.
#include "plugins/cpu/kernels/reduction.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tessera::cpu {
namespace {

using sdk::Shape;

TEST(ReductionPlanTest, NormalizesNegativeAxesAndKeepsDims) {
  ReductionPlan plan;
  std::string error;
  ASSERT_TRUE(plan.Init({2, 3, 4}, {-1}, /*keep_dims=*/true, &error));
  EXPECT_EQ(plan.output_shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(plan.reduced_count(), 4);
  EXPECT_FALSE(plan.is_identity());
  ASSERT_EQ(plan.num_groups(), 2);
  EXPECT_EQ(plan.group_size(0), 6);
  EXPECT_FALSE(plan.group_reduced(0));
  EXPECT_EQ(plan.group_size(1), 4);
  EXPECT_TRUE(plan.group_reduced(1));
}

TEST(ReductionPlanTest, DropsReducedDimsWithoutKeepDims) {
  ReductionPlan plan;
  std::string error;
  ASSERT_TRUE(plan.Init({2, 3, 4, 5}, {0, 2}, false, &error));
  EXPECT_EQ(plan.output_shape(), (Shape{3, 5}));
  EXPECT_EQ(plan.reduced_count(), 8);
  EXPECT_EQ(plan.num_groups(), 4);
}

TEST(ReductionPlanTest, EmptyAxesAndSizeOneAxesAreIdentity) {
  ReductionPlan plan;
  std::string error;
  ASSERT_TRUE(plan.Init({2, 3}, {}, false, &error));
  EXPECT_TRUE(plan.is_identity());
  EXPECT_EQ(plan.output_shape(), (Shape{2, 3}));
  ASSERT_TRUE(plan.Init({2, 1, 3}, {1}, false, &error));
  EXPECT_TRUE(plan.is_identity());
  EXPECT_EQ(plan.output_shape(), (Shape{2, 3}));
}

TEST(ReductionPlanTest, MergesAdjacentReducedDims) {
  ReductionPlan plan;
  std::string error;
  ASSERT_TRUE(plan.Init({2, 3, 1, 4, 5}, {1, 2, 3}, false, &error));
  ASSERT_EQ(plan.num_groups(), 3);
  EXPECT_EQ(plan.group_size(1), 12);
  EXPECT_EQ(plan.output_shape(), (Shape{2, 5}));
}

TEST(ReductionPlanTest, RejectsOutOfRangeAxis) {
  ReductionPlan plan;
  std::string error;
  EXPECT_FALSE(plan.Init({2, 3}, {2}, false, &error));
  EXPECT_EQ(error, "Invalid reduction dimension (2 for input with 2 dimension(s)");
  EXPECT_FALSE(plan.Init({2, 3}, {-3}, false, &error));
  EXPECT_EQ(error, "Invalid reduction dimension (-3 for input with 2 dimension(s)");
  EXPECT_FALSE(plan.Init({}, {0}, false, &error));
  EXPECT_EQ(error, "Invalid reduction dimension (0 for input with 0 dimension(s)");
}

TEST(ReductionPlanTest, RejectsDuplicateAxes) {
  ReductionPlan plan;
  std::string error;
  EXPECT_FALSE(plan.Init({2, 3}, {1, -1}, false, &error));
  EXPECT_EQ(error, "Invalid reduction arguments: Axes contains duplicate dimension: 1");
}

}  // namespace
}  // namespace tessera::cpu
