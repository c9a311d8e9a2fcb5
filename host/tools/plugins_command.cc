// `tessera plugins`: the registry's text or JSON report.
#include "host/tools/plugins_command.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "registry/plugin_registry.h"

namespace tessera {
namespace cli {

absl::Status PluginsCommand(const PluginsArgs& args, std::ostream& out) {
  RegistryOptions options;
  options.plugin_paths = args.plugin_paths;
  options.policy = args.plugin_policy;
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  if (!registry.ok()) {
    return absl::Status(registry.status().code(),
                        absl::StrCat("tessera plugins: ", registry.status().message()));
  }
  out << (args.json ? (*registry)->FormatJson() : (*registry)->FormatText());
  if (args.json) out << "\n";
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace tessera
