#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cuda/gpu_kernels.h"
#include "plugins/cuda/test_host_api.h"

namespace tessera::gpu {
namespace {

using sdk::Shape;
using ::testing::ElementsAreArray;

BroadcastPlan Plan(const Shape& x, const Shape& y, Shape* out) {
  BroadcastPlan plan;
  sdk::Status status = MakeBroadcastPlan(x, y, out, &plan);
  EXPECT_TRUE(status.ok()) << status.message();
  return plan;
}

// The offsets the device kernel computes for output element i (elementwise_binary.cu).
void Offsets(const BroadcastPlan& plan, int64_t i, int64_t* xi, int64_t* yi) {
  *xi = plan.mode == BroadcastPlan::kXScalar ? 0 : i;
  *yi = plan.mode == BroadcastPlan::kYScalar ? 0 : i;
  if (plan.mode != BroadcastPlan::kGeneral) return;
  *xi = 0;
  *yi = 0;
  for (int d = plan.rank - 1; d >= 0; --d) {
    const int64_t c = i % plan.dims[d];
    i /= plan.dims[d];
    *xi += c * plan.x_strides[d];
    *yi += c * plan.y_strides[d];
  }
}

TEST(BroadcastPlanTest, SameShapesAndScalars) {
  Shape out;
  EXPECT_EQ(Plan(Shape{2, 3}, Shape{2, 3}, &out).mode, BroadcastPlan::kSame);
  EXPECT_EQ(out, (Shape{2, 3}));
  EXPECT_EQ(Plan(Shape{}, Shape{4, 5}, &out).mode, BroadcastPlan::kXScalar);
  EXPECT_EQ(out, (Shape{4, 5}));
  EXPECT_EQ(Plan(Shape{4, 5}, Shape{1, 1}, &out).mode, BroadcastPlan::kYScalar);
  EXPECT_EQ(out, (Shape{4, 5}));
  // Dimensions of 1 on both sides are not broadcasting.
  EXPECT_EQ(Plan(Shape{1, 3}, Shape{3}, &out).mode, BroadcastPlan::kSame);
  EXPECT_EQ(out, (Shape{1, 3}));
  EXPECT_EQ(Plan(Shape{}, Shape{}, &out).mode, BroadcastPlan::kSame);
  EXPECT_EQ(out, Shape{});
}

TEST(BroadcastPlanTest, MergesDimensionsThatBroadcastAlike) {
  Shape out;
  // [2,3,4] + [4]: x walks everything, y repeats over the first two dimensions (merged to 6).
  BroadcastPlan plan = Plan(Shape{2, 3, 4}, Shape{4}, &out);
  EXPECT_EQ(out, (Shape{2, 3, 4}));
  ASSERT_EQ(plan.mode, BroadcastPlan::kGeneral);
  ASSERT_EQ(plan.rank, 2);
  EXPECT_THAT(std::vector<int64_t>(plan.dims, plan.dims + 2), ElementsAreArray({6, 4}));
  EXPECT_THAT(std::vector<int64_t>(plan.x_strides, plan.x_strides + 2), ElementsAreArray({4, 1}));
  EXPECT_THAT(std::vector<int64_t>(plan.y_strides, plan.y_strides + 2), ElementsAreArray({0, 1}));
}

TEST(BroadcastPlanTest, OffsetsMatchNumpyBroadcasting) {
  const Shape cases[][2] = {
      {Shape{3, 1, 5}, Shape{1, 4, 1}},    {Shape{2, 3, 4}, Shape{3, 1}}, {Shape{1}, Shape{2, 2}},
      {Shape{6, 1, 2, 1}, Shape{7, 1, 3}}, {Shape{2, 3}, Shape{2, 1}},
  };
  for (const auto& c : cases) {
    Shape out;
    const BroadcastPlan plan = Plan(c[0], c[1], &out);
    const int rank = out.rank();
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      // The reference: output coordinates, each input's coordinate 0 where its size is 1.
      int64_t coordinate[8] = {};
      int64_t rest = i;
      for (int d = rank - 1; d >= 0; --d) {
        coordinate[d] = rest % out.dim(d);
        rest /= out.dim(d);
      }
      int64_t expected[2] = {0, 0};
      for (int side = 0; side < 2; ++side) {
        const Shape& s = c[side];
        for (int d = 0; d < s.rank(); ++d) {
          const int od = d + rank - s.rank();
          expected[side] = expected[side] * s.dim(d) + (s.dim(d) == 1 ? 0 : coordinate[od]);
        }
      }
      int64_t xi = -1;
      int64_t yi = -1;
      Offsets(plan, i, &xi, &yi);
      ASSERT_EQ(xi, expected[0]) << c[0].DebugString() << " vs " << c[1].DebugString() << " at "
                                 << i;
      ASSERT_EQ(yi, expected[1]) << c[0].DebugString() << " vs " << c[1].DebugString() << " at "
                                 << i;
    }
  }
}

TEST(BroadcastPlanTest, IncompatibleShapesAreInvalidArgument) {
  Shape out;
  BroadcastPlan plan;
  sdk::Status status = MakeBroadcastPlan(Shape{2, 3}, Shape{4}, &out, &plan);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(), std::string("Incompatible shapes: [2,3] vs. [4]"));
}

TEST(BroadcastPlanTest, ElementTypes) {
  ElementType type;
  EXPECT_TRUE(ElementTypeOf(TSR_DTYPE_HALF, "x", &type).ok());
  EXPECT_EQ(type, ElementType::kHalf);
  EXPECT_TRUE(ElementTypeOf(TSR_DTYPE_BOOL, "x", &type).ok());
  EXPECT_EQ(type, ElementType::kBool);
  sdk::Status status = ElementTypeOf(TSR_DTYPE_DOUBLE, "the input", &type);
  EXPECT_EQ(status.code(), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            std::string("the input has type double, which the GPU kernels do not have"));
}

}  // namespace
}  // namespace tessera::gpu
