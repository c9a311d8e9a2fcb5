// Tests of the definitions and shape functions of MatrixDiag, MatrixDiagPart, MatrixSetDiag and
// their V2 and V3 forms.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

constexpr char kFloat[] = R"(attr { key: "T" value { type: DT_FLOAT } })";

class ArrayDiagOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(ArrayDiagOpsTest, FirstVersionsUseTheMainDiagonal) {
  auto out = InferShapes(*ops_, "MatrixDiag", kFloat, {PartialShape({2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 3})));
  out = InferShapes(*ops_, "MatrixDiagPart", kFloat, {PartialShape({2, 3, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3})));
  out =
      InferShapes(*ops_, "MatrixSetDiag", kFloat, {PartialShape({2, 3, 5}), PartialShape({2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 5})));
  out = InferShapes(*ops_, "MatrixDiagPart", kFloat, {PartialShape({3})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("must be at least rank 2"));
}

TEST_F(ArrayDiagOpsTest, BandsWithConstantArguments) {
  Tensor k = Tensor::Vector<int32_t>({-1, 2});
  Tensor minus_one = Tensor::Scalar<int32_t>(-1);
  auto out = InferShapes(*ops_, "MatrixDiagV3", kFloat,
                         {PartialShape({5, 4, 3}), PartialShape({2}), PartialShape::Scalar(),
                          PartialShape::Scalar(), PartialShape::Scalar()},
                         {nullptr, &k, &minus_one, &minus_one, nullptr});
  ASSERT_TRUE(out.ok()) << out.status();
  // max_diag_len 3 and k within [-1, 2]: a 3x3 matrix is the smallest that holds the band.
  EXPECT_THAT(*out, ElementsAre(PartialShape({5, 3, 3})));
  out = InferShapes(*ops_, "MatrixDiagPartV3", kFloat,
                    {PartialShape({2, 3, 4}), PartialShape({2}), PartialShape::Scalar()},
                    {nullptr, &k, nullptr});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4, 3})));
  out = InferShapes(*ops_, "MatrixDiagPartV2", kFloat,
                    {PartialShape({2, 3, 4}), PartialShape({2}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  Tensor reversed = Tensor::Vector<int32_t>({2, 1});
  out = InferShapes(*ops_, "MatrixDiagPartV3", kFloat,
                    {PartialShape({2, 3, 4}), PartialShape({2}), PartialShape::Scalar()},
                    {nullptr, &reversed, nullptr});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("lower_diag_index must not be larger than upper_diag_index: 2 > 1"));
  for (const auto& a : ops_->Find("MatrixSetDiagV3")->op_def.attr()) {
    if (a.name() == "align") {
      EXPECT_EQ(a.default_value().s(), "RIGHT_LEFT");
    }
  }
  EXPECT_EQ(ops_->Find("MatrixSetDiagV2")->op_def.attr_size(), 1);
}

}  // namespace
}  // namespace tessera
