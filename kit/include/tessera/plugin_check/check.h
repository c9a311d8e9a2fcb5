// The Tessera plugin conformance kit: runs the device, kernel, transport and ABI suites against a
// plugin given by path and reports every case. The same library backs `tessera-plugin-check` and
// a vendor's own tests (link TesseraSDK::plugin_check). This header uses only the C++ standard
// library, so that linking the kit pulls nothing of the host into a vendor's build.
#ifndef TESSERA_PLUGIN_CHECK_CHECK_H_
#define TESSERA_PLUGIN_CHECK_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::plugin_check {

enum class Outcome { kPass, kFail, kSkip };

// "pass", "fail", "skip".
const char* OutcomeName(Outcome outcome);

// One case of one suite.
struct CaseResult {
  std::string suite;  // "load", "device", "kernels", "transport", "abi"
  // What ran, e.g. "TESTDEV/allocate/odd_size", "AddV2/float/broadcast", "grpc/call_roundtrip".
  std::string name;
  Outcome outcome = Outcome::kPass;
  // kFail: what went wrong (expected and actual, the plugin, the op or the slot) and what to do;
  // kSkip: why the case does not apply; kPass: optional detail (e.g. the largest difference).
  std::string message;
};

struct Report {
  std::string plugin_name;     // from the manifest or TSR_PluginInfo; "" when it did not load
  std::string plugin_version;  // semantic version; "" when it did not load
  std::string plugin_path;     // as given
  std::vector<CaseResult> cases;

  // True when no case failed and at least one passed.
  bool ok() const;
  int count(Outcome outcome) const;
  // A table per suite (case, outcome, message) and a summary line.
  std::string ToText() const;
  // {"plugin": {...}, "cases": [{"suite", "name", "outcome", "message"}...], "summary": {...}}.
  std::string ToJson() const;
};

struct CheckOptions {
  // The plugin under test: its manifest (NAME.tessera-plugin.json) or a folder holding it. Its
  // library is loaded from the manifest, as a host does.
  std::string plugin_path;
  // Suites to run: any of "device", "kernels", "transport", "abi". Empty: every suite that
  // applies to what the plugin registers (a device suite per device type it registers, a
  // kernel suite when it registers kernels, a transport suite per transport, the ABI suite
  // always).
  std::vector<std::string> suites;
  // Only this device type ("" : every type the plugin registers; for kernels of a plugin that
  // registers no device type, the types its kernels name).
  std::string device_type;
  // Where the oracle (the CPU plugin) and other plugins the plugin under test needs are found:
  // manifests or folders. Empty: the installed plugin folder next to the program, then
  // TESSERA_PLUGIN_PATH.
  std::vector<std::string> support_plugin_paths;
  // Seed of the random inputs of the kernel suite.
  uint64_t seed = 1;
  // Upper bound of the large allocation the device suite tries (bytes); 0: 256 MiB.
  uint64_t large_allocation_bytes = 0;
  // The folder of the TLS test certificates the transport suite uses (ca.pem, server.pem, ...).
  // Empty: the kit's installed copy, <program folder>/../share/tessera/plugin_check/tls. Where
  // there is none, the TLS cases skip, saying where the kit looked.
  std::string transport_tls_dir;
};

// Runs the suites. Never throws and never crashes on a broken plugin it can detect: a plugin
// that does not load gives one failing "load" case naming the file and the reason.
Report RunChecks(const CheckOptions& options);

// The usage text of `tessera-plugin-check` (options and exit statuses).
std::string UsageText();

// The suite names RunChecks knows: "device", "kernels", "transport", "abi".
const std::vector<std::string>& KnownSuites();

// Usage: the argument list of `tessera-plugin-check` (without the program name). Fills
// `options`, `json`; returns "" or an error message for bad arguments.
std::string ParseArguments(const std::vector<std::string>& args, CheckOptions* options,
                           bool* json);

}  // namespace tessera::plugin_check

#endif  // TESSERA_PLUGIN_CHECK_CHECK_H_
