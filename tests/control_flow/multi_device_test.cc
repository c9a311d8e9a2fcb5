// Graphs pinned across /device:CPU:0, /device:CPU:1 and /device:TESTDEV:0 (whose memory the host
// cannot read) give the results they give on one device; run metadata lists the partitions' devices
// and step statistics hold one entry per executed node, on its device; deadness crosses devices.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/control_flow/control_flow_test_util.h"

namespace tessera {
namespace {

using namespace control_flow_test;  // NOLINT(build/namespaces): test-local helpers

constexpr char kCpu0[] = "/device:CPU:0";
constexpr char kCpu1[] = "/device:CPU:1";
constexpr char kTestdev[] = "/device:TESTDEV:0";

// Pins the nodes named in `pins` (name -> device); every other node keeps its (empty) request.
tensorflow::GraphDef Pinned(tensorflow::GraphDef def,
                            const std::map<std::string, std::string>& pins) {
  for (tensorflow::NodeDef& node : *def.mutable_node()) {
    auto it = pins.find(node.name());
    if (it != pins.end()) node.set_device(it->second);
  }
  return def;
}

// The device a node of `def` was pinned to, "/device:CPU:0" where none was asked for.
std::string PinnedDevice(const tensorflow::GraphDef& def, const std::string& name) {
  for (const tensorflow::NodeDef& node : def.node()) {
    if (node.name() == name) return node.device().empty() ? kCpu0 : node.device();
  }
  return "";
}

void ExpectNearRelative(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.dtype(), TSR_DTYPE_FLOAT) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  for (int64_t i = 0; i < actual.NumElements(); ++i) {
    float a = actual.data<float>()[i], e = expected.data<float>()[i];
    EXPECT_NEAR(a, e, 1e-5f * std::fabs(e) + 1e-7f) << what << " element " << i;
  }
}

std::vector<Tensor> MustRun(Session* session,
                            const std::vector<std::pair<std::string, Tensor>>& feeds,
                            const std::vector<std::string>& fetches, const RunOptions& options = {},
                            RunMetadata* metadata = nullptr) {
  std::vector<Tensor> out;
  absl::Status s = session->Run(options, feeds, fetches, {}, &out, metadata);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// Checks that every non-Const node of `def` ran exactly `times` times, on its pinned device, that
// the statistics hold one list per device and that those devices are the partitions' devices.
void ExpectStepStatsMatch(const tensorflow::GraphDef& def, const RunMetadata& metadata,
                          const std::set<std::string>& skip = {}) {
  std::set<std::string> partition_devices(metadata.partition_devices.begin(),
                                          metadata.partition_devices.end());
  EXPECT_EQ(partition_devices.size(), metadata.partition_devices.size());
  std::map<std::string, std::vector<std::string>> devices_of_node;
  std::set<std::string> stats_devices;
  for (const DeviceStepStats& device : metadata.step_stats.devices) {
    EXPECT_TRUE(stats_devices.insert(device.device).second)
        << "two statistics lists for " << device.device;
    EXPECT_TRUE(partition_devices.count(device.device)) << device.device << " is no partition's";
    for (const NodeExecStats& node : device.nodes) {
      devices_of_node[node.node_name].push_back(device.device);
      EXPECT_LE(node.start_ns, node.end_ns) << node.node_name;
    }
  }
  EXPECT_EQ(stats_devices, partition_devices);
  for (const tensorflow::NodeDef& node : def.node()) {
    if (node.op() == "Const" || node.op() == "Placeholder" || skip.count(node.name())) continue;
    const std::vector<std::string>& ran_on = devices_of_node[node.name()];
    ASSERT_EQ(ran_on.size(), 1u) << "node '" << node.name() << "' has " << ran_on.size()
                                 << " step-stats entries";
    EXPECT_TRUE(absl::EndsWith(ran_on[0], PinnedDevice(def, node.name())))
        << "node '" << node.name() << "' ran on " << ran_on[0];
  }
}

// ---- examples/mlp: three devices against one ---------------------------------------------------

TEST(MultiDeviceTest, MlpExampleAcrossThreeDevicesMatchesOneDevice) {
  absl::StatusOr<tensorflow::GraphDef> def =
      ReadGraphDefFile(absl::StrCat(TESSERA_SOURCE_DIR, "/examples/mlp/mlp.pbtxt"));
  ASSERT_TRUE(def.ok()) << def.status();
  Tensor input = MustReadNpy(absl::StrCat(TESSERA_SOURCE_DIR, "/examples/mlp/input.npy"));
  std::vector<std::string> fetches = {"hidden/Relu", "output/MatMul", "logits", "probabilities",
                                      "predicted_class"};
  auto single = MustCreateSession(*def, SessionOptions());
  ASSERT_NE(single, nullptr);
  std::vector<Tensor> expected = MustRun(single.get(), {{"x", input}}, fetches);
  ASSERT_EQ(expected.size(), fetches.size());

  tensorflow::GraphDef pinned = Pinned(*def, {{"hidden/weights", kCpu1},
                                              {"hidden/bias", kCpu1},
                                              {"hidden/MatMul", kCpu1},
                                              {"hidden/BiasAdd", kCpu1},
                                              {"hidden/Relu", kCpu1},
                                              {"output/weights", kTestdev},
                                              {"output/MatMul", kTestdev},
                                              {"probabilities", kCpu1},
                                              {"argmax/Sub", kTestdev},
                                              {"argmax/Mul", kTestdev},
                                              {"argmax/Sub_1", kCpu1}});
  for (int threads : {1, 4}) {
    // Unfused, so that every node of the graph is a node of the step (ExpectStepStatsMatch).
    SessionOptions session_options = DeviceOptions(2, true, threads);
    session_options.op_fusion = false;
    auto session = MustCreateSession(pinned, session_options);
    ASSERT_NE(session, nullptr);
    for (int repeat = 0; repeat < 3; ++repeat) {
      RunOptions options;
      options.collect_step_stats = true;
      RunMetadata metadata;
      std::vector<Tensor> out = MustRun(session.get(), {{"x", input}}, fetches, options, &metadata);
      ASSERT_EQ(out.size(), fetches.size());
      ExpectSameTensor(out[0], expected[0], "hidden/Relu (CPU:1)");
      ExpectNearRelative(out[1], expected[1], "output/MatMul (TESTDEV:0, fetched through a copy)");
      ExpectNearRelative(out[2], expected[2], "logits");
      ExpectNearRelative(out[3], expected[3], "probabilities");
      ExpectSameTensor(out[4], expected[4], "predicted_class");
      EXPECT_THAT(
          metadata.partition_devices,
          ::testing::UnorderedElementsAre(::testing::EndsWith(kCpu0), ::testing::EndsWith(kCpu1),
                                          ::testing::EndsWith(kTestdev)));
      ExpectStepStatsMatch(pinned, metadata);
    }
  }
}

// ---- a diamond with fan-out and fan-in over three devices --------------------------------------

tensorflow::GraphDef Diamond(bool pin) {
  std::string cpu1 = pin ? kCpu1 : "", dev = pin ? kTestdev : "", cpu0 = pin ? kCpu0 : "";
  auto binary = [](const std::string& name, const std::string& op, const std::string& a,
                   const std::string& b, const std::string& device) {
    return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a, "' input: '", b,
                        "' device: '", device, "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
  };
  auto constant = [](const std::string& name, const std::string& values, const std::string& shape) {
    return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: ",
                        "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT ",
                        "tensor_shape { ", shape, " } ", values, " } } } }\n");
  };
  std::string text = absl::StrCat(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      constant("c1", "float_val: 1.5", ""), constant("c2", "float_val: -2.25", ""),
      constant("c3", "float_val: 0.1", ""),
      constant("w", "float_val: 0.5 float_val: -1 float_val: 3 float_val: 0.125",
               "dim { size: 2 } dim { size: 2 }"),
      binary("a", "AddV2", "x", "c1", cpu1), binary("b", "Mul", "x", "c2", dev),
      binary("c", "Sub", "x", "c3", cpu0), binary("d", "Mul", "a", "b", dev),
      binary("e", "AddV2", "b", "c", cpu1), binary("f", "Sub", "d", "e", dev),
      binary("g", "AddV2", "a", "f", cpu0), binary("h", "Greater", "f", "c", dev),
      binary("mm", "MatMul", "w", "x", dev));
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

TEST(MultiDeviceTest, DiamondAcrossThreeDevicesIsBitExact) {
  std::vector<float> x_values = {0.3f, -1.7f, 2.9f, 1e-3f, -4.5f, 8.25f};
  Tensor x = Tensor::FromVector<float>(TensorShape{2, 3}, x_values);
  std::vector<std::string> fetches = {"a", "b", "c", "d", "e", "f", "g", "h", "mm"};
  auto single = MustCreateSession(Diamond(false), SessionOptions());
  ASSERT_NE(single, nullptr);
  std::vector<Tensor> expected = MustRun(single.get(), {{"x", x}}, fetches);
  ASSERT_EQ(expected.size(), fetches.size());
  // The element-wise results, computed here in the same order.
  for (size_t i = 0; i < x_values.size(); ++i) {
    float xv = x_values[i], a = xv + 1.5f, b = xv * -2.25f, c = xv - 0.1f, d = a * b, e = b + c;
    float f = d - e;
    EXPECT_EQ(expected[5].data<float>()[i], f) << "single-device f element " << i;
    EXPECT_EQ(expected[6].data<float>()[i], a + f) << "single-device g element " << i;
  }
  tensorflow::GraphDef pinned = Diamond(true);
  for (int threads : {1, 4}) {
    // Unfused, so that every node of the graph is a node of the step (ExpectStepStatsMatch).
    SessionOptions session_options = DeviceOptions(2, true, threads);
    session_options.op_fusion = false;
    auto session = MustCreateSession(pinned, session_options);
    ASSERT_NE(session, nullptr);
    for (int repeat = 0; repeat < 3; ++repeat) {
      RunOptions options;
      options.collect_step_stats = true;
      RunMetadata metadata;
      std::vector<Tensor> out = MustRun(session.get(), {{"x", x}}, fetches, options, &metadata);
      ASSERT_EQ(out.size(), fetches.size());
      for (size_t i = 0; i + 1 < fetches.size(); ++i) {
        ExpectSameTensor(out[i], expected[i],
                         absl::StrCat("'", fetches[i], "' on ", PinnedDevice(pinned, fetches[i])));
      }
      ExpectNearRelative(out.back(), expected.back(), "mm (MatMul on TESTDEV:0)");
      EXPECT_THAT(
          metadata.partition_devices,
          ::testing::UnorderedElementsAre(::testing::EndsWith(kCpu0), ::testing::EndsWith(kCpu1),
                                          ::testing::EndsWith(kTestdev)));
      ExpectStepStatsMatch(pinned, metadata);
    }
  }
}

// ---- loops and conds across devices, seen through step statistics -----------------------------

TEST(MultiDeviceTest, LoopBodyOnAnotherDeviceRunsOncePerIterationThere) {
  ManifestCase c = FindCase("counter_across_cpus");
  auto session = MustCreateSession(c, 4);
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out = MustRun(session.get(), {}, {"while/Exit"}, options, &metadata);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(*out[0].data<int32_t>(), 10);
  EXPECT_THAT(
      metadata.partition_devices,
      ::testing::UnorderedElementsAre(::testing::EndsWith(kCpu0), ::testing::EndsWith(kCpu1)));
  std::set<int64_t> live_iterations;
  for (const DeviceStepStats& device : metadata.step_stats.devices) {
    for (const NodeExecStats& node : device.nodes) {
      if (node.node_name != "while/add") continue;
      EXPECT_TRUE(absl::EndsWith(device.device, kCpu1)) << "while/add ran on " << device.device;
      if (!node.is_dead) {
        EXPECT_TRUE(live_iterations.insert(node.iter_id).second) << "iteration " << node.iter_id;
      }
    }
  }
  EXPECT_EQ(live_iterations, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(MultiDeviceTest, DeadnessCrossesDevicesToTheUntakenBranch) {
  ManifestCase c = FindCase("cond_across_devices");
  ASSERT_EQ(c.runs.size(), 2u);
  absl::StatusOr<tensorflow::GraphDef> def = ReadGraphDefFile(TestdataPath(c.graph));
  ASSERT_TRUE(def.ok()) << def.status();
  auto session = MustCreateSession(c, 4);
  ASSERT_NE(session, nullptr);
  for (int repeat = 0; repeat < 2; ++repeat) {
    for (size_t r = 0; r < c.runs.size(); ++r) {
      bool pred = *MustReadNpy(TestdataPath(c.runs[r].feeds[0].second)).data<bool>();
      ASSERT_EQ(c.runs[r].feeds[0].first, "pred");
      RunOptions options;
      options.collect_step_stats = true;
      RunMetadata metadata;
      std::vector<Tensor> out =
          MustRun(session.get(), FeedsOf(c.runs[r]), FetchNamesOf(c.runs[r]), options, &metadata);
      ExpectRunOutputs(c.runs[r], out, absl::StrCat("pred ", pred));
      // The branch taken ran live on its device; the other ran dead (or not at all) on its own.
      std::map<std::string, std::pair<std::string, bool>> ran;  // node -> (device, dead)
      for (const DeviceStepStats& device : metadata.step_stats.devices) {
        for (const NodeExecStats& node : device.nodes) {
          ran[node.node_name] = {device.device, node.is_dead};
        }
      }
      const std::string live = pred ? "cond/add" : "cond/mul";
      const std::string dead = pred ? "cond/mul" : "cond/add";
      ASSERT_TRUE(ran.count(live)) << live << " did not run";
      EXPECT_TRUE(absl::EndsWith(ran[live].first, PinnedDevice(*def, live)))
          << live << " ran on " << ran[live].first;
      EXPECT_FALSE(ran[live].second) << live << " ran dead";
      if (ran.count(dead)) {
        EXPECT_TRUE(ran[dead].second) << dead << " ran live";
        EXPECT_TRUE(absl::EndsWith(ran[dead].first, PinnedDevice(*def, dead)))
            << dead << " ran on " << ran[dead].first;
      }
    }
  }
}

}  // namespace
}  // namespace tessera
