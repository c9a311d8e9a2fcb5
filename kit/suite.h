// What every suite of the kit receives, and the suites themselves. Internal to kit/.
#ifndef TESSERA_KIT_SUITE_H_
#define TESSERA_KIT_SUITE_H_

#include <memory>
#include <string>
#include <vector>

#include "registry/plugin_registry.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {

struct SuiteContext {
  const CheckOptions* options = nullptr;
  // A registry holding the plugin under test and the support plugins (the CPU oracle).
  const PluginRegistry* registry = nullptr;
  // The plugin under test's record in `registry`.
  const PluginRecord* plugin = nullptr;
};

// Appends one CaseResult per case to `results`. Each suite decides which of the plugin's
// registrations it applies to and skips, with the reason, what it cannot run.
void RunDeviceSuite(const SuiteContext& context, std::vector<CaseResult>* results);
void RunKernelSuite(const SuiteContext& context, std::vector<CaseResult>* results);
void RunTransportSuite(const SuiteContext& context, std::vector<CaseResult>* results);
void RunAbiSuite(const SuiteContext& context, std::vector<CaseResult>* results);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_SUITE_H_
