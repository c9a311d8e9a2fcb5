// Tests of the sparse variable op definitions (Scatter*, ResourceScatter*, ResourceGather) and of
// Variable: arguments, attrs and defaults as TensorFlow's, and the scatter shape function.
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

class StateOpsTest : public ::testing::Test {
 protected:
  const tensorflow::OpDef& Def(const std::string& op) { return ops_->Find(op)->op_def; }

  std::vector<std::string> Names(const std::string& op, bool inputs) {
    std::vector<std::string> names;
    const tensorflow::OpDef& def = Def(op);
    for (const auto& arg : inputs ? def.input_arg() : def.output_arg()) {
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

  absl::StatusOr<std::vector<PartialShape>> Scatter(std::vector<PartialShape> inputs) {
    return InferShapes(*ops_, "ScatterAdd",
                       "attr { key: \"T\" value { type: DT_FLOAT } } "
                       "attr { key: \"Tindices\" value { type: DT_INT32 } }",
                       std::move(inputs));
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(StateOpsTest, ScatterDefinitionsFollowTensorFlow) {
  for (const char* op : {"Update", "Add", "Sub", "Mul", "Div", "Min", "Max"}) {
    const std::string ref_op = std::string("Scatter") + op;
    const std::string resource_op = std::string("ResourceScatter") + op;
    ASSERT_NE(ops_->Find(ref_op), nullptr) << ref_op;
    ASSERT_NE(ops_->Find(resource_op), nullptr) << resource_op;
    EXPECT_THAT(Names(ref_op, true), ElementsAre("ref", "indices", "updates"));
    EXPECT_THAT(Names(ref_op, false), ElementsAre("output_ref"));
    EXPECT_TRUE(Def(ref_op).input_arg(0).is_ref());
    EXPECT_TRUE(Def(ref_op).output_arg(0).is_ref());
    ASSERT_NE(Attr(ref_op, "use_locking"), nullptr);
    // ScatterUpdate locks by default; the arithmetic updates do not.
    EXPECT_EQ(Attr(ref_op, "use_locking")->default_value().b(), std::string(op) == "Update")
        << ref_op;
    EXPECT_THAT(Attr(ref_op, "Tindices")->allowed_values().list().type(),
                ElementsAre(tensorflow::DT_INT32, tensorflow::DT_INT64));
    EXPECT_THAT(Names(resource_op, true), ElementsAre("resource", "indices", "updates"));
    EXPECT_TRUE(Names(resource_op, false).empty());
    EXPECT_TRUE(Def(resource_op).is_stateful());
    EXPECT_NE(Attr(resource_op, "dtype"), nullptr);
  }
  // Min and Max take real numbers only; Update takes any type.
  EXPECT_FALSE(Attr("ScatterUpdate", "T")->has_allowed_values());
  EXPECT_TRUE(Attr("ScatterMax", "T")->has_allowed_values());
}

TEST_F(StateOpsTest, ResourceGatherAndVariableDefinitions) {
  EXPECT_THAT(Names("ResourceGather", true), ElementsAre("resource", "indices"));
  EXPECT_THAT(Names("ResourceGather", false), ElementsAre("output"));
  EXPECT_EQ(Attr("ResourceGather", "batch_dims")->default_value().i(), 0);
  EXPECT_TRUE(Attr("ResourceGather", "validate_indices")->default_value().b());
  // Variable is VariableV2's first form, with the same arguments and attrs.
  EXPECT_THAT(Names("Variable", false), ElementsAre("ref"));
  EXPECT_TRUE(Def("Variable").output_arg(0).is_ref());
  EXPECT_TRUE(Def("Variable").is_stateful());
  for (const char* attr : {"shape", "dtype", "container", "shared_name"}) {
    EXPECT_NE(Attr("Variable", attr), nullptr) << attr;
  }
}

TEST_F(StateOpsTest, ScatterShapeIsTheRefsAndChecksTheUpdates) {
  auto out = Scatter({PartialShape({5, 3}), PartialShape({2}), PartialShape({2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], PartialShape({5, 3}));
  // Scalar updates apply to every slice; unknown shapes are checked when the step runs.
  EXPECT_TRUE(Scatter({PartialShape({5, 3}), PartialShape({2}), PartialShape::Scalar()}).ok());
  EXPECT_TRUE(Scatter({PartialShape({5, 3}), PartialShape::Unknown(), PartialShape({2, 3})}).ok());
  EXPECT_TRUE(Scatter({PartialShape({5, -1}), PartialShape({2, 4}), PartialShape({2, 4, 7})}).ok());

  auto bad = Scatter({PartialShape({5, 3}), PartialShape({2}), PartialShape({2, 4})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("Must have updates.shape = indices.shape + params.shape[1:] or "
                        "updates.shape = [], got updates.shape [2,4], indices.shape [2], "
                        "params.shape [5,3]"));
  auto scalar_ref = Scatter({PartialShape::Scalar(), PartialShape({2}), PartialShape({2})});
  ASSERT_FALSE(scalar_ref.ok());
  EXPECT_EQ(scalar_ref.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(scalar_ref.status().message()), HasSubstr("rank"));
}

}  // namespace
}  // namespace tessera
