// If and While lowered to v1 control flow around calls: the nodes made, and every error.
#include "host/graph/functional_lowering.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;

// Id(x: float) -> y: float; Pred(x: float) -> b: bool (x < x, always false).
constexpr char kLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "Id"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      ret { key: "y" value: "x" }
    }
    function {
      signature {
        name: "Pred"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "b" type: DT_BOOL }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "b" value: "less:z:0" }
    }
    function {
      signature {
        name: "Two"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "a" type: DT_BOOL }
        output_arg { name: "b" type: DT_BOOL }
      }
    }
  }
)pb";

constexpr char kInputs[] = R"pb(
  node {
    name: "k"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node { name: "before" op: "NoOp" }
)pb";

std::string IfNode(const std::string& inputs, const std::string& then_branch = "Id") {
  return absl::StrCat("node { name: 'n' op: 'If' ", inputs,
                      " attr { key: 'Tcond' value { type: DT_INT32 } } attr { key: 'Tin' value { "
                      "list { type: DT_FLOAT } } } attr { key: 'Tout' value { list { type: "
                      "DT_FLOAT } } } attr { key: 'then_branch' value { func { name: '",
                      then_branch, "' } } } attr { key: 'else_branch' value { func { name: 'Id' "
                      "} } } }");
}

std::string WhileNode(const std::string& inputs, const std::string& types,
                      const std::string& cond = "Pred") {
  return absl::StrCat("node { name: 'w' op: 'While' ", inputs, " attr { key: 'T' value { list { ",
                      types, " } } } attr { key: 'cond' value { func { name: '", cond,
                      "' } } } attr { key: 'body' value { func { name: 'Id' } } } attr { key: "
                      "'parallel_iterations' value { i: 3 } } }");
}

class FunctionalLoweringTest : public ::testing::Test {
 protected:
  void SetUp() override { ops_ = OpRegistry::CreateStandard(); }

  absl::Status Lower(const std::string& nodes, tensorflow::GraphDef* def) {
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        absl::StrCat(kInputs, nodes, kLibrary), def));
    return LowerFunctionalControlFlow(def, *ops_);
  }

  static const tensorflow::NodeDef& Find(const tensorflow::GraphDef& def, const std::string& name) {
    static const tensorflow::NodeDef kMissing;
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.name() == name) return node;
    }
    ADD_FAILURE() << "no node " << name;
    return kMissing;
  }

  static std::vector<std::string> Inputs(const tensorflow::GraphDef& def, const std::string& name) {
    const tensorflow::NodeDef& node = Find(def, name);
    return {node.input().begin(), node.input().end()};
  }

  std::unique_ptr<OpRegistry> ops_;
};

TEST_F(FunctionalLoweringTest, AnIfBecomesSwitchesTwoCallsAndMerges) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(Lower(IfNode("input: 'k' input: 'x' input: '^before'"), &def).ok());
  EXPECT_FALSE(HasFunctionalControlFlow(def));
  // An int32 condition is true when it is not zero.
  EXPECT_EQ(Find(def, "n/cond_as_bool").op(), "Cast");
  EXPECT_THAT(Inputs(def, "n/cond_as_bool"), ElementsAre("k"));
  EXPECT_THAT(Inputs(def, "n/switch_pred"),
              ElementsAre("n/cond_as_bool", "n/cond_as_bool", "^before"));
  EXPECT_THAT(Inputs(def, "n/then_pivot"), ElementsAre("n/switch_pred:1"));
  EXPECT_THAT(Inputs(def, "n/else_pivot"), ElementsAre("n/switch_pred"));
  EXPECT_THAT(Inputs(def, "n/switch_0"), ElementsAre("x", "n/cond_as_bool"));
  EXPECT_EQ(Find(def, "n/then").op(), "Id");
  EXPECT_THAT(Inputs(def, "n/then"), ElementsAre("n/switch_0:1", "^n/then_pivot"));
  EXPECT_THAT(Inputs(def, "n/else"), ElementsAre("n/switch_0", "^n/else_pivot"));
  EXPECT_EQ(Find(def, "n/output_0").op(), "Merge");
  EXPECT_THAT(Inputs(def, "n/output_0"), ElementsAre("n/then", "n/else"));
  EXPECT_EQ(Find(def, "n").op(), "Identity");
  EXPECT_THAT(Inputs(def, "n"), ElementsAre("n/output_0"));

  // Expanded and imported, the graph has no call and no If left.
  ASSERT_TRUE(ExpandFunctions(&def, *ops_).ok());
  EXPECT_FALSE(HasFunctionCalls(def));
  EXPECT_TRUE(ImportGraphDef(def, *ops_).ok());
}

TEST_F(FunctionalLoweringTest, ACaseBecomesACascadeOfSwitches) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(Lower("node { name: 'c' op: 'Case' input: 'k' input: 'x' input: '^before' attr { "
                    "key: 'Tin' value { list { type: DT_FLOAT } } } attr { key: 'Tout' value { "
                    "list { type: DT_FLOAT } } } attr { key: 'branches' value { list { func { "
                    "name: 'Id' } func { name: 'Id' } func { name: 'Id' } } } } }",
                    &def)
                  .ok());
  EXPECT_FALSE(HasFunctionalControlFlow(def));
  // Level 0: index == 0 switches the input to branch 0 or on.
  EXPECT_THAT(Inputs(def, "c/index"), ElementsAre("k"));
  EXPECT_THAT(Inputs(def, "c/branch_index_0"), ElementsAre("^c/index"));
  EXPECT_EQ(Find(def, "c/is_branch_0").op(), "Equal");
  EXPECT_THAT(Inputs(def, "c/is_branch_0"), ElementsAre("c/index", "c/branch_index_0"));
  EXPECT_THAT(Inputs(def, "c/switch_pred_0"),
              ElementsAre("c/is_branch_0", "c/is_branch_0", "^before"));
  EXPECT_THAT(Inputs(def, "c/switch_0_0"), ElementsAre("x", "c/is_branch_0"));
  EXPECT_THAT(Inputs(def, "c/branch_0"), ElementsAre("c/switch_0_0:1", "^c/branch_0_pivot"));
  // Level 1 takes what level 0 let through.
  EXPECT_THAT(Inputs(def, "c/switch_pred_1"), ElementsAre("c/switch_pred_0", "c/is_branch_1"));
  EXPECT_THAT(Inputs(def, "c/switch_1_0"), ElementsAre("c/switch_0_0", "c/is_branch_1"));
  EXPECT_THAT(Inputs(def, "c/branch_1"), ElementsAre("c/switch_1_0:1", "^c/branch_1_pivot"));
  // The last branch takes what passed both levels.
  EXPECT_THAT(Inputs(def, "c/branch_2_pivot"), ElementsAre("c/switch_pred_1"));
  EXPECT_THAT(Inputs(def, "c/branch_2"), ElementsAre("c/switch_1_0", "^c/branch_2_pivot"));
  EXPECT_EQ(Find(def, "c/output_0").op(), "Merge");
  EXPECT_THAT(Inputs(def, "c/output_0"), ElementsAre("c/branch_0", "c/branch_1", "c/branch_2"));
  EXPECT_THAT(Inputs(def, "c"), ElementsAre("c/output_0"));

  ASSERT_TRUE(ExpandFunctions(&def, *ops_).ok());
  EXPECT_TRUE(ImportGraphDef(def, *ops_).ok());
}

TEST_F(FunctionalLoweringTest, AWhileBecomesALoopFrameNamedAfterIt) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(Lower(WhileNode("input: 'x' input: '^before'", "type: DT_FLOAT"), &def).ok());
  const tensorflow::NodeDef& enter = Find(def, "w/enter_0");
  EXPECT_EQ(enter.attr().at("frame_name").s(), "w");
  EXPECT_EQ(enter.attr().at("parallel_iterations").i(), 3);
  EXPECT_THAT(Inputs(def, "w/enter_0"), ElementsAre("x", "^before"));
  EXPECT_THAT(Inputs(def, "w/merge_0"), ElementsAre("w/enter_0", "w/next_iteration_0"));
  EXPECT_THAT(Inputs(def, "w/cond"), ElementsAre("w/merge_0"));
  EXPECT_THAT(Inputs(def, "w/loop_cond"), ElementsAre("w/cond"));
  EXPECT_THAT(Inputs(def, "w/switch_0"), ElementsAre("w/merge_0", "w/loop_cond"));
  EXPECT_THAT(Inputs(def, "w/exit_0"), ElementsAre("w/switch_0"));
  EXPECT_THAT(Inputs(def, "w/identity_0"), ElementsAre("w/switch_0:1"));
  EXPECT_THAT(Inputs(def, "w/body"), ElementsAre("w/identity_0"));
  EXPECT_THAT(Inputs(def, "w/next_iteration_0"), ElementsAre("w/body"));
  EXPECT_THAT(Inputs(def, "w"), ElementsAre("w/exit_0"));
  ASSERT_TRUE(ExpandFunctions(&def, *ops_).ok());
  EXPECT_TRUE(ImportGraphDef(def, *ops_).ok());
}

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(status.message(), message);
}

TEST_F(FunctionalLoweringTest, ErrorsNameTheNode) {
  tensorflow::GraphDef def;
  ExpectError(Lower(IfNode("input: 'k'"), &def), absl::StatusCode::kInvalidArgument,
              "node 'n' (If) has 1 data inputs, but its attrs make it take 2");
  def.Clear();
  ExpectError(Lower(IfNode("input: 'k' input: 'x'", "Nope"), &def), absl::StatusCode::kNotFound,
              "node 'n' (If) has then_branch 'Nope', which the graph's library does not define");
  def.Clear();
  ExpectError(Lower("node { name: 'n' op: 'StatelessIf' input: 'k' attr { key: 'Tcond' value { "
                    "type: DT_INT32 } } attr { key: 'Tin' value { list {} } } attr { key: 'Tout' "
                    "value { list {} } } }",
                    &def),
              absl::StatusCode::kInvalidArgument,
              "node 'n' (StatelessIf) is missing required attr 'then_branch'");
  def.Clear();
  ExpectError(Lower(WhileNode("", ""), &def), absl::StatusCode::kInvalidArgument,
              "node 'w' (While) has no loop variables, which is not supported");
  def.Clear();
  ExpectError(Lower(WhileNode("input: 'x'", "type: DT_FLOAT", "Two"), &def),
              absl::StatusCode::kInvalidArgument,
              "node 'w' (While): its condition 'Two' returns [bool, bool]; it must return one "
              "bool or number");
  def.Clear();
  ExpectError(Lower(WhileNode("input: 'x'", "type: DT_FLOAT", "Nope"), &def),
              absl::StatusCode::kNotFound,
              "node 'w' (While) has cond 'Nope', which the graph's library does not define");
  def.Clear();
  ExpectError(Lower(WhileNode("input: 'x' input: 'x'", "type: DT_FLOAT"), &def),
              absl::StatusCode::kInvalidArgument,
              "node 'w' (While) has 2 data inputs, but its attrs make it take 1");
  def.Clear();
  // The body takes a float, not an int32.
  ExpectError(Lower(WhileNode("input: 'k'", "type: DT_INT32", "Id"), &def),
              absl::StatusCode::kInvalidArgument,
              "node 'w' (While): its cond 'Id' takes [float] and returns [float], but it must "
              "take [int32]");
  def.Clear();
  std::string bad_body = WhileNode("input: 'x'", "type: DT_FLOAT");
  bad_body.replace(bad_body.find("body' value { func { name: 'Id'"),
                   std::string("body' value { func { name: 'Id'").size(),
                   "body' value { func { name: 'Pred'");
  ExpectError(Lower(bad_body, &def), absl::StatusCode::kInvalidArgument,
              "node 'w' (While): its body 'Pred' takes [float] and returns [bool], but it must "
              "take [float] and return [float]");
  def.Clear();
  std::string zero_parallel = WhileNode("input: 'x'", "type: DT_FLOAT");
  zero_parallel.replace(zero_parallel.find("i: 3"), 4, "i: 0");
  ExpectError(Lower(zero_parallel, &def), absl::StatusCode::kInvalidArgument,
              "node 'w' (While) has parallel_iterations 0; it must be at least 1");
  def.Clear();
  std::string else_missing = IfNode("input: 'k' input: 'x'");
  else_missing.replace(else_missing.find("else_branch' value { func { name: 'Id'"),
                       std::string("else_branch' value { func { name: 'Id'").size(),
                       "else_branch' value { func { name: 'Gone'");
  ExpectError(Lower(else_missing, &def), absl::StatusCode::kNotFound,
              "node 'n' (If) has else_branch 'Gone', which the graph's library does not define");
  def.Clear();
  std::string string_cond = IfNode("input: 's' input: 'x'");
  string_cond.replace(string_cond.find("type: DT_INT32"), 14, "type: DT_STRING");
  ExpectError(Lower(absl::StrCat("node { name: 's' op: 'Placeholder' attr { key: 'dtype' value { "
                                 "type: DT_STRING } } }",
                                 string_cond),
                    &def),
              absl::StatusCode::kInvalidArgument,
              "node 'n' (If): a condition of type string is not supported (bool or a number)");
  def.Clear();
  std::string wrong_branch = IfNode("input: 'k' input: 'x'", "Pred");
  ExpectError(Lower(wrong_branch, &def), absl::StatusCode::kInvalidArgument,
              "node 'n' (If): its then_branch 'Pred' takes [float] and returns [bool], but it "
              "must take [float] and return [float]");
}

TEST_F(FunctionalLoweringTest, AWhileFrameNeverReusesAV1LoopsFrame) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(Lower(absl::StrCat("node { name: 'v1' op: 'Enter' input: 'x' attr { key: 'T' value "
                                 "{ type: DT_FLOAT } } attr { key: 'frame_name' value { s: 'w' } "
                                 "} }",
                                 WhileNode("input: 'x'", "type: DT_FLOAT")),
                    &def)
                  .ok());
  EXPECT_EQ(Find(def, "w/enter_0").attr().at("frame_name").s(), "w_1");
}

TEST_F(FunctionalLoweringTest, SizesAreBounded) {
  tensorflow::GraphDef def;
  InlineLimits limits;
  limits.max_nodes = 10;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrCat(kInputs, IfNode("input: 'k' input: 'x'"), kLibrary), &def));
  ExpectError(LowerFunctionalControlFlow(&def, *ops_, limits), absl::StatusCode::kInvalidArgument,
              "lowering If and While makes more than 10 nodes");
  def.Clear();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrCat(kInputs, IfNode("input: 'k' input: 'x'"), kLibrary), &def));
  limits = InlineLimits();
  limits.max_bytes = 900;
  ExpectError(ExpandFunctions(&def, *ops_, limits), absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes a graph of more than 900 bytes");
}

// F's two branches both call F: each round doubles the calls, until the node limit.
TEST_F(FunctionalLoweringTest, AFunctionReachingItselfThroughBothBranchesMeetsTheNodeLimit) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node {
      name: "p"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_BOOL }
      }
    }
    node { name: "c" op: "Self" input: "p" }
    library {
      function {
        signature {
          name: "Self"
          input_arg { name: "p" type: DT_BOOL }
        }
        node_def {
          name: "again"
          op: "If"
          input: "p"
          input: "p"
          attr {
            key: "Tcond"
            value { type: DT_BOOL }
          }
          attr {
            key: "Tin"
            value { list { type: DT_BOOL } }
          }
          attr {
            key: "Tout"
            value { list {} }
          }
          attr {
            key: "then_branch"
            value { func { name: "Self" } }
          }
          attr {
            key: "else_branch"
            value { func { name: "Self" } }
          }
        }
      }
    }
  )pb", &def));
  InlineLimits limits;
  limits.max_nodes = 5000;
  absl::Status status = ExpandFunctions(&def, *ops_, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "lowering If and While makes more than 5000 nodes");
}

}  // namespace
}  // namespace tessera
