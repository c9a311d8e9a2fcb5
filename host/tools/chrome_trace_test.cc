// Tests of the Chrome trace export: the JSON parses back, has the Trace Event Format's structure
// (metadata and complete events, pids per device, tids per thread), and file errors are reported.
#include "host/tools/chrome_trace.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

NodeExecStats Node(std::string name, std::string op, int64_t start, int64_t end, int32_t thread,
                   std::vector<std::string> outputs = {}) {
  NodeExecStats n;
  n.node_name = std::move(name);
  n.op = std::move(op);
  n.start_ns = start;
  n.end_ns = end;
  n.thread_id = thread;
  n.output_shapes = std::move(outputs);
  return n;
}

// Two devices; CPU:0 ran three nodes on two threads, TESTKIT:0 one node.
StepStats TwoDeviceStep() {
  StepStats stats;
  stats.step_id = 7;
  stats.start_ns = 1'000'000;
  stats.end_ns = 1'050'000;
  DeviceStepStats cpu{"/job:localhost/replica:0/task:0/device:CPU:0", {}};
  cpu.nodes.push_back(Node("x", "Placeholder", 1'001'000, 1'001'500, 1, {"float32[2,3]"}));
  cpu.nodes.push_back(Node("dense/MatMul", "MatMul", 1'002'000, 1'012'250, 2, {"float32[2,4]"}));
  cpu.nodes.push_back(Node("split", "Split", 1'013'000, 1'014'000, 1,
                           {"float32[1,4]", "float32[1,4]"}));
  DeviceStepStats testkit{"/job:localhost/replica:0/task:0/device:TESTKIT:0", {}};
  testkit.nodes.push_back(Node("a", "TestAsyncIdentity", 1'020'000, 1'030'000, 3, {"float32[]"}));
  stats.devices = {cpu, testkit};
  return stats;
}

Json Parse(const std::string& text) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << text;
  return json;
}

std::vector<Json> EventsWithPhase(const Json& trace, const std::string& ph) {
  std::vector<Json> out;
  for (const Json& e : trace["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

const Json* FindEvent(const Json& trace, const std::string& ph, const std::string& name) {
  for (const Json& e : trace["traceEvents"]) {
    if (e["ph"] == ph && e["name"] == name) return &e;
  }
  return nullptr;
}

TEST(ChromeTraceTest, HasTheObjectFormsTopLevelFields) {
  Json trace = Parse(StepStatsToChromeTrace(TwoDeviceStep()));
  ASSERT_TRUE(trace.is_object());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  EXPECT_EQ(trace["otherData"]["step_id"], "7");
  EXPECT_DOUBLE_EQ(trace["otherData"]["step_duration_us"].get<double>(), 50.0);
  for (const Json& e : trace["traceEvents"]) {
    EXPECT_TRUE(e.contains("name") && e["name"].is_string()) << e;
    EXPECT_TRUE(e.contains("ph") && e["ph"].is_string()) << e;
    EXPECT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e;
    EXPECT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
    EXPECT_TRUE(e["ph"] == "M" || e["ph"] == "X") << e;
  }
}

TEST(ChromeTraceTest, OneProcessPerDeviceNamedAfterIt) {
  Json trace = Parse(StepStatsToChromeTrace(TwoDeviceStep()));
  std::map<int, std::string> processes;
  for (const Json& e : EventsWithPhase(trace, "M")) {
    if (e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  }
  EXPECT_THAT(processes, ElementsAre(std::pair(1, "/job:localhost/replica:0/task:0/device:CPU:0"),
                                     std::pair(2, "/job:localhost/replica:0/task:0/device:TESTKIT:0")));
  std::map<int, int> sort_index;
  for (const Json& e : EventsWithPhase(trace, "M")) {
    if (e["name"] == "process_sort_index") sort_index[e["pid"]] = e["args"]["sort_index"];
  }
  EXPECT_THAT(sort_index, ElementsAre(std::pair(1, 1), std::pair(2, 2)));
}

TEST(ChromeTraceTest, OneThreadPerOsThreadPerDevice) {
  Json trace = Parse(StepStatsToChromeTrace(TwoDeviceStep()));
  std::set<std::pair<int, int>> named;
  for (const Json& e : EventsWithPhase(trace, "M")) {
    if (e["name"] != "thread_name") continue;
    EXPECT_EQ(e["args"]["name"], absl::StrCat("thread ", e["tid"].get<int>()));
    EXPECT_TRUE(named.emplace(e["pid"], e["tid"]).second) << "thread named twice: " << e;
  }
  EXPECT_THAT(named, ElementsAre(std::pair(1, 1), std::pair(1, 2), std::pair(2, 3)));
  // Every complete event sits on a named thread of its device's process.
  for (const Json& e : EventsWithPhase(trace, "X")) {
    EXPECT_EQ(named.count({e["pid"], e["tid"]}), 1u) << e;
  }
}

TEST(ChromeTraceTest, OneCompleteEventPerNode) {
  Json trace = Parse(StepStatsToChromeTrace(TwoDeviceStep()));
  std::vector<Json> nodes = EventsWithPhase(trace, "X");
  ASSERT_EQ(nodes.size(), 4u);
  const Json* matmul = FindEvent(trace, "X", "dense/MatMul");
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ((*matmul)["cat"], "MatMul");
  EXPECT_EQ((*matmul)["pid"], 1);
  EXPECT_EQ((*matmul)["tid"], 2);
  EXPECT_DOUBLE_EQ((*matmul)["ts"].get<double>(), 2.0);     // 2000 ns after the step's start
  EXPECT_DOUBLE_EQ((*matmul)["dur"].get<double>(), 10.25);  // 10250 ns
  EXPECT_EQ((*matmul)["args"]["op"], "MatMul");
  EXPECT_EQ((*matmul)["args"]["outputs"], Json::array({"float32[2,4]"}));
  EXPECT_FALSE((*matmul)["args"].contains("frame"));
  EXPECT_FALSE((*matmul)["args"].contains("iter"));
  EXPECT_FALSE((*matmul)["args"].contains("dead"));
  const Json* split = FindEvent(trace, "X", "split");
  ASSERT_NE(split, nullptr);
  EXPECT_EQ((*split)["args"]["outputs"], Json::array({"float32[1,4]", "float32[1,4]"}));
  const Json* a = FindEvent(trace, "X", "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ((*a)["pid"], 2);
  EXPECT_DOUBLE_EQ((*a)["ts"].get<double>(), 20.0);
  for (const Json& e : nodes) {
    EXPECT_GE(e["ts"].get<double>(), 0.0) << e;
    EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
  }
}

TEST(ChromeTraceTest, LoopFramesIterationsAndDeadNodes) {
  StepStats stats;
  stats.start_ns = 100;
  DeviceStepStats cpu{"CPU:0", {}};
  NodeExecStats body = Node("while/body/add", "AddV2", 200, 300, 1, {"int32[]"});
  body.frame_id = 0x9e3779b97f4a7c15ull;  // frame ids may use all 64 bits
  body.iter_id = 3;
  cpu.nodes.push_back(body);
  NodeExecStats dead = Node("cond/switch_f", "Identity", 300, 310, 1, {""});
  dead.is_dead = true;
  cpu.nodes.push_back(dead);
  NodeExecStats outer = Node("while/Enter", "Enter", 190, 195, 1, {"int32[]"});
  outer.frame_id = 0x2a;
  cpu.nodes.push_back(outer);
  stats.devices.push_back(cpu);
  stats.step_id = -5'000'000'000'000'000'001;
  Json trace = Parse(StepStatsToChromeTrace(stats));
  EXPECT_EQ(trace["otherData"]["step_id"], "-5000000000000000001");
  EXPECT_EQ(FindEvent(trace, "X", "while/Enter")->at("args")["frame"], "0x2a");
  EXPECT_FALSE(FindEvent(trace, "X", "while/Enter")->at("args").contains("iter"));
  const Json* add = FindEvent(trace, "X", "while/body/add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ((*add)["args"]["frame"], "0x9e3779b97f4a7c15");
  EXPECT_EQ((*add)["args"]["iter"], 3);
  EXPECT_FALSE((*add)["args"].contains("dead"));
  const Json* switch_f = FindEvent(trace, "X", "cond/switch_f");
  ASSERT_NE(switch_f, nullptr);
  EXPECT_EQ((*switch_f)["args"]["dead"], true);
  EXPECT_EQ((*switch_f)["args"]["outputs"], Json::array({""}));
  EXPECT_FALSE((*switch_f)["args"].contains("frame"));
}

TEST(ChromeTraceTest, OddNamesAreEscaped) {
  StepStats stats;
  stats.start_ns = 10;
  const std::string odd = "we\"ird\\name\n\t/\x01\u00e9</script>";
  DeviceStepStats device{"/device:\"ODD\":0", {}};
  device.nodes.push_back(Node(odd, "Op\"With\\Quotes", 10, 20, 1));
  // Not UTF-8: replaced, never an exception or invalid JSON.
  device.nodes.push_back(Node(std::string("bad\xff\xfe"), "Neg", 20, 30, 1));
  stats.devices.push_back(device);
  std::string text = StepStatsToChromeTrace(stats);
  EXPECT_EQ(text.find('\n'), std::string::npos);  // control characters are escaped
  Json trace = Parse(text);
  ASSERT_NE(FindEvent(trace, "X", odd), nullptr);
  EXPECT_EQ((*FindEvent(trace, "X", odd))["cat"], "Op\"With\\Quotes");
  EXPECT_NE(FindEvent(trace, "X", "bad\xef\xbf\xbd\xef\xbf\xbd"), nullptr) << text;
  EXPECT_EQ(FindEvent(trace, "M", "process_name")->at("args")["name"], "/device:\"ODD\":0");
}

TEST(ChromeTraceTest, TimesAreNeverNegative) {
  StepStats stats;
  stats.start_ns = 5'000;
  DeviceStepStats cpu{"CPU:0", {}};
  cpu.nodes.push_back(Node("early", "Const", 4'000, 4'500, 1));    // before the step's start
  cpu.nodes.push_back(Node("backwards", "Neg", 6'000, 5'500, 1));  // ends before it starts
  stats.devices.push_back(cpu);
  Json trace = Parse(StepStatsToChromeTrace(stats));
  EXPECT_DOUBLE_EQ(FindEvent(trace, "X", "early")->at("ts").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(FindEvent(trace, "X", "backwards")->at("ts").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(FindEvent(trace, "X", "backwards")->at("dur").get<double>(), 0.0);

  StepStats no_start = stats;
  no_start.start_ns = 0;
  Json origin_at_first = Parse(StepStatsToChromeTrace(no_start));
  EXPECT_DOUBLE_EQ(FindEvent(origin_at_first, "X", "early")->at("ts").get<double>(), 0.0);
}

TEST(ChromeTraceTest, EmptyStepIsAValidTrace) {
  Json trace = Parse(StepStatsToChromeTrace(StepStats()));
  EXPECT_TRUE(trace["traceEvents"].is_array());
  EXPECT_TRUE(trace["traceEvents"].empty());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
}

class ChromeTraceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/tessera_chrome_trace_", getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ChromeTraceFileTest, WritesTheTrace) {
  std::string path = dir_ + "/step.json";
  std::ofstream(path) << "old contents that are longer than nothing";
  StepStats stats = TwoDeviceStep();
  ASSERT_TRUE(WriteChromeTrace(stats, path).ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), StepStatsToChromeTrace(stats));
}

TEST_F(ChromeTraceFileTest, MissingFolderIsNotFound) {
  std::string path = dir_ + "/no/such/folder/step.json";
  absl::Status s = WriteChromeTrace(TwoDeviceStep(), path);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("cannot open for writing '" + path + "'"));
}

TEST_F(ChromeTraceFileTest, FolderAsPathIsInvalidArgument) {
  absl::Status s = WriteChromeTrace(TwoDeviceStep(), dir_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cannot open for writing '" + dir_ + "'"));
  EXPECT_THAT(s.message(), HasSubstr("Is a directory"));
}

TEST_F(ChromeTraceFileTest, FullDiskIsReportedOnWrite) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "skipped: no /dev/full";
  absl::Status s = WriteChromeTrace(TwoDeviceStep(), "/dev/full");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(s.message(), HasSubstr("cannot write '/dev/full'"));
  EXPECT_THAT(s.message(), HasSubstr("No space left on device"));
}

TEST_F(ChromeTraceFileTest, ReadOnlyFileIsPermissionDenied) {
  if (geteuid() == 0) GTEST_SKIP() << "skipped: running as root, which may write anything";
  std::string path = dir_ + "/read_only.json";
  std::ofstream(path) << "{}";
  std::filesystem::permissions(path, std::filesystem::perms::owner_read);
  absl::Status s = WriteChromeTrace(TwoDeviceStep(), path);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(s.message(), HasSubstr("cannot open for writing '" + path + "'"));
}

}  // namespace
}  // namespace tessera
