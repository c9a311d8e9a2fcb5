// Tests of Partition without loops: Send/Recv pairs and their attrs, Recv de-duplication, control
// edges through a dummy value, same-device pairs for memory-type mismatches, and each error.
#include "host/partition/graph_partition.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/partition/partition_test_util.h"

namespace tessera {
namespace partition_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr char kFloat[] = R"pb(attr { key: "T" value { type: DT_FLOAT } })pb";

// a -> b and a -> c, plus d = AddV2(b, c).
std::string Diamond() {
  return absl::StrCat(
      R"pb(node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
           node { name: "b" op: "Identity" input: "a" )pb", kFloat, R"pb( }
           node { name: "c" op: "Identity" input: "a" )pb", kFloat, R"pb( }
           node { name: "d" op: "AddV2" input: "b" input: "c" )pb", kFloat, " }");
}

using GraphPartitionTest = PartitionTest;

TEST_F(GraphPartitionTest, OneDeviceIsOnePartitionWithPlainEdges) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  graph->versions.set_producer(42);
  Place(graph.get(), kCpu0);
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  ASSERT_EQ(partitions.size(), 1u);
  const tensorflow::GraphDef& def = partitions.at(kCpu0);
  ASSERT_EQ(def.node_size(), 4);
  EXPECT_EQ(def.versions().producer(), 42);
  for (const tensorflow::NodeDef& node : def.node()) EXPECT_EQ(node.device(), kCpu0);
  EXPECT_THAT(Inputs(*Find(def, "d")), ElementsAre("b", "c"));
  EXPECT_EQ(TypeAttr(*Find(def, "a"), "dtype"), TSR_DTYPE_FLOAT);
}

TEST_F(GraphPartitionTest, CrossDeviceEdgeBecomesSendAndRecv) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kCpu1, {{"a", kCpu0}});
  const int edge_id = graph->FindNode("b")->input_edge(0)->id;
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  ASSERT_EQ(partitions.size(), 2u);
  const tensorflow::GraphDef& src = partitions.at(kCpu0);
  const tensorflow::GraphDef& dst = partitions.at(kCpu1);

  // Both consumers of a:0 on CPU:1 share one Recv, fed by one Send.
  ASSERT_THAT(WithOp(src, "_Send"), SizeIs(1));
  ASSERT_THAT(WithOp(dst, "_Recv"), SizeIs(1));
  const tensorflow::NodeDef& send = *WithOp(src, "_Send")[0];
  const tensorflow::NodeDef& recv = *WithOp(dst, "_Recv")[0];
  EXPECT_THAT(Inputs(send), ElementsAre("a"));
  EXPECT_EQ(send.device(), kCpu0);
  EXPECT_EQ(recv.device(), kCpu1);
  EXPECT_EQ(TypeAttr(send, "T"), TSR_DTYPE_FLOAT);
  EXPECT_EQ(TypeAttr(recv, "tensor_type"), TSR_DTYPE_FLOAT);
  for (const tensorflow::NodeDef* node : {&send, &recv}) {
    EXPECT_EQ(StringAttr(*node, "tensor_name"), absl::StrCat("edge_", edge_id, "_a"));
    EXPECT_EQ(StringAttr(*node, "send_device"), kCpu0);
    EXPECT_EQ(StringAttr(*node, "recv_device"), kCpu1);
    EXPECT_EQ(IntAttr(*node, "send_device_incarnation"), 0xabcd);
    EXPECT_FALSE(BoolAttr(*node, "client_terminated"));
    EXPECT_EQ(StringAttr(*node, "_src"), "a");
  }
  EXPECT_TRUE(Inputs(recv).empty());
  EXPECT_THAT(Inputs(*Find(dst, "b")), ElementsAre(recv.name()));
  EXPECT_THAT(Inputs(*Find(dst, "c")), ElementsAre(recv.name()));
  EXPECT_THAT(Inputs(*Find(dst, "d")), ElementsAre("b", "c"));
  EXPECT_EQ(Find(src, "b"), nullptr);
}

TEST_F(GraphPartitionTest, EachDestinationPartitionGetsItsOwnRecv) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kCpu0, {{"b", kCpu1}, {"c", kDev0}, {"d", kDev0}});
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  ASSERT_EQ(partitions.size(), 3u);
  EXPECT_THAT(WithOp(partitions.at(kCpu0), "_Send"), SizeIs(2));
  EXPECT_THAT(WithOp(partitions.at(kCpu1), "_Recv"), SizeIs(1));
  // TESTDEV receives a:0 (for c) and b:0 (for d).
  EXPECT_THAT(WithOp(partitions.at(kDev0), "_Recv"), SizeIs(2));
  const tensorflow::NodeDef& d = *Find(partitions.at(kDev0), "d");
  EXPECT_EQ(d.input(1), "c");
  EXPECT_EQ(StringAttr(*Find(partitions.at(kDev0), d.input(0)), "send_device"), kCpu1);
  // No incarnation callback entry for CPU:1: the options' default of 7.
  EXPECT_EQ(IntAttr(*Find(partitions.at(kDev0), d.input(0)), "send_device_incarnation"), 7);
}

TEST_F(GraphPartitionTest, CrossDeviceControlEdgeSendsADummyValue) {
  std::unique_ptr<Graph> graph = Import(R"pb(
    node { name: "a" op: "NoOp" }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Identity" input: "x" input: "^a" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "c" op: "NoOp" input: "^a" })pb");
  Place(graph.get(), kCpu1, {{"a", kCpu0}});
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  const tensorflow::GraphDef& src = partitions.at(kCpu0);
  const tensorflow::GraphDef& dst = partitions.at(kCpu1);

  ASSERT_THAT(WithOp(src, "Const"), SizeIs(1));
  const tensorflow::NodeDef& dummy = *WithOp(src, "Const")[0];
  EXPECT_THAT(dummy.name(), HasSubstr("a/ctrl/_"));
  EXPECT_THAT(Inputs(dummy), ElementsAre("^a"));
  EXPECT_EQ(dummy.device(), kCpu0);
  EXPECT_EQ(TypeAttr(dummy, "dtype"), TSR_DTYPE_FLOAT);
  const tensorflow::TensorProto& value = dummy.attr().at("value").tensor();
  ASSERT_EQ(value.tensor_shape().dim_size(), 1);
  EXPECT_EQ(value.tensor_shape().dim(0).size(), 0);

  ASSERT_THAT(WithOp(src, "_Send"), SizeIs(1));
  EXPECT_THAT(Inputs(*WithOp(src, "_Send")[0]), ElementsAre(dummy.name()));
  ASSERT_THAT(WithOp(dst, "_Recv"), SizeIs(1));
  const tensorflow::NodeDef& recv = *WithOp(dst, "_Recv")[0];
  EXPECT_EQ(TypeAttr(recv, "tensor_type"), TSR_DTYPE_FLOAT);
  ASSERT_THAT(WithOp(dst, "Identity"), SizeIs(2));  // b and the received dummy
  const tensorflow::NodeDef* identity = nullptr;
  for (const tensorflow::NodeDef* node : WithOp(dst, "Identity")) {
    if (node->name() != "b") identity = node;
  }
  ASSERT_NE(identity, nullptr);
  EXPECT_THAT(Inputs(*identity), ElementsAre(recv.name()));
  // Both control consumers hang off the one Identity; data inputs stay first.
  EXPECT_THAT(Inputs(*Find(dst, "b")), ElementsAre("x", "^" + identity->name()));
  EXPECT_THAT(Inputs(*Find(dst, "c")), ElementsAre("^" + identity->name()));
}

TEST_F(GraphPartitionTest, ControlEdgeWithinOnePartitionStaysPlain) {
  std::unique_ptr<Graph> graph = Import(R"pb(
    node { name: "a" op: "NoOp" }
    node { name: "c" op: "NoOp" input: "^a" })pb");
  Place(graph.get(), kDev0);
  Partitions partitions = PartitionOk(DefaultOptions(), graph.get());
  EXPECT_THAT(Inputs(*Find(partitions.at(kDev0), "c")), ElementsAre("^a"));
}

// On TESTDEV: the Switch predicate and Shape's output are in host memory, the rest on the device.
absl::StatusOr<MemoryTypes> TestDeviceMemoryTypes(const Node& node) {
  MemoryTypes types;
  types.inputs.assign(node.num_inputs(), MemoryType::kDevice);
  types.outputs.assign(node.num_outputs(), MemoryType::kDevice);
  if (node.op() == "Switch") types.inputs[1] = MemoryType::kHost;
  if (node.op() == "Shape") types.outputs[0] = MemoryType::kHost;
  return types;
}

constexpr char kSwitchOnLess[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "less" op: "Less" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "switch" op: "Switch" input: "x" input: "less"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "shape" op: "Shape" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "use_shape" op: "Identity" input: "shape" attr { key: "T" value { type: DT_INT32 } } }
)pb";

TEST_F(GraphPartitionTest, MemoryTypeMismatchOnOneDeviceGetsASameDevicePair) {
  std::unique_ptr<Graph> graph = Import(kSwitchOnLess);
  Place(graph.get(), kDev0);
  PartitionOptions options = DefaultOptions();
  options.memory_types = TestDeviceMemoryTypes;
  Partitions partitions = PartitionOk(options, graph.get());
  ASSERT_EQ(partitions.size(), 1u);
  const tensorflow::GraphDef& def = partitions.at(kDev0);
  // less:0 (device memory) -> switch:1 (host memory); shape:0 (host) -> use_shape:0 (device).
  ASSERT_THAT(WithOp(def, "_Send"), SizeIs(1));
  ASSERT_THAT(WithOp(def, "_HostRecv"), SizeIs(1));
  ASSERT_THAT(WithOp(def, "_HostSend"), SizeIs(1));
  ASSERT_THAT(WithOp(def, "_Recv"), SizeIs(1));
  const tensorflow::NodeDef& send = *WithOp(def, "_Send")[0];
  const tensorflow::NodeDef& host_recv = *WithOp(def, "_HostRecv")[0];
  EXPECT_THAT(Inputs(send), ElementsAre("less"));
  EXPECT_THAT(Inputs(host_recv), ElementsAre("^" + send.name()));
  EXPECT_EQ(TypeAttr(host_recv, "tensor_type"), TSR_DTYPE_BOOL);
  EXPECT_EQ(StringAttr(host_recv, "send_device"), kDev0);
  EXPECT_EQ(StringAttr(host_recv, "recv_device"), kDev0);
  EXPECT_THAT(Inputs(*Find(def, "switch")), ElementsAre("x", host_recv.name()));
  const tensorflow::NodeDef& host_send = *WithOp(def, "_HostSend")[0];
  const tensorflow::NodeDef& recv = *WithOp(def, "_Recv")[0];
  EXPECT_THAT(Inputs(host_send), ElementsAre("shape"));
  EXPECT_THAT(Inputs(recv), ElementsAre("^" + host_send.name()));
  EXPECT_EQ(TypeAttr(recv, "tensor_type"), TSR_DTYPE_INT32);
  EXPECT_THAT(Inputs(*Find(def, "use_shape")), ElementsAre(recv.name()));
  // Matching memory types stay plain.
  EXPECT_THAT(Inputs(*Find(def, "less")), ElementsAre("x", "y"));
}

TEST_F(GraphPartitionTest, HostMemoryArgumentsAcrossDevicesUseHostSendAndHostRecv) {
  std::unique_ptr<Graph> graph = Import(kSwitchOnLess);
  // x, y and less on the CPU; the switch and shape on TESTDEV; use_shape back on the CPU.
  Place(graph.get(), kCpu0, {{"switch", kDev0}, {"shape", kDev0}});
  PartitionOptions options = DefaultOptions();
  options.memory_types = TestDeviceMemoryTypes;
  Partitions partitions = PartitionOk(options, graph.get());
  const tensorflow::GraphDef& cpu = partitions.at(kCpu0);
  const tensorflow::GraphDef& dev = partitions.at(kDev0);
  // x feeds switch:0 (device memory) and shape:0 (device memory): one _Recv; less feeds switch:1
  // (host memory): a _HostRecv. A CPU never sends or receives through the _Host ops.
  EXPECT_THAT(WithOp(cpu, "_Send"), SizeIs(2));
  EXPECT_THAT(WithOp(dev, "_Recv"), SizeIs(1));
  ASSERT_THAT(WithOp(dev, "_HostRecv"), SizeIs(1));
  EXPECT_THAT(Inputs(*Find(dev, "switch")),
              ElementsAre(WithOp(dev, "_Recv")[0]->name(), WithOp(dev, "_HostRecv")[0]->name()));
  // shape:0 is in host memory on TESTDEV: _HostSend there, plain _Recv on the CPU.
  ASSERT_THAT(WithOp(dev, "_HostSend"), SizeIs(1));
  EXPECT_THAT(Inputs(*WithOp(dev, "_HostSend")[0]), ElementsAre("shape"));
  ASSERT_THAT(WithOp(cpu, "_Recv"), SizeIs(1));
  EXPECT_TRUE(WithOp(cpu, "_HostRecv").empty());
  EXPECT_TRUE(Inputs(*WithOp(cpu, "_Recv")[0]).empty());
}

TEST_F(GraphPartitionTest, RecvsOfOneTensorDifferByMemoryType) {
  std::unique_ptr<Graph> graph = Import(R"pb(
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
    node { name: "switch" op: "Switch" input: "p" input: "p"
           attr { key: "T" value { type: DT_BOOL } } })pb");
  Place(graph.get(), kCpu0, {{"switch", kDev0}});
  PartitionOptions options = DefaultOptions();
  options.memory_types = TestDeviceMemoryTypes;
  Partitions partitions = PartitionOk(options, graph.get());
  const tensorflow::GraphDef& dev = partitions.at(kDev0);
  ASSERT_THAT(WithOp(dev, "_Recv"), SizeIs(1));
  ASSERT_THAT(WithOp(dev, "_HostRecv"), SizeIs(1));
  EXPECT_THAT(WithOp(partitions.at(kCpu0), "_Send"), SizeIs(2));
}

TEST_F(GraphPartitionTest, LocationsMayGroupSeveralDevices) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kCpu0, {{"b", kCpu1}, {"d", kDev0}});
  PartitionOptions options = DefaultOptions();
  options.node_to_loc = [](const Node& node) {
    return node.assigned_device().substr(0, node.assigned_device().find("/device:"));
  };
  Partitions partitions = PartitionOk(options, graph.get());
  ASSERT_EQ(partitions.size(), 1u);
  const tensorflow::GraphDef& def = partitions.at("/job:localhost/replica:0/task:0");
  EXPECT_TRUE(WithOp(def, "_Send").empty());
  EXPECT_THAT(Inputs(*Find(def, "d")), ElementsAre("b", "c"));
  EXPECT_EQ(Find(def, "b")->device(), kCpu1);
  EXPECT_EQ(Find(def, "d")->device(), kDev0);
}

TEST_F(GraphPartitionTest, NoIncarnationCallbackMeansZero) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kCpu1, {{"a", kCpu0}});
  Partitions partitions = PartitionOk(PartitionOptions(), graph.get());
  ASSERT_THAT(WithOp(partitions.at(kCpu0), "_Send"), SizeIs(1));
  EXPECT_EQ(IntAttr(*WithOp(partitions.at(kCpu0), "_Send")[0], "send_device_incarnation"), 0);
}

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
}

TEST_F(GraphPartitionTest, UnplacedNodeIsAnError) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kCpu0, {{"c", ""}});
  Partitions partitions;
  ExpectError(Partition(DefaultOptions(), graph.get(), &partitions),
              absl::StatusCode::kInvalidArgument,
              "node 'c' (Identity) is not assigned to a device; partitioning needs a placed graph");
}

TEST_F(GraphPartitionTest, EmptyLocationIsAnError) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kCpu0);
  PartitionOptions options = DefaultOptions();
  options.node_to_loc = [](const Node& node) { return node.name() == "b" ? "" : "here"; };
  Partitions partitions;
  ExpectError(Partition(options, graph.get(), &partitions), absl::StatusCode::kInvalidArgument,
              absl::StrCat("node_to_loc gave no location for node 'b' (Identity) assigned to '",
                           kCpu0, "'"));
}

TEST_F(GraphPartitionTest, MemoryTypesErrorNamesTheNode) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kDev0, {{"a", kCpu0}});
  PartitionOptions options = DefaultOptions();
  options.memory_types = [](const Node& node) -> absl::StatusOr<MemoryTypes> {
    if (node.name() == "c") return absl::NotFoundError("no kernel for Identity on TESTDEV");
    return TestDeviceMemoryTypes(node);
  };
  Partitions partitions;
  ExpectError(Partition(options, graph.get(), &partitions), absl::StatusCode::kNotFound,
              absl::StrCat("while computing the memory types of node 'c' (Identity) on '", kDev0,
                           "': no kernel for Identity on TESTDEV"));
}

TEST_F(GraphPartitionTest, MemoryTypesOfTheWrongLengthAreAnInternalError) {
  std::unique_ptr<Graph> graph = Import(Diamond());
  Place(graph.get(), kDev0);
  PartitionOptions options = DefaultOptions();
  options.memory_types = [](const Node& node) -> absl::StatusOr<MemoryTypes> {
    MemoryTypes types;
    types.outputs.assign(node.num_outputs(), MemoryType::kDevice);
    return types;
  };
  Partitions partitions;
  ExpectError(Partition(options, graph.get(), &partitions), absl::StatusCode::kInternal,
              "the memory types of node 'b' (Identity) on '" + std::string(kDev0) +
                  "' list 0 inputs and 1 outputs, expected 1 and 1");
}

TEST_F(GraphPartitionTest, UnconnectedInputIsAnError) {
  Graph graph(ops_.get());
  tensorflow::NodeDef def;
  def.set_name("lonely");
  def.set_op("Identity");
  (*def.mutable_attr())["T"] = TypeAttrValue(TSR_DTYPE_FLOAT);
  absl::StatusOr<Node*> node = graph.AddNode(def);
  ASSERT_TRUE(node.ok()) << node.status();
  (*node)->set_assigned_device(kCpu0);
  Partitions partitions;
  ExpectError(Partition(DefaultOptions(), &graph, &partitions),
              absl::StatusCode::kInvalidArgument,
              "node 'lonely' (Identity) has no edge into input 0 (of 1)");
}

TEST_F(GraphPartitionTest, FrameErrorsArePassedOn) {
  std::unique_ptr<Graph> graph = Import(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "x" op: "Exit" input: "a" attr { key: "T" value { type: DT_FLOAT } } })pb");
  Place(graph.get(), kCpu0);
  Partitions partitions;
  ExpectError(Partition(DefaultOptions(), graph.get(), &partitions),
              absl::StatusCode::kInvalidArgument, "Exit node 'x' (Exit) is not inside a loop frame");
}

}  // namespace
}  // namespace partition_test
}  // namespace tessera
