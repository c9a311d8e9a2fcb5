// Runs the built `tessera` program with traces and device placement: --trace files (Chrome trace
// JSON) checked node by node, --log-device-placement, --soft-placement, --cpu-devices and
// --device-count, and their usage errors.
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/end_to_end/cli_test_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

std::string PlacementGraph(const std::string& name) {
  return std::string(TESSERA_SOURCE_DIR) + "/tests/end_to_end/testdata/placement/" + name;
}

// Parses a trace file written by --trace; a discarded value (is_discarded()) when it is not JSON.
nlohmann::json ReadTrace(const std::string& path) {
  return nlohmann::json::parse(ReadFile(path), nullptr, /*allow_exceptions=*/false);
}

// pid -> device name, from the trace's process_name metadata events.
std::map<int, std::string> TraceProcesses(const nlohmann::json& trace) {
  std::map<int, std::string> processes;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") {
      processes[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
    }
  }
  return processes;
}

// The "wrote trace FILE (N nodes on D devices)" line's N and D; (-1, -1) when it is missing.
std::pair<int, int> TraceSummary(const std::string& out, const std::string& path) {
  std::smatch match;
  std::regex line("wrote trace (.*) \\((\\d+) nodes? on (\\d+) devices?\\)\n");
  if (!std::regex_search(out, match, line) || match[1] != path) return {-1, -1};
  return {std::stoi(match[2]), std::stoi(match[3])};
}

TEST_F(CliTest, TracesTheExampleMlp) {
  std::string example = std::string(TESSERA_SOURCE_DIR) + "/examples/mlp";
  std::string trace_path = Path("mlp_trace.json");
  // Unfused, so that every node of the graph is a node of the step.
  Result r = Tessera({"run", example + "/mlp.pbtxt", "--feed", "x=" + example + "/input.npy",
                      "--fetch", "probabilities", "--fetch", "predicted_class", "--trace",
                      trace_path, "--no-op-fusion"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("predicted_class:0  int64    [6]    0 1 2 1 0 1\n"));
  nlohmann::json trace = ReadTrace(trace_path);
  ASSERT_FALSE(trace.is_discarded()) << ReadFile(trace_path);
  ASSERT_TRUE(trace.is_object());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");

  // Every node that computes something runs once: all but the constants (which prefill their
  // consumers) and the fed placeholder.
  tensorflow::GraphDef def;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(ReadFile(example + "/mlp.pbtxt"), &def));
  std::set<std::string> executed;
  for (const auto& node : def.node()) {
    if (node.op() != "Const" && node.op() != "Placeholder") executed.insert(node.name());
  }
  ASSERT_GE(executed.size(), 10u);
  std::map<int, std::string> processes = TraceProcesses(trace);
  std::set<std::string> traced;
  size_t complete_events = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    ++complete_events;
    traced.insert(e["name"].get<std::string>());
    EXPECT_EQ(processes.count(e["pid"].get<int>()), 1u) << "event on an unnamed process: " << e;
    EXPECT_GE(e["ts"].get<double>(), 0.0) << e;
    EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
    EXPECT_TRUE(e["args"].contains("op")) << e;
  }
  ASSERT_GE(complete_events, executed.size()) << "the step recorded too few nodes";
  for (const std::string& name : executed) {
    EXPECT_EQ(traced.count(name), 1u) << "no event for node '" << name << "'";
  }
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes.begin()->second, kCpu0);

  std::pair<int, int> summary = TraceSummary(r.out, trace_path);
  EXPECT_EQ(summary.first, static_cast<int>(complete_events)) << r.out;
  EXPECT_EQ(summary.second, 1) << r.out;

  // Fused (the default): each MatMul + BiasAdd + Relu is one _FusedMatMul node named after its
  // Relu, with the same answers.
  std::string fused_path = Path("mlp_trace_fused.json");
  Result fused =
      Tessera({"run", example + "/mlp.pbtxt", "--feed", "x=" + example + "/input.npy", "--fetch",
               "probabilities", "--fetch", "predicted_class", "--trace", fused_path});
  ASSERT_EQ(fused.exit_status, 0) << fused.err;
  EXPECT_EQ(fused.out.substr(0, fused.out.find("wrote trace")),
            r.out.substr(0, r.out.find("wrote trace")));
  std::map<std::string, std::string> op_of;
  const nlohmann::json fused_trace = ReadTrace(fused_path);
  for (const auto& e : fused_trace["traceEvents"]) {
    if (e.value("ph", "") == "X") op_of[e["name"].get<std::string>()] = e["args"]["op"];
  }
  int fused_nodes = 0;
  for (const auto& [name, op] : op_of) {
    EXPECT_NE(op, "MatMul") << name;
    EXPECT_NE(op, "BiasAdd") << name;
    fused_nodes += op == "_FusedMatMul";
  }
  EXPECT_EQ(fused_nodes, 2);
}

TEST_F(CliTest, TraceThatCannotBeWrittenFailsAfterTheFetches) {
  std::string trace_path = Path("no/such/folder/trace.json");
  Result r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y",
                      "--trace", trace_path});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.out, "y:0  float32  [2,2]  11 22 | 13 24\n");
  EXPECT_THAT(r.err, StartsWith("tessera run: cannot write the trace: cannot open for writing '" +
                                trace_path + "'"));
}

TEST_F(CliTest, LogsTheDeviceOfEveryNode) {
  Result r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y",
                      "--log-device-placement"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "y:0  float32  [2,2]  11 22 | 13 24\n");  // the log goes to stderr only
  for (const char* node :
       {"x (Placeholder)", "w (Const)", "b (Const)", "dense/MatMul (MatMul)", "y (AddV2)"}) {
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat(node, ": ", kCpu0, "\n")));
  }
  Result quiet =
      Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y"});
  EXPECT_EQ(quiet.err, "");
}

TEST_F(CliTest, RequestForAMissingDeviceFailsUnlessSoft) {
  Result r = Tessera({"run", PlacementGraph("pinned_to_cpu1.pbtxt"), "--feed", "x=" + Path("x.npy"),
                      "--fetch", "neg"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera run: "));
  EXPECT_THAT(r.err, HasSubstr("could not satisfy the device specification '/device:CPU:1'"));
  EXPECT_THAT(r.err, HasSubstr("soft placement is off"));

  Result soft =
      Tessera({"run", PlacementGraph("pinned_to_cpu1.pbtxt"), "--feed", "x=" + Path("x.npy"),
               "--fetch", "neg", "--soft-placement", "--log-device-placement"});
  ASSERT_EQ(soft.exit_status, 0) << soft.err;
  EXPECT_THAT(soft.out, StartsWith("neg:0  float32  [2,2]  -1 "));
  EXPECT_THAT(soft.err, HasSubstr(absl::StrCat("neg (Neg): ", kCpu0, "\n")));
}

TEST_F(CliTest, CpuDevicesMakesASecondCpu) {
  for (std::vector<std::string> count : {std::vector<std::string>{"--cpu-devices", "2"},
                                         std::vector<std::string>{"--device-count", "CPU=2"}}) {
    std::vector<std::string> args = {"run",
                                     PlacementGraph("pinned_to_cpu1.pbtxt"),
                                     "--feed",
                                     "x=" + Path("x.npy"),
                                     "--fetch",
                                     "neg",
                                     "--log-device-placement"};
    args.insert(args.end(), count.begin(), count.end());
    Result r = Tessera(args);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_THAT(r.out, StartsWith("neg:0  float32  [2,2]  -1 "));
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("x (Placeholder): ", kCpu1, "\n")));
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("neg (Neg): ", kCpu1, "\n")));
  }
}

TEST_F(CliTest, TracesAStepOnTwoCpus) {
  std::string trace_path = Path("two_cpus.json");
  Result r =
      Tessera({"run", PlacementGraph("split_across_cpus.pbtxt"), "--feed", "x=" + Path("x.npy"),
               "--fetch", "y", "--cpu-devices", "2", "--trace", trace_path});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n') + 1), "y:0  float32  [2,2]  1 0 | 0 1\n");
  nlohmann::json trace = ReadTrace(trace_path);
  ASSERT_FALSE(trace.is_discarded()) << ReadFile(trace_path);
  std::map<int, std::string> processes = TraceProcesses(trace);
  std::set<std::string> devices;
  for (const auto& [pid, device] : processes) devices.insert(device);
  EXPECT_EQ(devices, (std::set<std::string>{kCpu0, kCpu1}));
  std::map<std::string, std::string> device_of;  // node -> device of its event
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "X") device_of[e["name"]] = processes[e["pid"].get<int>()];
  }
  EXPECT_EQ(device_of["neg"], kCpu1);
  EXPECT_EQ(device_of["y"], kCpu0);
  EXPECT_EQ(TraceSummary(r.out, trace_path).second, 2) << r.out;
}

TEST_F(CliTest, PlacementAndTraceUsageErrors) {
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "0"},
                   "tessera run: --cpu-devices expects an integer >= 1, got '0'");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "two"},
                   "tessera run: --cpu-devices expects an integer >= 1, got 'two'");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU"},
                   "tessera run: --device-count expects TYPE=N, got 'GPU'");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU=x"},
                   "tessera run: --device-count expects a count >= 0 after '=', got 'x' in "
                   "'GPU=x'");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--trace"},
                   "tessera run: --trace needs a value (a .json file)");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--soft-placement=no"},
                   "tessera run: --soft-placement takes no value, got 'no'");
}

}  // namespace
}  // namespace tessera
