// The option machinery every `tessera` command parses with (cli_args.cc): usage errors, options
// on CLI11, names, numbers and targets, and the option groups several commands share.
#ifndef TESSERA_HOST_TOOLS_CLI_OPTIONS_H_
#define TESSERA_HOST_TOOLS_CLI_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "registry/plugin_policy.h"

namespace tessera {
namespace cli {

// INVALID_ARGUMENT "tessera <command>: <message>" ("tessera: ..." without a command).
absl::Status UsageError(absl::string_view command, absl::string_view message);

// TensorFlow's node-name rule: [A-Za-z0-9.][A-Za-z0-9_>./-]*.
bool IsNodeName(absl::string_view name);
// "node" or "node:k".
bool IsTensorName(absl::string_view name);

// One option of a subcommand: its name, what its value is (empty for a flag, which takes none)
// and what to do with each occurrence, in command-line order.
struct OptionSpec {
  std::string name;
  std::string what;
  std::function<absl::Status(const std::string& value)> handle;
};

// Parses the arguments of `command` (args[0] is the command) on CLI11: options by name, one
// value each (the next argument or "=VALUE"), repeatable; flags without a value. Each occurrence
// is handed to its spec's handler in command-line order, then every other argument to
// `argument` in order (an unknown option included: it starts with '-'). The first error ends it.
absl::Status ParseOptions(const std::string& command, const std::vector<std::string>& args,
                          const std::vector<OptionSpec>& specs,
                          const std::function<absl::Status(const std::string&)>& argument);

// A number of milliseconds >= 1 given to `option`.
absl::StatusOr<int64_t> ParseTimeoutMs(absl::string_view option, absl::string_view value,
                                       absl::string_view command = "serve");
// A number of threads >= 0 given to `option`.
absl::StatusOr<int> ParseThreads(absl::string_view command, absl::string_view option,
                                 absl::string_view value);

// A device type as the placer spells it: a letter, then letters, digits or '_'.
bool IsDeviceType(absl::string_view type);

// The device counts of one command line (--cpu-devices, --device-count), with the option that
// set each type, for messages.
class DeviceCountReader {
 public:
  DeviceCountReader(std::string command, std::map<std::string, int>* device_count)
      : command_(std::move(command)), device_count_(device_count) {}

  // "--cpu-devices N" with N >= 1.
  absl::Status ParseCpuDevices(absl::string_view value);
  // "--device-count TYPE=N" with N >= 0 (>= 1 for CPU); TYPE is case-insensitive.
  absl::Status ParseDeviceCount(absl::string_view value);

 private:
  // Records the count of one device type; `given` is the option as the user wrote it.
  absl::Status Set(const std::string& type, int count, const std::string& given);

  std::string command_;
  std::map<std::string, int>* device_count_;
  std::map<std::string, std::string> given_by_;
};

// "host:port" with a port in 1..65535 (the host is checked by whoever connects).
bool IsHostPort(absl::string_view address);
// A distributed session target: "SCHEME://HOST:PORT" with a lower-case scheme ("grpc").
bool IsServerTarget(absl::string_view target);

// --plugin-allow, --plugin-require-sha256, --plugin-prefer and --plugin-config: the plugin
// policy of every command that loads plugins. Each setting's source is named after its option.
void AddPluginPolicyOptions(const std::string& command, PluginPolicyOptions* policy,
                            std::vector<OptionSpec>* specs);
// Options that are the same in `tessera run` and `tessera serve`: --plugin, the thread counts,
// --cpu-devices, --device-count and --device-option TYPE:KEY=VALUE.
void AddRuntimeOptions(const std::string& command, std::vector<std::string>* plugin_paths,
                       int* inter_op_threads, int* intra_op_threads,
                       DeviceCountReader* device_counts,
                       std::map<std::string, std::map<std::string, std::string>>* device_options,
                       std::vector<OptionSpec>* specs);

// "--device-option GPU:allow_tf32=false" into (*device_options)["GPU"]["allow_tf32"]; the type is
// case-insensitive, a key given twice for a type is a usage error.
absl::Status ParseDeviceOption(absl::string_view command, absl::string_view value,
                               std::map<std::string, std::map<std::string, std::string>>* device_options);

// "--tag-set serve,gpu": non-empty tags separated by commas.
absl::StatusOr<std::vector<std::string>> ParseTagSet(absl::string_view command,
                                                     absl::string_view value);
// The options naming a SavedModel or MetaGraph that `tessera run` and `tessera show` share:
// --saved-model, --tag-set and --signature-def, each given at most once.
void AddSavedModelOptions(const std::string& command, std::string* saved_model_dir,
                          std::vector<std::string>* tags, std::string* signature_key,
                          std::vector<OptionSpec>* specs);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_CLI_OPTIONS_H_
