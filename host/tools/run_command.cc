// `tessera run`: read the graph and feeds, create a session, run, report.
#include "host/tools/run_command.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/client/npy.h"
#include "host/graph/graph.h"
#include "host/session/session.h"
#include "host/tools/chrome_trace.h"
#include "host/tools/tensor_summary.h"

namespace tessera {
namespace cli {
namespace {

absl::Status Fail(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(),
                      absl::StrCat("tessera run: ", context, ": ", status.message()));
}

absl::Status WriteOutputs(const RunArgs& args, const std::vector<Tensor>& outputs,
                          std::ostream& out) {
  std::error_code error;
  std::filesystem::create_directories(args.output_dir, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat("tessera run: cannot create output folder '",
                                                    args.output_dir, "': ", error.message()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path =
        (std::filesystem::path(args.output_dir) / OutputFileName(args.fetches[i])).string();
    absl::Status status = WriteNpy(outputs[i], path);
    if (!status.ok()) {
      return Fail(status, absl::StrCat("cannot write fetch '", args.fetches[i], "'"));
    }
    out << "wrote " << path << "\n";
  }
  return absl::OkStatus();
}

absl::Status WriteTrace(const std::string& path, const RunMetadata& metadata, std::ostream& out) {
  absl::Status status = WriteChromeTrace(metadata.step_stats, path);
  if (!status.ok()) return Fail(status, "cannot write the trace");
  size_t nodes = 0;
  for (const DeviceStepStats& device : metadata.step_stats.devices) nodes += device.nodes.size();
  size_t devices = metadata.step_stats.devices.size();
  out << "wrote trace " << path << " (" << nodes << (nodes == 1 ? " node" : " nodes") << " on "
      << devices << (devices == 1 ? " device" : " devices") << ")\n";
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCommand(const RunArgs& args, std::ostream& out) {
  // --timeout-ms bounds the whole call: reading, connecting and creating the session included.
  const auto start = std::chrono::steady_clock::now();
  const auto remaining_ms = [&]() -> int64_t {
    const int64_t spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    return args.timeout_ms - spent;
  };
  const auto out_of_time = [&](absl::string_view while_doing) {
    return absl::DeadlineExceededError(
        absl::StrCat("tessera run: --timeout-ms ", args.timeout_ms, " passed ", while_doing));
  };
  absl::StatusOr<tensorflow::GraphDef> graph = ReadGraphDefFile(args.graph_path);
  if (!graph.ok()) return Fail(graph.status(), "cannot read the graph");

  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [name, path] : args.feeds) {
    absl::StatusOr<Tensor> tensor = ReadNpy(path);
    if (!tensor.ok()) {
      return Fail(tensor.status(), absl::StrCat("cannot read feed '", name, "' from '", path, "'"));
    }
    feeds.emplace_back(name, *std::move(tensor));
  }

  SessionOptions options;
  options.target = args.server;
  options.plugin_paths = args.plugin_paths;
  options.plugin_policy = args.plugin_policy;
  options.inter_op_threads = args.inter_op_threads;
  options.intra_op_threads = args.intra_op_threads;
  options.allow_soft_placement = args.allow_soft_placement;
  options.op_fusion = args.op_fusion;
  options.log_device_placement = args.log_device_placement;
  options.device_count = args.device_count;
  if (args.timeout_ms > 0) {
    if (remaining_ms() <= 0) return out_of_time("before the session was created");
    // A cluster's session: connecting and creating it on the master get what is left.
    options.call_timeout_ms = remaining_ms();
  }
  // A local session takes the GraphDef's nodes instead of copying them; what is left of it goes
  // before the step runs.
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, *std::move(graph));
  graph = tensorflow::GraphDef();
  if (!session.ok()) {
    return Fail(session.status(), absl::StrCat("cannot load graph '", args.graph_path, "'"));
  }

  RunOptions run_options;
  run_options.collect_step_stats = !args.trace_path.empty();
  if (args.timeout_ms > 0) {
    if (remaining_ms() <= 0) return out_of_time("while the session was created");
    run_options.timeout_ms = remaining_ms();
  }
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  absl::Status status =
      (*session)->Run(run_options, feeds, args.fetches, args.targets, &outputs, &metadata);
  if (!status.ok()) return Fail(status, "the step failed");
  if (outputs.size() != args.fetches.size()) {
    return absl::InternalError(absl::StrCat("tessera run: the session returned ", outputs.size(),
                                            " tensors for ", args.fetches.size(), " fetches"));
  }

  out << FormatFetches(args.fetches, outputs);
  if (!args.output_dir.empty()) RETURN_IF_ERROR(WriteOutputs(args, outputs, out));
  if (!args.trace_path.empty()) RETURN_IF_ERROR(WriteTrace(args.trace_path, metadata, out));
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace tessera
