// What a plugin registered, as comparable lines, and a quick check that its devices work: how
// the ABI suite compares a plugin loaded by hosts of different minors. Internal to kit/.
#ifndef TESSERA_KIT_REGISTRATION_SUMMARY_H_
#define TESSERA_KIT_REGISTRATION_SUMMARY_H_

#include <string>
#include <vector>

#include "registry/plugin_registry.h"

namespace tessera::plugin_check {

// One sorted line per registration of `plugin_name` in `registry`: device types (priority,
// flags, which optional slots are set), ops (arguments, attributes), kernels (op, device type,
// dtypes, priority, flags) and transports (capabilities).
std::vector<std::string> SummarizeRegistrations(const PluginRegistry& registry,
                                                const std::string& plugin_name);

// "" when equal, otherwise the lines only one side has.
std::string CompareSummaries(const std::vector<std::string>& expected,
                             const std::vector<std::string>& actual);

// Creates device 0 of each device type `plugin_name` registers, allocates 4096 bytes, writes them,
// reads them back and frees them: "" or the first problem.
std::string SmokeTestDevices(const PluginRegistry& registry, const std::string& plugin_name);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_REGISTRATION_SUMMARY_H_
