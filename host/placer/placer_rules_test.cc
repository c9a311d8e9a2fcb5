// Placement rules one by one on a made-up machine: two CPUs (priority 60) and two GPUs (priority
// 210), with a kernel table written per test, so that every multi-device rule can be checked
// without plugins.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"
#include "host/kernels/kernel_factory.h"
#include "host/ops/op_def_builder.h"
#include "host/ops/op_registry.h"
#include "host/placer/placer.h"
#include "host/runtime/device.h"
#include "host/runtime/device_name.h"
#include "registry/device_handle.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";
constexpr char kGpu1[] = "/job:localhost/replica:0/task:0/device:GPU:1";

class PlacerRulesTest : public ::testing::Test {
 protected:
  PlacerRulesTest() : ops_(OpRegistry::CreateStandard()) {
    for (int id = 0; id < 2; ++id) {
      AddDevice("CPU", id, 60);
      AddDevice("GPU", id, 210);
    }
    // Ops the tests need beyond the standard ones.
    Register(OpDefBuilder("TestVarHandle").Output("resource", TSR_DTYPE_RESOURCE).SetIsStateful());
    Register(
        OpDefBuilder("TestGpuVarHandle").Output("resource", TSR_DTYPE_RESOURCE).SetIsStateful());
    Register(OpDefBuilder("TestRead")
                 .Input("resource", TSR_DTYPE_RESOURCE)
                 .Output("value", TSR_DTYPE_FLOAT));
    Register(OpDefBuilder("TestReadTwo")
                 .Input("a", TSR_DTYPE_RESOURCE)
                 .Input("b", TSR_DTYPE_RESOURCE)
                 .Output("value", TSR_DTYPE_FLOAT));
    Register(OpDefBuilder("TestCpuRead")
                 .Input("resource", TSR_DTYPE_RESOURCE)
                 .Output("value", TSR_DTYPE_FLOAT));
    Register(OpDefBuilder("TestGpuOnly").Input("x", TSR_DTYPE_FLOAT).Output("y", TSR_DTYPE_FLOAT));
    Register(OpDefBuilder("TestNoKernel").Output("y", TSR_DTYPE_FLOAT));
    Register(OpDefBuilder("TestTpuOnly").Output("y", TSR_DTYPE_FLOAT));
    Register(OpDefBuilder("TestCpuConst").Output("y", TSR_DTYPE_FLOAT));
    for (const char* op : {"Size", "Rank"}) {
      if (ops_->Find(op) == nullptr) {
        Register(OpDefBuilder(op)
                     .Input("input", "T")
                     .Output("output", "out_type")
                     .TypeAttr("T")
                     .TypeAttr("out_type", {TSR_DTYPE_INT32, TSR_DTYPE_INT64}, TSR_DTYPE_INT32));
      }
    }
    // Kernels on both types unless said otherwise.
    for (const char* op : {"Placeholder", "Const", "Identity", "MatMul", "Shape", "Size", "Rank",
                           "TestVarHandle", "TestRead", "TestReadTwo", "Enter", "Merge", "Switch",
                           "Exit", "NextIteration", "LoopCond"}) {
      AddKernel(op, "CPU");
      AddKernel(op, "GPU");
    }
    AddKernel("Neg", "CPU", {{"T", {TSR_DTYPE_FLOAT, TSR_DTYPE_INT32}}});
    AddKernel("Neg", "GPU", {{"T", {TSR_DTYPE_FLOAT}}});
    AddKernel("Cast", "CPU");
    AddKernel("TestCpuRead", "CPU");
    AddKernel("TestCpuConst", "CPU");
    AddKernel("TestGpuOnly", "GPU");
    AddKernel("TestGpuVarHandle", "GPU");
    AddKernel("TestTpuOnly", "TPU");
  }

  void AddDevice(const std::string& type, int id, int32_t priority,
                 const std::string& job = "localhost") {
    devices_.push_back(std::make_unique<Device>(FullDeviceName(job, 0, 0, type, id), type, priority,
                                                TSR_DEVICE_FLAG_HOST_MEMORY, "fake", nullptr));
  }

  void AddKernel(const std::string& op, const std::string& type,
                 std::map<std::string, std::vector<TSR_DataType>> constraints = {}) {
    KernelSpec spec;
    spec.op_name = op;
    spec.device_type = type;
    spec.type_constraints = std::move(constraints);
    kernels_.push_back(std::move(spec));
  }

  void Register(const OpDefBuilder& builder) {
    absl::StatusOr<OpRegistration> registration = builder.Build();
    ASSERT_TRUE(registration.ok()) << registration.status();
    ASSERT_TRUE(ops_->Register(*std::move(registration)).ok());
  }

  absl::StatusOr<std::unique_ptr<Graph>> Import(const std::string& text) {
    tensorflow::GraphDef def;
    if (!google::protobuf::TextFormat::ParseFromString(text, &def)) {
      return absl::InvalidArgumentError("bad test graph");
    }
    return ImportGraphDef(def, *ops_);
  }

  absl::Status PlaceImported(Graph* graph, bool soft = false, bool log = false) {
    PlacerOptions options;
    options.allow_soft_placement = soft;
    options.log_device_placement = log;
    std::vector<Device*> devices;
    for (const auto& d : devices_) devices.push_back(d.get());
    KernelFactory factory(kernels_);
    return PlaceGraph(graph, devices, factory, options);
  }

  absl::StatusOr<std::unique_ptr<Graph>> Place(const std::string& text, bool soft = false) {
    absl::StatusOr<std::unique_ptr<Graph>> graph = Import(text);
    if (!graph.ok()) return graph.status();
    absl::Status status = PlaceImported(graph->get(), soft);
    if (!status.ok()) return status;
    return graph;
  }

  static std::string DeviceOf(const Graph& graph, const std::string& node) {
    const Node* n = graph.FindNode(node);
    return n == nullptr ? "<missing>" : n->assigned_device();
  }

  std::unique_ptr<OpRegistry> ops_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<KernelSpec> kernels_;
};

// A node of op `op` with float attribute T, one input (or none), a request and extra text.
std::string N(const std::string& name, const std::string& op, const std::string& input = "",
              const std::string& device = "", const std::string& extra = "") {
  std::string text = "node { name: \"" + name + "\" op: \"" + op + "\"";
  if (!input.empty()) text += " input: \"" + input + "\"";
  if (!device.empty()) text += " device: \"" + device + "\"";
  return text + " " + extra + " }\n";
}
const char kFloat[] = "attr { key: \"T\" value { type: DT_FLOAT } }";
std::string Placeholder(const std::string& name, const std::string& device = "") {
  return N(name, "Placeholder", "", device, "attr { key: \"dtype\" value { type: DT_FLOAT } }");
}
std::string Const(const std::string& name, const std::string& device = "") {
  return N(name, "Const", "", device,
           "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor "
           "{ dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }");
}
std::string Class(const std::string& group) {
  return "attr { key: \"_class\" value { list { s: \"loc:@" + group + "\" } } }";
}

// ---- Requests ------------------------------------------------------------------------------

TEST_F(PlacerRulesTest, FullAndPartialRequests) {
  auto graph = Place(
      Placeholder("x") +
      N("full", "Neg", "x", "/job:localhost/replica:0/task:0/device:CPU:1", kFloat) +
      N("stars", "Neg", "x", "/job:*/replica:*/task:*/device:GPU:1", kFloat) +
      N("any_cpu", "Neg", "x", "/device:CPU:*", kFloat) +
      N("gpu_no_id", "Neg", "x", "/device:GPU", kFloat) +
      N("legacy", "Neg", "x", "/cpu:1", kFloat) + N("legacy_gpu", "Neg", "x", "/GPU:1", kFloat) +
      N("bare", "Neg", "x", "CPU:1", kFloat) + N("any_id", "Neg", "x", "/device:*:1", kFloat) +
      N("task_only", "Neg", "x", "/job:localhost/task:0", kFloat));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "full"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "stars"), kGpu1);
  EXPECT_EQ(DeviceOf(**graph, "any_cpu"), kCpu0);  // by name among the CPUs
  EXPECT_EQ(DeviceOf(**graph, "gpu_no_id"), kGpu0);
  EXPECT_EQ(DeviceOf(**graph, "legacy"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "legacy_gpu"), kGpu1);
  EXPECT_EQ(DeviceOf(**graph, "bare"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "any_id"), kGpu1);     // GPU outranks CPU among the :1 devices
  EXPECT_EQ(DeviceOf(**graph, "task_only"), kGpu0);  // priority decides within the task
}

TEST_F(PlacerRulesTest, RequestForAnAbsentDeviceNamesNodeRequestGroupAndKernels) {
  auto graph = Place(Placeholder("x") + N("neg", "Neg", "x", "/device:GPU:2", kFloat));
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(),
              HasSubstr("cannot assign a device for node 'neg' (Neg): could not satisfy the "
                        "device specification '/device:GPU:2'; colocation group: [neg]; device "
                        "types with a kernel for the whole group: CPU, GPU; devices present: "));
  EXPECT_THAT(graph.status().message(), HasSubstr(kGpu1));
  EXPECT_THAT(graph.status().message(), HasSubstr("(soft placement is off)"));
}

TEST_F(PlacerRulesTest, RequestForAnotherJobFailsEvenWhenSoft) {
  // Soft placement drops the device type and id, never the job or task.
  for (bool soft : {false, true}) {
    auto graph =
        Place(Placeholder("x") + N("neg", "Neg", "x", "/job:worker/device:CPU:0", kFloat), soft);
    ASSERT_FALSE(graph.ok());
    EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(graph.status().message(),
                HasSubstr("could not satisfy the device specification '/job:worker/device:CPU:0'"));
    if (soft) {
      EXPECT_THAT(graph.status().message(), HasSubstr("(even without the device type and id)"));
    }
  }
}

TEST_F(PlacerRulesTest, MalformedRequestNamesTheNode) {
  auto graph = Place(Placeholder("x") + N("neg", "Neg", "x", "/device:GPU:0/bogus", kFloat));
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(), HasSubstr("node 'neg' (Neg): malformed device name "
                                                  "'/device:GPU:0/bogus'"));
}

// ---- Kernels and priorities ------------------------------------------------------------------

TEST_F(PlacerRulesTest, HighestDeviceTypePriorityWithAKernelWins) {
  auto graph =
      Place(Placeholder("x") + N("neg", "Neg", "x", "", kFloat) +
            N("cast", "Cast", "x", "",
              "attr { key: \"SrcT\" value { type: DT_FLOAT } } "
              "attr { key: \"DstT\" value { type: DT_INT32 } }") +
            N("neg_int", "Neg", "cast", "", "attr { key: \"T\" value { type: DT_INT32 } }"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "neg"), kGpu0);      // GPU (210) outranks CPU (60)
  EXPECT_EQ(DeviceOf(**graph, "cast"), kCpu0);     // no GPU kernel for Cast
  EXPECT_EQ(DeviceOf(**graph, "neg_int"), kCpu0);  // the GPU kernel of Neg takes float only
}

TEST_F(PlacerRulesTest, PriorityIsTheDevicesNotTheOrderTheyCameIn) {
  devices_.clear();
  AddDevice("GPU", 0, 10);  // a low-priority accelerator listed first
  AddDevice("CPU", 0, 60);
  auto graph = Place(Placeholder("x") + N("neg", "Neg", "x", "", kFloat));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "neg"), kCpu0);
}

TEST_F(PlacerRulesTest, NoKernelAnywhereNamesNodeRequestAndKernelTypes) {
  auto none = Place(N("k", "TestNoKernel", "", "/device:GPU:0"));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(),
              HasSubstr("cannot assign a device for node 'k' (TestNoKernel) requested on "
                        "'/device:GPU:0': no kernel for it on any device present (devices "
                        "present: CPU, GPU; device types with a kernel for TestNoKernel: none)"));

  auto absent = Place(N("t", "TestTpuOnly"));
  ASSERT_FALSE(absent.ok());
  EXPECT_THAT(absent.status().message(),
              HasSubstr("device types with a kernel for TestTpuOnly: TPU (no such device)"));

  auto types = Place(R"pb(
    node {
      name: "b"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_INT8 }
      }
    }
    node {
      name: "m"
      op: "Neg"
      input: "b"
      attr {
        key: "T"
        value { type: DT_INT8 }
      }
    })pb");
  ASSERT_FALSE(types.ok());
  EXPECT_THAT(types.status().message(), HasSubstr("node 'm' (Neg): no kernel"));
  EXPECT_THAT(types.status().message(),
              HasSubstr("device types with a kernel for Neg: CPU (not for the node's types), GPU "
                        "(not for the node's types)"));
}

TEST_F(PlacerRulesTest, NoDevicesIsAFailedPrecondition) {
  auto graph = Import(Placeholder("x"));
  ASSERT_TRUE(graph.ok());
  KernelFactory factory(kernels_);
  absl::Status status = PlaceGraph(graph->get(), {}, factory, PlacerOptions());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("no devices to place on"));
}

// ---- Colocation groups -------------------------------------------------------------------------

TEST_F(PlacerRulesTest, ClassGroupsShareADeviceAllTheirKernelsAllow) {
  auto graph = Place(Placeholder("x") + N("a", "Neg", "x", "", kFloat) +
                     N("b", "Cast", "a", "",
                       "attr { key: \"SrcT\" value { type: DT_FLOAT } } "
                       "attr { key: \"DstT\" value { type: DT_INT32 } } " +
                           Class("a")) +
                     // A group named after no node: its members still go together.
                     N("g1", "Neg", "x", "/device:CPU:1", std::string(kFloat) + Class("ghost")) +
                     N("g2", "Neg", "x", "", std::string(kFloat) + Class("ghost")));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "a"), kCpu0);  // Cast has no GPU kernel, so neither has the group
  EXPECT_EQ(DeviceOf(**graph, "b"), kCpu0);
  EXPECT_EQ(DeviceOf(**graph, "g1"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "g2"), kCpu1);
}

TEST_F(PlacerRulesTest, PartialRequestsOfAGroupAreMerged) {
  auto graph = Place(Placeholder("x") + N("a", "Neg", "x", "/device:GPU:*", kFloat) +
                     N("b", "Neg", "a", "/device:*:1", std::string(kFloat) + Class("a")));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "a"), kGpu1);
  EXPECT_EQ(DeviceOf(**graph, "b"), kGpu1);
}

TEST_F(PlacerRulesTest, ConflictingRequestsInAGroupFailUnlessSoft) {
  std::string text = Placeholder("x") + N("a", "Neg", "x", "/device:CPU:0", kFloat) +
                     N("b", "Neg", "a", "/device:GPU:1", std::string(kFloat) + Class("a"));
  auto hard = Place(text);
  ASSERT_FALSE(hard.ok());
  EXPECT_EQ(hard.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(hard.status().message(),
              HasSubstr("cannot colocate nodes 'a' and 'b' (joined by colocation group "
                        "'loc:@a'): cannot merge devices with incompatible types"));
  // Soft placement drops the conflicting type and id; the group stays together.
  auto soft = Place(text, /*soft=*/true);
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_EQ(DeviceOf(**soft, "a"), kGpu0);
  EXPECT_EQ(DeviceOf(**soft, "b"), kGpu0);

  // Same type, different ids: only the id is dropped.
  auto ids = Place(Placeholder("x") + N("a", "Neg", "x", "/device:CPU:0", kFloat) +
                       N("b", "Neg", "a", "/device:CPU:1", std::string(kFloat) + Class("a")),
                   /*soft=*/true);
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(DeviceOf(**ids, "a"), kCpu0);
  EXPECT_EQ(DeviceOf(**ids, "b"), kCpu0);
}

TEST_F(PlacerRulesTest, GroupWithoutACommonKernelTypeFailsUnlessSoft) {
  std::string text = Placeholder("x") + N("a", "TestGpuOnly", "x") +
                     N("b", "Cast", "x", "",
                       "attr { key: \"SrcT\" value { type: DT_FLOAT } } "
                       "attr { key: \"DstT\" value { type: DT_INT32 } } " +
                           Class("a"));
  auto hard = Place(text);
  ASSERT_FALSE(hard.ok());
  EXPECT_EQ(hard.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(hard.status().message(),
              HasSubstr("cannot colocate nodes 'a' and 'b' (joined by colocation group "
                        "'loc:@a'): no device type supports both (group [a]: GPU; group [b]: "
                        "CPU)"));
  // Soft placement ignores a colocation it cannot honour.
  auto soft = Place(text, /*soft=*/true);
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_EQ(DeviceOf(**soft, "a"), kGpu0);
  EXPECT_EQ(DeviceOf(**soft, "b"), kCpu0);
}

TEST_F(PlacerRulesTest, GroupThatCannotMeetItsRequestNamesTheGroup) {
  auto graph = Place(Placeholder("x") + N("a", "Neg", "x", "/device:GPU:0", kFloat) +
                     N("b", "Cast", "a", "",
                       "attr { key: \"SrcT\" value { type: DT_FLOAT } } "
                       "attr { key: \"DstT\" value { type: DT_INT32 } } " +
                           Class("a")));
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(graph.status().message(),
              HasSubstr("could not satisfy the device specification '/device:GPU:0'; colocation "
                        "group: [a, b]; device types with a kernel for the whole group: CPU;"));
}

// ---- Resource edges ----------------------------------------------------------------------------

TEST_F(PlacerRulesTest, ResourceEdgesColocate) {
  auto graph = Place(N("v", "TestVarHandle", "", "/device:GPU:1") + N("r", "TestRead", "v") +
                     N("w", "TestVarHandle") + N("cpu_read", "TestCpuRead", "w"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "r"), kGpu1);
  EXPECT_EQ(DeviceOf(**graph, "w"), kCpu0);  // its reader has only a CPU kernel
}

TEST_F(PlacerRulesTest, ResourceDeviceWinsUnderSoftPlacement) {
  std::string text =
      N("v", "TestVarHandle", "", "/device:GPU:1") + N("r", "TestRead", "v", "/device:CPU:0");
  auto hard = Place(text);
  ASSERT_FALSE(hard.ok());
  EXPECT_EQ(hard.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(hard.status().message(),
              HasSubstr("cannot colocate nodes 'v' and 'r' (joined by a reference or resource "
                        "edge): cannot merge devices with incompatible types"));
  auto soft = Place(text, /*soft=*/true);
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_EQ(DeviceOf(**soft, "v"), kGpu1);
  EXPECT_EQ(DeviceOf(**soft, "r"), kGpu1);
}

TEST_F(PlacerRulesTest, ResourceDeviceIsDroppedOnlyWhenNothingElseFits) {
  // The reader has only a CPU kernel, so the variable's GPU cannot be kept.
  std::string text = N("v", "TestVarHandle", "", "/device:GPU:0") + N("r", "TestCpuRead", "v");
  auto hard = Place(text);
  ASSERT_FALSE(hard.ok());
  EXPECT_THAT(hard.status().message(),
              HasSubstr("node 'v' (TestVarHandle): could not satisfy the device specification "
                        "'/device:GPU:0'; colocation group: [v, r]; device types with a kernel "
                        "for the whole group: CPU;"));
  auto soft = Place(text, /*soft=*/true);
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_EQ(DeviceOf(**soft, "v"), kCpu0);
  EXPECT_EQ(DeviceOf(**soft, "r"), kCpu0);
}

TEST_F(PlacerRulesTest, ResourceEdgesMustHoldEvenWhenSoft) {
  for (bool soft : {false, true}) {
    auto no_type = Place(N("v", "TestGpuVarHandle") + N("r", "TestCpuRead", "v"), soft);
    ASSERT_FALSE(no_type.ok());
    EXPECT_EQ(no_type.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(no_type.status().message(),
                HasSubstr("cannot colocate nodes 'v' and 'r' (joined by a reference or resource "
                          "edge): no device type supports both (group [v]: GPU; group [r]: CPU)"));
    auto two = Place(N("v", "TestVarHandle", "", "/device:GPU:0") +
                         N("w", "TestVarHandle", "", "/device:GPU:1") +
                         N("r", "TestReadTwo", "", "", "input: \"v\" input: \"w\""),
                     soft);
    ASSERT_FALSE(two.ok());
    EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(two.status().message(),
                HasSubstr("(joined by a reference or resource edge): their resources live on "
                          "different devices: cannot merge devices with incompatible ids"));
  }
}

// ---- Heuristics --------------------------------------------------------------------------------

TEST_F(PlacerRulesTest, GeneratorsFollowTheirConsumers) {
  auto graph =
      Place(Const("c") + N("a", "Neg", "c", "/device:CPU:1", kFloat) +
            N("b", "Neg", "c", "/device:CPU:1", kFloat) + Const("partial", "/device:CPU:*") +
            N("p", "Neg", "partial", "/device:CPU:1", kFloat) + Const("lonely"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "c"), kCpu1);        // not GPU:0, which priority alone gives
  EXPECT_EQ(DeviceOf(**graph, "partial"), kCpu1);  // its request allows the consumer's device
  EXPECT_EQ(DeviceOf(**graph, "lonely"), kGpu0);   // no consumers: priority decides
}

TEST_F(PlacerRulesTest, GeneratorsStayPutWhenTheyCannotFollow) {
  auto graph = Place(Const("c") + N("a", "Neg", "c", "/device:CPU:1", kFloat) +
                     N("b", "Neg", "c", "/device:GPU:1", kFloat) + N("cpu_const", "TestCpuConst") +
                     N("gpu_user", "TestGpuOnly", "cpu_const") + Const("pinned", "/device:GPU:0") +
                     N("q", "Neg", "pinned", "/device:CPU:1", kFloat));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "c"), kGpu0);          // consumers disagree
  EXPECT_EQ(DeviceOf(**graph, "cpu_const"), kCpu0);  // no kernel on its consumer's GPU
  EXPECT_EQ(DeviceOf(**graph, "pinned"), kGpu0);     // its request comes first
}

TEST_F(PlacerRulesTest, MetadataOpsFollowTheirInput) {
  std::string shape_attrs =
      std::string(kFloat) + " attr { key: \"out_type\" value { type: DT_INT32 } }";
  auto graph = Place(Placeholder("x") + N("a", "Neg", "x", "/device:CPU:1", kFloat) +
                     N("shape", "Shape", "a", "", shape_attrs) +
                     N("size", "Size", "a", "", shape_attrs) + N("rank", "Rank", "a", "", kFloat) +
                     N("gpu_shape", "Shape", "a", "/device:GPU:*", shape_attrs) +
                     N("neg", "Neg", "a", "", kFloat));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "shape"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "size"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "rank"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "gpu_shape"), kGpu0);  // its request does not allow CPU:1
  EXPECT_EQ(DeviceOf(**graph, "neg"), kGpu0);        // not a metadata op
}

// ---- Soft placement ----------------------------------------------------------------------------

TEST_F(PlacerRulesTest, SoftPlacementIsOffByDefault) {
  EXPECT_FALSE(PlacerOptions().allow_soft_placement);
  EXPECT_FALSE(PlacerOptions().log_device_placement);
}

TEST_F(PlacerRulesTest, SoftPlacementDropsTypeAndIdButKeepsTheTask) {
  auto graph = Place(Placeholder("x") + N("absent", "Neg", "x", "/device:GPU:7", kFloat) +
                         N("no_kernel", "Cast", "x", "/job:localhost/device:GPU:0",
                           "attr { key: \"SrcT\" value { type: DT_FLOAT } } "
                           "attr { key: \"DstT\" value { type: DT_INT32 } }") +
                         N("unknown_type", "Neg", "x", "/device:TPU:0", kFloat),
                     /*soft=*/true);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(DeviceOf(**graph, "absent"), kGpu0);
  EXPECT_EQ(DeviceOf(**graph, "no_kernel"), kCpu0);
  EXPECT_EQ(DeviceOf(**graph, "unknown_type"), kGpu0);
}

// ---- Existing assignments ----------------------------------------------------------------------

TEST_F(PlacerRulesTest, ExistingAssignmentsAreKeptAndPinTheirGroup) {
  auto graph = Import(Placeholder("x") + N("a", "Neg", "x", "", kFloat) +
                      N("b", "Neg", "a", "", std::string(kFloat) + Class("a")));
  ASSERT_TRUE(graph.ok());
  (*graph)->FindNode("a")->set_assigned_device(kCpu1);
  ASSERT_TRUE(PlaceImported(graph->get()).ok());
  EXPECT_EQ(DeviceOf(**graph, "a"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "b"), kCpu1);
}

TEST_F(PlacerRulesTest, ExistingAssignmentErrors) {
  auto unknown = Import(Placeholder("x") + N("a", "Neg", "x", "", kFloat));
  ASSERT_TRUE(unknown.ok());
  (*unknown)->FindNode("a")->set_assigned_device("/job:localhost/replica:0/task:0/device:GPU:7");
  absl::Status status = PlaceImported(unknown->get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("node 'a' (Neg) is assigned to "
                        "'/job:localhost/replica:0/task:0/device:GPU:7', which is not a device "
                        "of this session"));

  auto no_kernel = Import(Placeholder("x") + N("a", "TestGpuOnly", "x"));
  ASSERT_TRUE(no_kernel.ok());
  (*no_kernel)->FindNode("a")->set_assigned_device(kCpu0);
  status = PlaceImported(no_kernel->get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("node 'a' (TestGpuOnly) is assigned to '" + std::string(kCpu0) +
                        "', but has no kernel for CPU (device types with a kernel for it: GPU)"));

  auto two = Import(Placeholder("x") + N("a", "Neg", "x", "", kFloat) +
                    N("b", "Neg", "a", "", std::string(kFloat) + Class("a")));
  ASSERT_TRUE(two.ok());
  (*two)->FindNode("a")->set_assigned_device(kCpu0);
  (*two)->FindNode("b")->set_assigned_device(kCpu1);
  status = PlaceImported(two->get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("cannot colocate nodes 'a' and 'b' (joined by "
                                          "colocation group 'loc:@a'): they are already "
                                          "assigned to"));

  auto pinned_type = Import(Placeholder("x") + N("a", "Neg", "x", "", kFloat) +
                            N("b", "TestGpuOnly", "a", "", Class("a")));
  ASSERT_TRUE(pinned_type.ok());
  (*pinned_type)->FindNode("a")->set_assigned_device(kCpu1);
  status = PlaceImported(pinned_type->get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("one is already assigned to '" + std::string(kCpu1) +
                        "', but not every node of the joined group has a kernel for CPU"));
}

// ---- Loops and logging -------------------------------------------------------------------------

// A counting loop as tf.while_loop emits it; NextIteration feeds Merge back.
constexpr char kLoop[] = R"pb(
  node {
    name: "start"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "p"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node {
    name: "while/Enter"
    op: "Enter"
    input: "start"
    device: "/device:CPU:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "frame_name"
      value { s: "while/ctx" }
    }
  }
  node {
    name: "while/p"
    op: "Enter"
    input: "p"
    attr {
      key: "T"
      value { type: DT_BOOL }
    }
    attr {
      key: "frame_name"
      value { s: "while/ctx" }
    }
    attr {
      key: "is_constant"
      value { b: true }
    }
  }
  node {
    name: "while/Merge"
    op: "Merge"
    input: "while/Enter"
    input: "while/NextIteration"
    device: "/device:CPU:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "N"
      value { i: 2 }
    }
  }
  node { name: "while/LoopCond" op: "LoopCond" input: "while/p" }
  node {
    name: "while/Switch"
    op: "Switch"
    input: "while/Merge"
    input: "while/LoopCond"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "while/Identity"
    op: "Identity"
    input: "while/Switch:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "while/shape"
    op: "Shape"
    input: "while/Merge"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "while/NextIteration"
    op: "NextIteration"
    input: "while/Identity"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "while/Exit"
    op: "Exit"
    input: "while/Switch"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST_F(PlacerRulesTest, PlacesEveryNodeOfALoop) {
  auto graph = Place(kLoop);
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (const Node* node : (*graph)->op_nodes()) {
    EXPECT_NE(node->assigned_device(), "") << node->name();
  }
  EXPECT_EQ(DeviceOf(**graph, "while/Enter"), kCpu1);
  // Merge is placed before its consumers although NextIteration feeds it, so the metadata
  // heuristic sees Merge's device.
  EXPECT_EQ(DeviceOf(**graph, "while/Merge"), kCpu1);
  EXPECT_EQ(DeviceOf(**graph, "while/shape"), kCpu1);
}

TEST_F(PlacerRulesTest, LogsEveryNodesDevice) {
  auto graph =
      Import(Placeholder("x") + N("neg", "Neg", "x", "/device:CPU:1", kFloat) + Const("c") +
             N("cast", "Cast", "c", "",
               "attr { key: \"SrcT\" value { type: DT_FLOAT } } "
               "attr { key: \"DstT\" value { type: DT_INT32 } }"));
  ASSERT_TRUE(graph.ok());
  ::testing::internal::CaptureStderr();
  absl::Status status = PlaceImported(graph->get(), /*soft=*/false, /*log=*/true);
  std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(log, HasSubstr(std::string("x (Placeholder): ") + kCpu1 + "\n"));  // a generator
  EXPECT_THAT(log, HasSubstr(std::string("neg (Neg): ") + kCpu1 + "\n"));
  EXPECT_THAT(log, HasSubstr(std::string("c (Const): ") + kCpu0 + "\n"));
  EXPECT_THAT(log, HasSubstr(std::string("cast (Cast): ") + kCpu0 + "\n"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 4);

  auto quiet = Import(Placeholder("x"));
  ASSERT_TRUE(quiet.ok());
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(PlaceImported(quiet->get()).ok());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace tessera
