// Tests of Partition on loops that span devices: control loops, their Recvs, nesting, repeated
// partitioning, the colocation tweak and the errors.
#include "host/partition/control_loops.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/graph/control_flow.h"
#include "host/partition/graph_partition.h"
#include "host/partition/partition_test_util.h"

namespace tessera {
namespace partition_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// A while loop in the form tf.while_loop emits; its predicate is a loop invariant.
constexpr char kLoop[] = R"pb(
  node { name: "start" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
  node { name: "while/Enter" op: "Enter" input: "start"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "frame_name" value { s: "while/ctx" } }
         attr { key: "parallel_iterations" value { i: 4 } } }
  node { name: "while/p" op: "Enter" input: "p"
         attr { key: "T" value { type: DT_BOOL } }
         attr { key: "frame_name" value { s: "while/ctx" } }
         attr { key: "parallel_iterations" value { i: 4 } }
         attr { key: "is_constant" value { b: true } } }
  node { name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "while/LoopCond" op: "LoopCond" input: "while/p" }
  node { name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "while/Body" op: "Identity" input: "while/Switch:1"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "while/NextIteration" op: "NextIteration" input: "while/Body"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "while/Exit" op: "Exit" input: "while/Switch"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "out" op: "Identity" input: "while/Exit" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

class ControlLoopsTest : public PartitionTest {
 protected:
  static bool IsControlLoopNode(const tensorflow::NodeDef& node) {
    return absl::StrContains(node.name(), "/_cloop/_");
  }
  static std::vector<const tensorflow::NodeDef*> ControlLoopNodes(const tensorflow::GraphDef& def,
                                                                   const std::string& op) {
    std::vector<const tensorflow::NodeDef*> nodes;
    for (const tensorflow::NodeDef* node : WithOp(def, op)) {
      if (IsControlLoopNode(*node)) nodes.push_back(node);
    }
    return nodes;
  }
  // The Enter of the control loop for `frame` in `def`.
  static const tensorflow::NodeDef* ControlEnter(const tensorflow::GraphDef& def,
                                                 const std::string& frame) {
    for (const tensorflow::NodeDef* node : ControlLoopNodes(def, "Enter")) {
      if (StringAttr(*node, "frame_name") == frame) return node;
    }
    return nullptr;
  }
  // Follows a control loop from its Enter: {Merge, Switch, NextIteration}.
  static std::vector<const tensorflow::NodeDef*> LoopFrom(const tensorflow::GraphDef& def,
                                                          const tensorflow::NodeDef& enter) {
    const tensorflow::NodeDef* merge = nullptr;
    for (const tensorflow::NodeDef* node : ControlLoopNodes(def, "Merge")) {
      if (node->input(0) == enter.name()) merge = node;
    }
    if (merge == nullptr) return {};
    const tensorflow::NodeDef* switch_node = nullptr;
    for (const tensorflow::NodeDef* node : ControlLoopNodes(def, "Switch")) {
      if (node->input(0) == merge->name()) switch_node = node;
    }
    if (switch_node == nullptr) return {};
    const tensorflow::NodeDef* next = Find(def, merge->input(1));
    return {merge, switch_node, next};
  }
  // The Recv consumed by `consumer` at input `index`.
  static const tensorflow::NodeDef* RecvFeeding(const tensorflow::GraphDef& def,
                                                const std::string& consumer, int index) {
    const tensorflow::NodeDef* node = Find(def, consumer);
    if (node == nullptr || node->input_size() <= index) return nullptr;
    const tensorflow::NodeDef* recv = Find(def, node->input(index));
    return recv != nullptr && absl::StrContains(recv->op(), "Recv") ? recv : nullptr;
  }
  // The frame `name` runs in once `def` is imported again.
  std::string FrameOfImported(const tensorflow::GraphDef& def, const std::string& name) {
    absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, *ops_);
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return "?";
    absl::StatusOr<ControlFlowInfo> info = BuildControlFlowInfo(**graph);
    EXPECT_TRUE(info.ok()) << info.status();
    if (!info.ok()) return "?";
    return info->frames[info->node_frame[(*graph)->FindNode(name)->id()]].name;
  }
};

TEST_F(ControlLoopsTest, LoopOnOneDeviceGetsNoControlLoop) {
  std::unique_ptr<Graph> graph = Import(kLoop);
  // Only root-frame edges cross devices: into the Enter and out of the Exit.
  Place(graph.get(), kCpu0, {{"start", kCpu1}, {"out", kCpu1}});
  const int num_nodes = graph->num_nodes();
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  EXPECT_EQ(graph->num_nodes(), num_nodes);
  for (const auto& [location, def] : partitions) {
    for (const tensorflow::NodeDef& node : def.node()) {
      EXPECT_FALSE(IsControlLoopNode(node)) << node.name();
    }
  }
  // The Recv feeding the Enter is in the root frame: no control input.
  const tensorflow::NodeDef* recv = RecvFeeding(partitions.at(kCpu0), "while/Enter", 0);
  ASSERT_NE(recv, nullptr);
  EXPECT_TRUE(recv->input().empty());
}

TEST_F(ControlLoopsTest, LoopAcrossTwoDevicesGetsAControlLoopOnEach) {
  std::unique_ptr<Graph> graph = Import(kLoop);
  Place(graph.get(), kCpu0, {{"while/Body", kCpu1}});
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  ASSERT_EQ(partitions.size(), 2u);
  const tensorflow::GraphDef& leader = partitions.at(kCpu0);
  const tensorflow::GraphDef& follower = partitions.at(kCpu1);

  // The follower: Const -> Enter -> Merge(Enter, NextIteration) -> Switch(Merge, Recv of the
  // LoopCond) -> NextIteration(Switch:1).
  const tensorflow::NodeDef* enter = ControlEnter(follower, "while/ctx");
  ASSERT_NE(enter, nullptr);
  EXPECT_FALSE(BoolAttr(*enter, "is_constant"));
  EXPECT_EQ(IntAttr(*enter, "parallel_iterations"), 4);
  EXPECT_EQ(TypeAttr(*enter, "T"), TSR_DTYPE_FLOAT);
  EXPECT_EQ(enter->device(), kCpu1);
  ASSERT_EQ(enter->input_size(), 1);
  const tensorflow::NodeDef* start = Find(follower, enter->input(0));
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->op(), "Const");
  EXPECT_TRUE(start->input().empty());
  std::vector<const tensorflow::NodeDef*> loop = LoopFrom(follower, *enter);
  ASSERT_THAT(loop, SizeIs(3));
  const tensorflow::NodeDef& merge = *loop[0];
  const tensorflow::NodeDef& switch_node = *loop[1];
  ASSERT_NE(loop[2], nullptr);
  EXPECT_EQ(loop[2]->op(), "NextIteration");
  EXPECT_THAT(Inputs(*loop[2]), ElementsAre(switch_node.name() + ":1"));
  const tensorflow::NodeDef* pred = RecvFeeding(follower, switch_node.name(), 1);
  ASSERT_NE(pred, nullptr);
  EXPECT_EQ(StringAttr(*pred, "_src"), "while/LoopCond");
  EXPECT_EQ(TypeAttr(*pred, "tensor_type"), TSR_DTYPE_BOOL);
  EXPECT_THAT(Inputs(*pred), ElementsAre("^" + merge.name()));

  // The body's Recv runs once per iteration: it waits on the control-loop Merge.
  const tensorflow::NodeDef* body_in = RecvFeeding(follower, "while/Body", 0);
  ASSERT_NE(body_in, nullptr);
  EXPECT_THAT(Inputs(*body_in), ElementsAre("^" + merge.name()));
  EXPECT_EQ(FrameOfImported(follower, body_in->name()), "while/ctx");
  EXPECT_EQ(FrameOfImported(follower, "while/Body"), "while/ctx");

  // The leader gets a control loop too (the body sends back into its frame); its Switch reads
  // the LoopCond directly, and the Recv for NextIteration waits on the leader's Merge.
  const tensorflow::NodeDef* leader_enter = ControlEnter(leader, "while/ctx");
  ASSERT_NE(leader_enter, nullptr);
  std::vector<const tensorflow::NodeDef*> leader_loop = LoopFrom(leader, *leader_enter);
  ASSERT_THAT(leader_loop, SizeIs(3));
  EXPECT_EQ(leader_loop[1]->input(1), "while/LoopCond");
  const tensorflow::NodeDef* next_in = RecvFeeding(leader, "while/NextIteration", 0);
  ASSERT_NE(next_in, nullptr);
  EXPECT_THAT(Inputs(*next_in), ElementsAre("^" + leader_loop[0]->name()));
  ASSERT_THAT(WithOp(leader, "_Send"), SizeIs(2));  // Switch:1 and the LoopCond
  EXPECT_EQ(FrameOfImported(leader, WithOp(leader, "_Send")[0]->name()), "while/ctx");
  // Every node in the output is placed.
  for (const auto& [location, def] : partitions) {
    for (const tensorflow::NodeDef& node : def.node()) EXPECT_EQ(node.device(), location);
  }
}

// An outer loop whose body holds an inner loop; both predicates are loop invariants.
constexpr char kNested[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
  node { name: "outer/Enter" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "frame_name" value { s: "outer" } } }
  node { name: "outer/p" op: "Enter" input: "p" attr { key: "T" value { type: DT_BOOL } }
         attr { key: "frame_name" value { s: "outer" } } attr { key: "is_constant" value { b: true } } }
  node { name: "outer/Merge" op: "Merge" input: "outer/Enter" input: "outer/Next"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "outer/LoopCond" op: "LoopCond" input: "outer/p" }
  node { name: "outer/Switch" op: "Switch" input: "outer/Merge" input: "outer/LoopCond"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "outer/Body" op: "Identity" input: "outer/Switch:1"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "inner/Enter" op: "Enter" input: "outer/Body" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "frame_name" value { s: "inner" } }
         attr { key: "parallel_iterations" value { i: 3 } } }
  node { name: "inner/p" op: "Enter" input: "outer/p" attr { key: "T" value { type: DT_BOOL } }
         attr { key: "frame_name" value { s: "inner" } } attr { key: "is_constant" value { b: true } }
         attr { key: "parallel_iterations" value { i: 3 } } }
  node { name: "inner/Merge" op: "Merge" input: "inner/Enter" input: "inner/Next"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "inner/LoopCond" op: "LoopCond" input: "inner/p" }
  node { name: "inner/Switch" op: "Switch" input: "inner/Merge" input: "inner/LoopCond"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "inner/Body" op: "Identity" input: "inner/Switch:1"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "inner/Next" op: "NextIteration" input: "inner/Body"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "inner/Exit" op: "Exit" input: "inner/Switch" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "outer/Next" op: "NextIteration" input: "inner/Exit"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "outer/Exit" op: "Exit" input: "outer/Switch" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "out" op: "Identity" input: "outer/Exit" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

TEST_F(ControlLoopsTest, NestedLoopsChainTheOuterMergeIntoTheInnerEnter) {
  std::unique_ptr<Graph> graph = Import(kNested);
  Place(graph.get(), kCpu0, {{"inner/Body", kCpu1}});
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  const tensorflow::GraphDef& follower = partitions.at(kCpu1);
  EXPECT_THAT(ControlLoopNodes(follower, "Enter"), SizeIs(2));
  EXPECT_THAT(ControlLoopNodes(follower, "Const"), SizeIs(1));

  const tensorflow::NodeDef* outer_enter = ControlEnter(follower, "outer");
  const tensorflow::NodeDef* inner_enter = ControlEnter(follower, "inner");
  ASSERT_NE(outer_enter, nullptr);
  ASSERT_NE(inner_enter, nullptr);
  EXPECT_EQ(Find(follower, outer_enter->input(0))->op(), "Const");
  EXPECT_EQ(IntAttr(*inner_enter, "parallel_iterations"), 3);
  std::vector<const tensorflow::NodeDef*> outer = LoopFrom(follower, *outer_enter);
  std::vector<const tensorflow::NodeDef*> inner = LoopFrom(follower, *inner_enter);
  ASSERT_THAT(outer, SizeIs(3));
  ASSERT_THAT(inner, SizeIs(3));
  EXPECT_THAT(Inputs(*inner_enter), ElementsAre(outer[0]->name()));

  // Each control loop's predicate comes from its own frame's LoopCond, received under its Merge.
  const tensorflow::NodeDef* outer_pred = RecvFeeding(follower, outer[1]->name(), 1);
  const tensorflow::NodeDef* inner_pred = RecvFeeding(follower, inner[1]->name(), 1);
  ASSERT_NE(outer_pred, nullptr);
  ASSERT_NE(inner_pred, nullptr);
  EXPECT_EQ(StringAttr(*outer_pred, "_src"), "outer/LoopCond");
  EXPECT_EQ(StringAttr(*inner_pred, "_src"), "inner/LoopCond");
  EXPECT_THAT(Inputs(*outer_pred), ElementsAre("^" + outer[0]->name()));
  EXPECT_THAT(Inputs(*inner_pred), ElementsAre("^" + inner[0]->name()));
  const tensorflow::NodeDef* body_in = RecvFeeding(follower, "inner/Body", 0);
  ASSERT_NE(body_in, nullptr);
  EXPECT_THAT(Inputs(*body_in), ElementsAre("^" + inner[0]->name()));
  EXPECT_EQ(FrameOfImported(follower, "inner/Body"), "inner");
  EXPECT_EQ(FrameOfImported(follower, outer_pred->name()), "outer");

  // The leader's control loops exist once per frame, however many edges need them.
  EXPECT_THAT(ControlLoopNodes(partitions.at(kCpu0), "Enter"), SizeIs(2));
}

TEST_F(ControlLoopsTest, CrossDeviceFrameWithoutLoopCondIsAnError) {
  std::unique_ptr<Graph> graph = Import(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "f/Enter" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "frame_name" value { s: "f" } } }
    node { name: "f/Body" op: "Identity" input: "f/Enter" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  Place(graph.get(), kCpu0, {{"f/Body", kCpu1}});
  Partitions partitions;
  absl::Status status = Partition(DefaultOptions(), graph.get(), &partitions);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("a cross-device loop must have a pivot predicate (frame 'f')"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("edge 'f/Enter' -> 'f/Body'"));
}

TEST_F(ControlLoopsTest, RepartitioningReusesTheControlLoops) {
  // First by task: both CPUs are in one location, so the loop stays whole but gets its control
  // loops. Then by device, as a worker does, with control_flow_added.
  std::unique_ptr<Graph> graph = Import(kLoop);
  Place(graph.get(), kCpu0, {{"while/Body", kCpu1}});
  PartitionOptions by_task = DefaultOptions();
  by_task.node_to_loc = [](const Node&) { return std::string("task0"); };
  Partitions tasks = PartitionOk(by_task, graph.get());
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_TRUE(WithOp(tasks.at("task0"), "_Recv").empty());
  EXPECT_THAT(ControlLoopNodes(tasks.at("task0"), "Enter"), SizeIs(2));

  std::unique_ptr<Graph> piece = Import(tasks.at("task0").DebugString());
  ASSERT_NE(piece, nullptr);
  for (Node* node : piece->op_nodes()) node->set_assigned_device(node->requested_device());
  PartitionOptions by_device = DefaultOptions();
  by_device.control_flow_added = true;
  Partitions devices = PartitionOk(by_device, piece.get());
  ASSERT_EQ(devices.size(), 2u);
  const tensorflow::GraphDef& follower = devices.at(kCpu1);
  EXPECT_THAT(ControlLoopNodes(follower, "Enter"), SizeIs(1));
  const tensorflow::NodeDef* enter = ControlEnter(follower, "while/ctx");
  ASSERT_NE(enter, nullptr);
  std::vector<const tensorflow::NodeDef*> loop = LoopFrom(follower, *enter);
  ASSERT_THAT(loop, SizeIs(3));
  const tensorflow::NodeDef* body_in = RecvFeeding(follower, "while/Body", 0);
  ASSERT_NE(body_in, nullptr);
  EXPECT_THAT(Inputs(*body_in), ElementsAre("^" + loop[0]->name()));
}

TEST_F(ControlLoopsTest, ControlFlowAddedWithoutControlLoopsIsAnError) {
  std::unique_ptr<Graph> graph = Import(kLoop);
  Place(graph.get(), kCpu0, {{"while/Body", kCpu1}});
  PartitionOptions options = DefaultOptions();
  options.control_flow_added = true;
  Partitions partitions;
  absl::Status status = Partition(options, graph.get(), &partitions);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(absl::StrCat("no control loop for frame 'while/ctx' on '", kCpu1,
                                     "', needed by the Recv for edge 'while/Switch' -> "
                                     "'while/Body'")));
}

TEST_F(ControlLoopsTest, ColocationTweakMovesControlFlowNodesToTheirData) {
  std::unique_ptr<Graph> graph = Import(kLoop);
  // The body is on CPU:1 with the loop's Switch, NextIteration and Exit wrongly on CPU:0 ...
  Place(graph.get(), kCpu1,
        {{"while/Switch", kCpu0}, {"while/NextIteration", kCpu0}, {"while/Exit", kCpu0},
         {"while/Enter", kCpu0}});
  PartitionOptions options = DefaultOptions();
  options.optimize_control_flow_colocation = true;
  Partitions partitions = PartitionOk(options, graph.get());
  // ... and the tweak moves them next to their data: the whole loop is on CPU:1.
  ASSERT_EQ(partitions.size(), 1u);
  const tensorflow::GraphDef& def = partitions.at(kCpu1);
  for (const char* name : {"while/Switch", "while/NextIteration", "while/Exit", "while/Enter"}) {
    ASSERT_NE(Find(def, name), nullptr) << name;
    EXPECT_EQ(Find(def, name)->device(), kCpu1) << name;
  }
  EXPECT_TRUE(ControlLoopNodes(def, "Enter").empty());
}

TEST_F(ControlLoopsTest, ColocationTweakIsOffByDefault) {
  std::unique_ptr<Graph> graph = Import(kLoop);
  Place(graph.get(), kCpu1, {{"while/Exit", kCpu0}});
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  ASSERT_EQ(partitions.size(), 2u);
  EXPECT_NE(Find(partitions.at(kCpu0), "while/Exit"), nullptr);
}

}  // namespace
}  // namespace partition_test
}  // namespace tessera
