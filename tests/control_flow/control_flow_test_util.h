// Shared pieces of the control-flow suites: the cases of testdata/manifest.json, session options
// for a case (CPU device count, the TESTDEV plugin, inter-op threads) and bit-exact comparison.
#ifndef TESSERA_TESTS_CONTROL_FLOW_CONTROL_FLOW_TEST_UTIL_H_
#define TESSERA_TESTS_CONTROL_FLOW_CONTROL_FLOW_TEST_UTIL_H_

#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "host/client/npy.h"
#include "host/graph/graph.h"
#include "host/session/session.h"
#include "nlohmann/json.hpp"

namespace tessera {
namespace control_flow_test {

inline std::string TestdataPath(const std::string& name) {
  return absl::StrCat(TESSERA_CONTROL_FLOW_DIR, "/", name);
}

struct ManifestRun {
  std::vector<std::pair<std::string, std::string>> feeds;  // tensor -> .npy file
  // tensor -> .npy file with the expected value; nullopt where the run fails or never ends.
  std::vector<std::pair<std::string, std::optional<std::string>>> fetches;
};

struct ManifestCase {
  std::string name;
  std::string graph;  // .pbtxt file
  std::string kind;   // "values", "error", "endless" or "long"
  int cpu_devices = 1;
  bool testdev = false;
  std::vector<ManifestRun> runs;
  std::string error_code;  // "INVALID_ARGUMENT", ... for kind "error"
  std::string error_node;
  std::string error_message;
};

inline std::vector<ManifestCase> LoadManifest() {
  std::ifstream in(TestdataPath("manifest.json"));
  std::vector<ManifestCase> cases;
  if (!in) {
    ADD_FAILURE() << "cannot open " << TestdataPath("manifest.json");
    return cases;
  }
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    ADD_FAILURE() << "manifest.json is not valid JSON";
    return cases;
  }
  for (const nlohmann::json& c : doc["cases"]) {
    ManifestCase mc;
    mc.name = c["name"].get<std::string>();
    mc.graph = c["graph"].get<std::string>();
    mc.kind = c["kind"].get<std::string>();
    mc.cpu_devices = c["cpu_devices"].get<int>();
    mc.testdev = c["testdev"].get<bool>();
    for (const nlohmann::json& r : c["runs"]) {
      ManifestRun run;
      for (const auto& [tensor, file] : r["feeds"].items()) {
        run.feeds.emplace_back(tensor, file.get<std::string>());
      }
      for (const auto& [tensor, file] : r["fetches"].items()) {
        run.fetches.emplace_back(tensor, file.is_null() ? std::nullopt
                                                        : std::optional(file.get<std::string>()));
      }
      mc.runs.push_back(std::move(run));
    }
    if (c.contains("error")) {
      mc.error_code = c["error"]["code"].get<std::string>();
      mc.error_node = c["error"]["node"].get<std::string>();
      mc.error_message = c["error"]["message"].get<std::string>();
    }
    cases.push_back(std::move(mc));
  }
  return cases;
}

// The names of the manifest's cases of one kind (for parameterized tests).
inline std::vector<std::string> CaseNames(const std::string& kind) {
  std::vector<std::string> names;
  for (const ManifestCase& c : LoadManifest()) {
    if (c.kind == kind) names.push_back(c.name);
  }
  return names;
}

inline ManifestCase FindCase(const std::string& name) {
  for (ManifestCase& c : LoadManifest()) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no case '" << name << "' in manifest.json";
  return ManifestCase();
}

inline Tensor MustReadNpy(const std::string& path) {
  absl::StatusOr<Tensor> t = ReadNpy(path);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

// Options with `cpu_devices` CPU devices, the TESTDEV plugin when asked, and the thread count.
inline SessionOptions DeviceOptions(int cpu_devices, bool testdev, int inter_op_threads) {
  SessionOptions options;
  options.device_count["CPU"] = cpu_devices;
  if (testdev) options.plugin_paths.push_back(TESSERA_TESTDEVICE_PLUGIN_DIR);
  options.inter_op_threads = inter_op_threads;
  return options;
}

inline std::unique_ptr<Session> MustCreateSession(const tensorflow::GraphDef& def,
                                                  const SessionOptions& options) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

inline std::unique_ptr<Session> MustCreateSession(const ManifestCase& c, int inter_op_threads) {
  absl::StatusOr<tensorflow::GraphDef> def = ReadGraphDefFile(TestdataPath(c.graph));
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  return MustCreateSession(*def, DeviceOptions(c.cpu_devices, c.testdev, inter_op_threads));
}

inline std::vector<std::pair<std::string, Tensor>> FeedsOf(const ManifestRun& run) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [tensor, file] : run.feeds) {
    feeds.emplace_back(tensor, MustReadNpy(TestdataPath(file)));
  }
  return feeds;
}

inline std::vector<std::string> FetchNamesOf(const ManifestRun& run) {
  std::vector<std::string> names;
  for (const auto& fetch : run.fetches) names.push_back(fetch.first);
  return names;
}

// Same dtype, shape and bytes.
inline void ExpectSameTensor(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(DataTypeString(actual.dtype()), DataTypeString(expected.dtype())) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  ASSERT_TRUE(actual.host_accessible()) << what;
  size_t bytes = actual.TotalBytes();
  EXPECT_TRUE(bytes == 0 || std::memcmp(actual.data(), expected.data(), bytes) == 0)
      << what << ": " << actual.DebugString() << " vs expected " << expected.DebugString();
}

// Checks the outputs of `run` against its expected .npy files.
inline void ExpectRunOutputs(const ManifestRun& run, const std::vector<Tensor>& outputs,
                             const std::string& what) {
  ASSERT_EQ(outputs.size(), run.fetches.size()) << what;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!run.fetches[i].second.has_value()) continue;
    ExpectSameTensor(outputs[i], MustReadNpy(TestdataPath(*run.fetches[i].second)),
                     absl::StrCat(what, " fetch '", run.fetches[i].first, "'"));
  }
}

}  // namespace control_flow_test
}  // namespace tessera

#endif  // TESSERA_TESTS_CONTROL_FLOW_CONTROL_FLOW_TEST_UTIL_H_
