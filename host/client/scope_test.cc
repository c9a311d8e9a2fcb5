// Tests of Scope: TensorFlow's unique names, sub-scopes, devices, control dependencies, errors.
#include "host/client/scope.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/client_test_util.h"
#include "host/client/ops.h"

namespace tessera {
namespace {

using ::tessera::testing::FindNode;
using ::tessera::testing::GraphOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> NodeNames(const tensorflow::GraphDef& def) {
  std::vector<std::string> names;
  for (const auto& node : def.node()) names.push_back(node.name());
  return names;
}

TEST(ScopeTest, NamesOpsAfterTheirTypeAndMakesThemUnique) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT);
  auto b = ops::Placeholder(root, DT_FLOAT);
  ops::AddV2(root, a, b);
  ops::AddV2(root, a, b);
  ops::AddV2(root.WithOpName("AddV2_1"), a, b);  // taken: gets the next free suffix
  EXPECT_THAT(NodeNames(GraphOf(root)),
              ElementsAre("Placeholder", "Placeholder_1", "AddV2", "AddV2_1", "AddV2_1_1"));
}

TEST(ScopeTest, ExplicitNamesAreMadeUniqueToo) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Placeholder(root.WithOpName("layer", 2), DT_FLOAT);
  EXPECT_THAT(NodeNames(GraphOf(root)), ElementsAre("x", "x_1", "layer2"));
}

TEST(ScopeTest, SubScopesPrefixNamesAndAreUniqueThemselves) {
  Scope root = Scope::NewRootScope();
  Scope dense = root.NewSubScope("dense");
  ops::NoOp n1(dense);
  ops::NoOp n2(dense.WithOpName("init"));
  Scope inner = dense.NewSubScope("inner");
  ops::NoOp n3(inner);
  ops::NoOp n4(root.NewSubScope("dense"));
  ops::NoOp n5(root.NewSubScope(""));  // same prefix and names as root
  ops::NoOp n6(root);
  EXPECT_EQ(dense.name_prefix(), "dense");
  EXPECT_EQ(inner.name_prefix(), "dense/inner");
  EXPECT_THAT(NodeNames(GraphOf(root)),
              ElementsAre("dense/NoOp", "dense/init", "dense/inner/NoOp", "dense_1/NoOp", "NoOp",
                          "NoOp_1"));
}

TEST(ScopeTest, SubScopeDropsTheExplicitOpName) {
  Scope root = Scope::NewRootScope();
  ops::NoOp(root.WithOpName("named").NewSubScope("s"));
  EXPECT_THAT(NodeNames(GraphOf(root)), ElementsAre("s/NoOp"));
}

TEST(ScopeTest, ConstantInputsBecomeConstNodesInAConstSubScope) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::AddV2(root.WithOpName("y"), x, 1.0f);
  ops::AddV2(root.WithOpName("z"), x, 2.0f);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_THAT(NodeNames(def), ElementsAre("x", "Const/Const", "y", "Const_1/Const", "z"));
  EXPECT_THAT(FindNode(def, "y")->input(), ElementsAre("x", "Const/Const"));
}

TEST(ScopeTest, DevicesApplyToTheScopesOps) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/device:CPU:0");
  ops::NoOp(cpu.WithOpName("a"));
  ops::NoOp(cpu.NewSubScope("s").WithOpName("b"));
  ops::NoOp(root.WithOpName("c"));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_EQ(FindNode(def, "a")->device(), "/device:CPU:0");
  EXPECT_EQ(FindNode(def, "s/b")->device(), "/device:CPU:0");
  EXPECT_EQ(FindNode(def, "c")->device(), "");
  EXPECT_EQ(cpu.device(), "/device:CPU:0");
}

TEST(ScopeTest, ControlDependenciesComeSortedAndOnceAfterDataInputs) {
  Scope root = Scope::NewRootScope();
  auto init_b = ops::NoOp(root.WithOpName("init_b"));
  auto init_a = ops::NoOp(root.WithOpName("init_a"));
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Scope after = root.WithControlDependencies({init_b.operation, init_a.operation})
                    .WithControlDependencies({init_a.operation});
  ops::Identity(after.WithOpName("y"), x);
  ops::Identity(after.WithControlDependencies(ops::Identity(root.WithOpName("w"), x))
                    .WithOpName("v"),
                x);
  ops::Identity(after.WithNoControlDependencies().WithOpName("z"), x);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_THAT(FindNode(def, "y")->input(), ElementsAre("x", "^init_a", "^init_b"));
  EXPECT_THAT(FindNode(def, "v")->input(), ElementsAre("x", "^init_a", "^init_b", "^w"));
  EXPECT_THAT(FindNode(def, "z")->input(), ElementsAre("x"));
  EXPECT_EQ(after.control_deps().size(), 3u);
}

TEST(ScopeTest, GraphDefHasTheProducerVersion) {
  Scope root = Scope::NewRootScope();
  EXPECT_EQ(GraphOf(root).versions().producer(), kGraphDefProducerVersion);
  EXPECT_EQ(GraphOf(root).node_size(), 0);
}

// ---- Errors -------------------------------------------------------------------------------

TEST(ScopeErrorTest, KeepsTheFirstErrorAndSkipsLaterOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto bad = ops::AddV2(root.WithOpName("bad"), x, 1);  // float + int32
  EXPECT_FALSE(bad.operation.valid());
  EXPECT_FALSE(root.ok());
  root.UpdateStatus(absl::InternalError("later"));
  ops::NoOp(root.WithOpName("after"));
  absl::StatusOr<tensorflow::GraphDef> def = root.ToGraphDef();
  EXPECT_EQ(def.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(def.status().message()),
              HasSubstr("while building node 'bad' (AddV2): inconsistent values for attr 'T': "
                        "input 0 is float but input 1 is int32"));
  EXPECT_EQ(root.status(), def.status());
}

TEST(ScopeErrorTest, RejectsInvalidNodeNames) {
  Scope root = Scope::NewRootScope();
  ops::NoOp(root.WithOpName("bad name"));
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("invalid node name 'bad name': names match"));
  Scope other = Scope::NewRootScope();
  ops::NoOp(other.WithOpName("_internal"));
  EXPECT_THAT(std::string(other.status().message()), HasSubstr("invalid node name '_internal'"));
}

TEST(ScopeErrorTest, RejectsANameTakenThroughAnotherNameScope) {
  Scope root = Scope::NewRootScope();
  ops::NoOp(root.NewSubScope("dense"));
  ops::NoOp(root.WithOpName("dense/NoOp"));
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("node name 'dense/NoOp' is already used in this graph"));
}

TEST(ScopeErrorTest, RejectsOutputsOfAnotherGraph) {
  Scope first = Scope::NewRootScope();
  auto x = ops::Placeholder(first.WithOpName("x"), DT_FLOAT);
  Scope second = Scope::NewRootScope();
  ops::Identity(second, x);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("input 'x:0' belongs to another graph"));
}

TEST(ScopeErrorTest, RejectsControlDependenciesOfAnotherGraph) {
  Scope first = Scope::NewRootScope();
  auto init = ops::NoOp(first.WithOpName("init"));
  Scope second = Scope::NewRootScope();
  ops::NoOp(second.WithControlDependencies({init.operation}).WithOpName("n"));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("while adding node 'n' (NoOp): control dependency 'init' belongs to "
                        "another graph"));
}

TEST(ScopeErrorTest, RejectsInvalidControlDependencies) {
  Scope root = Scope::NewRootScope();
  ops::NoOp(root.WithControlDependencies({Operation()}).WithOpName("n"));
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("a control dependency is an invalid Operation"));
}

TEST(ScopeErrorTest, RejectsInvalidOutputs) {
  Scope root = Scope::NewRootScope();
  ops::Identity(root, Output());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("an input is an invalid Output"));
}

}  // namespace
}  // namespace tessera
