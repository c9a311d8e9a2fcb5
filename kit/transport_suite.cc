// The transport suite: every case of kit/transport_cases.h against every transport the plugin
// under test registers.
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kit/suite.h"
#include "kit/transport_cases.h"
#include "registry/transport_handle.h"

namespace tessera::plugin_check {
namespace {

// The installed certificates: <program folder>/../share/tessera/plugin_check/tls.
std::string InstalledTlsDir() {
  char path[4096];
  const ssize_t size = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (size <= 0) return "";
  const std::string program(path, static_cast<size_t>(size));
  const size_t slash = program.rfind('/');
  if (slash == std::string::npos) return "";
  return absl::StrCat(program.substr(0, slash), "/../share/tessera/plugin_check/tls");
}

TransportCaseOptions MakeCaseOptions(const CheckOptions* options) {
  TransportCaseOptions case_options;
  const bool given = options != nullptr && !options->transport_tls_dir.empty();
  const std::string dir = given ? options->transport_tls_dir : InstalledTlsDir();
  if (!dir.empty() && access(absl::StrCat(dir, "/ca.pem").c_str(), R_OK) == 0) {
    case_options.tls_data_dir = dir;
  } else {
    case_options.tls_missing_reason = absl::StrCat(
        "the kit's TLS test certificates are not in '", dir, "'",
        given ? "" : " (installed with the kit)", "; give their folder with --tls-data-dir");
  }
  return case_options;
}

CaseResult SuiteResult(std::string name, Outcome outcome, std::string message) {
  CaseResult result;
  result.suite = "transport";
  result.name = std::move(name);
  result.outcome = outcome;
  result.message = std::move(message);
  return result;
}

}  // namespace

void RunTransportSuite(const SuiteContext& context, std::vector<CaseResult>* results) {
  const PluginRecord& plugin = *context.plugin;
  std::vector<const TransportSpec*> specs;
  for (const TransportSpec& spec : context.registry->transports()) {
    if (spec.origin.plugin_name == plugin.name) specs.push_back(&spec);
  }
  if (specs.empty()) {
    results->push_back(SuiteResult(
        "transports", Outcome::kSkip,
        absl::StrCat("skipped: plugin '", plugin.name,
                     "' registers no transport (or only transports that a support plugin "
                     "ranking above it also provides: see the registry's warnings)")));
    return;
  }

  const TransportCaseOptions case_options = MakeCaseOptions(context.options);
  for (const TransportSpec* spec : specs) {
    const std::shared_ptr<PluginTransport> transport =
        PluginTransport::Create(*spec, context.registry->host_api());
    bool hung = false;
    std::string hung_case;
    for (const TransportCase& transport_case : TransportCases()) {
      if (hung) {
        results->push_back(SuiteResult(
            absl::StrCat(spec->name, "/", transport_case.name), Outcome::kSkip,
            absl::StrCat("skipped: case '", hung_case, "' hung in transport '", spec->name,
                         "', which is not trusted with more cases")));
        continue;
      }
      results->push_back(RunTransportCase(transport, transport_case, case_options, &hung));
      if (hung) hung_case = transport_case.name;
    }
  }
}

}  // namespace tessera::plugin_check
