// Placement rules one by one, over the CPU plugin and the testkit plugin's TESTKIT device type
// (priority 50, below CPU's 60).
#include "host/placer/placer.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"
#include "host/session/environment.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kTestkit[] = "/job:localhost/replica:0/task:0/device:TESTKIT:0";

class PlacerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnvironmentOptions options;
    options.plugin_paths.push_back(TESSERA_TESTKIT_PLUGIN_DIR);
    auto env = Environment::Get(options);
    ASSERT_TRUE(env.ok()) << env.status();
    env_ = *env;
  }

  absl::StatusOr<std::unique_ptr<Graph>> Place(const std::string& text, bool soft = false) {
    tensorflow::GraphDef def;
    if (!google::protobuf::TextFormat::ParseFromString(text, &def)) {
      return absl::InvalidArgumentError("bad test graph");
    }
    auto graph = ImportGraphDef(def, env_->ops());
    if (!graph.ok()) return graph.status();
    PlacerOptions options;
    options.allow_soft_placement = soft;
    absl::Status s = PlaceGraph(graph->get(), env_->devices().devices(), env_->kernels(), options);
    if (!s.ok()) return s;
    return graph;
  }

  static std::string DeviceOf(const Graph& graph, const std::string& node) {
    const Node* n = graph.FindNode(node);
    return n == nullptr ? "<missing>" : n->assigned_device();
  }

  std::shared_ptr<Environment> env_;
};

constexpr char kInput[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

std::string Node(const std::string& name, const std::string& op, const std::string& input,
                 const std::string& device = "", const std::string& extra = "") {
  std::string text = "node { name: \"" + name + "\" op: \"" + op + "\"";
  if (!input.empty()) text += " input: \"" + input + "\"";
  if (!device.empty()) text += " device: \"" + device + "\"";
  text += " attr { key: \"T\" value { type: DT_FLOAT } } " + extra + "}\n";
  return text;
}

TEST_F(PlacerTest, HigherDeviceTypePriorityWins) {
  auto graph = Place(std::string(kInput) + Node("a", "TestAsyncIdentity", "x"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "a"), kCpu);  // CPU (60) outranks TESTKIT (50)
}

TEST_F(PlacerTest, HonoursFullAndPartialRequests) {
  auto graph = Place(std::string(kInput) + Node("a", "TestAsyncIdentity", "x", "/device:TESTKIT:0") +
                     Node("b", "TestAsyncIdentity", "a", "/job:localhost/replica:0/task:0/device:TESTKIT:0") +
                     Node("c", "TestAsyncIdentity", "b", "/device:TESTKIT:*"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "a"), kTestkit);
  EXPECT_EQ(DeviceOf(**graph, "b"), kTestkit);
  EXPECT_EQ(DeviceOf(**graph, "c"), kTestkit);
}

TEST_F(PlacerTest, UnsatisfiableRequestNamesNodeRequestAndKernels) {
  auto graph = Place(std::string(kInput) + Node("neg", "Neg", "x", "/device:TESTKIT:0"));
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(), HasSubstr("node 'neg' (Neg)"));
  EXPECT_THAT(graph.status().message(), HasSubstr("'/device:TESTKIT:0'"));
  EXPECT_THAT(graph.status().message(), HasSubstr("kernel for the whole group: CPU"));
  EXPECT_THAT(graph.status().message(), HasSubstr("soft placement is off"));
}

TEST_F(PlacerTest, RequestForAbsentDeviceFails) {
  auto graph = Place(std::string(kInput) + Node("neg", "Neg", "x", "/device:GPU:0"));
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(), HasSubstr("could not satisfy the device specification"));
}

TEST_F(PlacerTest, SoftPlacementFallsBack) {
  auto graph = Place(std::string(kInput) + Node("neg", "Neg", "x", "/device:GPU:0") +
                         Node("n2", "Neg", "neg", "/device:TESTKIT:0"),
                     /*soft=*/true);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "neg"), kCpu);
  EXPECT_EQ(DeviceOf(**graph, "n2"), kCpu);
}

TEST_F(PlacerTest, MalformedRequestIsReported) {
  auto graph = Place(std::string(kInput) + Node("neg", "Neg", "x", "/device:CPU:zero"));
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(), HasSubstr("node 'neg' (Neg)"));
  EXPECT_THAT(graph.status().message(), HasSubstr("malformed device name"));
}

TEST_F(PlacerTest, ColocationGroupsShareADeviceTheirKernelsAllow) {
  // 'a' alone would go to TESTKIT as requested... but 'n' (Neg: CPU only) asks to join it, and the
  // request cannot be met by the group, which must fail; without the request the group is CPU.
  const std::string colocate =
      "attr { key: \"_class\" value { list { s: \"loc:@a\" } } } ";
  auto graph = Place(std::string(kInput) + Node("a", "TestAsyncIdentity", "x") +
                     Node("n", "Neg", "a", "", colocate));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "a"), kCpu);
  EXPECT_EQ(DeviceOf(**graph, "n"), kCpu);

  auto bad = Place(std::string(kInput) + Node("a", "TestAsyncIdentity", "x", "/device:TESTKIT:0") +
                   Node("n", "Neg", "a", "", colocate));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("colocation group: [a, n]"));
}

TEST_F(PlacerTest, ConflictingRequestsInOneGroupFailUnlessSoft) {
  const std::string colocate = "attr { key: \"_class\" value { list { s: \"loc:@a\" } } } ";
  std::string text = std::string(kInput) + Node("a", "TestAsyncIdentity", "x", "/device:CPU:0") +
                     Node("b", "TestAsyncIdentity", "a", "/device:TESTKIT:0", colocate);
  auto bad = Place(text);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("cannot colocate nodes 'a' and 'b'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("colocation group 'loc:@a'"));
  auto soft = Place(text, /*soft=*/true);
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_EQ(DeviceOf(**soft, "a"), DeviceOf(**soft, "b"));
}

TEST_F(PlacerTest, GroupWithoutACommonDeviceTypeFails) {
  // FakeOp-like case: TestFail has only a CPU kernel, TestConstant both; 'c' requested on TESTKIT
  // joins a TestFail node: the group's types are {CPU}, which cannot meet the request.
  const std::string colocate = "attr { key: \"_class\" value { list { s: \"loc:@f\" } } } ";
  auto graph = Place(std::string(kInput) + Node("f", "TestFail", "x") +
                     "node { name: \"c\" op: \"TestConstant\" device: \"/device:TESTKIT:0\" " +
                     colocate + "}\n");
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(graph.status().message(), HasSubstr("kernel for the whole group: CPU"));
}

TEST_F(PlacerTest, GeneratorsFollowTheirConsumers) {
  std::string text =
      "node { name: \"c\" op: \"TestConstant\" }\n" +
      Node("a", "TestAsyncIdentity", "c", "/device:TESTKIT:0") +
      Node("b", "TestAsyncIdentity", "c", "/device:TESTKIT:0") +
      "node { name: \"lonely\" op: \"TestConstant\" }\n";
  auto graph = Place(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "c"), kTestkit);       // follows its consumers
  EXPECT_EQ(DeviceOf(**graph, "lonely"), kCpu);      // no consumers: priority decides
}

TEST_F(PlacerTest, GeneratorsStayPutWhenConsumersDisagree) {
  std::string text = "node { name: \"c\" op: \"TestConstant\" }\n" +
                     Node("a", "TestAsyncIdentity", "c", "/device:TESTKIT:0") +
                     Node("b", "TestAsyncIdentity", "c", "/device:CPU:0");
  auto graph = Place(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "c"), kCpu);
}

TEST_F(PlacerTest, ShapeFollowsItsInput) {
  std::string text = std::string(kInput) + Node("a", "TestAsyncIdentity", "x", "/device:TESTKIT:0") +
                     "node { name: \"s\" op: \"Shape\" input: \"a\" "
                     "attr { key: \"T\" value { type: DT_FLOAT } } }\n" +
                     Node("s2", "Shape", "x");
  auto graph = Place(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "s"), kTestkit);
  EXPECT_EQ(DeviceOf(**graph, "x"), kCpu);
}

TEST_F(PlacerTest, NoKernelForTheNodesTypesIsReported) {
  // Neg is defined for int8, but no plugin registers an int8 Neg kernel.
  std::string text = R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_INT8 } } }
    node { name: "m" op: "Neg" input: "a" attr { key: "T" value { type: DT_INT8 } } }
  )pb";
  auto graph = Place(text);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(), HasSubstr("node 'm' (Neg)"));
  EXPECT_THAT(graph.status().message(), HasSubstr("no kernel for it on any device present"));
  EXPECT_THAT(graph.status().message(), HasSubstr("device types with a kernel for Neg: CPU"));
}

TEST_F(PlacerTest, RunAcrossDeviceTypes) {
  SessionOptions options;
  options.plugin_paths.push_back(TESSERA_TESTKIT_PLUGIN_DIR);
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      std::string(kInput) + Node("a", "TestAsyncIdentity", "x", "/device:TESTKIT:0") +
          Node("n", "Neg", "a"),
      &def));
  auto session = Session::Create(options, def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  RunMetadata metadata;
  absl::Status s = (*session)->Run(RunOptions(), {{"x", Tensor::Scalar<float>(2)}}, {"n"}, {},
                                   &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].DebugString(), "float [] -2");
  EXPECT_THAT(metadata.partition_devices, ::testing::UnorderedElementsAre(kCpu, kTestkit));
}

}  // namespace
}  // namespace tessera
