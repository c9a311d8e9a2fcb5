// Tests of the image and detection ops' definitions and shape functions.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

constexpr char kFloat[] = R"pb(attr {
                                 key: "T"
                                 value { type: DT_FLOAT }
                               })pb";
constexpr char kPad[] = R"pb(attr {
                               key: "pad_to_max_output_size"
                               value { b: true }
                             })pb";

class ImageOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();

  const tensorflow::OpDef& Def(const char* op) { return ops_->Find(op)->op_def; }
  const tensorflow::OpDef::AttrDef* Attr(const char* op, const std::string& name) {
    for (const auto& attr : Def(op).attr()) {
      if (attr.name() == name) return &attr;
    }
    return nullptr;
  }
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& substring) {
    ASSERT_FALSE(out.ok()) << "expected an error containing '" << substring << "'";
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(substring));
  }
};

TEST_F(ImageOpsTest, ResizesTakeTheSizeWhenItIsConstant) {
  Tensor size = Tensor::Vector<int32_t>({5, 7});
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeNearestNeighborGrad"}) {
    auto out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 3, 4, -1}), PartialShape({2})},
                           {nullptr, &size});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 7, -1}))) << op;
    out = InferShapes(*ops_, op, kFloat, {PartialShape({2, 3, 4, 1}), PartialShape({-1})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1, -1, 1}))) << op;
    EXPECT_FALSE(Attr(op, "align_corners")->default_value().b());
    EXPECT_FALSE(Attr(op, "half_pixel_centers")->default_value().b());
  }
  EXPECT_EQ(Def("ResizeBilinear").output_arg(0).type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(Attr("ResizeBilinear", "T")->allowed_values().list().type_size(), 10);
  EXPECT_EQ(Attr("ResizeNearestNeighborGrad", "T")->allowed_values().list().type_size(), 7);
}

TEST_F(ImageOpsTest, ResizesRejectBadShapes) {
  ExpectError(
      InferShapes(*ops_, "ResizeBilinear", kFloat, {PartialShape({3, 4, 1}), PartialShape({2})}),
      "must be rank 4");
  ExpectError(
      InferShapes(*ops_, "ResizeBilinear", kFloat, {PartialShape({1, 3, 4, 1}), PartialShape({3})}),
      "Dimension must be 2 but is 3");
  ExpectError(InferShapes(*ops_, "ResizeNearestNeighbor", kFloat,
                          {PartialShape({1, 3, 4, 1}), PartialShape({2, 1})}),
              "must be rank 1");
}

TEST_F(ImageOpsTest, ResizeBilinearGradHasTheOriginalImageShape) {
  auto out = InferShapes(*ops_, "ResizeBilinearGrad", kFloat,
                         {PartialShape({2, 6, 8, 3}), PartialShape({2, 3, -1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, -1, 3})));
  ExpectError(InferShapes(*ops_, "ResizeBilinearGrad", kFloat,
                          {PartialShape({2, 6, 8}), PartialShape({2, 3, 4, 3})}),
              "must be rank 4");
}

TEST_F(ImageOpsTest, CropAndResizeShape) {
  Tensor crop = Tensor::Vector<int32_t>({3, 5});
  auto out = InferShapes(
      *ops_, "CropAndResize", kFloat,
      {PartialShape({2, 10, 10, 4}), PartialShape({-1, 4}), PartialShape({6}), PartialShape({2})},
      {nullptr, nullptr, nullptr, &crop});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({6, 3, 5, 4})));
  EXPECT_EQ(Attr("CropAndResize", "method")->default_value().s(), "bilinear");
  EXPECT_EQ(Attr("CropAndResize", "extrapolation_value")->default_value().f(), 0.0f);
  ExpectError(InferShapes(*ops_, "CropAndResize", kFloat,
                          {PartialShape({2, 10, 10, 4}), PartialShape({5, 4}), PartialShape({6}),
                           PartialShape({2})}),
              "must be equal, but are 5 and 6");
  ExpectError(InferShapes(*ops_, "CropAndResize", kFloat,
                          {PartialShape({2, 10, 10, 4}), PartialShape({6, 3}), PartialShape({6}),
                           PartialShape({2})}),
              "Dimension must be 4 but is 3");
  ExpectError(InferShapes(*ops_, "CropAndResize", kFloat,
                          {PartialShape({10, 10, 4}), PartialShape({6, 4}), PartialShape({6}),
                           PartialShape({2})}),
              "must be rank 4");
}

TEST_F(ImageOpsTest, NonMaxSuppressionShapes) {
  const std::vector<PartialShape> v3 = {PartialShape({5, 4}), PartialShape({-1}),
                                        PartialShape::Scalar(), PartialShape::Scalar(),
                                        PartialShape::Scalar()};
  auto out = InferShapes(*ops_, "NonMaxSuppressionV3", "", v3);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1})));
  out = InferShapes(
      *ops_, "NonMaxSuppressionV2", "",
      {PartialShape({5, 4}), PartialShape({5}), PartialShape::Scalar(), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1})));
  out = InferShapes(*ops_, "NonMaxSuppressionV4", "", v3);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1}), PartialShape::Scalar()));
  Tensor max_output = Tensor::Scalar<int32_t>(3);
  out = InferShapes(*ops_, "NonMaxSuppressionV4", kPad, v3, {nullptr, nullptr, &max_output});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3}), PartialShape::Scalar()));
  std::vector<PartialShape> v5 = v3;
  v5.push_back(PartialShape::Scalar());
  out = InferShapes(*ops_, "NonMaxSuppressionV5", kPad, v5, {nullptr, nullptr, &max_output});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({3}), PartialShape({3}), PartialShape::Scalar()));
  EXPECT_EQ(Attr("NonMaxSuppressionV5", "T")->default_value().type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(Attr("NonMaxSuppressionV3", "T_threshold")->default_value().type(),
            tensorflow::DT_FLOAT);
  EXPECT_FALSE(Attr("NonMaxSuppressionV4", "pad_to_max_output_size")->default_value().b());
}

TEST_F(ImageOpsTest, NonMaxSuppressionRejectsBadShapes) {
  ExpectError(InferShapes(*ops_, "NonMaxSuppressionV3", "",
                          {PartialShape({5, 3}), PartialShape({5}), PartialShape::Scalar(),
                           PartialShape::Scalar(), PartialShape::Scalar()}),
              "Dimension must be 4 but is 3");
  ExpectError(InferShapes(*ops_, "NonMaxSuppressionV3", "",
                          {PartialShape({5, 4}), PartialShape({6}), PartialShape::Scalar(),
                           PartialShape::Scalar(), PartialShape::Scalar()}),
              "must be equal, but are 5 and 6");
  ExpectError(InferShapes(*ops_, "NonMaxSuppressionV3", "",
                          {PartialShape({5, 4}), PartialShape({5}), PartialShape({1}),
                           PartialShape::Scalar(), PartialShape::Scalar()}),
              "must be rank 0");
  Tensor negative = Tensor::Scalar<int32_t>(-1);
  ExpectError(InferShapes(*ops_, "NonMaxSuppressionV4", kPad,
                          {PartialShape({5, 4}), PartialShape({5}), PartialShape::Scalar(),
                           PartialShape::Scalar(), PartialShape::Scalar()},
                          {nullptr, nullptr, &negative}),
              "must be non-negative but is -1");
}

}  // namespace
}  // namespace tessera
