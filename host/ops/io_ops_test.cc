// Tests of the checkpoint op definitions (SaveV2, RestoreV2, MergeV2Checkpoints): arguments, attrs
// and defaults as TensorFlow's, and their shape functions.
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

// `dtypes` of `n` float tensors.
std::string Dtypes(int n) {
  std::string list;
  for (int i = 0; i < n; ++i) list += " type: DT_FLOAT";
  return "attr { key: \"dtypes\" value { list {" + list + " } } }";
}

class IoOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }

  std::vector<std::string> ArgNames(const std::string& op, bool inputs) {
    std::vector<std::string> names;
    const tensorflow::OpDef& def = ops_->Find(op)->op_def;
    for (const auto& arg : inputs ? def.input_arg() : def.output_arg()) {
      names.push_back(arg.name());
    }
    return names;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(IoOpsTest, DefinitionsFollowTensorFlow) {
  for (const char* op : {"SaveV2", "RestoreV2", "MergeV2Checkpoints"}) {
    ASSERT_NE(ops_->Find(op), nullptr) << op;
    EXPECT_TRUE(ops_->Find(op)->op_def.is_stateful()) << op;
  }
  const tensorflow::OpDef& save = ops_->Find("SaveV2")->op_def;
  EXPECT_THAT(ArgNames("SaveV2", true),
              ElementsAre("prefix", "tensor_names", "shape_and_slices", "tensors"));
  EXPECT_TRUE(ArgNames("SaveV2", false).empty());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(save.input_arg(i).type(), tensorflow::DT_STRING);
  EXPECT_EQ(save.input_arg(3).type_list_attr(), "dtypes");
  ASSERT_EQ(save.attr_size(), 1);
  EXPECT_EQ(save.attr(0).name(), "dtypes");
  EXPECT_EQ(save.attr(0).type(), "list(type)");

  const tensorflow::OpDef& restore = ops_->Find("RestoreV2")->op_def;
  EXPECT_THAT(ArgNames("RestoreV2", true),
              ElementsAre("prefix", "tensor_names", "shape_and_slices"));
  EXPECT_THAT(ArgNames("RestoreV2", false), ElementsAre("tensors"));
  EXPECT_EQ(restore.output_arg(0).type_list_attr(), "dtypes");

  const tensorflow::OpDef& merge = ops_->Find("MergeV2Checkpoints")->op_def;
  EXPECT_THAT(ArgNames("MergeV2Checkpoints", true),
              ElementsAre("checkpoint_prefixes", "destination_prefix"));
  ASSERT_EQ(merge.attr_size(), 2);
  EXPECT_EQ(merge.attr(0).name(), "delete_old_dirs");
  EXPECT_TRUE(merge.attr(0).default_value().b());
  EXPECT_EQ(merge.attr(1).name(), "allow_missing_files");
  EXPECT_FALSE(merge.attr(1).default_value().b());
}

TEST_F(IoOpsTest, SaveV2ChecksPrefixAndNameCounts) {
  auto out = InferShapes(*ops_, "SaveV2", Dtypes(2),
                         {PartialShape::Scalar(), PartialShape({2}), PartialShape({2}),
                          PartialShape({3, 4}), PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->empty());
  // Unknown lengths pass.
  out = InferShapes(
      *ops_, "SaveV2", Dtypes(1),
      {PartialShape::Unknown(), PartialShape({-1}), PartialShape::Unknown(), PartialShape({1})});
  EXPECT_TRUE(out.ok()) << out.status();

  ExpectError(InferShapes(*ops_, "SaveV2", Dtypes(1),
                          {PartialShape({1}), PartialShape({1}), PartialShape({1}),
                           PartialShape::Scalar()}),
              "shape must be rank 0 but is rank 1 (input 0)");
  ExpectError(InferShapes(*ops_, "SaveV2", Dtypes(1),
                          {PartialShape::Scalar(), PartialShape({1, 1}), PartialShape({1}),
                           PartialShape::Scalar()}),
              "shape must be rank 1 but is rank 2 (input 1)");
  ExpectError(InferShapes(*ops_, "SaveV2", Dtypes(2),
                          {PartialShape::Scalar(), PartialShape({2}), PartialShape({3}),
                           PartialShape::Scalar(), PartialShape::Scalar()}),
              "Dimension must be 2 but is 3 (input 2)");
}

TEST_F(IoOpsTest, RestoreV2ShapesComeFromConstantSlices) {
  Tensor specs = Tensor::Strings(TensorShape{3}, {"", "4 5 0,2:-", "10 1,3"});
  auto out = InferShapes(*ops_, "RestoreV2", Dtypes(3),
                         {PartialShape::Scalar(), PartialShape({3}), PartialShape({3})},
                         {nullptr, nullptr, &specs});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_FALSE((*out)[0].rank_known());
  EXPECT_EQ((*out)[1], PartialShape({2, 5}));
  EXPECT_EQ((*out)[2], PartialShape({3}));

  // Without the constant every output is unknown.
  out = InferShapes(*ops_, "RestoreV2", Dtypes(2),
                    {PartialShape::Scalar(), PartialShape({2}), PartialShape({2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[1].rank_known());
}

TEST_F(IoOpsTest, RestoreV2RejectsBadInputs) {
  ExpectError(InferShapes(*ops_, "RestoreV2", Dtypes(2),
                          {PartialShape::Scalar(), PartialShape({2}), PartialShape({3})}),
              "must be equal, but are 2 and 3");
  ExpectError(InferShapes(*ops_, "RestoreV2", Dtypes(1),
                          {PartialShape({2}), PartialShape({1}), PartialShape({1})}),
              "shape must be rank 0 but is rank 1 (input 0)");
  Tensor two = Tensor::Strings(TensorShape{2}, {"", ""});
  ExpectError(InferShapes(*ops_, "RestoreV2", Dtypes(1),
                          {PartialShape::Scalar(), PartialShape({-1}), PartialShape({-1})},
                          {nullptr, nullptr, &two}),
              "The number of shape_and_slice doesn't match tensor outputs.");
  Tensor bad = Tensor::Strings(TensorShape{1}, {"4 5 0,9:-"});
  ExpectError(InferShapes(*ops_, "RestoreV2", Dtypes(1),
                          {PartialShape::Scalar(), PartialShape({1}), PartialShape({1})},
                          {nullptr, nullptr, &bad}),
              "RestoreV2: ");
  Tensor numbers = Tensor::Vector<int32_t>({1});
  ExpectError(InferShapes(*ops_, "RestoreV2", Dtypes(1),
                          {PartialShape::Scalar(), PartialShape({1}), PartialShape({1})},
                          {nullptr, nullptr, &numbers}),
              "Expected an input tensor of type string.");
}

TEST_F(IoOpsTest, MergeV2CheckpointsTakesAVectorAndAScalar) {
  auto out =
      InferShapes(*ops_, "MergeV2Checkpoints", "", {PartialShape({2}), PartialShape::Scalar()});
  EXPECT_TRUE(out.ok()) << out.status();
  ExpectError(InferShapes(*ops_, "MergeV2Checkpoints", "",
                          {PartialShape::Scalar(), PartialShape::Scalar()}),
              "shape must be rank 1 but is rank 0 (input 0)");
  ExpectError(InferShapes(*ops_, "MergeV2Checkpoints", "", {PartialShape({2}), PartialShape({1})}),
              "shape must be rank 0 but is rank 1 (input 1)");
}

}  // namespace
}  // namespace tessera
