// The command line of `tessera-plugin-check`: ParseArguments, KnownSuites and UsageText.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

// True for [A-Z][A-Z0-9_]*, the form of a device type name.
bool IsDeviceTypeName(const std::string& name) {
  if (name.empty() || name[0] < 'A' || name[0] > 'Z') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Parses a non-negative decimal integer; false when `text` is not one or overflows.
bool ParseUnsigned(const std::string& text, uint64_t* value) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    return false;
  }
  errno = 0;
  const unsigned long long parsed = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return false;
  *value = parsed;
  return true;
}

std::string ParseSuites(const std::string& value, std::vector<std::string>* suites) {
  suites->clear();
  for (absl::string_view piece : absl::StrSplit(value, ',')) {
    const std::string suite(piece);
    const std::vector<std::string>& known = KnownSuites();
    if (std::find(known.begin(), known.end(), suite) == known.end()) {
      return absl::StrCat("--suite: unknown suite '", suite,
                          "' (expected a comma-separated list of ", absl::StrJoin(known, ", "),
                          ")");
    }
    if (std::find(suites->begin(), suites->end(), suite) == suites->end()) {
      suites->push_back(suite);
    }
  }
  return "";
}

}  // namespace

const std::vector<std::string>& KnownSuites() {
  static const std::vector<std::string>* suites =
      new std::vector<std::string>{"device", "kernels", "transport", "abi"};
  return *suites;
}

std::string UsageText() {
  return "usage: tessera-plugin-check --plugin PATH [--suite device,kernels,transport,abi]\n"
         "                            [--device TYPE] [--support PATH]... [--seed N]\n"
         "                            [--large-allocation-bytes N] [--tls-data-dir DIR]\n"
         "                            [--json]\n"
         "Checks a Tessera plugin (its manifest NAME.tessera-plugin.json, or the folder holding\n"
         "it) against the conformance suites and prints one line per case.\n"
         "  --plugin PATH       the plugin under test\n"
         "  --suite LIST        suites to run (default: every suite that applies)\n"
         "  --device TYPE       only this device type (default: every type the plugin registers)\n"
         "  --support PATH      where the CPU oracle and other needed plugins are (repeatable;\n"
         "                      default: the installed plugin folder, then TESSERA_PLUGIN_PATH)\n"
         "  --seed N            seed of the kernel suite's random inputs (default 1)\n"
         "  --large-allocation-bytes N\n"
         "                      bound of the device suite's large allocations (default 256 MiB)\n"
         "  --tls-data-dir DIR  the transport suite's TLS certificates (default: the kit's\n"
         "                      installed copy, share/tessera/plugin_check/tls)\n"
         "  --json              print the report as JSON\n"
         "Exit status: 0 when no case failed and one passed, 1 when a case failed,\n"
         "2 for bad arguments.\n";
}

std::string ParseArguments(const std::vector<std::string>& args, CheckOptions* options,
                           bool* json) {
  *options = CheckOptions();
  *json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool has_value = false;
    if (const size_t equals = flag.find('=');
        flag.rfind("--", 0) == 0 && equals != std::string::npos) {
      value = flag.substr(equals + 1);
      flag = flag.substr(0, equals);
      has_value = true;
    }
    if (flag == "--json") {
      if (has_value) return "--json takes no value";
      *json = true;
      continue;
    }
    const bool takes_value = flag == "--plugin" || flag == "--suite" || flag == "--device" ||
                             flag == "--support" || flag == "--seed" ||
                             flag == "--large-allocation-bytes" || flag == "--tls-data-dir";
    if (!takes_value) {
      if (flag.rfind("-", 0) == 0) {
        return absl::StrCat("unknown option '", flag, "' (see --help)");
      }
      return absl::StrCat("unexpected argument '", flag,
                          "' (the plugin is given with --plugin PATH)");
    }
    if (!has_value) {
      if (i + 1 >= args.size()) return absl::StrCat(flag, " needs a value");
      value = args[++i];
    }
    if (value.empty()) return absl::StrCat(flag, " needs a non-empty value");
    if (flag == "--plugin") {
      if (!options->plugin_path.empty()) {
        return absl::StrCat("--plugin given twice ('", options->plugin_path, "' and '", value,
                            "'): check one plugin at a time");
      }
      options->plugin_path = value;
    } else if (flag == "--suite") {
      if (std::string error = ParseSuites(value, &options->suites); !error.empty()) return error;
    } else if (flag == "--device") {
      if (!IsDeviceTypeName(value)) {
        return absl::StrCat("--device: '", value,
                            "' is not a device type name ([A-Z][A-Z0-9_]*, e.g. CPU)");
      }
      options->device_type = value;
    } else if (flag == "--support") {
      options->support_plugin_paths.push_back(value);
    } else if (flag == "--tls-data-dir") {
      options->transport_tls_dir = value;
    } else if (flag == "--seed") {
      if (!ParseUnsigned(value, &options->seed)) {
        return absl::StrCat("--seed: '", value, "' is not a non-negative integer");
      }
    } else {  // --large-allocation-bytes
      if (!ParseUnsigned(value, &options->large_allocation_bytes) ||
          options->large_allocation_bytes == 0) {
        return absl::StrCat("--large-allocation-bytes: '", value,
                            "' is not a positive integer (bytes)");
      }
    }
  }
  if (options->plugin_path.empty()) return "--plugin PATH is required";
  return "";
}

}  // namespace tessera::plugin_check
