// Tests of the runtime's internal ops: flags, attrs and control-flow shapes.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

class InternalOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(InternalOpsTest, StatefulnessFollowsTensorFlow) {
  for (const char* op : {"_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval", "Assert"}) {
    EXPECT_TRUE(ops_->Find(op)->op_def.is_stateful()) << op;
  }
  for (const char* op : {"NoOp", "Placeholder", "Const", "Identity", "Switch", "Merge", "RefSwitch",
                         "RefEnter", "RefIdentity"}) {
    EXPECT_FALSE(ops_->Find(op)->op_def.is_stateful()) << op;
  }
}

TEST_F(InternalOpsTest, RefControlFlowCarriesRefsAndAssertTakesAnyTypes) {
  const tensorflow::OpDef& ref_switch = ops_->Find("RefSwitch")->op_def;
  EXPECT_TRUE(ref_switch.input_arg(0).is_ref());
  EXPECT_FALSE(ref_switch.input_arg(1).is_ref());
  EXPECT_TRUE(ref_switch.output_arg(0).is_ref());
  EXPECT_TRUE(ref_switch.output_arg(1).is_ref());
  EXPECT_TRUE(ref_switch.allows_uninitialized_input());
  auto out = InferShapes(*ops_, "RefSwitch", R"pb(attr {
                                                    key: "T"
                                                    value { type: DT_FLOAT }
                                                  })pb",
                         {PartialShape({2, 3}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], PartialShape({2, 3}));
  EXPECT_EQ((*out)[1], PartialShape({2, 3}));
  EXPECT_TRUE(ops_->Find("RefEnter")->op_def.output_arg(0).is_ref());
  EXPECT_TRUE(ops_->Find("RefIdentity")->op_def.input_arg(0).is_ref());

  const tensorflow::OpDef& assert_op = ops_->Find("Assert")->op_def;
  EXPECT_EQ(assert_op.input_arg(1).type_list_attr(), "T");
  EXPECT_EQ(assert_op.attr(1).name(), "summarize");
  EXPECT_EQ(assert_op.attr(1).default_value().i(), 3);
  EXPECT_EQ(assert_op.output_arg_size(), 0);
}

TEST_F(InternalOpsTest, SendRecvAttrs) {
  const tensorflow::OpDef& recv = ops_->Find("_Recv")->op_def;
  std::vector<std::string> names;
  for (const auto& attr : recv.attr()) names.push_back(attr.name());
  EXPECT_THAT(names, ElementsAre("tensor_type", "tensor_name", "send_device",
                                 "send_device_incarnation", "recv_device", "client_terminated"));
  EXPECT_FALSE(recv.attr(5).default_value().b());
  EXPECT_EQ(ops_->Find("_Send")->op_def.input_arg(0).name(), "tensor");
  auto out = InferShapes(*ops_, "_Recv", R"pb(
    attr { key: "tensor_type" value { type: DT_FLOAT } }
    attr { key: "tensor_name" value { s: "edge_1_a" } }
    attr { key: "send_device" value { s: "/device:CPU:0" } }
    attr { key: "send_device_incarnation" value { i: 1 } }
    attr { key: "recv_device" value { s: "/device:CPU:0" } })pb", {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].rank_known());
}

TEST_F(InternalOpsTest, ArgRequiresANonNegativeIndex) {
  auto out = InferShapes(*ops_, "_Arg", R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                             attr { key: "index" value { i: -1 } })pb",
                         {});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("attr 'index' of node 'n' (_Arg): value -1 is less than the minimum 0"));
}

TEST_F(InternalOpsTest, ControlFlowShapes) {
  constexpr char kFloat[] = R"pb(attr { key: "T" value { type: DT_FLOAT } })pb";
  auto out = InferShapes(*ops_, "Switch", kFloat, {PartialShape({3}), PartialShape::Scalar()});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({3}), PartialShape({3})));
  out = InferShapes(*ops_, "Switch", kFloat, {PartialShape({3}), PartialShape({2})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("Switch: shape must be rank 0 but is rank 1 (input 1)"));
  out = InferShapes(*ops_, "Merge",
                    R"pb(attr { key: "T" value { type: DT_FLOAT } }
                         attr { key: "N" value { i: 2 } })pb",
                    {PartialShape({3, 4}), PartialShape({3, 5})});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({3, -1}), PartialShape::Scalar()));
  out = InferShapes(*ops_, "Enter", R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                         attr { key: "frame_name" value { s: "f" } })pb",
                    {PartialShape({2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2})));
  out = InferShapes(*ops_, "LoopCond", "", {PartialShape({1})});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("LoopCond: shape must be rank 0 but is rank 1 (input 0)"));
  out = InferShapes(*ops_, "LoopCond", "", {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape::Scalar()));
}

}  // namespace
}  // namespace tessera
