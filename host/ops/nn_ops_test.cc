// Tests of the neural-network ops' definitions and shape functions.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

constexpr char kFloat[] = R"pb(attr { key: "T" value { type: DT_FLOAT } })pb";

class NnOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(NnOpsTest, ReluKeepsTheShape) {
  for (const char* op : {"Relu", "Relu6"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 3})});
    ASSERT_TRUE(out.ok()) << op;
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3})));
  }
  EXPECT_EQ(ops_->Find("Relu")->op_def.input_arg(0).name(), "features");
}

TEST_F(NnOpsTest, BiasAddMergesTheChannel) {
  auto out = InferShapes(*ops_, "BiasAdd", kFloat, {PartialShape({8, -1}), PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({8, 5})));
  out = InferShapes(*ops_, "BiasAdd",
                    R"pb(attr { key: "T" value { type: DT_FLOAT } }
                         attr { key: "data_format" value { s: "NCHW" } })pb",
                    {PartialShape({8, 3, 4, 4}), PartialShape({3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({8, 3, 4, 4})));
  out = InferShapes(*ops_, "BiasAdd", kFloat, {PartialShape({8, 4}), PartialShape({5})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("BiasAdd: dimensions must be equal, but are 4 and 5"));
  out = InferShapes(*ops_, "BiasAdd", kFloat, {PartialShape({8}), PartialShape({5})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("shape must be at least rank 2 but is rank 1 (input 0)"));
  EXPECT_EQ(ops_->Find("BiasAdd")->op_def.attr(1).default_value().s(), "NHWC");
}

TEST_F(NnOpsTest, SoftmaxNeedsAtLeastAVector) {
  auto out = InferShapes(*ops_, "Softmax", kFloat, {PartialShape({2, 10})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 10})));
  out = InferShapes(*ops_, "Softmax", kFloat, {PartialShape::Scalar()});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("Softmax: shape must be at least rank 1 but is rank 0"));
}

}  // namespace
}  // namespace tessera
