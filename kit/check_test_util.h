// What the kit's tests share: where the plugins they check are, and finding a case in a report.
#ifndef TESSERA_KIT_CHECK_TEST_UTIL_H_
#define TESSERA_KIT_CHECK_TEST_UTIL_H_

#include <string>

#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check::testing {

inline std::string CpuManifest() {
  return std::string(TESSERA_PLUGIN_DIR) + "/cpu.tessera-plugin.json";
}
inline std::string TestDeviceManifest() {
  return std::string(TESSERA_TEST_PLUGIN_DIR) + "/testdevice/testdevice.tessera-plugin.json";
}
inline std::string FakeManifest(const std::string& name) {
  return std::string(TESSERA_KIT_FAKES_DIR) + "/" + name + ".tessera-plugin.json";
}

// Options that load only what the test names (no TESSERA_PLUGIN_PATH, no installed plugins but
// the build tree's, for the kernel suite's oracle) and keep large allocations small.
inline CheckOptions Options(const std::string& plugin, std::vector<std::string> suites) {
  CheckOptions options;
  options.plugin_path = plugin;
  options.suites = std::move(suites);
  options.support_plugin_paths = {TESSERA_PLUGIN_DIR};
  options.large_allocation_bytes = uint64_t{64} << 20;
  return options;
}

// The case named `name`, or nullptr.
inline const CaseResult* FindCase(const Report& report, const std::string& name) {
  for (const CaseResult& result : report.cases) {
    if (result.name == name) return &result;
  }
  return nullptr;
}

// Every failing case, one per line, for assertion messages.
inline std::string Failures(const Report& report) {
  std::string text;
  for (const CaseResult& result : report.cases) {
    if (result.outcome == Outcome::kFail) text += result.name + ": " + result.message + "\n";
  }
  return text;
}

}  // namespace tessera::plugin_check::testing

#endif  // TESSERA_KIT_CHECK_TEST_UTIL_H_
