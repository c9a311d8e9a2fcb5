// tessera-plugin-check: runs the conformance kit against one plugin and prints the report.
// Exit status: 0 when the report is ok (no case failed, one passed), 1 otherwise, 2 for bad
// arguments.
#include <iostream>
#include <string>
#include <vector>

#include "tessera/plugin_check/check.h"

int main(int argc, char** argv) {
  namespace check = tessera::plugin_check;
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      std::cout << check::UsageText();
      return 0;
    }
  }
  check::CheckOptions options;
  bool json = false;
  if (std::string error = check::ParseArguments(args, &options, &json); !error.empty()) {
    std::cerr << "tessera-plugin-check: " << error << "\n" << check::UsageText();
    return 2;
  }
  const check::Report report = check::RunChecks(options);
  std::cout << (json ? report.ToJson() + "\n" : report.ToText());
  return report.ok() ? 0 : 1;
}
