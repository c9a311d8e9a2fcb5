// The transport suite's cases, each a plain function over one transport, and the runner that
// bounds each one. RunTransportSuite runs them for every transport a plugin registers;
// tests/conformance runs them for every transport of the build. Internal to kit/.
#ifndef TESSERA_KIT_TRANSPORT_CASES_H_
#define TESSERA_KIT_TRANSPORT_CASES_H_

#include <memory>
#include <vector>

#include "kit/transport_fixture.h"
#include "registry/transport_handle.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {

struct TransportCase {
  const char* name;  // e.g. "call_roundtrip"; the result is named "<transport>/<name>"
  void (*run)(CaseRun& run);
};

// Every case, in the order the suite runs them: calls, tensor pulls, failures and lifetimes,
// servers and options, TLS.
const std::vector<TransportCase>& TransportCases();

// The cases of each group (transport_*_cases.cc).
void AppendCallCases(std::vector<TransportCase>* cases);
void AppendPullCases(std::vector<TransportCase>* cases);
void AppendFailureCases(std::vector<TransportCase>* cases);
void AppendTlsCases(std::vector<TransportCase>* cases);

// Runs `transport_case` against `transport` on a thread of its own. A case still running after
// options.case_bound fails as hung ("did not finish within ...") and is abandoned on its thread,
// with everything it holds; `hung` (optional) is then set, and the transport should not be
// trusted with more cases.
CaseResult RunTransportCase(const std::shared_ptr<PluginTransport>& transport,
                            const TransportCase& transport_case,
                            const TransportCaseOptions& options, bool* hung = nullptr);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_TRANSPORT_CASES_H_
