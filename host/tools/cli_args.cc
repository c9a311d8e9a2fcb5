// Parsing of `tessera` arguments by hand: "--opt VALUE" and "--opt=VALUE", repeatable options.
#include "host/tools/cli_args.h"

#include <map>
#include <optional>
#include <set>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tessera/plugin_api/common.h"

#ifndef TESSERA_VERSION
#define TESSERA_VERSION "0.0.0"
#endif

namespace tessera {
namespace cli {
namespace {

absl::Status UsageError(absl::string_view command, absl::string_view message) {
  std::string prefix = command.empty() ? "tessera" : absl::StrCat("tessera ", command);
  return absl::InvalidArgumentError(absl::StrCat(prefix, ": ", message));
}

// TensorFlow's node-name rule: [A-Za-z0-9.][A-Za-z0-9_>./-]*.
bool IsNodeName(absl::string_view name) {
  if (name.empty()) return false;
  unsigned char first = static_cast<unsigned char>(name[0]);
  if (!absl::ascii_isalnum(first) && first != '.') return false;
  for (char c : name.substr(1)) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '>' &&
        c != '.' && c != '/' && c != '-') {
      return false;
    }
  }
  return true;
}

// "node" or "node:k".
bool IsTensorName(absl::string_view name) {
  size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) return IsNodeName(name);
  absl::string_view index = name.substr(colon + 1);
  int value;
  return IsNodeName(name.substr(0, colon)) && !index.empty() &&
         absl::c_all_of(index, [](char c) { return absl::ascii_isdigit(c); }) &&
         absl::SimpleAtoi(index, &value);
}

// Walks the arguments of one subcommand, splitting "--opt=VALUE".
class ArgReader {
 public:
  ArgReader(std::string command, const std::vector<std::string>& args, size_t start)
      : command_(std::move(command)), args_(args), pos_(start) {}

  bool Done() const { return pos_ >= args_.size(); }

  // The next argument; for "--opt=VALUE" the option part, with the value kept for Value().
  std::string Next() {
    const std::string& arg = args_[pos_++];
    pending_value_.reset();
    size_t eq = arg.find('=');
    if (absl::StartsWith(arg, "--") && eq != std::string::npos) {
      pending_value_ = arg.substr(eq + 1);
      return arg.substr(0, eq);
    }
    return arg;
  }

  // The value of option `option`: the "=VALUE" part or the following argument.
  absl::StatusOr<std::string> Value(absl::string_view option, absl::string_view what) {
    if (pending_value_.has_value()) {
      std::string value = std::move(*pending_value_);
      pending_value_.reset();
      return value;
    }
    if (Done()) return UsageError(command_, absl::StrCat(option, " needs a value (", what, ")"));
    return args_[pos_++];
  }

  // An option that takes no value must not be given one.
  absl::Status NoValue(absl::string_view option) {
    if (!pending_value_.has_value()) return absl::OkStatus();
    return UsageError(command_, absl::StrCat(option, " takes no value, got '", *pending_value_,
                                             "'"));
  }

 private:
  std::string command_;
  const std::vector<std::string>& args_;
  size_t pos_;
  std::optional<std::string> pending_value_;
};

bool IsHelp(absl::string_view arg) { return arg == "--help" || arg == "-h"; }

absl::StatusOr<int> ParseThreads(absl::string_view option, absl::string_view value) {
  int n;
  if (!absl::SimpleAtoi(value, &n) || n < 0) {
    return UsageError("run", absl::StrCat(option, " expects a non-negative integer, got '", value,
                                          "'"));
  }
  return n;
}

// A device type as the placer spells it: a letter, then letters, digits or '_'.
bool IsDeviceType(absl::string_view type) {
  if (type.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(type[0]))) return false;
  return absl::c_all_of(type, [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Records the count of one device type; `given` is the option as the user wrote it, for messages.
absl::Status SetDeviceCount(const std::string& type, int count, const std::string& given,
                            std::map<std::string, std::string>* given_by, RunArgs* run) {
  if (type == "CPU" && count < 1) {
    return UsageError("run", absl::StrCat(given, ": at least one CPU device is needed, got ",
                                          count));
  }
  auto [it, inserted] = given_by->emplace(type, given);
  if (!inserted) {
    return UsageError("run", absl::StrCat("the device count of ", type, " is given twice: '",
                                          it->second, "' and '", given, "'"));
  }
  run->device_count[type] = count;
  return absl::OkStatus();
}

// "--cpu-devices N" with N >= 1.
absl::Status ParseCpuDevices(absl::string_view value, std::map<std::string, std::string>* given_by,
                             RunArgs* run) {
  int n;
  if (!absl::SimpleAtoi(value, &n) || n < 1) {
    return UsageError("run", absl::StrCat("--cpu-devices expects an integer >= 1, got '", value,
                                          "'"));
  }
  return SetDeviceCount("CPU", n, absl::StrCat("--cpu-devices ", value), given_by, run);
}

// "--device-count TYPE=N" with N >= 0 (>= 1 for CPU); TYPE is case-insensitive.
absl::Status ParseDeviceCount(absl::string_view value,
                              std::map<std::string, std::string>* given_by, RunArgs* run) {
  size_t eq = value.find('=');
  if (eq == absl::string_view::npos || eq == 0 || eq + 1 == value.size()) {
    return UsageError("run", absl::StrCat("--device-count expects TYPE=N, got '", value, "'"));
  }
  absl::string_view type = value.substr(0, eq);
  absl::string_view count = value.substr(eq + 1);
  if (!IsDeviceType(type)) {
    return UsageError("run", absl::StrCat("--device-count expects a device type (a letter, then "
                                          "letters, digits or '_') before '=', got '", type,
                                          "'"));
  }
  int n;
  if (!absl::SimpleAtoi(count, &n) || n < 0) {
    return UsageError("run", absl::StrCat("--device-count expects a count >= 0 after '=', got '",
                                          count, "' in '", value, "'"));
  }
  return SetDeviceCount(absl::AsciiStrToUpper(type), n, absl::StrCat("--device-count ", value),
                        given_by, run);
}

absl::Status ParseRun(const std::vector<std::string>& args, CliArgs* out) {
  RunArgs& run = out->run;
  ArgReader reader("run", args, 1);
  std::set<std::string> fed;
  std::map<std::string, std::string> device_count_given_by;
  while (!reader.Done()) {
    std::string arg = reader.Next();
    if (IsHelp(arg)) {
      out->command = Command::kHelp;
      out->help_topic = "run";
      return absl::OkStatus();
    }
    if (arg == "--feed") {
      absl::StatusOr<std::string> value = reader.Value(arg, "NAME=FILE.npy");
      if (!value.ok()) return value.status();
      size_t eq = value->find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value->size()) {
        return UsageError("run", absl::StrCat("--feed expects NAME=FILE.npy, got '", *value, "'"));
      }
      std::string name = value->substr(0, eq);
      if (!IsTensorName(name)) {
        return UsageError("run", absl::StrCat("--feed expects a tensor name NODE or NODE:INDEX "
                                              "before '=', got '", name, "'"));
      }
      if (!fed.insert(name).second) {
        return UsageError("run", absl::StrCat("tensor '", name, "' is fed twice"));
      }
      run.feeds.emplace_back(name, value->substr(eq + 1));
    } else if (arg == "--fetch") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a tensor name NODE or NODE:INDEX");
      if (!value.ok()) return value.status();
      if (!IsTensorName(*value)) {
        return UsageError("run", absl::StrCat("--fetch expects a tensor name NODE or NODE:INDEX, "
                                              "got '", *value, "'"));
      }
      run.fetches.push_back(*value);
    } else if (arg == "--target") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a node name");
      if (!value.ok()) return value.status();
      if (!IsNodeName(*value)) {
        return UsageError("run", absl::StrCat("--target expects a node name, got '", *value, "'"));
      }
      run.targets.push_back(*value);
    } else if (arg == "--output-dir") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a folder");
      if (!value.ok()) return value.status();
      if (value->empty()) return UsageError("run", "--output-dir expects a folder, got ''");
      run.output_dir = *value;
    } else if (arg == "--plugin") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a manifest file or folder");
      if (!value.ok()) return value.status();
      run.plugin_paths.push_back(*value);
    } else if (arg == "--inter-op-threads" || arg == "--intra-op-threads") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a number of threads");
      if (!value.ok()) return value.status();
      absl::StatusOr<int> n = ParseThreads(arg, *value);
      if (!n.ok()) return n.status();
      (arg == "--inter-op-threads" ? run.inter_op_threads : run.intra_op_threads) = *n;
    } else if (arg == "--trace") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a .json file");
      if (!value.ok()) return value.status();
      if (value->empty()) return UsageError("run", "--trace expects a .json file, got ''");
      run.trace_path = *value;
    } else if (arg == "--log-device-placement" || arg == "--soft-placement") {
      absl::Status status = reader.NoValue(arg);
      if (!status.ok()) return status;
      (arg == "--log-device-placement" ? run.log_device_placement : run.allow_soft_placement) =
          true;
    } else if (arg == "--cpu-devices") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a number of CPU devices");
      if (!value.ok()) return value.status();
      absl::Status status = ParseCpuDevices(*value, &device_count_given_by, &run);
      if (!status.ok()) return status;
    } else if (arg == "--device-count") {
      absl::StatusOr<std::string> value = reader.Value(arg, "TYPE=N");
      if (!value.ok()) return value.status();
      absl::Status status = ParseDeviceCount(*value, &device_count_given_by, &run);
      if (!status.ok()) return status;
    } else if (absl::StartsWith(arg, "-") && arg != "-") {
      return UsageError("run", absl::StrCat("unknown option '", arg, "' (see 'tessera run --help')"));
    } else if (run.graph_path.empty()) {
      run.graph_path = arg;
    } else {
      return UsageError("run", absl::StrCat("unexpected argument '", arg, "'; the graph is already '",
                                            run.graph_path, "'"));
    }
  }
  if (run.graph_path.empty()) {
    return UsageError("run", "missing GRAPH (a .pb or .pbtxt file; see 'tessera run --help')");
  }
  if (run.fetches.empty() && run.targets.empty()) {
    return UsageError("run", "nothing to run; give at least one --fetch or --target");
  }
  return absl::OkStatus();
}

absl::Status ParsePlugins(const std::vector<std::string>& args, CliArgs* out) {
  ArgReader reader("plugins", args, 1);
  while (!reader.Done()) {
    std::string arg = reader.Next();
    if (IsHelp(arg)) {
      out->command = Command::kHelp;
      out->help_topic = "plugins";
      return absl::OkStatus();
    }
    if (arg == "--json") {
      absl::Status status = reader.NoValue(arg);
      if (!status.ok()) return status;
      out->plugins.json = true;
    } else if (arg == "--plugin") {
      absl::StatusOr<std::string> value = reader.Value(arg, "a manifest file or folder");
      if (!value.ok()) return value.status();
      out->plugins.plugin_paths.push_back(*value);
    } else if (absl::StartsWith(arg, "-")) {
      return UsageError("plugins", absl::StrCat("unknown option '", arg,
                                                "' (see 'tessera plugins --help')"));
    } else {
      return UsageError("plugins", absl::StrCat("unexpected argument '", arg,
                                                "'; plugin paths are given with --plugin"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CliArgs> ParseCliArgs(const std::vector<std::string>& args) {
  CliArgs out;
  if (args.empty()) {
    return UsageError("", "missing command; expected 'run' or 'plugins' (see 'tessera --help')");
  }
  const std::string& first = args[0];
  if (IsHelp(first) || first == "help") {
    out.command = Command::kHelp;
    if (first == "help" && args.size() > 1) {
      if (CommandUsage(args[1]).empty()) {
        return UsageError("help", absl::StrCat("unknown command '", args[1],
                                               "'; expected 'run' or 'plugins'"));
      }
      out.help_topic = args[1];
    }
    return out;
  }
  if (first == "--version" || first == "-V") {
    out.command = Command::kVersion;
    return out;
  }
  absl::Status status;
  if (first == "run") {
    out.command = Command::kRun;
    status = ParseRun(args, &out);
  } else if (first == "plugins") {
    out.command = Command::kPlugins;
    status = ParsePlugins(args, &out);
  } else if (absl::StartsWith(first, "-")) {
    return UsageError("", absl::StrCat("unknown option '", first, "' (see 'tessera --help')"));
  } else {
    return UsageError("", absl::StrCat("unknown command '", first,
                                       "'; expected 'run' or 'plugins' (see 'tessera --help')"));
  }
  if (!status.ok()) return status;
  return out;
}

std::string ProgramUsage() {
  return R"(usage: tessera <command> [options]

Runs TensorFlow-style graphs (GraphDef .pb/.pbtxt) with plugin devices and kernels.

commands:
  run       run one step of a graph: feed .npy files, print and save fetched tensors
  plugins   list the plugins found, what they provide, and why any was rejected

options:
  -h, --help      show this help ('tessera <command> --help' for a command's options)
  -V, --version   show the version of the program and of the plugin ABI

example:
  tessera run examples/mlp/mlp.pb --feed x=examples/mlp/input.npy \
      --fetch probabilities --fetch predicted_class
)";
}

std::string CommandUsage(const std::string& command) {
  if (command.empty()) return ProgramUsage();
  if (command == "run") {
    return R"(usage: tessera run GRAPH [options]

Runs one step of GRAPH (a GraphDef: binary .pb or text .pbtxt) and prints each fetched tensor:
its name, type, shape and first values.

options:
  --feed NAME=FILE.npy     feed tensor NAME ("node" or "node:k") with a .npy file (repeatable)
  --fetch TENSOR           fetch TENSOR ("node" or "node:k") (repeatable)
  --target NODE            run NODE without fetching anything from it (repeatable)
  --output-dir DIR         also write each fetch to DIR/<name>.npy, with '/' and ':' in the
                           name replaced by '_' (DIR is created if missing)
  --plugin PATH            load the plugin manifest PATH, or every manifest in folder PATH,
                           before TESSERA_PLUGIN_PATH and the installed plugins (repeatable)
  --inter-op-threads N     threads that run graph nodes (0: one per core; the default)
  --intra-op-threads N     threads kernels may use (0: one per core; the default)
  --trace FILE.json        record every node the step runs and write a Chrome / Perfetto trace
                           to FILE.json (open it in chrome://tracing or ui.perfetto.dev)
  --log-device-placement   print "node (op): device" to stderr for every node when placing
  --soft-placement         place a node whose requested device cannot be had on another one
                           instead of failing
  --cpu-devices N          create N CPU devices, /device:CPU:0 to /device:CPU:N-1 (N >= 1;
                           default 1)
  --device-count TYPE=N    create N devices of TYPE (e.g. GPU=1; 0 creates none)
                           (repeatable, one per type)
  -h, --help               show this help

At least one --fetch or --target is required. Exit status: 0 on success, 1 when the run
fails, 2 for a usage error.
)";
  }
  if (command == "plugins") {
    return R"(usage: tessera plugins [--json] [--plugin PATH]...

Lists every plugin found (explicit --plugin paths, then TESSERA_PLUGIN_PATH, then the installed
plugin folder), its state, what it provides and the reason for any rejection, and ranks the
providers of each device type.

options:
  --json          print the same as JSON
  --plugin PATH   also consider the manifest PATH or the manifests in folder PATH (repeatable)
  -h, --help      show this help
)";
  }
  return "";
}

std::string VersionString() {
  return absl::StrCat("tessera ", TESSERA_VERSION, " (plugin ABI ", TSR_ABI_VERSION_MAJOR, ".",
                      TSR_ABI_VERSION_MINOR, ")");
}

}  // namespace cli
}  // namespace tessera
