// Tests of the TensorArray and Stack op definitions: arguments, attrs and defaults as TensorFlow's,
// and their shape functions.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using testing::InferShapes;

class DataFlowOpsTest : public ::testing::Test {
 protected:
  const tensorflow::OpDef& Def(const std::string& op) { return ops_->Find(op)->op_def; }

  std::vector<std::string> Names(const std::string& op, bool inputs) {
    std::vector<std::string> names;
    for (const auto& arg : inputs ? Def(op).input_arg() : Def(op).output_arg()) {
      names.push_back(arg.name());
    }
    return names;
  }

  const tensorflow::OpDef::AttrDef* Attr(const std::string& op, const std::string& name) {
    for (const auto& attr : Def(op).attr()) {
      if (attr.name() == name) return &attr;
    }
    return nullptr;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(DataFlowOpsTest, TensorArrayDefinitionsFollowTensorFlow) {
  EXPECT_THAT(Names("TensorArrayV3", true), ElementsAre("size"));
  EXPECT_THAT(Names("TensorArrayV3", false), ElementsAre("handle", "flow"));
  EXPECT_TRUE(Def("TensorArrayV3").is_stateful());
  EXPECT_TRUE(Attr("TensorArrayV3", "element_shape")->default_value().shape().unknown_rank());
  EXPECT_FALSE(Attr("TensorArrayV3", "dynamic_size")->default_value().b());
  EXPECT_TRUE(Attr("TensorArrayV3", "clear_after_read")->default_value().b());
  EXPECT_FALSE(Attr("TensorArrayV3", "identical_element_shapes")->default_value().b());
  EXPECT_EQ(Attr("TensorArrayV3", "tensor_array_name")->default_value().s(), "");
  EXPECT_THAT(Names("TensorArrayGradV3", true), ElementsAre("handle", "flow_in"));
  EXPECT_THAT(Names("TensorArrayGradV3", false), ElementsAre("grad_handle", "flow_out"));
  EXPECT_THAT(Names("TensorArrayGradWithShape", true),
              ElementsAre("handle", "flow_in", "shape_to_prepend"));
  EXPECT_THAT(Names("TensorArrayWriteV3", true),
              ElementsAre("handle", "index", "value", "flow_in"));
  EXPECT_THAT(Names("TensorArrayReadV3", true), ElementsAre("handle", "index", "flow_in"));
  EXPECT_THAT(Names("TensorArrayGatherV3", true), ElementsAre("handle", "indices", "flow_in"));
  EXPECT_THAT(Names("TensorArrayScatterV3", true),
              ElementsAre("handle", "indices", "value", "flow_in"));
  EXPECT_THAT(Names("TensorArrayConcatV3", false), ElementsAre("value", "lengths"));
  EXPECT_THAT(Names("TensorArraySplitV3", true),
              ElementsAre("handle", "value", "lengths", "flow_in"));
  EXPECT_THAT(Names("TensorArraySizeV3", false), ElementsAre("size"));
  EXPECT_THAT(Names("TensorArrayCloseV3", false), ElementsAre());
}

TEST_F(DataFlowOpsTest, StackDefinitionsFollowTensorFlow) {
  EXPECT_THAT(Names("StackV2", true), ElementsAre("max_size"));
  EXPECT_EQ(Attr("StackV2", "stack_name")->default_value().s(), "");
  EXPECT_THAT(Names("StackPushV2", true), ElementsAre("handle", "elem"));
  EXPECT_FALSE(Attr("StackPushV2", "swap_memory")->default_value().b());
  EXPECT_THAT(Names("StackPopV2", false), ElementsAre("elem"));
  EXPECT_THAT(Names("StackCloseV2", true), ElementsAre("handle"));
}

TEST_F(DataFlowOpsTest, ShapeFunctions) {
  const std::string f = "attr { key: 'dtype' value { type: DT_FLOAT } }";
  auto shapes = InferShapes(*ops_, "TensorArrayV3", f, {PartialShape::Scalar()});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], (PartialShape{2}));
  EXPECT_EQ((*shapes)[1], PartialShape::Scalar());
  EXPECT_FALSE(InferShapes(*ops_, "TensorArrayV3", f, {PartialShape{3}}).ok());

  shapes = InferShapes(*ops_, "TensorArrayGatherV3",
                       f + " attr { key: 'element_shape' value { shape { dim { size: 3 } } } }",
                       {PartialShape{2}, PartialShape{5}, PartialShape::Scalar()});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], (PartialShape{5, 3}));

  shapes = InferShapes(*ops_, "TensorArrayConcatV3",
                       f + " attr { key: 'element_shape_except0' value { shape { dim { size: 4 "
                           "} } } }",
                       {PartialShape{2}, PartialShape::Scalar()});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], (PartialShape{-1, 4}));
  EXPECT_EQ((*shapes)[1], (PartialShape{-1}));

  const std::string t = "attr { key: 'T' value { type: DT_FLOAT } }";
  shapes = InferShapes(
      *ops_, "TensorArrayWriteV3", t,
      {PartialShape{2}, PartialShape::Scalar(), PartialShape{3}, PartialShape::Scalar()});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialShape::Scalar());
  EXPECT_FALSE(
      InferShapes(*ops_, "TensorArrayWriteV3", t,
                  {PartialShape{2}, PartialShape{2}, PartialShape{3}, PartialShape::Scalar()})
          .ok());
  // Scatter needs at least a vector of values; split a vector of lengths.
  EXPECT_FALSE(InferShapes(*ops_, "TensorArrayScatterV3", t,
                           {PartialShape{2}, PartialShape{1}, PartialShape::Scalar(),
                            PartialShape::Scalar()})
                   .ok());
  EXPECT_FALSE(InferShapes(*ops_, "TensorArraySplitV3", t,
                           {PartialShape{2}, PartialShape{4}, PartialShape::Scalar(),
                            PartialShape::Scalar()})
                   .ok());

  shapes = InferShapes(*ops_, "StackPushV2", t, {PartialShape{2}, PartialShape{3, 4}});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], (PartialShape{3, 4}));
}

}  // namespace
}  // namespace tessera
